"""A tournament's events: small frozen records with stable snake_case type names.

Every state change of a tournament is one of these, appended to the tournament's own
hash-chained log (``api.store``) and folded into its state (:mod:`api.tournaments.state`), as a
match's events are. ``to_dict`` gives the JSON form with ``type``; :func:`event_from_dict` reads
it back (a stored log holds that form, so the names and fields are a contract).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .errors import ImpossibleTournamentEvent

SCHEMA_VERSION = 1

SWISS = "swiss"
ROUND_ROBIN = "round_robin"
ARENA = "arena"
FORMATS = (SWISS, ROUND_ROBIN, ARENA)

BUCHHOLZ = "buchholz"
SONNEBORN_BERGER = "sonneborn_berger"
WIN_MARGIN = "win_margin"
TIEBREAKS = (BUCHHOLZ, SONNEBORN_BERGER, WIN_MARGIN)

PLAYER = "player"
BOT = "bot"
MEMBER_KINDS = (PLAYER, BOT)


@dataclass(frozen=True, slots=True)
class Member:
    """One seat's worth of an entrant: a portal player (``player_ref``) or a computer player
    (``level``)."""

    kind: str
    player_ref: str | None = None
    level: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "player_ref": self.player_ref, "level": self.level}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Member:
        return cls(data["kind"], data.get("player_ref"), data.get("level"))


@dataclass(frozen=True, slots=True)
class Entrant:
    """A player alone, or a partner team of two (``members``: one per seat its side takes).
    ``rating`` (None: unrated) seeds the pairing order; registration order breaks its ties."""

    id: str
    name: str
    members: tuple[Member, ...]
    rating: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "members": [m.to_json() for m in self.members],
            "rating": self.rating,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Entrant:
        members = tuple(Member.from_json(m) for m in data["members"])
        return cls(data["id"], data["name"], members, data.get("rating"))


@dataclass(frozen=True, slots=True)
class Settings:
    """What a tournament is, fixed at creation. The core reads ``format``, ``side_size``,
    ``rounds``, ``tiebreaks`` and ``max_entrants``; the rest (the game, the clock, the entry
    rules) is the services' and is kept here so the log alone says what the tournament was."""

    format: str
    preset: str
    side_size: int  # seats per side: 1, or 2 for a partner game's teams
    rounds: int | None  # a Swiss's rounds; None for a round robin (fixed at the start) or an arena
    tiebreaks: tuple[str, ...]
    turn_seconds: int
    rules: Mapping[str, Any] = field(default_factory=dict)
    rated: bool = False
    starts_at: str | None = None  # ISO 8601, UTC; None: when the portal says
    max_entrants: int | None = None
    rating_min: float | None = None
    rating_max: float | None = None
    bot_levels: tuple[str, ...] = ()  # the computer players that may enter; () none
    duration_minutes: int | None = None  # an arena's: pairing stops this long after its start
    duplicate: bool = False  # a Swiss's or round robin's: each round on one sequence of deals, each pairing twice
    name: str | None = None  # what the portal calls it, shown to players; None: unnamed

    def to_json(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "preset": self.preset,
            "side_size": self.side_size,
            "rounds": self.rounds,
            "tiebreaks": list(self.tiebreaks),
            "turn_seconds": self.turn_seconds,
            "rules": dict(self.rules),
            "rated": self.rated,
            "starts_at": self.starts_at,
            "max_entrants": self.max_entrants,
            "rating_min": self.rating_min,
            "rating_max": self.rating_max,
            "bot_levels": list(self.bot_levels),
            "duration_minutes": self.duration_minutes,
            "duplicate": self.duplicate,
            "name": self.name,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Settings:
        return cls(
            format=data["format"],
            preset=data["preset"],
            side_size=data["side_size"],
            rounds=data.get("rounds"),
            tiebreaks=tuple(data["tiebreaks"]),
            turn_seconds=data["turn_seconds"],
            rules=dict(data.get("rules") or {}),
            rated=bool(data.get("rated", False)),
            starts_at=data.get("starts_at"),
            max_entrants=data.get("max_entrants"),
            rating_min=data.get("rating_min"),
            rating_max=data.get("rating_max"),
            bot_levels=tuple(data.get("bot_levels") or ()),
            duration_minutes=data.get("duration_minutes"),
            duplicate=bool(data.get("duplicate", False)),
            name=data.get("name"),
        )


@dataclass(frozen=True, slots=True)
class Table:
    """One pairing of a round: ``sides[0]`` takes the first seat (and, with partners, the
    third), ``sides[1]`` the others; ``match_id`` is the match played there (None when no
    match is played: a forfeit decided at pairing)."""

    number: int
    sides: tuple[str, str]
    match_id: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"number": self.number, "sides": list(self.sides), "match_id": self.match_id}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Table:
        first, second = data["sides"]
        return cls(data["number"], (first, second), data.get("match_id"))


@dataclass(frozen=True)
class TournamentEvent:
    type: ClassVar[str] = ""

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, **self.data()}

    def data(self) -> dict[str, Any]:
        return {}


@dataclass(frozen=True)
class TournamentCreated(TournamentEvent):
    type: ClassVar[str] = "tournament_created"
    tournament_id: str
    settings: Settings

    def data(self) -> dict[str, Any]:
        return {"tournament_id": self.tournament_id, "settings": self.settings.to_json()}


@dataclass(frozen=True)
class EntrantRegistered(TournamentEvent):
    type: ClassVar[str] = "entrant_registered"
    entrant: Entrant

    def data(self) -> dict[str, Any]:
        return {"entrant": self.entrant.to_json()}


@dataclass(frozen=True)
class EntrantWithdrawn(TournamentEvent):
    """``by``: ``entrant`` (its own player) or ``portal``."""

    type: ClassVar[str] = "entrant_withdrawn"
    entrant_id: str
    by: str

    def data(self) -> dict[str, Any]:
        return {"entrant_id": self.entrant_id, "by": self.by}


@dataclass(frozen=True)
class TournamentStarted(TournamentEvent):
    """``rounds``: how many will be played (0 for an arena: it pairs until ``ends_at``);
    ``order``: the entrants' seeding order (the Berger table's numbers of a round robin, the
    Swiss's initial ranking); ``ends_at``: an arena's end of pairing (ISO 8601, UTC), the start
    plus its duration, written here so that the log alone says it (None for other formats)."""

    type: ClassVar[str] = "tournament_started"
    rounds: int
    order: tuple[str, ...]
    ends_at: str | None = None

    def data(self) -> dict[str, Any]:
        return {"rounds": self.rounds, "order": list(self.order), "ends_at": self.ends_at}


@dataclass(frozen=True)
class RoundPaired(TournamentEvent):
    """A round's tables and its bye; an arena's pairing also names who of the free pool it was
    paired from was left ``waiting`` (so the log alone shows the pool each pairing chose from).
    A duplicate round's ``seed_commitment`` is the SHA-256 of the one seed every match of the
    round is dealt from (each match's ``match_created`` publishes the same commitment; the seed
    is revealed by every match's audit once the round has ended)."""

    type: ClassVar[str] = "round_paired"
    round: int
    tables: tuple[Table, ...]
    bye: str | None
    waiting: tuple[str, ...] = ()
    seed_commitment: str | None = None

    def data(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "tables": [t.to_json() for t in self.tables],
            "bye": self.bye,
            "waiting": list(self.waiting),
            "seed_commitment": self.seed_commitment,
        }


@dataclass(frozen=True)
class MatchResult(TournamentEvent):
    """A table's result: ``winner`` the winning side (0 or 1; None for a draw, or both sides
    forfeiting), ``scores`` each side's final match score (0, 0 for a forfeit), ``forfeit``
    true when it was not played to the end (a no-show, a replaced seat, a withdrawal)."""

    type: ClassVar[str] = "match_result"
    round: int
    table: int
    winner: int | None
    scores: tuple[int, int]
    forfeit: bool = False

    def data(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "table": self.table,
            "winner": self.winner,
            "scores": list(self.scores),
            "forfeit": self.forfeit,
        }


@dataclass(frozen=True)
class RoundEnded(TournamentEvent):
    type: ClassVar[str] = "round_ended"
    round: int

    def data(self) -> dict[str, Any]:
        return {"round": self.round}


@dataclass(frozen=True)
class ArenaClosed(TournamentEvent):
    """An arena pairs no more: its time is over (``by``: ``clock``) or its portal said so
    (``portal``). The matches in play finish and count; the arena ends with the last of them."""

    type: ClassVar[str] = "arena_closed"
    by: str

    def data(self) -> dict[str, Any]:
        return {"by": self.by}


@dataclass(frozen=True)
class TournamentPaused(TournamentEvent):
    type: ClassVar[str] = "tournament_paused"


@dataclass(frozen=True)
class TournamentResumed(TournamentEvent):
    type: ClassVar[str] = "tournament_resumed"


@dataclass(frozen=True)
class TournamentCancelled(TournamentEvent):
    type: ClassVar[str] = "tournament_cancelled"
    reason: str

    def data(self) -> dict[str, Any]:
        return {"reason": self.reason}


@dataclass(frozen=True)
class TournamentEnded(TournamentEvent):
    type: ClassVar[str] = "tournament_ended"
    rounds_played: int

    def data(self) -> dict[str, Any]:
        return {"rounds_played": self.rounds_played}


def _read(type_: str, data: Mapping[str, Any]) -> TournamentEvent:
    if type_ == TournamentCreated.type:
        return TournamentCreated(data["tournament_id"], Settings.from_json(data["settings"]))
    if type_ == EntrantRegistered.type:
        return EntrantRegistered(Entrant.from_json(data["entrant"]))
    if type_ == EntrantWithdrawn.type:
        return EntrantWithdrawn(data["entrant_id"], data["by"])
    if type_ == TournamentStarted.type:
        return TournamentStarted(data["rounds"], tuple(data["order"]), data.get("ends_at"))
    if type_ == RoundPaired.type:
        tables = tuple(Table.from_json(t) for t in data["tables"])
        waiting = tuple(data.get("waiting") or ())
        return RoundPaired(data["round"], tables, data.get("bye"), waiting, data.get("seed_commitment"))
    if type_ == MatchResult.type:
        first, second = data["scores"]
        return MatchResult(data["round"], data["table"], data["winner"], (first, second), bool(data["forfeit"]))
    if type_ == RoundEnded.type:
        return RoundEnded(data["round"])
    if type_ == ArenaClosed.type:
        return ArenaClosed(data["by"])
    if type_ == TournamentPaused.type:
        return TournamentPaused()
    if type_ == TournamentResumed.type:
        return TournamentResumed()
    if type_ == TournamentCancelled.type:
        return TournamentCancelled(data["reason"])
    if type_ == TournamentEnded.type:
        return TournamentEnded(data["rounds_played"])
    raise ImpossibleTournamentEvent(f"unknown tournament event type {type_!r}")


EVENT_TYPES = (
    TournamentCreated.type,
    EntrantRegistered.type,
    EntrantWithdrawn.type,
    TournamentStarted.type,
    RoundPaired.type,
    MatchResult.type,
    RoundEnded.type,
    ArenaClosed.type,
    TournamentPaused.type,
    TournamentResumed.type,
    TournamentCancelled.type,
    TournamentEnded.type,
)


def event_from_dict(data: Mapping[str, Any]) -> TournamentEvent:
    """An event from its JSON form (``{"type": ..., **fields}``)."""
    try:
        return _read(data["type"], data)
    except (KeyError, TypeError, ValueError) as error:
        if isinstance(error, ImpossibleTournamentEvent):
            raise
        raise ImpossibleTournamentEvent(f"malformed {data.get('type')!r} event: {error!r}") from error
