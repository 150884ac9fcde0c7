"""Which trains player answers at each bot level.

The trains games have three players (``trains_simple``'s random and greedy, and
``trains_expert``); ``intermediate`` plays as the expert, which already decides in about a
millisecond: a weaker middle step would be a handicap made up for the ladder, not a player.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from api.rules.vocabulary import BotLevel

from .actions import Action, Json
from .trains_expert import choose_trains_expert
from .trains_simple import choose_trains_greedy, choose_trains_random

Chooser = Callable[[Json, Sequence[Json], random.Random], Action]

TRAINS_PLAYERS: dict[str, Chooser] = {
    BotLevel.RANDOM: choose_trains_random,
    BotLevel.GREEDY: choose_trains_greedy,
    BotLevel.INTERMEDIATE: choose_trains_expert,
    BotLevel.EXPERT: choose_trains_expert,
}


def choose_trains(level: str, view: Json, log: Sequence[Json], rng: random.Random) -> Action:
    """The ``level`` player's action in a trains game (``api.bots.choose_action`` checks ``level``)."""
    return TRAINS_PLAYERS[level](view, log, rng)


__all__ = ["TRAINS_PLAYERS", "choose_trains"]
