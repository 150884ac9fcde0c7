"""How a match finished, read from its ``match_ended``: the winning sides and every side's rank.

The ratings (``api.services.ratings``) and the players' figures (``api.services.results``) both
read the end of a match here, so the two never disagree on who won. Two shapes of the event:

* a line game's names one winning side (``winner``) and each side's final score (``scores``),
  HIGHER is better (the winner reached the target);
* a trains game's (issue 34) adds ``winners``: every seat with the lowest final total, so a tie
  for the lowest shares the win, and its ``scores`` are those totals, LOWER is better. Each seat
  is its own side. ``winners`` is written only for trains matches, so its presence is what says
  which way the scores count.

Ranks are competition ranks, 0 first: the winning sides 0, every other side 1 plus the number of
other losing sides strictly ahead of it, so equal scores share a rank (and the model ties them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Standing:
    """``winners``: the sides that won (one in a line game, every tied lowest seat in a trains
    game); ``ranks``: each side's finishing rank (0 first, equal ranks tie); ``margin``: how many
    points the winners finished ahead of the best other side (0 when every side won)."""

    winners: frozenset[int]
    ranks: tuple[int, ...]
    margin: int


def standing(final: Mapping[str, Any]) -> Standing:
    """The standing a ``match_ended`` event (its JSON form) records."""
    scores: Sequence[int] = final["scores"]
    lower_wins = "winners" in final
    winners = frozenset(final["winners"]) if lower_wins else frozenset({final["winner"]})
    others = [score for side, score in enumerate(scores) if side not in winners]

    def ahead(other: int, score: int) -> bool:
        return other < score if lower_wins else other > score

    ranks = tuple(
        0 if side in winners else 1 + sum(1 for other in others if ahead(other, score))
        for side, score in enumerate(scores)
    )
    if not others:
        return Standing(winners, ranks, 0)
    won = scores[min(winners)]
    margin = min(others) - won if lower_wins else won - max(others)
    return Standing(winners, ranks, margin)
