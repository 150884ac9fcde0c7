"""What a number of points is worth: the fives scoring of a count, and rounding to five.

The one home of these rules in Python (docs/rules.md, sections 5, 7, 9 and 11). The count
itself is ``Layout``'s (``count()`` for the table, ``count_after()`` for a play not yet
made); what it scores is ``fives_points``. The engine, the state's effects, the listed
actions' ``scores`` hints, the server's muggins claims, the views and the bots all ask
these, so a change to how a count scores is made once in Python. The JavaScript in
``clients/js`` is a second implementation on purpose: the replayer checks the rule book
independently; the golden vectors and its tests hold it to this one. (The bots are
Python's alone: ``boneyard verify`` and ``/fairness`` make their decisions again.)
"""

from __future__ import annotations


def fives_points(count: int) -> int:
    """The points ``count`` (``Layout.count()``: the open ends' sum) scores under
    ``fives_scoring``: the count itself when it is a positive multiple of 5, else 0."""
    return count if count > 0 and count % 5 == 0 else 0


def round_to_five(points: int) -> int:
    """Nearest multiple of five; …2 rounds down, …3 up."""
    return (points + 2) // 5 * 5


def hand_award(side_pips: list[int], out_side: int | None, minus_own: bool, rounded: bool) -> tuple[int | None, int]:
    """Which side a finished hand pays, and how much (docs/rules.md, sections 5 and 7).

    ``side_pips`` are the pips left in each side's hands; ``out_side`` is the side of the
    seat that went out (None: the hand blocked). Going out scores every other side's pips.
    Blocked, the lightest side scores the others' pips (less its own when ``minus_own``,
    ``blocked_scoring: others_minus_own``); a tie for lightest pays nobody: ``(None, 0)``.
    ``rounded`` is ``round_to_five``. The engine and the bots' exact search both ask here.
    """
    total = sum(side_pips)
    if out_side is not None:
        side = out_side
        points = total - side_pips[side]
    else:
        low = min(side_pips)
        if side_pips.count(low) > 1:
            return None, 0
        side = side_pips.index(low)
        points = total - low - low if minus_own else total - low
    return side, round_to_five(points) if rounded else points


__all__ = ["fives_points", "hand_award", "round_to_five"]
