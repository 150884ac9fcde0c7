"""The two simple levels: ``random`` and ``greedy``."""

from __future__ import annotations

import random

from api.rules.layout import END_INDEX
from api.rules.ruleset import RuleSet

from .actions import action_tile, count_after, find, no_play_choice, plays_of, with_claim
from .knowledge import Knowledge


def choose_random(view: dict, log: list[dict], rng: random.Random) -> dict:
    """A uniformly random listed action (no claims: a beginner forgets to count)."""
    return rng.choice(view["legal_actions"])


def choose_greedy(view: dict, log: list[dict], rng: random.Random) -> dict:
    """The biggest immediate score (fives games), then the heaviest tile, doubles first.

    Calls muggins whenever it may; draws or knocks only when it has nothing to play.
    Ties between equal tiles or ends are broken by ``rng``.
    """
    actions = view["legal_actions"]
    muggins = find(actions, "muggins")
    if muggins is not None:
        return muggins
    plays = plays_of(actions)
    if not plays:
        return no_play_choice(actions)
    rules = RuleSet.from_dict(view["rules"])
    layout = Knowledge.read(view, log).layout if rules.muggins_calls else None

    def key(action: dict) -> tuple[int, int, int]:
        tile = action_tile(action)
        points = 0
        if rules.fives_scoring:
            if layout is not None:
                points = count_after(layout, tile, END_INDEX[action.get("end", "left")])
            else:
                points = action.get("scores", 0)
        return (points, tile.pips, tile.is_double)

    keys = [key(a) for a in plays]
    best = max(keys)
    choice = rng.choice([a for a, k in zip(plays, keys) if k == best])
    return with_claim(choice, layout, rules) if layout is not None else choice
