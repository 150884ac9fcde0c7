"""What points are worth: the count's scoring, a finished hand's award, rounding, the exact target.

The one home of these rules in Python (docs/rules.md, sections 9, 10 and 11). The count
itself is ``Layout``'s (``count()`` for the table, ``count_after()`` for a play not yet
made); what it scores is ``count_points``. The engine, the state's effects, the listed
actions' ``scores`` hints, the server's muggins claims, the views and the bots all ask
these, so a change to how a count or a hand scores is made once in Python. The JavaScript in
``clients/js`` is a second implementation on purpose: the replayer checks the rule book
independently; the golden vectors and its tests hold it to this one. (The bots are
Python's alone: ``boneyard verify`` and ``/fairness`` make their decisions again.)
"""

from __future__ import annotations

from math import gcd
from typing import NamedTuple

from .vocabulary import EndCountScoring

_FIVES, _FIVES_AND_THREES = EndCountScoring.FIVES, EndCountScoring.FIVES_AND_THREES


def count_points(count: int, scoring: EndCountScoring) -> int:
    """The points ``count`` (``Layout.count()``: the open ends' sum) scores under ``scoring``
    (the ``end_count_scoring`` option): under ``fives`` the count itself when it is a positive
    multiple of 5; under ``fives_and_threes`` a point per five in it when 5 divides it plus a
    point per three when 3 divides it (15 scores 3 + 5 = 8); nothing under ``none``."""
    if count <= 0:
        return 0
    if scoring is _FIVES:
        return count if count % 5 == 0 else 0
    if scoring is _FIVES_AND_THREES:
        return (0 if count % 5 else count // 5) + (0 if count % 3 else count // 3)
    return 0


def round_to_five(points: int) -> int:
    """Nearest multiple of five; …2 rounds down, …3 up."""
    return (points + 2) // 5 * 5


def credited(points: int, score: int, target: int, exact: bool) -> int:
    """The points a side on ``score`` is credited with when it makes ``points``: all of them,
    except under ``exact_target`` when they would take it past ``target`` (then none; the play
    or the hand stands)."""
    return 0 if exact and score + points > target else points


class HandScoring(NamedTuple):
    """The options that say what a finished hand pays (``RuleSet.hand_scoring``)."""

    pips_counted: bool  # hand_end_pips: the hands' pips are scored at all
    all_hands: bool  # hand_points all_hands: every hand's pips, partner's (and own, blocked) included
    minus_own: bool  # blocked_scoring others_minus_own
    rounded: bool  # round_to_five
    out_bonus: int  # points for going out, after the pips


def hand_award(side_pips: list[int], out_side: int | None, scoring: HandScoring) -> tuple[int | None, int]:
    """Which side a finished hand pays, and how much (docs/rules.md, section 9).

    ``side_pips`` are the pips left in each side's hands; ``out_side`` is the side of the
    seat that went out (None: the hand blocked). Going out scores every other side's pips
    (under ``all_hands`` every hand's, the partner's included) plus ``out_bonus``. Blocked, the
    lightest side scores the others' pips (less its own when ``minus_own``; under ``all_hands``
    every hand's, its own included); a tie for lightest pays nobody: ``(None, 0)``. Without
    ``pips_counted`` going out pays the bonus alone and a blocked hand nothing. The engine and
    the bots' exact search both ask here; the exact target is ``credited``'s.
    """
    if not scoring.pips_counted:
        return (None, 0) if out_side is None else (out_side, scoring.out_bonus)
    total = sum(side_pips)
    if out_side is not None:
        side = out_side
        points = total if scoring.all_hands else total - side_pips[side]
    else:
        low = min(side_pips)
        if side_pips.count(low) > 1:
            return None, 0
        side = side_pips.index(low)
        others = total - low - low if scoring.minus_own else total - low
        points = total if scoring.all_hands else others
    if scoring.rounded:
        points = round_to_five(points)
    return side, points + scoring.out_bonus if out_side is not None else points


def scoring_step(count_scoring: EndCountScoring, hand: HandScoring) -> int:
    """The number every score of such a rule set is a multiple of (0: nothing can ever score).

    Counts score multiples of 5 under ``fives`` and any number under ``fives_and_threes``;
    a hand's pips any number, or multiples of 5 when rounded; the bonus its own amount. Under
    an exact target only a target that is a multiple of this can ever be reached."""
    steps = [hand.out_bonus]
    if count_scoring is _FIVES:
        steps.append(5)
    elif count_scoring is _FIVES_AND_THREES:
        steps.append(1)
    if hand.pips_counted:
        steps.append(5 if hand.rounded else 1)
    return gcd(*steps)


__all__ = ["HandScoring", "count_points", "credited", "hand_award", "round_to_five", "scoring_step"]
