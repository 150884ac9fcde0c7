"""Matchmaking's SQL: player tokens, seeks, challenges and the players' event streams.

Concurrency, which the pairing's guarantees rest on:

* a pool's pairing is serialised (:meth:`MatchmakingRepository.lock_pool`: a PostgreSQL
  advisory lock on the pool for the transaction; SQLite's write lock already is one), so two
  seekers arriving at once never each miss the other;
* the candidates are locked ``FOR UPDATE SKIP LOCKED`` (a seek being cancelled or swept is
  skipped, never waited on), and every change of a seek's status is a compare-and-set from
  ``waiting``, so no seek is paired twice;
* a player's events are numbered under the lock of its head row.

Every write that wakes waiters (a seek leaving ``waiting``, a player's new event) also sends
``NOTIFY boneyard_events '<key>:<seq>'`` on PostgreSQL, which the listeners of every app
server hand to their waiters; their safety-net reads, and the SQLite poller, read these keys'
seqs with ``api.store.notify.KEYED_QUERIES``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Row, and_, insert, or_, select, text, update

from api.store import tables
from api.store.notify import CHANNEL, payload
from api.store.upsert import dialect_insert

#: The waiters' key of a seek (seq 0 while waiting, 1 once paired, expired or cancelled).
SEEK_KEY_PREFIX = "seek-"
#: The waiters' key of a player's event stream (seq: its last event's).
PLAYER_KEY_PREFIX = "player-"
_NOTIFY = text("SELECT pg_notify(:channel, :payload)")


@dataclass(frozen=True)
class PlayerTokenRecord:
    id: str
    portal_id: str
    player_ref: str
    label: str | None
    created_at: datetime
    revoked_at: datetime | None = None


@dataclass(frozen=True)
class SeekRecord:
    id: str
    portal_id: str | None
    player_ref: str | None
    secret_hash: str | None
    pool: str
    preset: str
    rules: dict[str, Any]
    players: int
    rated: bool
    rating_min: float | None
    rating_max: float | None
    fill_at: datetime | None
    fill_level: str | None
    status: str
    created_at: datetime
    expires_at: datetime
    match_id: str | None
    seat: int | None
    seat_token: str | None


@dataclass(frozen=True)
class ChallengeRecord:
    id: str
    portal_id: str
    challenger_ref: str
    preset: str
    rules: dict[str, Any]
    rated: bool
    seats: list[dict[str, Any]]
    status: str
    created_at: datetime
    expires_at: datetime
    match_id: str | None


@dataclass(frozen=True)
class PlayerEventRecord:
    seq: int
    type: str
    data: dict[str, Any]
    created_at: datetime


def seek_key(seek_id: str) -> str:
    return SEEK_KEY_PREFIX + seek_id


def player_key(portal_id: str, player_ref: str) -> str:
    """A player's stream key: a hash (a ``player_ref`` may hold any character, ``:`` too)."""
    digest = hashlib.sha256(f"{portal_id}\0{player_ref}".encode("utf-8", "surrogatepass")).hexdigest()
    return PLAYER_KEY_PREFIX + digest[:48]


def _seek(row: Row[Any]) -> SeekRecord:
    return SeekRecord(**{name: getattr(row, name) for name in SeekRecord.__dataclass_fields__})


def _challenge(row: Row[Any]) -> ChallengeRecord:
    return ChallengeRecord(**{name: getattr(row, name) for name in ChallengeRecord.__dataclass_fields__})


class MatchmakingRepository:
    """``uow.matchmaking``."""

    def __init__(self, connection: Connection):
        self._conn = connection

    @property
    def _postgres(self) -> bool:
        return self._conn.dialect.name == "postgresql"

    def notify(self, key: str, seq: int) -> None:
        """Wake the waiters of ``key`` in every app server at commit (PostgreSQL; SQLite is polled)."""
        if self._postgres:
            self._conn.execute(_NOTIFY, {"channel": CHANNEL, "payload": payload(key, seq)})

    # --- player tokens ------------------------------------------------------------------------
    def add_player_token(
        self, token_id: str, portal_id: str, player_ref: str, token_hash: str, label: str | None, now: datetime
    ) -> PlayerTokenRecord:
        self._conn.execute(
            insert(tables.player_tokens).values(
                id=token_id,
                portal_id=portal_id,
                player_ref=player_ref,
                token_hash=token_hash,
                label=label,
                created_at=now,
            )
        )
        return PlayerTokenRecord(token_id, portal_id, player_ref, label, now)

    def player_tokens(self, portal_id: str, player_ref: str) -> list[PlayerTokenRecord]:
        t = tables.player_tokens
        query = (
            select(t).where(t.c.portal_id == portal_id, t.c.player_ref == player_ref).order_by(t.c.created_at, t.c.id)
        )
        return [
            PlayerTokenRecord(r.id, r.portal_id, r.player_ref, r.label, r.created_at, r.revoked_at)
            for r in self._conn.execute(query)
        ]

    def revoke_player_token(self, portal_id: str, player_ref: str, token_id: str, now: datetime) -> bool:
        t = tables.player_tokens
        done = self._conn.execute(
            update(t)
            .where(
                t.c.id == token_id,
                t.c.portal_id == portal_id,
                t.c.player_ref == player_ref,
                t.c.revoked_at.is_(None),
            )
            .values(revoked_at=now)
        )
        return done.rowcount == 1

    def player_by_token_hash(self, token_hash: str) -> tuple[str, str] | None:
        """The (portal id, player_ref) of a live player token with this hash."""
        t = tables.player_tokens
        row = self._conn.execute(
            select(t.c.portal_id, t.c.player_ref).where(t.c.token_hash == token_hash, t.c.revoked_at.is_(None))
        ).first()
        return None if row is None else (row.portal_id, row.player_ref)

    # --- seeks --------------------------------------------------------------------------------
    def lock_pool(self, pool: str) -> None:
        """Serialise the pairing of one pool until the transaction ends (PostgreSQL: an advisory
        lock; SQLite: the write lock already does), so that of two seeks arriving at once the
        second one's transaction sees the first."""
        if self._postgres:
            self._conn.execute(text("SELECT pg_advisory_xact_lock(hashtextextended(:key, 0))"), {"key": "pool:" + pool})

    def add_seek(self, row: Mapping[str, Any]) -> SeekRecord:
        self._conn.execute(insert(tables.seeks).values(**row))
        found = self.get_seek(row["id"])
        assert found is not None
        return found

    def get_seek(self, seek_id: str, *, for_update: bool = False) -> SeekRecord | None:
        s = tables.seeks
        query = select(s).where(s.c.id == seek_id)
        if for_update and self._postgres:
            query = query.with_for_update()
        row = self._conn.execute(query).first()
        return None if row is None else _seek(row)

    def waiting_in_pool(self, pool: str, now: datetime, limit: int) -> list[SeekRecord]:
        """The pool's live waiting seeks, oldest first, locked (skipping those another
        transaction holds: a cancel, the sweep)."""
        s = tables.seeks
        query = (
            select(s)
            .where(s.c.pool == pool, s.c.status == "waiting", s.c.expires_at > now)
            .order_by(s.c.created_at, s.c.id)
            .limit(limit)
        )
        if self._postgres:
            query = query.with_for_update(skip_locked=True)
        return [_seek(row) for row in self._conn.execute(query)]

    def finish_seek(self, seek_id: str, status: str, **fields: Any) -> bool:
        """Move a waiting seek to ``status`` (compare-and-set: False when it was no longer waiting)."""
        s = tables.seeks
        done = self._conn.execute(
            update(s).where(s.c.id == seek_id, s.c.status == "waiting").values(status=status, **fields)
        )
        if done.rowcount == 1:
            self.notify(seek_key(seek_id), 1)
        return done.rowcount == 1

    def due_seeks(self, now: datetime, limit: int) -> list[SeekRecord]:
        """Waiting seeks whose expiry or bot-fill time has come (each is then settled in a
        transaction of its own, under its pool's lock)."""
        s = tables.seeks
        query = (
            select(s)
            .where(
                s.c.status == "waiting", or_(s.c.expires_at <= now, and_(s.c.fill_at.is_not(None), s.c.fill_at <= now))
            )
            .order_by(s.c.created_at, s.c.id)
            .limit(limit)
        )
        return [_seek(row) for row in self._conn.execute(query)]

    def forget_seat_tokens(self, match_id: str) -> None:
        """The match ended: its seat tokens are of no more use, and no longer kept."""
        s = tables.seeks
        self._conn.execute(update(s).where(s.c.match_id == match_id).values(seat_token=None))

    # --- challenges -----------------------------------------------------------------------------
    def add_challenge(self, row: Mapping[str, Any]) -> ChallengeRecord:
        self._conn.execute(insert(tables.challenges).values(**row))
        found = self.get_challenge(row["id"])
        assert found is not None
        return found

    def get_challenge(self, challenge_id: str, *, for_update: bool = False) -> ChallengeRecord | None:
        c = tables.challenges
        query = select(c).where(c.c.id == challenge_id)
        if for_update and self._postgres:
            query = query.with_for_update()
        row = self._conn.execute(query).first()
        return None if row is None else _challenge(row)

    def update_challenge(self, challenge_id: str, expected_status: str, **fields: Any) -> bool:
        """Compare-and-set on the challenge's status (False: it changed meanwhile)."""
        c = tables.challenges
        done = self._conn.execute(
            update(c).where(c.c.id == challenge_id, c.c.status == expected_status).values(**fields)
        )
        return done.rowcount == 1

    def expired_challenges(self, now: datetime, limit: int) -> list[ChallengeRecord]:
        c = tables.challenges
        query = (
            select(c)
            .where(c.c.status == "pending", c.c.expires_at <= now)
            .order_by(c.c.expires_at, c.c.id)
            .limit(limit)
        )
        return [_challenge(row) for row in self._conn.execute(query)]

    # --- the players' event streams ---------------------------------------------------------------
    def add_player_event(
        self, portal_id: str, player_ref: str, event_type: str, data: dict[str, Any], now: datetime
    ) -> tuple[str, int]:
        """Append one event to the player's stream; answers the stream's key and the event's seq."""
        h = tables.player_event_heads
        key = player_key(portal_id, player_ref)
        self._conn.execute(
            dialect_insert(self._conn)(h)
            .values(portal_id=portal_id, player_ref=player_ref, key=key, last_seq=0)
            .on_conflict_do_nothing(index_elements=["portal_id", "player_ref"])
        )
        bumped = self._conn.execute(
            update(h)
            .where(h.c.portal_id == portal_id, h.c.player_ref == player_ref)
            .values(last_seq=h.c.last_seq + 1)
            .returning(h.c.last_seq)
        ).scalar_one()
        self._conn.execute(
            insert(tables.player_events).values(
                portal_id=portal_id, player_ref=player_ref, seq=bumped, type=event_type, data=data, created_at=now
            )
        )
        self.notify(key, bumped)
        return key, bumped

    def player_last_seq(self, portal_id: str, player_ref: str) -> int:
        h = tables.player_event_heads
        found = self._conn.execute(
            select(h.c.last_seq).where(h.c.portal_id == portal_id, h.c.player_ref == player_ref)
        ).scalar()
        return int(found or 0)

    def player_events(self, portal_id: str, player_ref: str, after: int, limit: int) -> list[PlayerEventRecord]:
        e = tables.player_events
        query = (
            select(e.c.seq, e.c.type, e.c.data, e.c.created_at)
            .where(e.c.portal_id == portal_id, e.c.player_ref == player_ref, e.c.seq > after)
            .order_by(e.c.seq)
            .limit(limit)
        )
        return [PlayerEventRecord(r.seq, r.type, r.data, r.created_at) for r in self._conn.execute(query)]
