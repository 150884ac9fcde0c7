"""Local setup for the rules-engine tests.

The engine (``api.rules``) is standard-library only, but ``api/__init__.py`` wires the web
shell and imports Flask & co.  When those are not installed (the bare system python), load
``api`` as a plain namespace so the pure engine can still be tested on its own.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path

from hypothesis import HealthCheck, settings

try:  # pragma: no cover - depends on the interpreter
    import api  # noqa: F401
except ImportError:  # pragma: no cover
    _pkg = types.ModuleType("api")
    _pkg.__path__ = [str(Path(__file__).resolve().parents[2] / "api")]
    sys.modules["api"] = _pkg

# Hypothesis profiles for this folder, used as decorators (never loaded globally, so other
# folders' settings are untouched): a quick default and the long, slow-marked runs.
settings.register_profile("rules-quick", max_examples=60, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("rules-slow", max_examples=2000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def pytest_configure(config):
    # pyproject.toml registers ``slow``; register it here only when it is missing.
    markers = config.getini("markers")
    if not any(str(m).split(":")[0].strip() == "slow" for m in markers):
        config.addinivalue_line("markers", "slow: long property runs")


def pytest_collection_modifyitems(config, items):
    """The default run stays fast: slow-marked tests of this folder run only with ``-m slow``."""
    if config.getoption("markexpr", ""):
        return
    here = Path(__file__).resolve().parent
    skip = __import__("pytest").mark.skip(reason="long run: select it with -m slow")
    for item in items:
        if "slow" in item.keywords and here in Path(str(item.fspath)).resolve().parents:
            item.add_marker(skip)
