"""Match and seat repositories: SQL for ``matches`` and ``seats``.

Repositories are created by :class:`api.store.unit_of_work.UnitOfWork` and
run every statement on its connection, inside its transaction.
"""

from __future__ import annotations

import base64
import binascii
import json
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, and_, bindparam, insert, or_, select, update

from api.store import tables
from api.store.records import (
    InvalidCursor,
    MatchNotFound,
    MatchPage,
    MatchRecord,
    SeatNotFound,
    SeatRecord,
)

MAX_PAGE_SIZE = 100


def utcnow() -> datetime:
    """The store's clock: an aware UTC datetime."""
    return datetime.now(UTC)


def new_match_id() -> str:
    """A fresh match id: 32 lowercase hex digits (uuid4)."""
    return uuid.uuid4().hex


def _match_record(row) -> MatchRecord:
    return MatchRecord(
        id=row.id,
        status=row.status,
        preset=row.preset,
        players=row.players,
        seed=row.seed,
        seed_commitment=row.seed_commitment,
        last_seq=row.last_seq,
        summary=row.summary,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


def _seat_record(row) -> SeatRecord:
    return SeatRecord(
        match_id=row.match_id,
        seat=row.seat,
        name=row.name,
        type=row.type,
        level=row.level,
        token_hash=row.token_hash,
        player_ref=row.player_ref,
    )


def encode_cursor(created_at: datetime, match_id: str) -> str:
    """An opaque cursor pointing just after (older than) this match."""
    raw = json.dumps([created_at.isoformat(), match_id], separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, str]:
    """Inverse of :func:`encode_cursor`; :class:`InvalidCursor` on garbage."""
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        created_at, match_id = json.loads(base64.urlsafe_b64decode(padded.encode()))
        when = datetime.fromisoformat(created_at)
        if when.tzinfo is None or not isinstance(match_id, str):
            raise ValueError("bad cursor fields")
        return when, match_id
    except (ValueError, TypeError, binascii.Error, UnicodeDecodeError) as exc:
        raise InvalidCursor(f"invalid cursor {cursor!r}") from exc


# Hot statements are built once (building the expression and its cache key on every
# call was a measurable share of an action; bench/README.md).
_GET_MATCH = select(tables.matches).where(tables.matches.c.id == bindparam("match_id"))
_GET_MATCH_FOR_UPDATE = _GET_MATCH.with_for_update()
_SEATS_OF_MATCH = (select(tables.seats).where(tables.seats.c.match_id == bindparam("match_id"))
                   .order_by(tables.seats.c.seat))
_TOKEN_HASH_EXISTS = (select(tables.seats.c.match_id)
                      .where(tables.seats.c.token_hash == bindparam("token_hash")).limit(1))
_MATCH_UPDATES: dict[frozenset[str], Any] = {}


def _match_update(fields: frozenset[str]):
    """``UPDATE matches SET <fields>, updated_at WHERE id = :match_id``, one per field set."""
    statement = _MATCH_UPDATES.get(fields)
    if statement is None:
        statement = (update(tables.matches).where(tables.matches.c.id == bindparam("match_id"))
                     .values({name: bindparam(f"new_{name}") for name in (*sorted(fields), "updated_at")}))
        _MATCH_UPDATES[fields] = statement
    return statement


class MatchRepository:
    """``uow.matches``: rows of the ``matches`` table as :class:`MatchRecord`."""

    #: Columns :meth:`update` may change (``last_seq`` moves only with events).
    UPDATABLE = frozenset({"status", "preset", "players", "seed", "seed_commitment", "summary"})
    _REQUIRED = ("preset", "players", "seed", "seed_commitment")

    def __init__(self, connection: Connection, locked_hashes: dict[str, str] | None = None):
        self._conn = connection
        # Shared with the unit of work's EventRepository (see there).
        self._locked_hashes = {} if locked_hashes is None else locked_hashes

    def add(self, row: Mapping[str, Any]) -> MatchRecord:
        """Insert a match and return it.

        ``row`` needs ``preset``, ``players``, ``seed`` and ``seed_commitment``;
        optional ``id`` (default: a new uuid4 hex), ``status`` (default
        ``"waiting"``) and ``summary`` (default ``{}``).  Timestamps are set
        here; ``last_seq`` starts at 0.
        """
        allowed = self.UPDATABLE | {"id"}
        unknown = set(row) - allowed
        if unknown:
            raise TypeError(f"unknown match fields: {sorted(unknown)}")
        missing = [name for name in self._REQUIRED if name not in row]
        if missing:
            raise TypeError(f"missing match fields: {missing}")
        now = utcnow()
        values = {
            "id": row.get("id") or new_match_id(),
            "status": row.get("status", "waiting"),
            "summary": dict(row.get("summary") or {}),
            "preset": row["preset"],
            "players": row["players"],
            "seed": row["seed"],
            "seed_commitment": row["seed_commitment"],
            "last_seq": 0,
            "created_at": now,
            "updated_at": now,
        }
        self._conn.execute(insert(tables.matches).values(**values))
        return MatchRecord(**{k: values[k] for k in MatchRecord.__dataclass_fields__})

    def get(self, match_id: str) -> MatchRecord | None:
        """The match, or ``None``."""
        row = self._conn.execute(_GET_MATCH, {"match_id": match_id}).first()
        return None if row is None else _match_record(row)

    def get_for_update(self, match_id: str) -> MatchRecord | None:
        """The match, locked until this unit of work ends (or ``None``).

        PostgreSQL: ``SELECT ... FOR UPDATE``.  SQLite: the transaction already
        holds the database write lock (``BEGIN IMMEDIATE``).
        """
        row = self._conn.execute(_GET_MATCH_FOR_UPDATE, {"match_id": match_id}).first()
        if row is None:
            return None
        self._locked_hashes[match_id] = row.last_hash
        return _match_record(row)

    def update(self, match_id: str, **fields: Any) -> None:
        """Set some of :attr:`UPDATABLE` and ``updated_at``; :class:`MatchNotFound` if absent."""
        unknown = set(fields) - self.UPDATABLE
        if unknown:
            raise TypeError(f"cannot update match fields: {sorted(unknown)}")
        params = {f"new_{name}": value for name, value in fields.items()}
        params.update(match_id=match_id, new_updated_at=utcnow())
        result = self._conn.execute(_match_update(frozenset(fields)), params)
        if result.rowcount == 0:
            raise MatchNotFound(match_id)

    def list(
        self, status: str | None = None, limit: int = 20, cursor: str | None = None
    ) -> MatchPage:
        """Matches newest first (``created_at``, then ``id``, descending).

        ``limit`` is clamped to 1..100.  ``next_cursor`` is ``None`` on the
        last page.  Raises :class:`InvalidCursor` for a cursor not made here.
        """
        limit = max(1, min(int(limit), MAX_PAGE_SIZE))
        m = tables.matches
        query = select(m)
        if status is not None:
            query = query.where(m.c.status == status)
        if cursor is not None:
            created_at, match_id = decode_cursor(cursor)
            query = query.where(
                or_(
                    m.c.created_at < created_at,
                    and_(m.c.created_at == created_at, m.c.id < match_id),
                )
            )
        query = query.order_by(m.c.created_at.desc(), m.c.id.desc()).limit(limit + 1)
        rows = self._conn.execute(query).all()
        items = [_match_record(row) for row in rows[:limit]]
        next_cursor = None
        if len(rows) > limit:
            last = items[-1]
            next_cursor = encode_cursor(last.created_at, last.id)
        return MatchPage(items=items, next_cursor=next_cursor)


class SeatRepository:
    """``uow.seats``: rows of the ``seats`` table as :class:`SeatRecord`."""

    UPDATABLE = frozenset({"name", "type", "level", "token_hash", "player_ref"})
    _FIELDS = frozenset({"match_id", "seat"}) | UPDATABLE

    def __init__(self, connection: Connection):
        self._conn = connection

    def add(self, row: Mapping[str, Any]) -> SeatRecord:
        """Insert a seat: ``match_id``, ``seat``, ``name``, ``type`` (+ optional fields)."""
        unknown = set(row) - self._FIELDS
        if unknown:
            raise TypeError(f"unknown seat fields: {sorted(unknown)}")
        record = SeatRecord(**row)
        self._conn.execute(
            insert(tables.seats).values(
                {name: getattr(record, name) for name in SeatRecord.__dataclass_fields__}
            )
        )
        return record

    def list_for_match(self, match_id: str) -> list[SeatRecord]:
        """The match's seats ordered by seat number."""
        rows = self._conn.execute(_SEATS_OF_MATCH, {"match_id": match_id}).all()
        return [_seat_record(row) for row in rows]

    def find_by_token_hash(self, match_id: str, token_hash: str) -> SeatRecord | None:
        """The seat in this match holding ``token_hash`` (sha256 hex), or ``None``."""
        s = tables.seats
        row = self._conn.execute(
            select(s).where(s.c.match_id == match_id, s.c.token_hash == token_hash)
        ).first()
        return None if row is None else _seat_record(row)

    def token_hash_exists(self, token_hash: str) -> bool:
        """Whether any seat of any match holds ``token_hash`` (tells 401 from 403)."""
        row = self._conn.execute(_TOKEN_HASH_EXISTS, {"token_hash": token_hash}).first()
        return row is not None

    def update(self, match_id: str, seat: int, **fields: Any) -> None:
        """Change a seat; :class:`SeatNotFound` if absent."""
        unknown = set(fields) - self.UPDATABLE
        if unknown:
            raise TypeError(f"cannot update seat fields: {sorted(unknown)}")
        if not fields:
            return
        s = tables.seats
        result = self._conn.execute(
            update(s).where(s.c.match_id == match_id, s.c.seat == seat).values(**fields)
        )
        if result.rowcount == 0:
            raise SeatNotFound(match_id, seat)
