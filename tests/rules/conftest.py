"""Local setup for the rules-engine tests.

Hypothesis profiles for the engine's property tests; the long runs are marked ``slow``
(``scripts/test --quick`` leaves them out; the full run keeps them, their sizes scaled by
``BONEYARD_LONG_RUNS``, see tests/long_runs.py).
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings

# Hypothesis profiles for this folder, used as decorators (never loaded globally, so other
# folders' settings are untouched): a quick default and the long, slow-marked runs.
settings.register_profile(
    "rules-quick",
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "rules-slow",
    max_examples=2000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
