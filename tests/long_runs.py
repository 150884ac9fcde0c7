"""How many cases the long (``slow``) property and fuzz runs try: one knob for all of them.

The sizes written in the tests are what fits the suite's time budget (README, "Quick start") on
a 2-core machine. ``BONEYARD_LONG_RUNS=N`` multiplies every long run's number of cases by
``N`` (a number, e.g. ``10`` for a soak before a release, ``0.2`` for a smoke run), so the
same checks can be run as long as one likes without editing a test.
"""

from __future__ import annotations

import os


def _factor() -> float:
    raw = os.environ.get("BONEYARD_LONG_RUNS", "1")
    try:
        factor = float(raw)
    except ValueError:
        raise ValueError(f"BONEYARD_LONG_RUNS={raw!r}: expected a positive number, e.g. 1 or 10") from None
    if not factor > 0:
        raise ValueError(f"BONEYARD_LONG_RUNS={raw!r}: expected a positive number, e.g. 1 or 10")
    return factor


LONG_RUNS = _factor()


def long_run(cases: int) -> int:
    """``cases`` scaled by ``BONEYARD_LONG_RUNS`` (at least one)."""
    return max(1, round(cases * LONG_RUNS))
