"""The trains games' boards (issue 34), each a ``board.Board``: Mexican Train's trains and
Chicken Foot's arms, grown from the round's engine double in the middle.

* ``MexicanTrainBoard``: one train per seat (``train:<seat>``) and the public ``mexican``
  train, each starting at the engine's number; the seats' markers; the one double awaiting
  cover, when ``double_must_be_covered`` (no double covers a double, so at most one).
* ``ChickenFootBoard``: the engine's four sides first, then arms; a double at an arm's end
  grows a chicken foot of three toes, required before anything else. Every arm is named by
  the toe it starts from: the engine's four sides are the toes ``toe:<engine>:0`` to ``:3``
  of the engine's foot (the engine is a foot of four toes), a double's toes ``toe:<n>:0`` to
  ``:2``. Each double lies on the table once, so a toe's id is never used twice in a round.
  Required toes are filled in order: the next one is the only open place (one place per
  choice, not four alike).

Whether a place is open to a given seat (a seat's own train, a marked train) is the seat's
question, ``places_open_to``; the protocol's ``open_places`` answers for the table: every
place some seat may put a tile on now.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .board import MEXICAN, Place, toe_place, train_place
from .tiles import Tile

if TYPE_CHECKING:
    from .board import Board


def _laid_out(placed: Iterable[tuple[Tile, Place]], starts: dict[Place, int]) -> dict[Place, list[list[int]]]:
    """Each place's tiles as they lie, from the middle outwards: ``[inner, outer]`` numbers."""
    ends = dict(starts)
    laid: dict[Place, list[list[int]]] = {p: [] for p in starts}
    for tile, place in placed:
        inner = ends[place]
        ends[place] = tile.other(inner)
        laid[place].append([inner, ends[place]])
    return laid


def _toe_number(place: Place) -> int:
    """The number a toe starts from: its foot's double (``toe:<number>:<k>``)."""
    return int(place.split(":")[1])


@dataclass(slots=True)
class _Train:
    """One train of Mexican Train: its open number and owner (None: the Mexican train)."""

    end: int
    owner: int | None
    marked: bool = False


class MexicanTrainBoard:
    """The engine, one train per seat and the Mexican train."""

    def __init__(self, seats: int, engine: int, *, cover_doubles: bool = True) -> None:
        self.engine = engine
        self.cover_doubles = cover_doubles
        self.trains: dict[Place, _Train] = {train_place(s): _Train(engine, s) for s in range(seats)}
        self.trains[MEXICAN] = _Train(engine, None)
        self.uncovered: Place | None = None  # the train whose last tile is a double awaiting cover
        self.played = 0

    # --- the seats' questions ---------------------------------------------------------
    def is_open_to(self, place: Place, seat: int) -> bool:
        """Whether ``seat`` may put a tile on ``place`` now (before asking whether it fits)."""
        if self.uncovered is not None:
            return place == self.uncovered  # covering it is everyone's only play
        train = self.trains[place]
        return train.owner is None or train.owner == seat or train.marked

    def places_open_to(self, seat: int) -> list[tuple[Place, int]]:
        return [(p, t.end) for p, t in self.trains.items() if self.is_open_to(p, seat)]

    def places_for_seat(self, tile: Tile, seat: int) -> list[Place]:
        return [p for p, number in self.places_open_to(seat) if tile.has(number)]

    def reachable_numbers(self) -> set[int]:
        """The numbers any play could still be made on, whoever passes first: while a double
        awaits cover, its number alone; else every train's end (a seat that passes marks its
        train, so every train can open to every seat)."""
        if self.uncovered is not None:
            return {self.trains[self.uncovered].end}
        return {t.end for t in self.trains.values()}

    def mark(self, seat: int) -> None:
        self.trains[train_place(seat)].marked = True

    def unmark(self, seat: int) -> None:
        self.trains[train_place(seat)].marked = False

    # --- the Board protocol -------------------------------------------------------------
    @property
    def is_empty(self) -> bool:
        return self.played == 0  # the engine alone

    def open_places(self) -> list[tuple[Place, int]]:
        if self.uncovered is not None:
            return [(self.uncovered, self.trains[self.uncovered].end)]
        return [(p, t.end) for p, t in self.trains.items()]

    def places_for(self, tile: Tile) -> list[Place]:
        return [p for p, number in self.open_places() if tile.has(number)]

    def put(self, tile: Tile, place: Place) -> None:
        train = self.trains[place]
        train.end = tile.other(train.end)
        if tile.is_double:
            if self.cover_doubles:
                self.uncovered = place
        elif self.uncovered == place:
            self.uncovered = None
        self.played += 1

    def count(self) -> int:
        return 0  # the trains games never score the count

    def copy(self) -> MexicanTrainBoard:
        other = MexicanTrainBoard(0, self.engine, cover_doubles=self.cover_doubles)
        other.trains = {p: _Train(t.end, t.owner, t.marked) for p, t in self.trains.items()}
        other.uncovered = self.uncovered
        other.played = self.played
        return other

    def describe(self, placed: Iterable[tuple[Tile, Place]]) -> dict[str, Any]:
        tiles = _laid_out(placed, {p: self.engine for p in self.trains})
        return {
            "engine": [self.engine, self.engine],
            "trains": [
                {
                    "id": p,
                    "owner": t.owner,
                    "open": t.end,
                    "marker": t.marked,
                    "awaits_cover": p == self.uncovered,
                    "tiles": tiles[p],
                }
                for p, t in self.trains.items()
            ],
        }


@dataclass(slots=True)
class _Foot:
    """A foot whose toes are still required: the double's number, toes placed, toes needed."""

    number: int
    placed: int
    needed: int


ENGINE_SIDES = 4  # the engine takes a tile against each side before any tile goes elsewhere
TOES = 3  # a double at an arm's end takes three toes before anything else


class ChickenFootBoard:
    """The engine, its four arms and the chicken feet grown on doubles."""

    def __init__(self, engine: int) -> None:
        self.engine = engine
        self.arms: dict[Place, int | None] = {}  # each arm's open end (None: ended by a double)
        self.foot: _Foot | None = _Foot(engine, 0, ENGINE_SIDES)
        self.played = 0

    def reachable_numbers(self) -> set[int]:
        """The numbers any play could still be made on: the required toes' number, else every
        arm's end (passing changes nothing in Chicken Foot)."""
        if self.foot is not None:
            return {self.foot.number}
        return {end for end in self.arms.values() if end is not None}

    def toes_needed(self) -> int:
        return 0 if self.foot is None else self.foot.needed - self.foot.placed

    # --- the Board protocol -------------------------------------------------------------
    @property
    def is_empty(self) -> bool:
        return self.played == 0

    def open_places(self) -> list[tuple[Place, int]]:
        if self.foot is not None:
            return [(toe_place(self.foot.number, self.foot.placed), self.foot.number)]
        return [(p, end) for p, end in self.arms.items() if end is not None]

    def places_for(self, tile: Tile) -> list[Place]:
        return [p for p, number in self.open_places() if tile.has(number)]

    def put(self, tile: Tile, place: Place) -> None:
        foot = self.foot
        if foot is not None:  # a required toe starts a new arm
            self.arms[place] = tile.other(foot.number)
            foot.placed += 1
            if foot.placed == foot.needed:
                self.foot = None
        else:
            end = self.arms[place]
            assert end is not None
            if tile.is_double:  # the arm ends on the double; its foot's toes come next
                self.arms[place] = None
                self.foot = _Foot(end, 0, TOES)
            else:
                self.arms[place] = tile.other(end)
        self.played += 1

    def count(self) -> int:
        return 0  # the trains games never score the count

    def copy(self) -> ChickenFootBoard:
        other = ChickenFootBoard(self.engine)
        other.arms = dict(self.arms)
        foot = self.foot
        other.foot = None if foot is None else _Foot(foot.number, foot.placed, foot.needed)
        other.played = self.played
        return other

    def describe(self, placed: Iterable[tuple[Tile, Place]]) -> dict[str, Any]:
        tiles = _laid_out(placed, {p: _toe_number(p) for p in self.arms})
        foot = self.foot
        return {
            "engine": [self.engine, self.engine],
            "arms": [{"id": p, "open": end, "tiles": tiles[p]} for p, end in self.arms.items()],
            "toes_needed": None
            if foot is None
            else {"number": foot.number, "next": toe_place(foot.number, foot.placed), "left": self.toes_needed()},
        }


TrainsBoard = MexicanTrainBoard | ChickenFootBoard

if TYPE_CHECKING:  # mypy checks that both boards satisfy the protocol
    _MEXICAN_TRAIN_IS_A_BOARD: Board = MexicanTrainBoard(2, 12)
    _CHICKEN_FOOT_IS_A_BOARD: Board = ChickenFootBoard(9)

__all__ = ["ENGINE_SIDES", "TOES", "ChickenFootBoard", "MexicanTrainBoard", "TrainsBoard"]
