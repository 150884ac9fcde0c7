"""The two simple levels: ``random`` and ``greedy``."""

from __future__ import annotations

import random
from collections.abc import Sequence

from api.rules.vocabulary import ActionType

from .actions import Action, Json, action_tile, find, no_play_choice, plays_of, without_claim


def choose_random(view: Json, log: Sequence[Json], rng: random.Random) -> Action:
    """A uniformly random listed action, sent without its claim: a beginner forgets to count
    (under ``muggins_calls`` its scoring plays leave their points to a muggins call)."""
    return without_claim(rng.choice(view["legal_actions"]))


def choose_greedy(view: Json, log: Sequence[Json], rng: random.Random) -> Action:
    """The biggest immediate score (fives games), then the heaviest tile, doubles first.

    Calls muggins whenever it may; draws or knocks only when it has nothing to play.
    Ties between equal tiles or ends are broken by ``rng``. The listed play is sent as
    listed, so under ``muggins_calls`` it carries its claim.
    """
    actions = view["legal_actions"]
    muggins = find(actions, ActionType.MUGGINS)
    if muggins is not None:
        return muggins
    plays = plays_of(actions)
    if not plays:
        return no_play_choice(actions)

    def key(action: Action) -> tuple[int, int, bool]:
        tile = action_tile(action)
        return (action.get("scores", 0), tile.pips, tile.is_double)

    keys = [key(a) for a in plays]
    best = max(keys)
    return rng.choice([a for a, k in zip(plays, keys) if k == best])
