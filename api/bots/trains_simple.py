"""The trains games' two simple levels: ``random`` and ``greedy``."""

from __future__ import annotations

import random
from collections.abc import Sequence

from .actions import Action, Json
from .trains_table import listed_plays, no_play_action, read_table


def choose_trains_random(view: Json, log: Sequence[Json], rng: random.Random) -> Action:
    """A uniformly random listed action."""
    return rng.choice(view["legal_actions"])


def choose_trains_greedy(view: Json, log: Sequence[Json], rng: random.Random) -> Action:
    """The heaviest playable tile (as a hand left at the round's end counts it: 0-0 by
    ``double_blank_points``); ties: a double first, then the higher end, then the first listed
    place. With nothing to play: draw, else pass. No randomness: the same view, the same play."""
    plays = listed_plays(view)
    if not plays:
        return no_play_action(view)
    table = read_table(view)
    best = max(plays, key=lambda p: (table.points(p.tile), p.tile.is_double, p.tile.high))
    return best.action  # max keeps the first of equal keys: the first listed place
