"""What the store hands out: small frozen records, and its exceptions."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from api.store.codec import decode_event
from api.store.tables import GENESIS_HASH


class StoreError(Exception):
    """Base class for the store's own errors."""


class MatchNotFound(StoreError, LookupError):
    """No match has this id."""

    def __init__(self, match_id: str):
        super().__init__(f"no match {match_id!r}")
        self.match_id = match_id


class SeatNotFound(StoreError, LookupError):
    """No such seat in this match."""

    def __init__(self, match_id: str, seat: int):
        super().__init__(f"no seat {seat} in match {match_id!r}")
        self.match_id = match_id
        self.seat = seat


class StaleSeq(StoreError):
    """Another writer appended first: ``expected_seq`` is no longer the last seq.

    ``current_seq`` is the match's last seq as seen when the append failed;
    reload, re-decide and retry with it.
    """

    def __init__(self, expected_seq: int, current_seq: int):
        super().__init__(f"expected last seq {expected_seq}, found {current_seq}")
        self.expected_seq = expected_seq
        self.current_seq = current_seq


class RematchExists(StoreError):
    """The match already has a rematch (``matches.rematch_of`` is unique)."""

    def __init__(self, match_id: str):
        super().__init__(f"match {match_id!r} already has a rematch")
        self.match_id = match_id


class InvalidCursor(StoreError, ValueError):
    """A listing cursor that this store did not produce."""


class DatabaseBusy(StoreError):
    """The write lock could not be had in time (another writer holds it): retry shortly."""


@dataclass(frozen=True, slots=True)
class ChainHead:
    """Where a match's hash chain ends: its last event's ``seq`` and ``hash`` (seq 0 and the
    genesis hash before the first event). Shown with every view and events page, so a client
    can pin it and later check that the revealed log still has that hash at that seq."""

    seq: int
    hash: str

    def to_dict(self) -> dict[str, Any]:
        return {"seq": self.seq, "hash": self.hash}


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """One row of ``matches``.  ``seed`` is secret and left out of ``repr``."""

    id: str
    status: str
    preset: str
    players: int
    seed: str = field(repr=False)
    seed_commitment: str
    last_seq: int
    summary: Mapping[str, Any]  # read-only where the store keeps records between reads
    created_at: datetime
    updated_at: datetime
    deadline_at: datetime | None = None  # turn clocks: when the seat to move times out
    rematch_of: str | None = None
    last_hash: str = GENESIS_HASH  # the hash of event ``last_seq`` (api.store.chain)
    portal_id: str | None = None  # the portal that owns it (None: the public space)
    rated: bool = False  # its end updates its players' ratings

    @property
    def head(self) -> ChainHead:
        """The chain head as of this record: read with it, so it is consistent with ``last_seq``."""
        return ChainHead(self.last_seq, self.last_hash)


@dataclass(frozen=True, slots=True)
class SeatRecord:
    """One row of ``seats``.  ``token_hash`` is left out of ``repr``."""

    match_id: str
    seat: int
    name: str
    type: str
    level: str | None = None
    token_hash: str | None = field(default=None, repr=False)
    player_ref: str | None = None
    reserved_for: str | None = field(default=None, repr=False)  # a rematch seat: the old token's hash


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """One row of ``events`` for a match (the match id is implied)."""

    seq: int
    type: str
    schema_version: int
    data: dict[str, Any]
    recorded_at: datetime
    prev_hash: str = ""
    hash: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The event as the engine wants it: ``{"type": ..., **fields}`` (upcast)."""
        return decode_event(self.type, self.schema_version, self.data)


@dataclass(frozen=True, slots=True)
class Space:
    """Whose matches: one portal's (``portal_id``), or the public space's (``None``)."""

    portal_id: str | None


PUBLIC_SPACE = Space(None)


@dataclass(frozen=True, slots=True)
class MatchFilter:
    """Which matches a listing keeps; ``None`` leaves that filter off.

    ``space``: one portal's matches or the public space's; ``has_open_seat``: an open seat
    anyone may claim (seats kept for a rematch do not count); ``player_ref``: a seat of that
    portal player."""

    status: str | None = None
    preset: str | None = None
    has_open_seat: bool | None = None
    player_ref: str | None = None
    space: Space | None = None


EVERY_MATCH = MatchFilter()


@dataclass(frozen=True, slots=True)
class MatchPage:
    """A page of matches, newest first; pass ``next_cursor`` to get the next."""

    items: list[MatchRecord]
    next_cursor: str | None


@dataclass(frozen=True, slots=True)
class PortalRecord:
    """One row of ``portals``: a tenant. ``create_limit``: its own budget for new matches
    (a rate such as ``600/minute``; None: the server's default)."""

    id: str
    name: str
    created_at: datetime
    create_limit: str | None = None


@dataclass(frozen=True, slots=True)
class PortalKeyRecord:
    """One row of ``portal_keys`` (the key itself is never kept, only its hash)."""

    id: str
    portal_id: str
    created_at: datetime
    revoked_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class PlayerFigures:
    """A portal player's statistics as kept (``player_stats``)."""

    played: int = 0
    won: int = 0
    forfeited: int = 0
    hands_won: int = 0
    best_margin: int | None = None
    current_streak: int = 0
    longest_streak: int = 0


class PortalNameTaken(StoreError):
    """Another portal has this name (``portals.name`` is unique)."""

    def __init__(self, name: str):
        super().__init__(f"a portal named {name!r} exists")
        self.name = name
