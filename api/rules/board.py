"""What the engine, the views and the bots ask of the tiles on the table: the ``Board`` protocol.

A board is made of *places*, each named by a string id (``Place``), where a tile may be put
once the place is open; an open place shows one number, and a tile fits it when one of its
halves shows that number. The ids are the words of the contract (an action's ``end``, a
view's ``ends``) and of the event log (``tile_played.end``), so they never change once used:

* the line: ``left`` and ``right``; with a spinner, its arms ``up`` and ``down``
  (``vocabulary.End``, served by ``layout.Layout``);
* the trains games (issue 34): each seat's train ``train:<seat>`` (``train_place(2)`` is
  ``"train:2"``) and the public ``mexican`` train;
* Chicken Foot's arms: ``toe:<number>:<k>``, the k-th toe (0, 1, 2) of the chicken foot
  grown on the double showing ``number`` (``toe_place(5, 1)`` is ``"toe:5:1"``); the engine
  is the foot of four toes, its sides ``toe:<engine>:0`` to ``:3`` (``trains_board.py``).

The protocol is the description around the engine's hot paths, not a layer under them: the
line's ``Layout`` keeps its int indices and bit tables (``state.turn_moves``,
``Layout.place``, ``Layout.accepts_any`` never go through a string id), and answers the
protocol's questions beside them. ``api/rules/layout.py`` holds the mypy-checked assertion
that it satisfies ``Board``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol, Self

from .tiles import Tile

#: A place's id on a board (see the module's docstring for the words each board uses).
Place = str

#: The public train of the trains games, open to every seat.
MEXICAN: Place = "mexican"


def train_place(seat: int) -> Place:
    """The id of ``seat``'s own train in the trains games: ``train:<seat>``."""
    return f"train:{seat}"


def toe_place(number: int, toe: int) -> Place:
    """The id of a chicken foot's toe: the ``toe``-th (0 to 2; the engine's sides 0 to 3) on the
    double showing ``number``."""
    return f"toe:{number}:{toe}"


class Board(Protocol):
    """The tiles on the table, as every board shows them (the line, trains, chicken feet).

    Mutable, as ``Layout`` is: ``put`` changes the board, ``copy`` is how a caller keeps one.
    """

    @property
    def is_empty(self) -> bool:
        """No tile lies on the board yet."""
        ...

    def open_places(self) -> list[tuple[Place, int]]:
        """Every place a tile may be put on now, with the number it shows, in the board's own
        stable order (the order views list them in)."""
        ...

    def places_for(self, tile: Tile) -> list[Place]:
        """The places ``tile`` may be put on now (empty: it fits nowhere), in ``open_places``'
        order. On an empty board, the place a first tile starts it from."""
        ...

    def put(self, tile: Tile, place: Place) -> None:
        """Put ``tile`` on ``place`` (the caller has checked that it fits there)."""
        ...

    def count(self) -> int:
        """The count: the sum of the open ends that the count-scoring games score
        (``scoring.count_points``). A board whose games never score it may answer 0."""
        ...

    def copy(self) -> Self:
        """An independent copy: putting a tile on it leaves this board as it is."""
        ...

    def describe(self, placed: Iterable[tuple[Tile, Place]]) -> dict[str, Any]:
        """The board as the views show it (JSON-ready), given the tiles put on it this hand
        in the order they were put (the match state keeps them; a board need not)."""
        ...


__all__ = ["MEXICAN", "Board", "Place", "toe_place", "train_place"]
