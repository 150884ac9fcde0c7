"""A toy trains board, written against ``api.rules.board.Board`` only: each seat's train and
the Mexican train, grown from one engine double. Just enough of issue 34's board (no markers,
no doubles to cover, no chicken feet) to show that its places fit the protocol the line uses."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from api.rules.board import MEXICAN, Board, Place, train_place
from api.rules.game_family import GameFamily, Preset, always
from api.rules.ruleset import RuleSet
from api.rules.tiles import Tile, TileSet
from api.rules.vocabulary import Family, Game


class ToyTrains:
    def __init__(self, seats: int, engine: int) -> None:
        self.engine = engine
        self.ends: dict[Place, int] = {train_place(seat): engine for seat in range(seats)}
        self.ends[MEXICAN] = engine
        self.played = 0

    @property
    def is_empty(self) -> bool:
        return self.played == 0  # the engine double alone

    def open_places(self) -> list[tuple[Place, int]]:
        return list(self.ends.items())

    def places_for(self, tile: Tile) -> list[Place]:
        return [place for place, number in self.ends.items() if tile.has(number)]

    def put(self, tile: Tile, place: Place) -> None:
        self.ends[place] = tile.other(self.ends[place])
        self.played += 1

    def count(self) -> int:
        return 0  # the trains games never score the count

    def copy(self) -> ToyTrains:
        other = ToyTrains(0, self.engine)
        other.ends = dict(self.ends)
        other.played = self.played
        return other

    def describe(self, placed: Iterable[tuple[Tile, Place]]) -> dict[str, Any]:
        trains: dict[Place, list[list[int]]] = {place: [] for place in self.ends}
        for tile, place in placed:
            trains[place].append(tile.to_json())
        return {"engine": [self.engine, self.engine], "trains": trains}


def new_toy_trains(seats: int) -> Board:
    """The factory a toy family registers (typed as the protocol: ``ToyTrains`` satisfies it)."""
    return ToyTrains(seats, 12)


# --- a toy family: what a new family's module and registration look like -----------------
def _toy_rating_family(rules: RuleSet) -> Family:
    return Family.BLOCK  # a toy: a real trains family brings its own ratings word (issue 34)


TOY_PRESET = Preset(
    "toy-trains",
    "Toy trains",
    "A test's toy: trains from a double-twelve engine, no drawing.",
    {"set": TileSet.DOUBLE_12, "game": Game.BLOCK},
    always(12),
    always(150),
)

TOY_TRAINS = GameFamily(
    name="toy-trains",
    title="Toy trains",
    presets=(TOY_PRESET,),
    sets=(TileSet.DOUBLE_12,),
    players=(2, 3, 4),
    new_board=lambda rules: ToyTrains(rules.players, rules.set.top),
    rating_family=_toy_rating_family,
)
