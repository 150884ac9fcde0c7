"""A trains game's place as the contract names it: the one home of the conversion.

Inside the engine a place is a ``board.Place`` id (``train:2``, ``mexican``, ``toe:9:0``). On the
wire (an action's ``train``, the ``tile_placed`` event, the view's boards and legal actions) a
seat's train is named by the seat alone, a whole number (``"train": 2``), so that a client
names the trains it sees as it names the seats; the Mexican train and Chicken Foot's toes
keep their ids (``"mexican"``, ``"toe:9:0"``).
"""

from __future__ import annotations

import re

from .board import MEXICAN, Place, train_place
from .errors import InvalidAction

Wire = int | str
_TRAIN_PREFIX = train_place(0)[: -len("0")]  # "train:"


def place_to_wire(place: Place) -> Wire:
    if place.startswith(_TRAIN_PREFIX):
        return int(place[len(_TRAIN_PREFIX) :])
    return place


def place_from_wire(value: object) -> Place:
    """The place a client's ``train`` names; ``InvalidAction`` for anything that names none
    (whether that place exists at this table is the engine's question)."""
    if isinstance(value, bool):
        raise InvalidAction(f"'train' is a seat number, \"mexican\" or a toe id, not {value!r}")
    if isinstance(value, int):
        if value < 0:
            raise InvalidAction(f"no train {value}")
        return train_place(value)
    if isinstance(value, str) and (value == MEXICAN or _is_toe(value)):
        return value
    raise InvalidAction(f'\'train\' is a seat number, "mexican" or a toe id such as "toe:9:0", not {value!r}')


def _is_toe(value: str) -> bool:
    return _TOE.fullmatch(value) is not None


_TOE = re.compile(r"toe:(1[0-2]|[0-9]):[0-3]", re.ASCII)  # toe:<number>:<k> (board.toe_place), numbers 0 to 12


__all__ = ["Wire", "place_from_wire", "place_to_wire"]
