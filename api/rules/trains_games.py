"""The trains games: Mexican Train and Chicken Foot, a hub and a train (or arm) per place,
played over rounds counted down from the set's top double; the lowest total wins.

Their presets and options, and what the family gives the registry (``api/rules/games.py``).
Their rules are ``trains.py`` (the state, the commands, the folds), ``trains_board.py`` (the
boards) and ``trains_rules.py`` (the record of a match's options, every default and bound);
``trains_match.py`` plays them inside a match's life (seats, clocks, the log).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .game_family import GameFamily, Preset, ResolvedRules, Rule
from .tiles import TileSet
from .trains_board import ChickenFootBoard, MexicanTrainBoard
from .trains_rules import DOUBLE_BLANK_DEFAULTS, HAND_SIZES, MAX_PLAYERS, MIN_PLAYERS, SETS, TrainsGame
from .vocabulary import Family

NAME = "trains"

#: What a client may set on a trains game, beyond the preset and the seat count (and what the
#: rule set's JSON form writes): ``set`` is the game's own, fixed by its preset.
OPTIONS = (
    "set",
    "hand_size",
    "rounds",
    "double_blank_points",
    "double_must_be_covered",
    "turn_seconds",
    "timeout_limit",
)
#: The options a preset fixes: a client may not change them.
FIXED = ("set",)


def _hand_size(game: TrainsGame) -> Rule:
    sizes = HAND_SIZES[game]
    return lambda players, _opts: sizes[players]


def _options(game: TrainsGame) -> Mapping[str, Any]:
    tile_set = SETS[game]
    return {
        "set": tile_set,
        "rounds": tile_set.top + 1,  # one per double, the top one first, down to 0-0
        "double_blank_points": DOUBLE_BLANK_DEFAULTS[game],
        "double_must_be_covered": True,
    }


PRESETS: tuple[Preset, ...] = (
    Preset(
        TrainsGame.MEXICAN_TRAIN.value,
        "Mexican Train",
        "Mexican Train on a double-twelve set: each player builds a train of their own from the hub, anyone "
        "may play on the Mexican train or on a train with a marker, a double must be covered first, and after "
        "13 rounds the lowest total wins.",
        _options(TrainsGame.MEXICAN_TRAIN),
        _hand_size(TrainsGame.MEXICAN_TRAIN),
    ),
    Preset(
        TrainsGame.CHICKEN_FOOT.value,
        "Chicken Foot",
        "Chicken Foot on a double-nine set: four arms grow from the hub, every double grows a foot of three "
        "toes that must be filled before anything else, the double-blank left in hand costs 50, and after 10 "
        "rounds the lowest total wins.",
        _options(TrainsGame.CHICKEN_FOOT),
        _hand_size(TrainsGame.CHICKEN_FOOT),
    ),
)


def game_of(preset: str) -> TrainsGame:
    """The trains game a preset plays (its name is the game's)."""
    return TrainsGame(preset)


def new_board(rules: ResolvedRules) -> MexicanTrainBoard | ChickenFootBoard:
    """A round's board before its engine is known: the top double's (round 1's)."""
    if rules.set is TileSet.DOUBLE_12:
        return MexicanTrainBoard(2, rules.set.top)
    return ChickenFootBoard(rules.set.top)


def rating_family(rules: ResolvedRules) -> Family:
    """Each trains game is a ratings family of its own."""
    return Family.MEXICAN_TRAIN if rules.set is TileSet.DOUBLE_12 else Family.CHICKEN_FOOT


TRAINS_GAMES = GameFamily(
    name=NAME,
    title="Trains games",
    presets=PRESETS,
    sets=(TileSet.DOUBLE_12, TileSet.DOUBLE_9),
    players=tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1)),
    new_board=new_board,
    rating_family=rating_family,
    options=OPTIONS,
    fixed=FIXED,
)

__all__ = ["NAME", "OPTIONS", "PRESETS", "TRAINS_GAMES", "game_of"]
