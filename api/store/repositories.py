"""Match and seat repositories: SQL for ``matches`` and ``seats``.

Repositories are created by :class:`api.store.unit_of_work.UnitOfWork` and
run every statement on its connection, inside its transaction.
"""

from __future__ import annotations

import builtins  # `builtins.list` in the classes whose `list` method hides the type
import re
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from types import MappingProxyType
from typing import Any

from sqlalchemy import Connection, Row, Update, and_, bindparam, exists, func, insert, or_, select, text, update
from sqlalchemy.exc import IntegrityError

from api.lru import Lru
from api.rules import ENDED, OPEN_SEAT, PLAYING, WAITING
from api.store import tables
from api.store.codec import decode_event
from api.store.prepared import Prepared
from api.store.records import (
    EVERY_MATCH,
    InvalidCursor,
    MatchFilter,
    MatchNotFound,
    MatchPage,
    MatchRecord,
    RematchExists,
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


def _match_record(row: Row[Any], summary: Mapping[str, Any] | None = None) -> MatchRecord:
    """The record of a ``matches`` row (``summary``: the row's summary as a caller wraps it)."""
    return MatchRecord(
        id=row.id,
        status=row.status,
        preset=row.preset,
        players=row.players,
        seed=row.seed,
        seed_commitment=row.seed_commitment,
        last_seq=row.last_seq,
        summary=row.summary if summary is None else summary,
        created_at=row.created_at,
        updated_at=row.updated_at,
        deadline_at=row.deadline_at,
        rematch_of=row.rematch_of,
        last_hash=row.last_hash,
        portal_id=row.portal_id,
        rated=row.rated,
    )


def _seat_record(row: Row[Any]) -> SeatRecord:
    return SeatRecord(
        match_id=row.match_id,
        seat=row.seat,
        name=row.name,
        type=row.type,
        level=row.level,
        token_hash=row.token_hash,
        player_ref=row.player_ref,
        reserved_for=row.reserved_for,
    )


def _prefixed_seat_record(row: Row[Any]) -> SeatRecord:
    return SeatRecord(
        match_id=row.seat_match_id,
        seat=row.seat_seat,
        name=row.seat_name,
        type=row.seat_type,
        level=row.seat_level,
        token_hash=row.seat_token_hash,
        player_ref=row.seat_player_ref,
        reserved_for=row.seat_reserved_for,
    )


def encode_cursor(created_at: datetime, match_id: str) -> str:
    """A cursor pointing just after (older than) this match: ``<created_at in microseconds since
    1970, UTC>-<match id>``. Any string of that form (:data:`CURSOR_PATTERN`) is a position in
    the listing's order, so a client may also write one (every match created before a moment)."""
    return f"{(created_at - _EPOCH) // _MICROSECOND}-{match_id}"


#: Exactly the cursors :func:`decode_cursor` reads (the OpenAPI document says so). Up to 16
#: digits of microseconds stays within what a datetime holds (to the year 2286).
CURSOR_PATTERN = r"^[0-9]{1,16}-[0-9a-f]{32}$"
_CURSOR = re.compile(CURSOR_PATTERN)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)


def decode_cursor(cursor: str) -> tuple[datetime, str]:
    """Inverse of :func:`encode_cursor`; :class:`InvalidCursor` for a string not of its form.

    The cursor comes from the client: held to the pattern before anything reads it (a lone
    surrogate or NUL in a match id used to reach the query and fail there, 500)."""
    if not isinstance(cursor, str) or _CURSOR.fullmatch(cursor) is None:
        raise InvalidCursor(f"invalid cursor {cursor[:80] if isinstance(cursor, str) else cursor!r}")
    micros, _, match_id = cursor.partition("-")
    return _EPOCH + int(micros) * _MICROSECOND, match_id


# Hot statements are built once (building the expression and its cache key on every
# call was a measurable share of an action; bench/README.md).
_GET_MATCH = select(tables.matches).where(tables.matches.c.id == bindparam("match_id"))
_GET_MATCH_FOR_UPDATE = _GET_MATCH.with_for_update()
_SEATS_OF_MATCH = (
    select(tables.seats).where(tables.seats.c.match_id == bindparam("match_id")).order_by(tables.seats.c.seat)
)
# A match and its seats in one statement (the seats' columns prefixed, ``seat_*``): an action and
# a view read both, and a round trip each cost as much as the row (bench/README.md, issue 36).
_SEAT_COLUMNS = tuple(column.label(f"seat_{column.name}") for column in tables.seats.c)
_MATCH_AND_SEATS = (
    select(tables.matches, *_SEAT_COLUMNS)
    .select_from(tables.matches.outerjoin(tables.seats, tables.seats.c.match_id == tables.matches.c.id))
    .where(tables.matches.c.id == bindparam("match_id"))
    .order_by(tables.seats.c.seat)
)
# PostgreSQL locks the match's row alone, as ``get_for_update`` does (FOR UPDATE OF matches: the
# seats' side of an outer join cannot be locked, and no writer of a match locks its seats).
_MATCH_AND_SEATS_FOR_UPDATE = _MATCH_AND_SEATS.with_for_update(of=tables.matches)
# Every request runs one of these two: on the driver's cursor (api.store.prepared).
_MATCH_COLUMNS = [column.key for column in tables.matches.c]
PREPARED_MATCH_AND_SEATS = Prepared(_MATCH_AND_SEATS, first_row_only=_MATCH_COLUMNS)
PREPARED_GET_MATCH = Prepared(_GET_MATCH)
PREPARED_MATCH_AND_SEATS_FOR_UPDATE = Prepared(_MATCH_AND_SEATS_FOR_UPDATE, first_row_only=_MATCH_COLUMNS)
_TOKEN_HASH_EXISTS = (
    select(tables.seats.c.match_id).where(tables.seats.c.token_hash == bindparam("token_hash")).limit(1)
)
_MATCH_UPDATES: dict[frozenset[str], Update] = {}


def _match_update(fields: frozenset[str]) -> Update:
    """``UPDATE matches SET <fields>, updated_at WHERE id = :match_id``, one per field set."""
    statement = _MATCH_UPDATES.get(fields)
    if statement is None:
        statement = (
            update(tables.matches)
            .where(tables.matches.c.id == bindparam("match_id"))
            .values({name: bindparam(f"new_{name}") for name in (*sorted(fields), "updated_at")})
        )
        _MATCH_UPDATES[fields] = statement
    return statement


#: The events that tell a match's results (``MatchRepository.result_events``): ``match_created``
#: (the rules), the line games' ``hand_ended``, the trains games' ``round_ended`` (a round is their
#: hand) and ``match_ended``.
RESULT_EVENT_TYPES = ("match_created", "hand_ended", "round_ended", "match_ended")


class RecordsRead:
    """The records made from the match-and-seats rows of recent reads, kept by those very rows.

    Why: every request reads its match and seats, and making the records (a value processor
    per column: timestamps parsed, the summary's JSON decoded) cost twice the read itself inside
    a request (bench/README.md, issue 36); a match polled or acted on is read again and again
    with the same row until it moves. Rows whose values are all equal make equal records, so a
    read whose rows were seen before, by the same SQL on the same database kind, answers the
    records made then (on SQLite a writer's locked read is the readers' SQL: an action finds the
    records of the view its client read just before). What is kept cannot be changed by its
    readers: the records are frozen and the summary is a read-only view. Rows a driver gives
    with values that cannot be keys (psycopg decodes JSON itself) are processed every time, as
    before. An LRU of ``max_entries``, shared by the threads of one process.
    """

    def __init__(self, max_entries: int = 512):
        self.max_entries = max_entries
        self._kept = Lru(max_entries)  # of (MatchRecord, its SeatRecords) by the rows made from
        self._unkeyable: set[str] = set()  # database kinds whose rows cannot be keys

    def of(
        self, conn: Connection, statement: Prepared, found: list[Any], description: Any, *, keep: bool = True
    ) -> tuple[MatchRecord, tuple[SeatRecord, ...]]:
        """The records of ``found`` (the driver's rows of ``statement`` on ``conn``); ``keep``
        False: those made here are not kept (a writer's row is about to change)."""
        kind = conn.dialect.name
        if kind in self._unkeyable:
            return self.made(conn, statement, found, description)
        key = (statement.sql(conn), kind, tuple(found))
        try:
            hash(key)
        except TypeError:
            self._unkeyable.add(kind)  # the same driver gives the same kinds of values every time
            return self.made(conn, statement, found, description)
        kept: tuple[MatchRecord, tuple[SeatRecord, ...]] | None = self._kept.get(key)
        if kept is not None:
            return kept
        made = self.made(conn, statement, found, description)
        if keep:
            self._kept.put(key, made)
        return made

    @staticmethod
    def made(
        conn: Connection, statement: Prepared, found: list[Any], description: Any
    ) -> tuple[MatchRecord, tuple[SeatRecord, ...]]:
        """The records of ``found`` made afresh (none kept)."""
        rows = statement.processed(conn, found, description)
        record = _match_record(rows[0], summary=MappingProxyType(rows[0].summary))
        return record, tuple(_prefixed_seat_record(row) for row in rows if row.seat_match_id is not None)


#: The one per process (``MatchRepository.get_with_seats``).
RECORDS_READ = RecordsRead()


class MatchRepository:
    """``uow.matches``: rows of the ``matches`` table as :class:`MatchRecord`."""

    #: Columns :meth:`update` may change (``last_seq`` moves only with events).
    UPDATABLE = frozenset({"status", "preset", "players", "seed", "seed_commitment", "summary", "deadline_at"})
    REQUIRED = ("preset", "players", "seed", "seed_commitment")  # what add needs

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
        allowed = self.UPDATABLE | {"id", "rematch_of", "creator_key", "all_bots", "portal_id", "rated"}
        unknown = set(row) - allowed
        if unknown:
            raise TypeError(f"unknown match fields: {sorted(unknown)}")
        missing = [name for name in self.REQUIRED if name not in row]
        if missing:
            raise TypeError(f"missing match fields: {missing}")
        now = utcnow()
        values = {
            "id": row.get("id") or new_match_id(),
            "status": row.get("status", WAITING),
            "summary": dict(row.get("summary") or {}),
            "preset": row["preset"],
            "players": row["players"],
            "seed": row["seed"],
            "seed_commitment": row["seed_commitment"],
            "last_seq": 0,
            "last_hash": tables.GENESIS_HASH,
            "created_at": now,
            "updated_at": now,
            "deadline_at": row.get("deadline_at"),
            "rematch_of": row.get("rematch_of"),
            "creator_key": row.get("creator_key"),
            "all_bots": bool(row.get("all_bots", False)),
            "portal_id": row.get("portal_id"),
            "rated": bool(row.get("rated", False)),
        }
        try:
            self._conn.execute(insert(tables.matches).values(**values))
        except IntegrityError:
            if values["rematch_of"] is None:
                raise
            # The unique rematch_of: another request made this rematch first (the
            # transaction is spoiled on PostgreSQL; the caller rolls back and reads it).
            raise RematchExists(values["rematch_of"]) from None
        return MatchRecord(**{k: values[k] for k in MatchRecord.__dataclass_fields__})

    def get(self, match_id: str) -> MatchRecord | None:
        """The match, or ``None``."""
        found = PREPARED_GET_MATCH.rows(self._conn, {"match_id": match_id})
        return _match_record(found[0]) if found else None

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

    def get_with_seats(self, match_id: str, *, for_update: bool = False) -> tuple[MatchRecord, list[SeatRecord]] | None:
        """The match and its seats ordered by seat number, in one statement (or ``None``).

        ``for_update``: the match locked as by :meth:`get_for_update` (its seats are not)."""
        statement = PREPARED_MATCH_AND_SEATS_FOR_UPDATE if for_update else PREPARED_MATCH_AND_SEATS
        found, description = statement.fetched(self._conn, {"match_id": match_id})
        if not found:
            return None
        # a writer's row is about to change: its records are looked up but not kept
        record, seats = RECORDS_READ.of(self._conn, statement, found, description, keep=not for_update)
        if for_update:
            self._locked_hashes[match_id] = record.last_hash
        return record, list(seats)

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

    def list(self, where: MatchFilter = EVERY_MATCH, limit: int = 20, cursor: str | None = None) -> MatchPage:
        """Matches newest first (``created_at``, then ``id``, descending).

        Only those ``where`` keeps (:class:`MatchFilter`).  ``limit`` is clamped to 1..100.
        ``next_cursor`` is ``None`` on the last page.  Raises :class:`InvalidCursor` for a cursor not made here.
        """
        limit = max(1, min(int(limit), MAX_PAGE_SIZE))
        m, s = tables.matches, tables.seats
        query = select(m)
        if where.status is not None:
            query = query.where(m.c.status == where.status)
        if where.preset is not None:
            query = query.where(m.c.preset == where.preset)
        if where.has_open_seat is not None:
            open_seat = exists().where(s.c.match_id == m.c.id, s.c.type == OPEN_SEAT, s.c.reserved_for.is_(None))
            query = query.where(open_seat if where.has_open_seat else ~open_seat)
        if where.player_ref is not None:
            query = query.where(exists().where(s.c.match_id == m.c.id, s.c.player_ref == where.player_ref))
        if where.space is not None:
            portal_id = where.space.portal_id
            query = query.where(m.c.portal_id.is_(None) if portal_id is None else m.c.portal_id == portal_id)
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

    def get_rematch(self, match_id: str) -> MatchRecord | None:
        """The rematch of ``match_id``, or ``None``."""
        m = tables.matches
        row = self._conn.execute(select(m).where(m.c.rematch_of == match_id)).first()
        return None if row is None else _match_record(row)

    def list_stale_clocks(self, now: datetime, limit: int = 100) -> builtins.list[str]:
        """Ids of playing matches whose turn clock ran out before ``now``, most overdue first."""
        m = tables.matches
        query = (
            select(m.c.id)
            .where(m.c.status == PLAYING, m.c.deadline_at < now)
            .order_by(m.c.deadline_at, m.c.id)
            .limit(limit)
        )
        return list(self._conn.execute(query).scalars())

    # --- the autoplay queue (api.services.autoplay) ------------------------------------
    def bots_backlog(self, now: datetime) -> tuple[int, datetime | None]:
        """How many playing matches' computer players are owed a move by ``now``, and since when
        the longest owed one has been due (None: none is). A read: a runner asks this before
        claiming, so an idle runner never takes SQLite's write lock."""
        m = tables.matches
        query = select(func.count(), func.min(m.c.bots_due_at)).where(m.c.status == PLAYING, m.c.bots_due_at <= now)
        count, oldest = self._conn.execute(query).one()
        return count, oldest

    def claim_due_bots(self, now: datetime, lease_until: datetime, limit: int) -> builtins.list[str]:
        """Claim up to ``limit`` playing matches whose computer player is owed a move by
        ``now`` and that no live runner holds: their ``autoplay_lease_until`` becomes
        ``lease_until``. On PostgreSQL rows another runner is claiming are skipped
        (``FOR UPDATE SKIP LOCKED``); on SQLite the write lock serialises claims."""
        m = tables.matches
        query = (
            select(m.c.id)
            .where(
                m.c.status == PLAYING,
                m.c.bots_due_at <= now,
                or_(m.c.autoplay_lease_until.is_(None), m.c.autoplay_lease_until < now),
            )
            .order_by(m.c.bots_due_at, m.c.id)
            .limit(limit)
        )
        if self._conn.dialect.name == "postgresql":
            query = query.with_for_update(skip_locked=True)
        ids = list(self._conn.execute(query).scalars())
        if ids:
            self._conn.execute(update(m).where(m.c.id.in_(ids)).values(autoplay_lease_until=lease_until))
        return ids

    def set_bots_due(self, match_id: str, bots_due_at: datetime | None) -> None:
        """Reschedule (or, with None, drop) a match's owed computer move and end any claim."""
        m = tables.matches
        self._conn.execute(
            update(m).where(m.c.id == match_id).values(bots_due_at=bots_due_at, autoplay_lease_until=None)
        )

    def bots_due_at(self, match_id: str) -> datetime | None:
        m = tables.matches
        return self._conn.execute(select(m.c.bots_due_at).where(m.c.id == match_id)).scalar_one_or_none()

    def lock_creator(self, creator_key: str) -> None:
        """Serialise the cap check of one creator until the transaction ends (PostgreSQL: an
        advisory lock; SQLite: the write lock already does)."""
        if self._conn.dialect.name == "postgresql":
            self._conn.execute(
                text("SELECT pg_advisory_xact_lock(hashtextextended(:key, 0))"), {"key": "creator:" + creator_key}
            )

    def count_running_all_bots(self, creator_key: str) -> int:
        """How many of this creator's all-bot matches have not ended."""
        m = tables.matches
        return self._conn.execute(
            select(func.count())
            .select_from(m)
            .where(m.c.creator_key == creator_key, m.c.all_bots.is_(True), m.c.status != ENDED)
        ).scalar_one()

    def stalled_for_player(
        self, portal_id: str, player_ref: str, idle_since: datetime
    ) -> builtins.list[tuple[MatchRecord, int]]:
        """The portal's playing matches with a seat of ``player_ref`` and no event since
        ``idle_since``, with that seat (a match where the player holds several seats appears
        once per seat)."""
        m, s = tables.matches, tables.seats
        query = (
            select(m, s.c.seat.label("player_seat"))
            .join(s, s.c.match_id == m.c.id)
            .where(
                s.c.player_ref == player_ref,
                m.c.portal_id == portal_id,
                m.c.status == PLAYING,
                m.c.updated_at < idle_since,
            )
            .order_by(m.c.updated_at, m.c.id, s.c.seat)
        )
        return [(_match_record(row), row.player_seat) for row in self._conn.execute(query)]

    def result_events(self, match_ids: builtins.list[str]) -> dict[str, builtins.list[dict[str, Any]]]:
        """Per match, in seq order, the events that tell its results (``RESULT_EVENT_TYPES``)."""
        e = tables.events
        out: dict[str, list[dict[str, Any]]] = {match_id: [] for match_id in match_ids}
        for start in range(0, len(match_ids), 500):
            chunk = match_ids[start : start + 500]
            query = (
                select(e.c.match_id, e.c.type, e.c.schema_version, e.c.data)
                .where(e.c.match_id.in_(chunk), e.c.type.in_(RESULT_EVENT_TYPES))
                .order_by(e.c.match_id, e.c.seq)
            )
            for row in self._conn.execute(query):
                out[row.match_id].append(decode_event(row.type, row.schema_version, row.data))
        return out


class SeatRepository:
    """``uow.seats``: rows of the ``seats`` table as :class:`SeatRecord`."""

    UPDATABLE = frozenset({"name", "type", "level", "token_hash", "player_ref", "reserved_for"})
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
            insert(tables.seats).values({name: getattr(record, name) for name in SeatRecord.__dataclass_fields__})
        )
        return record

    def list_for_match(self, match_id: str) -> list[SeatRecord]:
        """The match's seats ordered by seat number."""
        rows = self._conn.execute(_SEATS_OF_MATCH, {"match_id": match_id}).all()
        return [_seat_record(row) for row in rows]

    def refs_for(self, match_ids: list[str]) -> dict[str, dict[int, str]]:
        """``{match_id: {seat: player_ref}}`` for the seats that carry a player_ref."""
        if not match_ids:
            return {}
        s = tables.seats
        rows = self._conn.execute(
            select(s.c.match_id, s.c.seat, s.c.player_ref).where(
                s.c.match_id.in_(match_ids), s.c.player_ref.is_not(None)
            )
        )
        out: dict[str, dict[int, str]] = {}
        for row in rows:
            out.setdefault(row.match_id, {})[row.seat] = row.player_ref
        return out

    def find_by_token_hash(self, match_id: str, token_hash: str) -> SeatRecord | None:
        """The seat in this match holding ``token_hash`` (sha256 hex), or ``None``."""
        s = tables.seats
        row = self._conn.execute(select(s).where(s.c.match_id == match_id, s.c.token_hash == token_hash)).first()
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
        result = self._conn.execute(update(s).where(s.c.match_id == match_id, s.c.seat == seat).values(**fields))
        if result.rowcount == 0:
            raise SeatNotFound(match_id, seat)
