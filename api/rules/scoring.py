"""What a number of points is worth: the fives scoring of a count, and rounding to five.

The one home of these two rules (docs/rules.md, sections 9 and 11): the engine, the
state's effects, the listed actions' ``scores`` hints and the bots all ask here, so a
change to how a count scores is made once. (The JavaScript replayer in ``clients/js``
implements the rule book on its own, on purpose; the golden vectors hold both to it.)
"""

from __future__ import annotations


def fives_points(count: int) -> int:
    """The points ``count`` (``Layout.count()``: the open ends' sum) scores under
    ``fives_scoring``: the count itself when it is a positive multiple of 5, else 0."""
    return count if count > 0 and count % 5 == 0 else 0


def round_to_five(points: int) -> int:
    """Nearest multiple of five; …2 rounds down, …3 up."""
    return (points + 2) // 5 * 5


__all__ = ["fives_points", "round_to_five"]
