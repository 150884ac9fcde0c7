"""A store in this process's memory: every port of ``api.services.ports``, no SQL.

For the service-level tests (every use case run without an app or a database) and for
embedding the engine in one process. Its repositories, matchmaking included, behave as the SQL
store's do: ``tests/store/contract/`` runs one suite on this store, on SQLite and on PostgreSQL.
So what the schema refuses (``api.store.tables``: its CHECKs, NOT NULLs, primary, unique and
foreign keys) is refused here too, with the SQL store's exceptions: ``StaleSeq`` for a
``(match, seq)`` taken, ``RematchExists``, ``PortalNameTaken``, otherwise SQLAlchemy's
``IntegrityError``. Appends are compare-and-set on ``(match, seq)`` with the same hash chain;
idempotency keys and fairness reports keep the first answer; a transaction commits or rolls
back whole. One lock stands for SQLite's write lock: a writing unit of work holds it from
``__enter__`` to its end, so writers queue and readers never see half a transaction. Nothing
survives the process.

Not here: what the SQL store has beyond the ports (``uow.rate_limits``, ``uow.health_probes``,
``uow.connection``); PostgreSQL's limits on string lengths (SQLite has none either). A read-only
unit of work refuses every write (PostgreSQL's does too; SQLite's lets it through).
"""

from __future__ import annotations

import builtins  # `builtins.list` in the classes whose `list` method hides the type
import copy
import threading
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from types import TracebackType
from typing import Any

from sqlalchemy import JSON, Table
from sqlalchemy.exc import CompileError, IntegrityError

from api.rules import ENDED, OPEN_SEAT, PLAYING, SEAT_TYPES, STATUSES, WAITING
from api.store import tables as schema
from api.store.analyses import Claim
from api.store.chain import GENESIS, row_hash
from api.store.codec import encode_event
from api.store.idempotency import IdempotencyRecord
from api.store.matchmaking import (
    ChallengeRecord,
    PlayerEventRecord,
    PlayerTokenRecord,
    SeekRecord,
    player_key,
)
from api.store.ratings import (
    MAX_RATING_PAGE,
    HistoryPage,
    RatingChange,
    RatingPage,
    RatingRecord,
    decode_board_cursor,
    encode_board_cursor,
)
from api.store.records import (
    EVERY_MATCH,
    ChainHead,
    MatchFilter,
    MatchNotFound,
    MatchPage,
    MatchRecord,
    PlayerFigures,
    PortalKeyRecord,
    PortalNameTaken,
    PortalRecord,
    RematchExists,
    SeatNotFound,
    SeatRecord,
    StaleSeq,
    StoredEvent,
)
from api.store.repositories import (
    MAX_PAGE_SIZE,
    RESULT_EVENT_TYPES,
    MatchRepository,
    SeatRepository,
    decode_cursor,
    encode_cursor,
)
from api.store.tournaments import TournamentMatchRecord, TournamentNotFound, TournamentRecord, chained
from api.store.webhooks import (
    DELIVERED,
    PENDING,
    AttemptRecord,
    DeliveryRecord,
    DueDelivery,
    NewDelivery,
    WebhookRecord,
)


def wall_clock() -> datetime:
    return datetime.now(UTC)


class Refused(Exception):
    """What the schema forbids, as the ``orig`` of the ``IntegrityError`` raised for it."""


def refused(constraint: str) -> IntegrityError:
    """The error a SQL database raises for a row its schema refuses (``constraint``: which rule)."""
    return IntegrityError(f"memory store: {constraint}", None, Refused(constraint))


def not_null(table: Table, values: Mapping[str, Any]) -> None:
    """Refuse a row that leaves out (or sets to None) a NOT NULL column with no default (but a
    JSON column's: None is stored as the JSON ``null`` there)."""
    for column in table.columns:
        if column.nullable or column.server_default is not None or isinstance(column.type, JSON):
            continue
        if values.get(column.name) is None:
            raise refused(f"NOT NULL {table.name}.{column.name}")


def one_of(table: Table, column: str, value: Any, allowed: Iterable[Any]) -> None:
    """The CHECK ``column IN (...)`` of ``table``."""
    if value not in tuple(allowed):
        raise refused(f"CHECK {table.name}.{column} IN {tuple(allowed)!r} (got {value!r})")


def columns_of(table: Table, fields: Iterable[str]) -> None:
    """An INSERT or UPDATE naming a column ``table`` lacks fails to compile (as SQLAlchemy's does)."""
    if unknown := set(fields) - set(table.columns.keys()):
        raise CompileError(f"Unconsumed column names: {', '.join(sorted(unknown))}")


@dataclass
class MatchRow:
    """A ``matches`` row: the record the services see, and the columns only the store reads."""

    record: MatchRecord
    creator_key: str | None = None
    all_bots: bool = False
    bots_due_at: datetime | None = None
    lease_until: datetime | None = None


@dataclass
class Tables:
    """Everything the store holds; a writing unit of work rolls back to a copy of it."""

    matches: dict[str, MatchRow] = field(default_factory=dict)
    seats: dict[tuple[str, int], SeatRecord] = field(default_factory=dict)
    events: dict[str, list[StoredEvent]] = field(default_factory=dict)
    idempotency: dict[tuple[str, str], IdempotencyRecord] = field(default_factory=dict)
    fairness: dict[str, dict[str, Any]] = field(default_factory=dict)
    analyses: dict[str, tuple[dict[str, Any] | None, datetime | None, int]] = field(
        default_factory=dict
    )  # (it, lease, attempts)
    player_stats: dict[tuple[str, str], PlayerFigures] = field(default_factory=dict)  # (portal, ref)
    portals: dict[str, PortalRecord] = field(default_factory=dict)
    portal_keys: dict[str, tuple[PortalKeyRecord, str]] = field(default_factory=dict)  # id -> (key, its hash)
    waiter_slots: dict[str, tuple[str, datetime]] = field(default_factory=dict)  # id -> (address, expires)
    webhooks: dict[str, WebhookRecord] = field(default_factory=dict)
    webhook_deliveries: dict[str, tuple[DeliveryRecord, datetime | None]] = field(default_factory=dict)  # (it, lease)
    ratings: dict[tuple[str, str, str], RatingRecord] = field(default_factory=dict)  # (portal, ref, family)
    rating_history: dict[tuple[str, str, str, str], RatingChange] = field(default_factory=dict)  # (…, match id)
    player_tokens: dict[str, tuple[PlayerTokenRecord, str]] = field(default_factory=dict)  # id -> (it, its hash)
    seeks: dict[str, SeekRecord] = field(default_factory=dict)
    challenges: dict[str, ChallengeRecord] = field(default_factory=dict)
    player_events: dict[tuple[str, str], list[PlayerEventRecord]] = field(default_factory=dict)  # (portal, ref)
    tournaments: dict[str, TournamentRecord] = field(default_factory=dict)
    tournament_events: dict[str, list[StoredEvent]] = field(default_factory=dict)
    tournament_matches: dict[str, TournamentMatchRecord] = field(default_factory=dict)  # by match id

    def portal(self, portal_id: str | None, table: Table) -> None:
        """The foreign key of ``table`` to ``portals`` (None: no portal, where the column allows it)."""
        if portal_id is not None and portal_id not in self.portals:
            raise refused(f"FOREIGN KEY {table.name}.portal_id -> portals.id ({portal_id!r})")

    def match(self, match_id: str, table: Table) -> None:
        """The foreign key of ``table`` to ``matches``."""
        if match_id not in self.matches:
            raise refused(f"FOREIGN KEY {table.name}.match_id -> matches.id ({match_id!r})")


class MemoryMatches:
    def __init__(self, uow: MemoryUnitOfWork):
        self._uow = uow

    @property
    def _rows(self) -> dict[str, MatchRow]:
        return self._uow.tables.matches

    def add(self, row: Mapping[str, Any]) -> MatchRecord:
        allowed = MatchRepository.UPDATABLE | {"id", "rematch_of", "creator_key", "all_bots", "portal_id", "rated"}
        if unknown := set(row) - allowed:
            raise TypeError(f"unknown match fields: {sorted(unknown)}")
        if missing := [name for name in MatchRepository.REQUIRED if name not in row]:
            raise TypeError(f"missing match fields: {missing}")
        self._uow.writing()
        rematch_of = row.get("rematch_of")
        if rematch_of is not None and any(r.record.rematch_of == rematch_of for r in self._rows.values()):
            raise RematchExists(rematch_of)
        now = self._uow.now()
        record = MatchRecord(
            id=row.get("id") or uuid.uuid4().hex,
            status=row.get("status", WAITING),
            preset=row["preset"],
            players=row["players"],
            seed=row["seed"],
            seed_commitment=row["seed_commitment"],
            last_seq=0,
            summary=dict(row.get("summary") or {}),
            created_at=now,
            updated_at=now,
            deadline_at=row.get("deadline_at"),
            rematch_of=rematch_of,
            portal_id=row.get("portal_id"),
            rated=bool(row.get("rated", False)),
        )
        self.check(record)
        self._uow.tables.portal(record.portal_id, schema.matches)
        if record.id in self._rows:
            raise refused(f"PRIMARY KEY matches.id ({record.id!r})")
        self._rows[record.id] = MatchRow(record, row.get("creator_key"), bool(row.get("all_bots", False)))
        self._uow.tables.events[record.id] = []
        return record

    @staticmethod
    def check(record: MatchRecord) -> None:
        """The CHECKs and NOT NULLs of ``matches`` a caller can reach."""
        not_null(schema.matches, {name: getattr(record, name) for name in MatchRecord.__dataclass_fields__})
        one_of(schema.matches, "status", record.status, STATUSES)
        if record.players < 1:
            raise refused(f"CHECK matches.players >= 1 (got {record.players})")

    def get(self, match_id: str) -> MatchRecord | None:
        row = self._rows.get(match_id)
        return None if row is None else row.record

    def get_for_update(self, match_id: str) -> MatchRecord | None:
        self._uow.writing()
        return self.get(match_id)

    def get_with_seats(self, match_id: str, *, for_update: bool = False) -> tuple[MatchRecord, list[SeatRecord]] | None:
        record = self.get_for_update(match_id) if for_update else self.get(match_id)
        if record is None:
            return None
        seats = sorted((s for s in self._uow.tables.seats.values() if s.match_id == match_id), key=lambda s: s.seat)
        return record, seats

    def update(self, match_id: str, **fields: Any) -> None:
        if unknown := set(fields) - MatchRepository.UPDATABLE:
            raise TypeError(f"cannot update match fields: {sorted(unknown)}")
        self._uow.writing()
        row = self._rows.get(match_id)
        if row is None:
            raise MatchNotFound(match_id)
        record = replace(row.record, **fields, updated_at=self._uow.now())
        self.check(record)
        row.record = record

    def list(self, where: MatchFilter = EVERY_MATCH, limit: int = 20, cursor: str | None = None) -> MatchPage:
        limit = max(1, min(int(limit), MAX_PAGE_SIZE))
        seats = self._uow.tables.seats.values()
        after = decode_cursor(cursor) if cursor is not None else None

        def wanted(record: MatchRecord) -> bool:
            mine = [s for s in seats if s.match_id == record.id]
            open_seat = any(s.type == OPEN_SEAT and s.reserved_for is None for s in mine)
            return (
                (where.status is None or record.status == where.status)
                and (where.preset is None or record.preset == where.preset)
                and (where.has_open_seat is None or open_seat == where.has_open_seat)
                and (where.player_ref is None or any(s.player_ref == where.player_ref for s in mine))
                and (where.space is None or record.portal_id == where.space.portal_id)
                and (after is None or (record.created_at, record.id) < after)
            )

        found = sorted(
            (r.record for r in self._rows.values() if wanted(r.record)),
            key=lambda r: (r.created_at, r.id),
            reverse=True,
        )
        items = found[:limit]
        more = len(found) > limit
        return MatchPage(items, encode_cursor(items[-1].created_at, items[-1].id) if more else None)

    def get_rematch(self, match_id: str) -> MatchRecord | None:
        return next((r.record for r in self._rows.values() if r.record.rematch_of == match_id), None)

    def list_stale_clocks(self, now: datetime, limit: int = 100) -> builtins.list[str]:
        due = [
            r.record
            for r in self._rows.values()
            if r.record.status == PLAYING and r.record.deadline_at is not None and r.record.deadline_at < now
        ]
        return [r.id for r in sorted(due, key=lambda r: (r.deadline_at, r.id))[:limit]]

    def _due_bots(self, now: datetime) -> builtins.list[MatchRow]:
        due = [
            r
            for r in self._rows.values()
            if r.record.status == PLAYING and r.bots_due_at is not None and r.bots_due_at <= now
        ]
        return sorted(due, key=lambda r: (r.bots_due_at, r.record.id))

    def bots_backlog(self, now: datetime) -> tuple[int, datetime | None]:
        due = self._due_bots(now)
        return len(due), due[0].bots_due_at if due else None

    def claim_due_bots(self, now: datetime, lease_until: datetime, limit: int) -> builtins.list[str]:
        self._uow.writing()
        claimed = [r for r in self._due_bots(now) if r.lease_until is None or r.lease_until < now][:limit]
        for row in claimed:
            row.lease_until = lease_until
        return [r.record.id for r in claimed]

    def set_bots_due(self, match_id: str, bots_due_at: datetime | None) -> None:
        self._uow.writing()
        row = self._rows.get(match_id)
        if row is not None:
            row.bots_due_at, row.lease_until = bots_due_at, None

    def bots_due_at(self, match_id: str) -> datetime | None:
        row = self._rows.get(match_id)
        return None if row is None else row.bots_due_at

    def lock_creator(self, creator_key: str) -> None:
        self._uow.writing()  # the one write lock serialises every creator's cap check

    def count_running_all_bots(self, creator_key: str) -> int:
        return sum(
            1 for r in self._rows.values() if r.creator_key == creator_key and r.all_bots and r.record.status != ENDED
        )

    def stalled_for_player(
        self, portal_id: str, player_ref: str, idle_since: datetime
    ) -> builtins.list[tuple[MatchRecord, int]]:
        found = [
            (self._rows[s.match_id].record, s.seat)
            for s in self._uow.tables.seats.values()
            if s.player_ref == player_ref
            and self._rows[s.match_id].record.portal_id == portal_id
            and self._rows[s.match_id].record.status == PLAYING
            and self._rows[s.match_id].record.updated_at < idle_since
        ]
        return sorted(found, key=lambda pair: (pair[0].updated_at, pair[0].id, pair[1]))

    def result_events(self, match_ids: builtins.list[str]) -> dict[str, builtins.list[dict[str, Any]]]:
        return {
            match_id: [e.to_dict() for e in self._uow.tables.events.get(match_id, []) if e.type in RESULT_EVENT_TYPES]
            for match_id in match_ids
        }


class MemorySeats:
    def __init__(self, uow: MemoryUnitOfWork):
        self._uow = uow

    def add(self, row: Mapping[str, Any]) -> SeatRecord:
        fields = frozenset({"match_id", "seat"}) | SeatRepository.UPDATABLE
        if unknown := set(row) - fields:
            raise TypeError(f"unknown seat fields: {sorted(unknown)}")
        self._uow.writing()
        record = SeatRecord(**row)
        self.check(record)
        self._uow.tables.match(record.match_id, schema.seats)
        if (record.match_id, record.seat) in self._uow.tables.seats:
            raise refused(f"PRIMARY KEY seats (match_id, seat) ({record.match_id!r}, {record.seat})")
        self._uow.tables.seats[(record.match_id, record.seat)] = record
        return record

    @staticmethod
    def check(record: SeatRecord) -> None:
        """The CHECKs and NOT NULLs of ``seats``."""
        not_null(schema.seats, {name: getattr(record, name) for name in SeatRecord.__dataclass_fields__})
        one_of(schema.seats, "type", record.type, SEAT_TYPES)
        if record.seat < 0:
            raise refused(f"CHECK seats.seat >= 0 (got {record.seat})")

    def list_for_match(self, match_id: str) -> list[SeatRecord]:
        return sorted((s for s in self._uow.tables.seats.values() if s.match_id == match_id), key=lambda s: s.seat)

    def refs_for(self, match_ids: list[str]) -> dict[str, dict[int, str]]:
        out: dict[str, dict[int, str]] = {}
        for s in self._uow.tables.seats.values():
            if s.match_id in match_ids and s.player_ref is not None:
                out.setdefault(s.match_id, {})[s.seat] = s.player_ref
        return out

    def find_by_token_hash(self, match_id: str, token_hash: str) -> SeatRecord | None:
        return next((s for s in self.list_for_match(match_id) if s.token_hash == token_hash), None)

    def token_hash_exists(self, token_hash: str) -> bool:
        return any(s.token_hash == token_hash for s in self._uow.tables.seats.values())

    def update(self, match_id: str, seat: int, **fields: Any) -> None:
        if unknown := set(fields) - SeatRepository.UPDATABLE:
            raise TypeError(f"cannot update seat fields: {sorted(unknown)}")
        if not fields:
            return
        self._uow.writing()
        key = (match_id, seat)
        if key not in self._uow.tables.seats:
            raise SeatNotFound(match_id, seat)
        record = replace(self._uow.tables.seats[key], **fields)
        self.check(record)
        self._uow.tables.seats[key] = record


class MemoryEvents:
    def __init__(self, uow: MemoryUnitOfWork):
        self._uow = uow

    def last_seq(self, match_id: str) -> int:
        row = self._uow.tables.matches.get(match_id)
        if row is None:
            raise MatchNotFound(match_id)
        return row.record.last_seq

    def append(
        self,
        match_id: str,
        expected_seq: int,
        events: Sequence[Mapping[str, Any]],
        *,
        match_fields: Mapping[str, Any] | None = None,
    ) -> int:
        self._uow.writing()
        row = self._uow.tables.matches.get(match_id)
        if row is None:
            raise MatchNotFound(match_id)
        if row.record.last_seq != expected_seq:
            raise StaleSeq(expected_seq, row.record.last_seq)
        encoded = [encode_event(e) for e in events]
        if not encoded:
            return expected_seq
        stored = self._uow.tables.events[match_id]
        if stored and stored[-1].seq > expected_seq:
            # The (match_id, seq) primary key: rows stored without moving last_seq.
            raise StaleSeq(expected_seq, stored[-1].seq)
        now = self._uow.now()
        prev = row.record.last_hash
        added = []
        for seq, event in enumerate(encoded, start=expected_seq + 1):
            digest = row_hash(prev, seq, event.type, event.schema_version, event.data)
            added.append(StoredEvent(seq, event.type, event.schema_version, event.data, now, prev, digest))
            prev = digest
        fields = dict(match_fields or {})
        bots_due_at = fields.pop("bots_due_at", row.bots_due_at)
        record = replace(row.record, **fields, last_seq=added[-1].seq, last_hash=prev, updated_at=now)
        MemoryMatches.check(record)
        stored.extend(added)
        row.record = record
        if match_fields is not None:  # the statement that writes them also ends any autoplay claim
            row.bots_due_at, row.lease_until = bots_due_at, None
        return row.record.last_seq

    def head(self, match_id: str) -> ChainHead:
        row = self._uow.tables.matches.get(match_id)
        if row is None:
            raise MatchNotFound(match_id)
        return row.record.head

    def load(self, match_id: str, after: int = 0, limit: int | None = None) -> list[StoredEvent]:
        found = [e for e in self._uow.tables.events.get(match_id, []) if e.seq > after]
        return found if limit is None else found[:limit]


class MemoryIdempotencyKeys:
    def __init__(self, uow: MemoryUnitOfWork):
        self._uow = uow

    def get(self, token_hash: str, key: str) -> IdempotencyRecord | None:
        return self._uow.tables.idempotency.get((token_hash, key))

    def remember(self, token_hash: str, key: str, match_id: str, request_hash: str, status: int, body: Any) -> bool:
        self._uow.writing()
        keys = self._uow.tables.idempotency
        if (token_hash, key) in keys:
            return False
        keys[(token_hash, key)] = IdempotencyRecord(
            token_hash, key, match_id, request_hash, "done", status, body, self._uow.now()
        )
        return True

    def forget(self, token_hash: str, key: str) -> None:
        self._uow.writing()
        self._uow.tables.idempotency.pop((token_hash, key), None)

    def purge(self, older_than: timedelta) -> int:
        self._uow.writing()
        keys = self._uow.tables.idempotency
        old = [k for k, r in keys.items() if r.created_at < self._uow.now() - older_than]
        for k in old:
            del keys[k]
        return len(old)


class MemoryFairnessReports:
    def __init__(self, uow: MemoryUnitOfWork):
        self._uow = uow

    def get(self, match_id: str) -> dict[str, Any] | None:
        return copy.deepcopy(self._uow.tables.fairness.get(match_id))

    def add_if_absent(self, match_id: str, report: dict[str, Any], computed_at: datetime) -> bool:
        self._uow.writing()
        self._uow.tables.match(match_id, schema.fairness_reports)
        if match_id in self._uow.tables.fairness:
            return False
        self._uow.tables.fairness[match_id] = copy.deepcopy(report)
        return True


class MemoryAnalyses:
    def __init__(self, uow: MemoryUnitOfWork):
        self._uow = uow

    def get(self, match_id: str) -> dict[str, Any] | None:
        analysis, _lease, _attempts = self._uow.tables.analyses.get(match_id, (None, None, 0))
        return copy.deepcopy(analysis)

    def claim_of(self, match_id: str) -> Claim:
        _analysis, lease, attempts = self._uow.tables.analyses.get(match_id, (None, None, 0))
        return Claim(attempts, lease)

    def claim_due(self, now: datetime, lease_until: datetime, limit: int, max_attempts: int) -> builtins.list[str]:
        self._uow.writing()
        rows = self._uow.tables.analyses

        def free(match_id: str) -> bool:
            analysis, lease, attempts = rows.get(match_id, (None, None, 0))
            return analysis is None and (lease is None or lease < now) and attempts < max_attempts

        ended = [r.record for r in self._uow.tables.matches.values() if r.record.status == ENDED and free(r.record.id)]
        ended.sort(key=lambda m: (m.updated_at, m.id), reverse=True)
        claimed = [m.id for m in ended[:limit]]
        for match_id in claimed:
            rows[match_id] = (None, lease_until, rows.get(match_id, (None, None, 0))[2] + 1)
        return claimed

    def store(self, match_id: str, analysis: dict[str, Any], computed_at: datetime) -> None:
        self._uow.writing()
        self._uow.tables.match(match_id, schema.match_analyses)
        stored, _lease, attempts = self._uow.tables.analyses.get(match_id, (None, None, 0))
        if stored is None:
            self._uow.tables.analyses[match_id] = (copy.deepcopy(analysis), None, attempts)

    def release(self, match_id: str) -> None:
        self._uow.writing()
        rows = self._uow.tables.analyses
        analysis, _lease, attempts = rows.get(match_id, (None, None, 0))
        if match_id in rows and analysis is None:
            rows[match_id] = (None, None, attempts)


class MemoryPlayerStats:
    def __init__(self, uow: MemoryUnitOfWork):
        self._uow = uow

    def get(self, portal_id: str, player_ref: str) -> PlayerFigures | None:
        return self._uow.tables.player_stats.get((portal_id, player_ref))

    def lock(self, portal_id: str, player_refs: Iterable[str], now: datetime) -> dict[str, PlayerFigures]:
        refs = sorted(set(player_refs))
        if not refs:
            return {}
        self._uow.writing()
        self._uow.tables.portal(portal_id, schema.player_stats)
        kept = self._uow.tables.player_stats
        return {ref: kept.setdefault((portal_id, ref), PlayerFigures()) for ref in refs}

    def save(self, portal_id: str, player_ref: str, figures: PlayerFigures, now: datetime) -> None:
        """An UPDATE of the player's row: nothing without one (``lock`` makes it)."""
        self._uow.writing()
        if (portal_id, player_ref) in self._uow.tables.player_stats:
            self._uow.tables.player_stats[(portal_id, player_ref)] = figures


class MemoryRatings:
    """``api.store.ratings.RatingRepository`` in memory (the same order and cursors)."""

    def __init__(self, uow: MemoryUnitOfWork):
        self._uow = uow

    def lock(
        self, portal_id: str, family: str, player_refs: Iterable[str], newcomer: RatingRecord, now: datetime
    ) -> dict[str, RatingRecord]:
        refs = sorted(set(player_refs))
        if not refs:
            return {}
        self._uow.writing()
        self._uow.tables.portal(portal_id, schema.ratings)
        kept = self._uow.tables.ratings
        return {
            ref: kept.setdefault((portal_id, ref, family), replace(newcomer, player_ref=ref, family=family, matches=0))
            for ref in refs
        }

    def current(self, portal_id: str, family: str, player_refs: Iterable[str]) -> dict[str, RatingRecord]:
        kept = self._uow.tables.ratings
        return {ref: kept[(portal_id, ref, family)] for ref in set(player_refs) if (portal_id, ref, family) in kept}

    def save(self, portal_id: str, rating: RatingRecord, now: datetime) -> None:
        """An UPDATE of the player's row in the family: nothing without one (``lock`` makes it)."""
        self._uow.writing()
        key = (portal_id, rating.player_ref, rating.family)
        if key in self._uow.tables.ratings:
            self._uow.tables.ratings[key] = rating

    def add_change(self, portal_id: str, change: RatingChange) -> None:
        self._uow.writing()
        self._uow.tables.portal(portal_id, schema.rating_history)
        key = (portal_id, change.player_ref, change.family, change.match_id)
        if key in self._uow.tables.rating_history:
            raise refused(f"PRIMARY KEY rating_history {key!r}")
        self._uow.tables.rating_history[key] = change

    def of_player(self, portal_id: str, player_ref: str) -> builtins.list[RatingRecord]:
        found = [r for (p, ref, _), r in self._uow.tables.ratings.items() if p == portal_id and ref == player_ref]
        return sorted(found, key=lambda r: r.family)

    def leaderboard(self, portal_id: str, family: str, limit: int, cursor: str | None = None) -> RatingPage:
        limit = max(1, min(int(limit), MAX_RATING_PAGE))
        rows = sorted(
            (r for (p, _, f), r in self._uow.tables.ratings.items() if p == portal_id and f == family),
            key=lambda r: (-r.ordinal, r.player_ref),
        )
        if cursor is not None:
            ordinal, ref = decode_board_cursor(cursor)
            rows = [r for r in rows if r.ordinal < ordinal or (r.ordinal == ordinal and r.player_ref > ref)]
        items = rows[:limit]
        last = items[-1] if len(rows) > limit else None
        return RatingPage(items, None if last is None else encode_board_cursor(last.ordinal, last.player_ref))

    def history(
        self, portal_id: str, player_ref: str, family: str, limit: int, cursor: str | None = None
    ) -> HistoryPage:
        limit = max(1, min(int(limit), MAX_RATING_PAGE))
        rows = sorted(
            (
                c
                for (p, ref, f, _), c in self._uow.tables.rating_history.items()
                if (p, ref, f) == (portal_id, player_ref, family)
            ),
            key=lambda c: (c.at, c.match_id),
            reverse=True,
        )
        if cursor is not None:
            at, match_id = decode_cursor(cursor)
            rows = [c for c in rows if c.at < at or (c.at == at and c.match_id < match_id)]
        items = rows[:limit]
        last = items[-1] if len(rows) > limit else None
        return HistoryPage(items, None if last is None else encode_cursor(last.at, last.match_id))


class MemoryPortals:
    def __init__(self, uow: MemoryUnitOfWork):
        self._uow = uow

    def add(self, portal_id: str, name: str, now: datetime, create_limit: str | None = None) -> PortalRecord:
        self._uow.writing()
        # As the SQL store's: any key the new row collides with (the unique name, or the id) is told so.
        if portal_id in self._uow.tables.portals or any(p.name == name for p in self._uow.tables.portals.values()):
            raise PortalNameTaken(name)
        record = PortalRecord(portal_id, name, now, create_limit)
        self._uow.tables.portals[portal_id] = record
        return record

    def get(self, portal_id: str) -> PortalRecord | None:
        return self._uow.tables.portals.get(portal_id)

    def by_name(self, name: str) -> PortalRecord | None:
        return next((p for p in self._uow.tables.portals.values() if p.name == name), None)

    def all(self) -> list[PortalRecord]:
        return sorted(self._uow.tables.portals.values(), key=lambda p: p.name)

    def set_create_limit(self, portal_id: str, create_limit: str | None) -> None:
        self._uow.writing()
        portals = self._uow.tables.portals
        if portal_id in portals:
            portals[portal_id] = replace(portals[portal_id], create_limit=create_limit)

    def add_key(self, key_id: str, portal_id: str, key_hash: str, now: datetime) -> PortalKeyRecord:
        self._uow.writing()
        tables = self._uow.tables
        tables.portal(portal_id, schema.portal_keys)
        if key_id in tables.portal_keys:
            raise refused(f"PRIMARY KEY portal_keys.id ({key_id!r})")
        if any(kept == key_hash for _, kept in tables.portal_keys.values()):
            raise refused("UNIQUE portal_keys.key_hash")
        record = PortalKeyRecord(key_id, portal_id, now)
        self._uow.tables.portal_keys[key_id] = (record, key_hash)
        return record

    def keys(self, portal_id: str) -> list[PortalKeyRecord]:
        found = [k for k, _ in self._uow.tables.portal_keys.values() if k.portal_id == portal_id]
        return sorted(found, key=lambda k: (k.created_at, k.id))

    def revoke_key(self, portal_id: str, key_id: str, now: datetime) -> bool:
        self._uow.writing()
        kept = self._uow.tables.portal_keys.get(key_id)
        if kept is None or kept[0].portal_id != portal_id or kept[0].revoked_at is not None:
            return False
        self._uow.tables.portal_keys[key_id] = (replace(kept[0], revoked_at=now), kept[1])
        return True

    def by_key_hash(self, key_hash: str) -> tuple[PortalRecord, str] | None:
        for key, kept_hash in self._uow.tables.portal_keys.values():
            if kept_hash == key_hash and key.revoked_at is None:
                return self._uow.tables.portals[key.portal_id], key.id
        return None


class MemoryWaiterSlots:
    def __init__(self, uow: MemoryUnitOfWork):
        self._uow = uow

    def take(self, slot_id: str, address_key: str, cap: int, now: datetime, expires_at: datetime) -> bool:
        self._uow.writing()
        slots = self._uow.tables.waiter_slots
        for gone in [slot for slot, (address, expires) in slots.items() if address == address_key and expires <= now]:
            del slots[gone]
        if self.count(address_key, now) >= cap:
            return False
        if slot_id in slots:
            raise refused(f"PRIMARY KEY waiter_slots.id ({slot_id!r})")
        slots[slot_id] = (address_key, expires_at)
        return True

    def count(self, address_key: str, now: datetime) -> int:
        return sum(1 for a, expires in self._uow.tables.waiter_slots.values() if a == address_key and expires > now)

    def release(self, slot_id: str) -> None:
        self._uow.writing()
        self._uow.tables.waiter_slots.pop(slot_id, None)

    def purge_expired(self, now: datetime) -> int:
        self._uow.writing()
        slots = self._uow.tables.waiter_slots
        gone = [slot for slot, (_, expires) in slots.items() if expires <= now]
        for slot in gone:
            del slots[slot]
        return len(gone)


class MemoryWebhooks:
    """``api.store.webhooks.WebhookRepository``, in memory."""

    def __init__(self, uow: MemoryUnitOfWork):
        self._uow = uow

    def add(self, webhook: WebhookRecord) -> None:
        self._uow.writing()
        self._uow.tables.portal(webhook.portal_id, schema.webhooks)
        if webhook.id in self._uow.tables.webhooks:
            raise refused(f"PRIMARY KEY webhooks.id ({webhook.id!r})")
        self._uow.tables.webhooks[webhook.id] = replace(webhook, events=tuple(webhook.events))

    def for_portal(self, portal_id: str) -> builtins.list[WebhookRecord]:
        found = [w for w in self._uow.tables.webhooks.values() if w.portal_id == portal_id]
        return sorted(found, key=lambda w: (w.created_at, w.id))

    def get(self, portal_id: str, webhook_id: str) -> WebhookRecord | None:
        found = self._uow.tables.webhooks.get(webhook_id)
        return found if found is not None and found.portal_id == portal_id else None

    def remove(self, portal_id: str, webhook_id: str) -> bool:
        if self.get(portal_id, webhook_id) is None:
            return False
        self._uow.writing()
        tables = self._uow.tables
        del tables.webhooks[webhook_id]
        for delivery_id in [k for k, (d, _) in tables.webhook_deliveries.items() if d.webhook_id == webhook_id]:
            del tables.webhook_deliveries[delivery_id]
        return True

    def set_secret(self, portal_id: str, webhook_id: str, secret: str, previous_until: datetime | None = None) -> bool:
        found = self.get(portal_id, webhook_id)
        if found is None:
            return False
        self._uow.writing()
        previous = None if previous_until is None else found.secret
        self._uow.tables.webhooks[webhook_id] = replace(
            found, secret=secret, previous_secret=previous, previous_secret_until=previous_until
        )
        return True

    def _ended_secrets(self, now: datetime) -> builtins.list[WebhookRecord]:
        return [
            w
            for w in self._uow.tables.webhooks.values()
            if w.previous_secret_until is not None and w.previous_secret_until <= now
        ]

    def any_ended_secret(self, now: datetime) -> bool:
        return bool(self._ended_secrets(now))

    def drop_ended_secrets(self, now: datetime) -> int:
        ended = self._ended_secrets(now)
        if ended:
            self._uow.writing()
        for hook in ended:
            self._uow.tables.webhooks[hook.id] = replace(hook, previous_secret=None, previous_secret_until=None)
        return len(ended)

    def add_deliveries(self, rows: Sequence[NewDelivery], now: datetime) -> None:
        if not rows:
            return
        self._uow.writing()
        tables = self._uow.tables
        for r in rows:
            if r.webhook_id not in tables.webhooks:
                raise refused(f"FOREIGN KEY webhook_deliveries.webhook_id -> webhooks.id ({r.webhook_id!r})")
            if r.id in tables.webhook_deliveries:
                raise refused(f"PRIMARY KEY webhook_deliveries.id ({r.id!r})")
            record = DeliveryRecord(
                r.id, r.webhook_id, r.event_type, r.match_id, r.seq, r.body, PENDING, 0, 0, now, now, None
            )
            tables.webhook_deliveries[r.id] = (record, None)

    def deliveries(
        self, webhook_id: str, limit: int, before: tuple[datetime, str] | None = None
    ) -> builtins.list[DeliveryRecord]:
        found = [
            d
            for d, _ in self._uow.tables.webhook_deliveries.values()
            if d.webhook_id == webhook_id and (before is None or (d.created_at, d.id) < before)
        ]
        return sorted(found, key=lambda d: (d.created_at, d.id), reverse=True)[:limit]

    def delivery(self, webhook_id: str, delivery_id: str) -> DeliveryRecord | None:
        found = self._uow.tables.webhook_deliveries.get(delivery_id)
        return found[0] if found is not None and found[0].webhook_id == webhook_id else None

    def requeue(self, webhook_id: str, delivery_id: str, now: datetime) -> bool:
        found = self.delivery(webhook_id, delivery_id)
        if found is None:
            return False
        self._uow.writing()
        again = replace(found, status=PENDING, next_attempt_at=now, round_attempts=0)
        self._uow.tables.webhook_deliveries[delivery_id] = (again, None)
        return True

    def _due(self, now: datetime) -> builtins.list[DeliveryRecord]:
        due = [
            d
            for d, lease in self._uow.tables.webhook_deliveries.values()
            if d.status == PENDING
            and d.next_attempt_at is not None
            and d.next_attempt_at <= now
            and (lease is None or lease < now)
        ]
        return sorted(due, key=lambda d: (d.next_attempt_at, d.id))

    def any_due(self, now: datetime) -> bool:
        return bool(self._due(now))

    def claim_due(self, now: datetime, lease_until: datetime, limit: int) -> builtins.list[DueDelivery]:
        self._uow.writing()
        claimed = []
        for d in self._due(now)[:limit]:
            self._uow.tables.webhook_deliveries[d.id] = (d, lease_until)
            claimed.append(DueDelivery(d.id, d.event_type, d.body, self._uow.tables.webhooks[d.webhook_id]))
        return claimed

    def lock_delivery(self, delivery_id: str) -> tuple[int, int] | None:
        self._uow.writing()  # SELECT ... FOR UPDATE
        found = self._uow.tables.webhook_deliveries.get(delivery_id)
        return None if found is None else (found[0].attempts, found[0].round_attempts)

    def record_attempt(
        self,
        delivery_id: str,
        attempt: AttemptRecord,
        *,
        round_attempts: int,
        status: str,
        next_attempt_at: datetime | None,
    ) -> None:
        self._uow.writing()
        kept = self._uow.tables.webhook_deliveries.get(delivery_id)
        if kept is None:
            raise refused(f"FOREIGN KEY webhook_attempts.delivery_id -> webhook_deliveries.id ({delivery_id!r})")
        found = kept[0]
        if any(a.number == attempt.number for a in found.log):
            raise refused(f"PRIMARY KEY webhook_attempts (delivery_id, number) ({delivery_id!r}, {attempt.number})")
        one_of(schema.webhook_deliveries, "status", status, schema.DELIVERY_STATUSES)
        self._uow.tables.webhook_deliveries[delivery_id] = (
            replace(
                found,
                attempts=attempt.number,
                round_attempts=round_attempts,
                status=status,
                next_attempt_at=next_attempt_at,
                delivered_at=attempt.attempted_at if status == DELIVERED else None,
                log=(attempt, *found.log),
            ),
            None,
        )


class MemoryMatchmaking:
    """``api.store.matchmaking.MatchmakingRepository`` in memory. The one write lock serialises a
    pool's pairing and numbers a player's events; no other process waits on a notice."""

    def __init__(self, uow: MemoryUnitOfWork):
        self._uow = uow

    def notify(self, key: str, seq: int) -> None:
        """Nothing to send: this process's own announcement after the commit wakes every waiter."""

    # --- player tokens ------------------------------------------------------------------------
    def add_player_token(
        self, token_id: str, portal_id: str, player_ref: str, token_hash: str, label: str | None, now: datetime
    ) -> PlayerTokenRecord:
        self._uow.writing()
        tables = self._uow.tables
        tables.portal(portal_id, schema.player_tokens)
        if token_id in tables.player_tokens:
            raise refused(f"PRIMARY KEY player_tokens.id ({token_id!r})")
        if any(kept == token_hash for _, kept in tables.player_tokens.values()):
            raise refused("UNIQUE player_tokens.token_hash")
        record = PlayerTokenRecord(token_id, portal_id, player_ref, label, now)
        tables.player_tokens[token_id] = (record, token_hash)
        return record

    def player_tokens(self, portal_id: str, player_ref: str) -> builtins.list[PlayerTokenRecord]:
        owner = (portal_id, player_ref)
        found = [t for t, _ in self._uow.tables.player_tokens.values() if (t.portal_id, t.player_ref) == owner]
        return sorted(found, key=lambda t: (t.created_at, t.id))

    def revoke_player_token(self, portal_id: str, player_ref: str, token_id: str, now: datetime) -> bool:
        self._uow.writing()
        kept = self._uow.tables.player_tokens.get(token_id)
        if kept is None or (kept[0].portal_id, kept[0].player_ref) != (portal_id, player_ref) or kept[0].revoked_at:
            return False
        self._uow.tables.player_tokens[token_id] = (replace(kept[0], revoked_at=now), kept[1])
        return True

    def player_by_token_hash(self, token_hash: str) -> tuple[str, str] | None:
        for token, kept in self._uow.tables.player_tokens.values():
            if kept == token_hash and token.revoked_at is None:
                return token.portal_id, token.player_ref
        return None

    # --- seeks --------------------------------------------------------------------------------
    def lock_pool(self, pool: str) -> None:
        self._uow.writing()  # the one write lock serialises every pool's pairing

    def add_seek(self, row: Mapping[str, Any]) -> SeekRecord:
        self._uow.writing()
        columns_of(schema.seeks, row)
        values: dict[str, Any] = {name: copy.deepcopy(row.get(name)) for name in SeekRecord.__dataclass_fields__}
        record = SeekRecord(**values)
        self._check_seek(record)
        self._uow.tables.portal(record.portal_id, schema.seeks)
        if record.id in self._uow.tables.seeks:
            raise refused(f"PRIMARY KEY seeks.id ({record.id!r})")
        self._uow.tables.seeks[record.id] = record
        return copy.deepcopy(record)

    @staticmethod
    def _check_seek(record: SeekRecord) -> None:
        not_null(schema.seeks, {name: getattr(record, name) for name in SeekRecord.__dataclass_fields__})
        one_of(schema.seeks, "status", record.status, schema.SEEK_STATUSES)

    def get_seek(self, seek_id: str, *, for_update: bool = False) -> SeekRecord | None:
        if for_update:
            self._uow.writing()
        return copy.deepcopy(self._uow.tables.seeks.get(seek_id))

    def waiting_in_pool(self, pool: str, now: datetime, limit: int) -> builtins.list[SeekRecord]:
        self._uow.writing()  # the candidates are locked (SELECT ... FOR UPDATE on PostgreSQL)
        seeks = self._uow.tables.seeks.values()
        found = [s for s in seeks if s.pool == pool and s.status == "waiting" and s.expires_at > now]
        return copy.deepcopy(sorted(found, key=lambda s: (s.created_at, s.id))[:limit])

    def finish_seek(self, seek_id: str, status: str, **fields: Any) -> bool:
        self._uow.writing()
        columns_of(schema.seeks, fields)
        found = self._uow.tables.seeks.get(seek_id)
        if found is None or found.status != "waiting":
            return False
        record = replace(found, status=status, **copy.deepcopy(fields))
        self._check_seek(record)
        self._uow.tables.seeks[seek_id] = record
        return True

    def due_seeks(self, now: datetime, limit: int) -> builtins.list[SeekRecord]:
        found = [
            s
            for s in self._uow.tables.seeks.values()
            if s.status == "waiting" and (s.expires_at <= now or (s.fill_at is not None and s.fill_at <= now))
        ]
        return copy.deepcopy(sorted(found, key=lambda s: (s.created_at, s.id))[:limit])

    def forget_seat_tokens(self, match_id: str) -> None:
        self._uow.writing()
        seeks = self._uow.tables.seeks
        for seek in [s for s in seeks.values() if s.match_id == match_id]:
            seeks[seek.id] = replace(seek, seat_token=None)

    # --- challenges -----------------------------------------------------------------------------
    def add_challenge(self, row: Mapping[str, Any]) -> ChallengeRecord:
        self._uow.writing()
        columns_of(schema.challenges, row)
        values: dict[str, Any] = {name: copy.deepcopy(row.get(name)) for name in ChallengeRecord.__dataclass_fields__}
        record = ChallengeRecord(**values)
        self._check_challenge(record)
        self._uow.tables.portal(record.portal_id, schema.challenges)
        if record.id in self._uow.tables.challenges:
            raise refused(f"PRIMARY KEY challenges.id ({record.id!r})")
        self._uow.tables.challenges[record.id] = record
        return copy.deepcopy(record)

    @staticmethod
    def _check_challenge(record: ChallengeRecord) -> None:
        not_null(schema.challenges, {name: getattr(record, name) for name in ChallengeRecord.__dataclass_fields__})
        one_of(schema.challenges, "status", record.status, schema.CHALLENGE_STATUSES)

    def get_challenge(self, challenge_id: str, *, for_update: bool = False) -> ChallengeRecord | None:
        if for_update:
            self._uow.writing()
        return copy.deepcopy(self._uow.tables.challenges.get(challenge_id))

    def update_challenge(self, challenge_id: str, expected_status: str, **fields: Any) -> bool:
        self._uow.writing()
        columns_of(schema.challenges, fields)
        found = self._uow.tables.challenges.get(challenge_id)
        if found is None or found.status != expected_status:
            return False
        record = replace(found, **copy.deepcopy(fields))
        self._check_challenge(record)
        self._uow.tables.challenges[challenge_id] = record
        return True

    def expired_challenges(self, now: datetime, limit: int) -> builtins.list[ChallengeRecord]:
        found = [c for c in self._uow.tables.challenges.values() if c.status == "pending" and c.expires_at <= now]
        return copy.deepcopy(sorted(found, key=lambda c: (c.expires_at, c.id))[:limit])

    # --- the players' event streams ---------------------------------------------------------------
    def add_player_event(
        self, portal_id: str, player_ref: str, event_type: str, data: dict[str, Any], now: datetime
    ) -> tuple[str, int]:
        self._uow.writing()
        self._uow.tables.portal(portal_id, schema.player_events)
        stream = self._uow.tables.player_events.setdefault((portal_id, player_ref), [])
        seq = len(stream) + 1
        stream.append(PlayerEventRecord(seq, event_type, copy.deepcopy(data), now))
        return player_key(portal_id, player_ref), seq

    def player_last_seq(self, portal_id: str, player_ref: str) -> int:
        return len(self._uow.tables.player_events.get((portal_id, player_ref), []))

    def player_events(
        self, portal_id: str, player_ref: str, after: int, limit: int
    ) -> builtins.list[PlayerEventRecord]:
        stream = self._uow.tables.player_events.get((portal_id, player_ref), [])
        return copy.deepcopy([e for e in stream if e.seq > after][:limit])


class MemoryTournaments:
    """``api.store.tournaments.TournamentRepository`` in memory: the same chain, the same
    compare-and-set on the head."""

    def __init__(self, uow: MemoryUnitOfWork):
        self._uow = uow

    def add(self, tournament_id: str, portal_id: str, now: datetime) -> TournamentRecord:
        self._uow.writing()
        tables = self._uow.tables
        tables.portal(portal_id, schema.tournaments)
        if tournament_id in tables.tournaments:
            raise refused(f"PRIMARY KEY tournaments.id ({tournament_id!r})")
        record = TournamentRecord(tournament_id, portal_id, "registering", 0, GENESIS, None, now, now)
        tables.tournaments[tournament_id] = record
        tables.tournament_events[tournament_id] = []
        return record

    def get(self, tournament_id: str, *, for_update: bool = False) -> TournamentRecord | None:
        return self._uow.tables.tournaments.get(tournament_id)

    def append(
        self,
        tournament_id: str,
        expected: ChainHead,
        events: Sequence[Mapping[str, Any]],
        *,
        status: str,
        due_at: datetime | None,
    ) -> ChainHead:
        self._uow.writing()
        tables = self._uow.tables
        record = tables.tournaments.get(tournament_id)
        if record is None:
            raise TournamentNotFound(tournament_id)
        if record.head != expected:
            raise StaleSeq(expected.seq, record.last_seq)
        one_of(schema.tournaments, "status", status, schema.TOURNAMENT_STATUSES)
        now = self._uow.now()
        rows = chained(tournament_id, expected, events, now)
        stored = [
            StoredEvent(r["seq"], r["type"], r["schema_version"], r["data"], now, r["prev_hash"], r["hash"])
            for r in rows
        ]
        tables.tournament_events[tournament_id].extend(stored)
        head = ChainHead(stored[-1].seq, stored[-1].hash) if stored else expected
        tables.tournaments[tournament_id] = replace(
            record, status=status, due_at=due_at, last_seq=head.seq, last_hash=head.hash, updated_at=now
        )
        return head

    def set_due(self, tournament_id: str, due_at: datetime | None) -> None:
        self._uow.writing()
        record = self._uow.tables.tournaments.get(tournament_id)
        if record is not None:
            self._uow.tables.tournaments[tournament_id] = replace(record, due_at=due_at)

    def load(self, tournament_id: str, after: int = 0, limit: int | None = None) -> builtins.list[StoredEvent]:
        found = [e for e in self._uow.tables.tournament_events.get(tournament_id, []) if e.seq > after]
        return found if limit is None else found[:limit]

    def due(self, now: datetime, limit: int) -> builtins.list[str]:
        found = [
            t
            for t in self._uow.tables.tournaments.values()
            if t.due_at is not None and t.due_at <= now and t.status in ("registering", "running")
        ]
        found.sort(key=lambda t: (t.due_at, t.id))
        return [t.id for t in found[:limit]]

    def add_match(self, row: Mapping[str, Any]) -> None:
        self._uow.writing()
        tables = self._uow.tables
        columns_of(schema.tournament_matches, row)
        tables.match(row["match_id"], schema.tournament_matches)
        if row["tournament_id"] not in tables.tournaments:
            raise refused(f"FOREIGN KEY tournament_matches.tournament_id ({row['tournament_id']!r})")
        if row["match_id"] in tables.tournament_matches:
            raise refused(f"PRIMARY KEY tournament_matches.match_id ({row['match_id']!r})")
        place = (row["tournament_id"], row["round"], row["table_number"])
        if any((m.tournament_id, m.round, m.table_number) == place for m in tables.tournament_matches.values()):
            raise refused(f"UNIQUE tournament_matches (tournament_id, round, table_number) {place!r}")
        tables.tournament_matches[row["match_id"]] = TournamentMatchRecord(
            row["match_id"], row["tournament_id"], row["round"], row["table_number"], copy.deepcopy(row["seats"])
        )

    def match(self, match_id: str) -> TournamentMatchRecord | None:
        return self._uow.tables.tournament_matches.get(match_id)

    def matches(self, tournament_id: str) -> builtins.list[TournamentMatchRecord]:
        found = [m for m in self._uow.tables.tournament_matches.values() if m.tournament_id == tournament_id]
        return sorted(found, key=lambda m: (m.round, m.table_number))


class MemoryUnitOfWork:
    """One transaction. A reader reads the tables as last committed when it began; a writer holds
    the write lock and works on its own copy, which ``commit`` publishes whole (so no reader ever
    sees half a transaction) and ``rollback`` or the end of the block throws away."""

    def __init__(self, store: MemoryStore, *, readonly: bool = False):
        self._store = store
        self._readonly = readonly
        self._tables: Tables | None = None
        self.now = store.now
        self.matches = MemoryMatches(self)
        self.seats = MemorySeats(self)
        self.events = MemoryEvents(self)
        self.idempotency = MemoryIdempotencyKeys(self)
        self.fairness = MemoryFairnessReports(self)
        self.analyses = MemoryAnalyses(self)
        self.player_stats = MemoryPlayerStats(self)
        self.ratings = MemoryRatings(self)
        self.portals = MemoryPortals(self)
        self.waiters = MemoryWaiterSlots(self)
        self.webhooks = MemoryWebhooks(self)
        self.matchmaking = MemoryMatchmaking(self)
        self.tournaments = MemoryTournaments(self)

    @property
    def tables(self) -> Tables:
        if self._tables is None:
            raise RuntimeError("unit of work not entered")
        return self._tables

    def writing(self) -> None:
        """Called before every change: a read-only transaction may not write."""
        if self._readonly:
            raise RuntimeError("a read-only unit of work cannot write")

    def __enter__(self) -> MemoryUnitOfWork:
        if self._readonly:
            self._tables = self._store.tables  # never changed in place: writers publish new ones
        else:
            self._store.write_lock.acquire()
            self._tables = copy.deepcopy(self._store.tables)
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if not self._readonly and self._tables is not None:
            self._store.write_lock.release()
        self._tables = None

    def commit(self) -> None:
        if not self._readonly:
            self._store.tables = self.tables
            self._tables = copy.deepcopy(self._store.tables)  # work after a commit is a new transaction

    def rollback(self) -> None:
        if not self._readonly:
            self._tables = copy.deepcopy(self._store.tables)


class MemoryStore:
    """The store, in memory: ``unit_of_work()`` like :class:`api.store.Store`'s.

    ``now`` stamps rows (``created_at``, ``updated_at``, ``recorded_at``): tests pass their clock.
    """

    def __init__(self, now: Callable[[], datetime] = wall_clock):
        self.now = now
        self.tables = Tables()
        self.write_lock = threading.RLock()

    def unit_of_work(self, *, readonly: bool = False) -> MemoryUnitOfWork:
        return MemoryUnitOfWork(self, readonly=readonly)

    def ping(self) -> None:
        """Always reachable."""

    def migrations_pending(self, script_location: str | None = None) -> str | None:
        """None: memory has no schema to migrate."""
        return None

    def wake_up_source(self, *_callbacks: Any, **_options: Any) -> None:
        """No other process shares this memory: a commit's own announcement wakes every waiter."""
        return None
