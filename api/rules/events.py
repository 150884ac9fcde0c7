"""The public event vocabulary: small frozen records with stable snake_case type names.

Clients in other languages fold these, so the names and fields are a contract
(specified in openapi/events.md). ``to_dict`` gives the JSON-able form with ``type``;
``event_from_dict`` reads it back. Tiles travel as ``[high, low]``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from enum import StrEnum
from typing import Any, ClassVar

from .errors import InvalidAction, RulesError
from .shuffle import ALGORITHM
from .tiles import Tile
from .trains_wire import place_from_wire
from .vocabulary import BotLevel, End, HandEndReason, ScoredBy

SCHEMA_VERSION = 1

Hands = tuple[tuple[Tile, ...], ...]  # per seat, the tiles it holds
_Words = type[StrEnum]  # (named here: inside an event class, ``type`` is the event's type name)


def _tiles_out(tiles: Iterable[Tile]) -> list[list[int]]:
    return [t.to_json() for t in tiles]


def _tiles_in(values: Iterable[Any]) -> tuple[Tile, ...]:
    return tuple(Tile.from_json(v) for v in values)


@dataclass(frozen=True, slots=True)
class HandResult:
    """How a hand ended, as data (python-chess's ``Outcome``): the one record of it.

    ``MatchState.hand_outcome`` computes it, the fast path folds it as it is, the
    ``hand_ended`` event *is* one (``HandEnded`` adds only its type), and a state keeps
    the last one (``MatchState.last_result``, a view's ``last_hand``).
    """

    hand_number: int
    reason: HandEndReason
    winner: int | None  # the seat credited with the hand (None on a tie)
    side: int | None  # the scoring side (== winner without partners)
    points: int
    pips: tuple[int, ...]  # per seat
    hands: Hands  # every hand, revealed
    scores: tuple[int, ...]  # per side, after this hand

    def to_json(self) -> dict[str, Any]:
        """The JSON form (a view's ``last_hand``; with its ``type``, the ``hand_ended`` event)."""
        return {
            "hand_number": self.hand_number,
            "reason": self.reason,
            "winner": self.winner,
            "side": self.side,
            "points": self.points,
            "pips": list(self.pips),
            "hands": [_tiles_out(h) for h in self.hands],
            "scores": list(self.scores),
        }


@dataclass(frozen=True)
class Event:
    type: ClassVar[str] = ""
    _tile_fields: ClassVar[tuple[str, ...]] = ()  # a single tile
    _tiles_fields: ClassVar[tuple[str, ...]] = ()  # a list of tiles
    _hands_fields: ClassVar[tuple[str, ...]] = ()  # a list (per seat) of lists of tiles
    # Fields holding a word of the vocabulary: read back as members (a stored log holds the strings).
    _word_fields: ClassVar[Mapping[str, _Words]] = {}

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in self._tile_fields:
                value = value.to_json() if value is not None else None
            elif f.name in self._tiles_fields:
                value = _tiles_out(value)
            elif f.name in self._hands_fields:
                value = [_tiles_out(h) for h in value]
            elif isinstance(value, tuple):
                value = list(value)
            out[f.name] = value
        return out

    @classmethod
    def from_fields(cls, data: dict[str, Any]) -> Event:
        kwargs = {}
        for f in fields(cls):
            if f.name not in data:
                continue
            value = data[f.name]
            words = cls._word_fields.get(f.name)
            if words is not None:
                value = words(value)  # ValueError for a word outside the vocabulary
            elif f.name in cls._tile_fields:
                value = Tile.from_json(value) if value is not None else None
            elif f.name in cls._tiles_fields:
                value = _tiles_in(value)
            elif f.name in cls._hands_fields:
                value = tuple(_tiles_in(h) for h in value)
            elif f.type in _WHOLE_NUMBER_TYPES:
                _check_whole_number(f.name, value, none_allowed=f.type != "int")
            elif isinstance(value, list):
                value = tuple(value)
            kwargs[f.name] = value
        return cls(**kwargs)


# The annotations (strings: ``from __future__ import annotations``) of the fields that hold one
# whole number: JSON's ``true`` is no seat 1, nor ``2.0`` a seat 2, whatever Python's bool and
# float would compare equal to.
_WHOLE_NUMBER_TYPES = frozenset({"int", "int | None"})


def _check_whole_number(name: str, value: Any, *, none_allowed: bool) -> None:
    if value is None and none_allowed:
        return
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{name} is a whole number, not {value!r}")


@dataclass(frozen=True)
class MatchCreated(Event):
    """The resolved rules and the seats (each may carry a ``client_seed``); the server
    seed stays secret behind its commitment until ``match_ended`` reveals it."""

    type: ClassVar[str] = "match_created"
    rules: dict[str, Any]
    seats: tuple[dict[str, Any], ...]  # of {"name", "type", "level"} dicts, one per seat
    seed_commitment: str
    seed_algorithm: str = ALGORITHM  # the set's (shuffle.algorithm_for): v1 for double-six
    seeded_by_client: bool = False  # the server seed was chosen by the creator (tests, research)


@dataclass(frozen=True)
class SeatClaimed(Event):
    type: ClassVar[str] = "seat_claimed"
    seat: int
    name: str
    client_seed: str | None = None  # mixed into the deals (see shuffle.deal_seed)


@dataclass(frozen=True)
class TilesTurnedUp(Event):
    """``rotate_any``: each seat turns up one tile of a shuffled set; the heaviest leads."""

    type: ClassVar[str] = "tiles_turned_up"
    _tiles_fields: ClassVar[tuple[str, ...]] = ("tiles",)
    tiles: tuple[Tile, ...]
    leader: int


@dataclass(frozen=True)
class HandStarted(Event):
    type: ClassVar[str] = "hand_started"
    _hands_fields: ClassVar[tuple[str, ...]] = ("hands",)
    _tiles_fields: ClassVar[tuple[str, ...]] = ("boneyard",)
    hand_number: int
    leader: int
    hands: Hands  # per seat, in dealt order
    boneyard: tuple[Tile, ...]  # in draw order


@dataclass(frozen=True)
class TilePlayed(Event):
    type: ClassVar[str] = "tile_played"
    _tile_fields: ClassVar[tuple[str, ...]] = ("tile",)
    _word_fields: ClassVar[Mapping[str, _Words]] = {"end": End}
    seat: int
    tile: Tile
    end: End
    ends: dict[str, int]  # the open ends after the play, by name
    auto: bool = False  # played by the server (the forced lead, a timed-out turn)
    claim: int | None = None  # muggins_calls: the count the player claimed (None: no claim)


@dataclass(frozen=True)
class TileDrawn(Event):
    type: ClassVar[str] = "tile_drawn"
    _tile_fields: ClassVar[tuple[str, ...]] = ("tile",)
    seat: int
    tile: Tile | None  # None only when read from another seat's redacted copy, which has no "tile" key
    auto: bool = False


@dataclass(frozen=True)
class Knocked(Event):
    type: ClassVar[str] = "knocked"
    seat: int
    ends: dict[str, int]  # the open ends the seat could not match
    auto: bool = False


@dataclass(frozen=True)
class PointsScored(Event):
    """Points during play (All Fives): a scoring play, or a muggins call taking them."""

    type: ClassVar[str] = "points_scored"
    _word_fields: ClassVar[Mapping[str, _Words]] = {"how": ScoredBy}
    seat: int
    side: int
    points: int
    count: int
    how: ScoredBy
    scores: tuple[int, ...]


@dataclass(frozen=True)
class HandEnded(Event, HandResult):
    """A hand's result, logged: its fields are ``HandResult``'s, and it is one."""

    type: ClassVar[str] = "hand_ended"
    _hands_fields: ClassVar[tuple[str, ...]] = ("hands",)
    _word_fields: ClassVar[Mapping[str, _Words]] = {"reason": HandEndReason}

    @classmethod
    def of(cls, result: HandResult) -> HandEnded:
        """The event logging ``result`` (``result`` itself when it already is one)."""
        if isinstance(result, HandEnded):
            return result
        return cls(
            result.hand_number,
            result.reason,
            result.winner,
            result.side,
            result.points,
            result.pips,
            result.hands,
            result.scores,
        )

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, **self.to_json()}


@dataclass(frozen=True)
class MatchEnded(Event):
    """The match is over. The line games: ``winner`` the winning side, ``scores`` per side
    (highest wins). The trains games: ``scores`` every seat's total (lowest wins), ``winners``
    every seat with the lowest total (a tie shares the win) and ``winner`` the first of them;
    ``winners`` is written for the trains games only, so the line games' logs read as before."""

    type: ClassVar[str] = "match_ended"
    _hands_fields: ClassVar[tuple[str, ...]] = ("hands",)
    winner: int  # the winning side (== seat without partners)
    scores: tuple[int, ...]
    seed: str  # revealed: every deal can now be re-derived
    hands: Hands = ()  # the hands at the end, revealed (matters when it ends mid-hand)
    winners: tuple[int, ...] | None = None  # the trains games: every seat sharing the win

    def to_dict(self) -> dict[str, Any]:
        out = Event.to_dict(self)
        if self.winners is None:
            del out["winners"]
        return out


@dataclass(frozen=True)
class TurnTimedOut(Event):
    """``turn_seconds``: the seat to move let its clock run out; the server plays its turn
    (the events that follow, marked ``auto``)."""

    type: ClassVar[str] = "turn_timed_out"
    seat: int
    consecutive: int  # this seat's turns timed out in a row, this one included


@dataclass(frozen=True)
class SeatReplaced(Event):
    """``timeout_limit``: after that many timeouts in a row a computer player takes the
    seat over for the rest of the match."""

    type: ClassVar[str] = "seat_replaced"
    _word_fields: ClassVar[Mapping[str, _Words]] = {"level": BotLevel}
    seat: int
    level: BotLevel  # the bot level now playing the seat


# --- the trains games' events (Mexican Train, Chicken Foot; ``trains.py`` folds them) -----
# Besides these the trains games write ``tile_drawn``, ``match_ended`` (with ``winners``) and
# every event of a match's life (``match_created``, ``seat_claimed``, the clocks') as above.


@dataclass(frozen=True)
class RoundStarted(Event):
    """A round dealt: its engine double's number, who begins, every hand and the boneyard in draw order."""

    type: ClassVar[str] = "round_started"
    _hands_fields: ClassVar[tuple[str, ...]] = ("hands",)
    _tiles_fields: ClassVar[tuple[str, ...]] = ("boneyard",)
    round: int
    engine: int
    leader: int
    hands: Hands
    boneyard: tuple[Tile, ...]


@dataclass(frozen=True)
class TilePlaced(Event):
    """A tile put on a train or a chicken-foot arm: ``train`` names it as an action does
    (``trains_wire``: a seat's number, ``"mexican"``, a toe's id)."""

    type: ClassVar[str] = "tile_placed"
    _tile_fields: ClassVar[tuple[str, ...]] = ("tile",)
    seat: int
    tile: Tile
    train: int | str
    auto: bool = False  # played by the server (a timed-out turn)

    @classmethod
    def from_fields(cls, data: dict[str, Any]) -> Event:
        place_from_wire(data.get("train"))  # InvalidAction for a value that names no place
        return super().from_fields(data)


@dataclass(frozen=True)
class Passed(Event):
    """A stuck seat's turn ends; ``marker``: Mexican Train puts one on the seat's own train."""

    type: ClassVar[str] = "passed"
    seat: int
    marker: bool
    auto: bool = False


@dataclass(frozen=True)
class RoundEnded(Event):
    """``winner``: the seat that went out (None: blocked); each seat's pips, the totals after,
    and every hand turned face up."""

    type: ClassVar[str] = "round_ended"
    _hands_fields: ClassVar[tuple[str, ...]] = ("hands",)
    round: int
    winner: int | None
    pips: tuple[int, ...]
    totals: tuple[int, ...]
    hands: Hands


EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (
        MatchCreated,
        SeatClaimed,
        TilesTurnedUp,
        HandStarted,
        TilePlayed,
        TileDrawn,
        Knocked,
        PointsScored,
        HandEnded,
        MatchEnded,
        TurnTimedOut,
        SeatReplaced,
        RoundStarted,
        TilePlaced,
        Passed,
        RoundEnded,
    )
}


#: The events that deal: a line game's hand, a trains game's round. A computer player's question
#: holds the log since the last of them (``api.bots.turns``).
DEAL_TYPES = frozenset({HandStarted.type, RoundStarted.type})


def event_from_dict(data: dict[str, Any]) -> Event:
    """Read an event in its JSON form (as stored, or as fetched from the audit log)."""
    try:
        cls = EVENT_TYPES[data["type"]]
    except (KeyError, TypeError):
        raise InvalidAction(f"unknown event type {data.get('type') if isinstance(data, dict) else data!r}") from None
    try:
        return cls.from_fields(data)
    except RulesError:
        raise  # a tile that is no tile: already precise
    except (TypeError, ValueError) as exc:
        raise InvalidAction(f"malformed {cls.type} event: {exc}") from None
