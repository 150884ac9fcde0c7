"""The use cases' commands: what a caller asks, as small frozen values.

Each command names what it answers (``Command[R]``); ``api.services.bus`` hands it to its one
handler with the shared match flow. The HTTP layer builds these from requests, the CLI and the
autoplay runner from their own inputs: nothing else reaches the use cases.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from .idempotency import Keyed
from .waiting import Client

R = TypeVar("R", covariant=True)

#: A use case's answer as the HTTP layer serialises it (shapes: ``api.http.schemas``).
Answer = dict[str, Any]

#: Rows per ``/audit`` page: by default, and at most.
AUDIT_PAGE, MAX_AUDIT_PAGE = 1000, 5000
#: Events per ``/events`` page at most.
MAX_EVENTS_PAGE = 1000


class Command(Generic[R]):
    """A request to the use cases answering an ``R``."""


@dataclass(frozen=True)
class SeatSpec:
    """One seat of a match to create: ``type`` is a seat kind (``api.rules.SEAT_TYPES``)."""

    name: str
    type: str
    level: str | None = None
    client_seed: str | None = None
    player_ref: str | None = None  # the portal's id for the player (lobby)
    reserved_for: str | None = None  # open seats of a rematch: the old seat token's hash


# --- changing a match ------------------------------------------------------------------------
@dataclass(frozen=True)
class CreateMatch(Command[Answer]):
    """Create a match; ``creator`` is the client's address (it may run only so many all-bot
    matches at once); ``seed`` is a client-chosen server seed (only where the server allows)."""

    preset: str
    overrides: dict[str, Any] | None
    seats: tuple[SeatSpec, ...]
    seed: str | None = None
    rematch_of: str | None = None
    creator: str | None = None


@dataclass(frozen=True)
class ClaimSeat(Command[Answer]):
    """Take an open seat; ``token``: a rematch seat is kept for the old seat's token."""

    match_id: str
    seat: int
    name: str
    client_seed: str | None = None
    player_ref: str | None = None
    token: str | None = None


@dataclass(frozen=True)
class Act(Command[Answer]):
    """A seat's action. ``expected_seq`` (body) refuses with StaleSeq, ``if_match_seq`` (header)
    with PreconditionFailed; with ``keyed`` the answer is stored for retries of the same key."""

    match_id: str
    token: str | None
    action: dict[str, Any]
    expected_seq: int | None = None
    if_match_seq: int | None = None
    keyed: Keyed | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Rematch(Command[tuple[Answer, bool]]):
    """The rematch of an ended match, made now or before; answers it and whether it is new."""

    match_id: str
    token: str | None


@dataclass(frozen=True)
class PlayBots(Command[tuple[int, bool]]):
    """One step of the autoplay runner: up to ``max_moves`` owed computer moves at one table;
    answers the events appended and whether the match has ended."""

    match_id: str
    max_moves: int


@dataclass(frozen=True)
class SweepClocks(Command[int]):
    """Play every turn whose clock ran out, once; answers how many."""


# --- reading ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class GetSummary(Command[Answer]):
    match_id: str


@dataclass(frozen=True)
class GetView(Command[Answer]):
    """What the token's seat (no token: a spectator) may see."""

    match_id: str
    token: str | None


@dataclass(frozen=True)
class GetEvents(Command[Answer]):
    """The log after ``after`` as the seat sees it; with ``wait``, held up to that many seconds for
    an event. ``client`` says who waits (its address's cap, how to tell it has gone)."""

    match_id: str
    token: str | None
    after: int = 0
    limit: int = 100
    wait: float = 0
    client: Client | None = field(default=None, compare=False)


@dataclass(frozen=True)
class GetAudit(Command[Answer]):
    """One page of an ended match's unredacted log."""

    match_id: str
    after: int = 0
    limit: int = AUDIT_PAGE


@dataclass(frozen=True)
class GetFairness(Command[Answer]):
    """The fairness check of an ended match (made once, then read)."""

    match_id: str


@dataclass(frozen=True)
class ListMatches(Command[Answer]):
    status: str | None = None
    limit: int = 20
    cursor: str | None = None
    preset: str | None = None
    has_open_seat: bool | None = None
    player_ref: str | None = None


@dataclass(frozen=True)
class GetPlayerStats(Command[Answer]):
    player_ref: str
