"""Routes whose URL builders are made when first used.

For each route, werkzeug writes and compiles Python code that builds the route's URLs
(``url_for``), twice, when the route is added: four fifths of making an app with our 46
routes. A server makes an app once per worker and builds few URLs; the test suite makes
thousands of apps and builds almost none. So the builders are made the first time a URL is
built from the route (the same code werkzeug makes: ``tests/api/test_routing.py`` builds every
route's URL both ways and compares).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from werkzeug.routing import Rule


class RuleBuildingOnFirstUse(Rule):
    """A werkzeug ``Rule`` whose URL builders are compiled on their first use (werkzeug==3.1.9,
    pinned: ``Rule.compile`` binds ``_compile_builder(False)`` and ``(True)`` as the rule's
    ``_build`` and ``_build_unknown``)."""

    def _compile_builder(self, append_unknown: bool = True) -> Callable[..., tuple[str, str]]:
        compile_now = super()._compile_builder
        attribute = "_build_unknown" if append_unknown else "_build"

        def build_after_compiling(rule: Rule, *args: Any, **kwargs: Any) -> tuple[str, str]:
            built = compile_now(append_unknown).__get__(rule, None)
            setattr(rule, attribute, built)  # later builds call werkzeug's own builder
            return built(*args, **kwargs)

        return build_after_compiling
