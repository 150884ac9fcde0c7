"""The options of a trains match (issue 34): which game, its set, seats, rounds and hand size.

A record of its own, not yet fields of ``ruleset.RuleSet``: the trains games are not offered
until the whole of issue 34 lands (docs/game-families.md says what registering them opens).
Every default and bound is the rule book's (its trains games, issue 34) and lives here.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from .errors import InvalidRules
from .tiles import TileSet


class TrainsGame(StrEnum):
    MEXICAN_TRAIN = "mexican-train"
    CHICKEN_FOOT = "chicken-foot"


SETS = {TrainsGame.MEXICAN_TRAIN: TileSet.DOUBLE_12, TrainsGame.CHICKEN_FOOT: TileSet.DOUBLE_9}
MIN_PLAYERS, MAX_PLAYERS = 2, 8
DOUBLE_BLANK_CHOICES = (0, 50)  # what 0-0 counts in a hand at a round's end

#: Hand sizes by player count (the rule book): Mexican Train deals from 90 tiles, Chicken Foot from 54.
HAND_SIZES: dict[TrainsGame, dict[int, int]] = {
    TrainsGame.MEXICAN_TRAIN: {2: 15, 3: 15, 4: 15, 5: 12, 6: 12, 7: 10, 8: 10},
    TrainsGame.CHICKEN_FOOT: {2: 15, 3: 11, 4: 11, 5: 8, 6: 8, 7: 6, 8: 6},
}
#: ``double_blank_points`` by default: the ``chicken-foot`` preset counts 0-0 as 50.
DOUBLE_BLANK_DEFAULTS = {TrainsGame.MEXICAN_TRAIN: 0, TrainsGame.CHICKEN_FOOT: 50}


@dataclass(frozen=True)
class TrainsRules:
    game: TrainsGame
    players: int
    rounds: int
    hand_size: int
    double_blank_points: int
    double_must_be_covered: bool  # Mexican Train's option; Chicken Foot always requires its toes

    @property
    def tile_set(self) -> TileSet:
        return SETS[self.game]

    @property
    def top(self) -> int:
        return self.tile_set.top

    def engine(self, round_number: int) -> int:
        """Round r's engine double's number: counted down from the set's top double."""
        return self.top - round_number + 1

    def leader(self, round_number: int) -> int:
        """The seat that begins round r: ``(r - 1) mod players``."""
        return (round_number - 1) % self.players


def trains_rules(
    game: TrainsGame | str,
    players: int,
    *,
    rounds: int | None = None,
    hand_size: int | None = None,
    double_blank_points: int | None = None,
    double_must_be_covered: bool = True,
) -> TrainsRules:
    """The rules of a trains match, its defaults filled in and every option checked."""
    game = TrainsGame(game)
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise InvalidRules("players", f"the trains games seat {MIN_PLAYERS} to {MAX_PLAYERS} players")
    top = SETS[game].top
    every_round = top + 1  # one per double, 12-12 down to 0-0 (or 9-9 down to 0-0)
    rounds = every_round if rounds is None else rounds
    if not 1 <= rounds <= every_round:
        raise InvalidRules("rounds", f"1 to {every_round} (one per double of the set)")
    hand_size = HAND_SIZES[game][players] if hand_size is None else hand_size
    dealt_from = len(SETS[game].tiles) - 1  # the engine is out of the deal
    if hand_size < 1 or hand_size * players > dealt_from:
        raise InvalidRules("hand_size", f"at least 1, and {players} hands within the {dealt_from} tiles dealt")
    double_blank_points = DOUBLE_BLANK_DEFAULTS[game] if double_blank_points is None else double_blank_points
    if double_blank_points not in DOUBLE_BLANK_CHOICES:
        raise InvalidRules("double_blank_points", "0 or 50")
    if game is TrainsGame.CHICKEN_FOOT and not double_must_be_covered:
        raise InvalidRules("double_must_be_covered", "Mexican Train's option: Chicken Foot always requires its toes")
    return TrainsRules(game, players, rounds, hand_size, double_blank_points, double_must_be_covered)


__all__ = ["HAND_SIZES", "SETS", "TrainsGame", "TrainsRules", "trains_rules"]
