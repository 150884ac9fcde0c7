"""The trains games' events (issue 34): frozen records with stable snake_case type names.

Built as ``events.py``'s are (``Event.to_dict`` gives the JSON form with ``type``), and read
back by ``trains_event_from_dict``. Not yet in ``openapi/events.schema.json`` nor in
``events.event_from_dict``: the trains games are not offered until issue 34 is whole. A
place is a ``board.Place`` id (``train:2``, ``mexican``, ``toe:4:1``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from .board import Place
from .errors import InvalidAction, RulesError
from .events import Event, Hands
from .tiles import Tile


@dataclass(frozen=True)
class RoundStarted(Event):
    """A round dealt: its engine double's number, every hand and the boneyard in draw order."""

    type: ClassVar[str] = "round_started"
    _hands_fields: ClassVar[tuple[str, ...]] = ("hands",)
    _tiles_fields: ClassVar[tuple[str, ...]] = ("boneyard",)
    round: int
    engine: int
    leader: int
    hands: Hands
    boneyard: tuple[Tile, ...]


@dataclass(frozen=True)
class TilePlayed(Event):
    type: ClassVar[str] = "tile_played"
    _tile_fields: ClassVar[tuple[str, ...]] = ("tile",)
    seat: int
    tile: Tile
    place: Place


@dataclass(frozen=True)
class TileDrawn(Event):
    type: ClassVar[str] = "tile_drawn"
    _tile_fields: ClassVar[tuple[str, ...]] = ("tile",)
    seat: int
    tile: Tile


@dataclass(frozen=True)
class Passed(Event):
    """A stuck seat's turn ends; ``marker``: Mexican Train puts one on the seat's own train."""

    type: ClassVar[str] = "passed"
    seat: int
    marker: bool


@dataclass(frozen=True)
class RoundEnded(Event):
    """``winner``: the seat that went out (None: blocked); each seat's pips and the totals after."""

    type: ClassVar[str] = "round_ended"
    round: int
    winner: int | None
    pips: tuple[int, ...]
    totals: tuple[int, ...]


@dataclass(frozen=True)
class MatchEnded(Event):
    """The lowest total wins; every seat with it is among the ``winners``."""

    type: ClassVar[str] = "match_ended"
    totals: tuple[int, ...]
    winners: tuple[int, ...]


TrainsEvent = RoundStarted | TilePlayed | TileDrawn | Passed | RoundEnded | MatchEnded
EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls for cls in (RoundStarted, TilePlayed, TileDrawn, Passed, RoundEnded, MatchEnded)
}


def trains_event_from_dict(data: dict[str, Any]) -> Event:
    """Read a trains event in its JSON form, refusing it as ``events.event_from_dict`` does."""
    cls = EVENT_TYPES.get(data.get("type", "")) if isinstance(data, dict) else None
    if cls is None:
        raise InvalidAction(f"no trains event of type {data.get('type') if isinstance(data, dict) else data!r}")
    try:
        return cls._from_fields(data)
    except RulesError:
        raise  # a tile that is no tile: already precise
    except (TypeError, ValueError) as exc:
        raise InvalidAction(f"malformed {cls.type} event: {exc}") from None


__all__ = [
    "EVENT_TYPES",
    "MatchEnded",
    "Passed",
    "RoundEnded",
    "RoundStarted",
    "TileDrawn",
    "TilePlayed",
    "TrainsEvent",
    "trains_event_from_dict",
]
