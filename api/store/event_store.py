"""The event log: ``uow.events``.

Each match is one stream of events numbered 1, 2, 3, ... without gaps.  A
writer says which seq it last saw (``expected_seq``); the append succeeds only
if that is still the match's last seq.  Two guards make this hold under
concurrency on every backend:

1. a compare-and-set ``UPDATE matches SET last_seq = new WHERE last_seq =
   expected`` (PostgreSQL re-checks the condition after waiting on the row
   lock; SQLite writers are already serialised by ``BEGIN IMMEDIATE``);
2. the ``(match_id, seq)`` primary key on ``events``: a duplicate insert is a
   conflict, reported as :class:`StaleSeq` as well.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, bindparam, insert, select, text, update
from sqlalchemy.exc import IntegrityError

from api.store import tables
from api.store.chain import row_hash
from api.store.codec import EncodedEvent, encode_event
from api.store.notify import CHANNEL, payload
from api.store.prepared import Prepared
from api.store.records import ChainHead, MatchNotFound, StaleSeq, StoredEvent
from api.store.repositories import utcnow

_UNIQUE_VIOLATION_SQLSTATE = "23505"


def is_unique_violation(error: IntegrityError) -> bool:
    orig = error.orig
    sqlstate = getattr(orig, "sqlstate", None)  # psycopg 3
    if sqlstate is not None:
        return sqlstate == _UNIQUE_VIOLATION_SQLSTATE
    message = str(orig)
    return "UNIQUE constraint failed" in message or "PRIMARY KEY" in message.upper()


# Statements are built once: constructing a SQLAlchemy expression and its cache key on
# every call cost about as much as running it on SQLite (bench/README.md, profile).
_m, _e = tables.matches, tables.events
_LAST_SEQ = select(_m.c.last_seq).where(_m.c.id == bindparam("match_id"))
_LAST_HASH = select(_m.c.last_hash).where(_m.c.id == bindparam("match_id"))
_HEAD = select(_m.c.last_seq, _m.c.last_hash).where(_m.c.id == bindparam("match_id"))
_MOVE = (
    update(_m)
    .where(
        _m.c.id == bindparam("match_id"),
        _m.c.last_seq == bindparam("expected_seq"),
        _m.c.last_hash == bindparam("expected_hash"),
    )
    .values(last_seq=bindparam("new_seq"), last_hash=bindparam("new_hash"), updated_at=bindparam("now"))
)
# The same compare-and-set, also writing the match's public summary (one UPDATE per action).
# The autoplay queue moves with it: an append decides whether a computer player is owed a
# move (``bots_due_at``) and ends any runner's claim on the match.
_MOVE_WITH_SUMMARY = _MOVE.values(
    status=bindparam("status"),
    summary=bindparam("summary"),
    deadline_at=bindparam("deadline_at"),
    bots_due_at=bindparam("bots_due_at"),
    autoplay_lease_until=None,
)
_NOTIFY = text("SELECT pg_notify(:channel, :payload)")
_INSERT = insert(_e)
_MAX_SEQ = select(_e.c.seq).where(_e.c.match_id == bindparam("match_id")).order_by(_e.c.seq.desc()).limit(1)
_LOAD_COLUMNS = (_e.c.seq, _e.c.type, _e.c.schema_version, _e.c.data, _e.c.recorded_at, _e.c.prev_hash, _e.c.hash)
_LOAD = (
    select(*_LOAD_COLUMNS)
    .where(_e.c.match_id == bindparam("match_id"), _e.c.seq > bindparam("after"))
    .order_by(_e.c.seq)
)
_LOAD_LIMITED = _LOAD.limit(bindparam("limit"))
# An action's append and a page's read, on the driver's cursor (api.store.prepared).
PREPARED_MOVE = Prepared(_MOVE)
PREPARED_NOTIFY = Prepared(_NOTIFY)  # every append on PostgreSQL
PREPARED_MOVE_WITH_SUMMARY = Prepared(_MOVE_WITH_SUMMARY)
PREPARED_INSERT = Prepared(_INSERT, column_keys=[column.key for column in _e.c])
PREPARED_LOAD = Prepared(_LOAD)
PREPARED_LOAD_LIMITED = Prepared(_LOAD_LIMITED)


class EventRepository:
    """Append to and read a match's event stream."""

    def __init__(self, connection: Connection, locked_hashes: dict[str, str] | None = None):
        self._conn = connection
        # match id -> last_hash as read by ``uow.matches.get_for_update`` in this unit of
        # work (shared with the MatchRepository): saves re-reading it before an append.
        # Only a hint: the compare-and-set below re-checks it in the database.
        self._locked_hashes = {} if locked_hashes is None else locked_hashes
        # match id -> the head this unit of work's own append made (``head`` answers it unread).
        self._appended_heads: dict[str, ChainHead] = {}

    def last_seq(self, match_id: str) -> int:
        """The match's last seq (0 before the first event); :class:`MatchNotFound` if absent."""
        value = self._conn.execute(_LAST_SEQ, {"match_id": match_id}).scalar_one_or_none()
        if value is None:
            raise MatchNotFound(match_id)
        return value

    def head(self, match_id: str) -> ChainHead:
        """The match's chain head as this transaction sees it (its own appends included): what
        an answer written in the same transaction shows; :class:`MatchNotFound` if absent."""
        appended = self._appended_heads.get(match_id)
        if appended is not None:
            return appended  # this transaction's own append: no read
        row = self._conn.execute(_HEAD, {"match_id": match_id}).first()
        if row is None:
            raise MatchNotFound(match_id)
        return ChainHead(row.last_seq, row.last_hash)

    def append(
        self,
        match_id: str,
        expected_seq: int,
        events: Sequence[Mapping[str, Any]],
        *,
        match_fields: Mapping[str, Any] | None = None,
    ) -> int:
        """Store ``events`` as seqs ``expected_seq + 1 ...`` and return the new last seq.

        Events are ``{"type": "<snake_case>", **fields}`` dicts (see
        :mod:`api.store.codec`).  Raises :class:`StaleSeq` if the match's last
        seq is not ``expected_seq`` (the unit of work should then be rolled
        back and the command retried), :class:`MatchNotFound` if there is no
        such match, :class:`~api.store.codec.EventCodecError` for an event
        that cannot be stored.  ``matches.last_seq`` and ``updated_at`` move
        in the same transaction.  An empty list only checks ``expected_seq``.
        ``match_fields`` (``status``, ``summary``, ``deadline_at``, ``bots_due_at``; all four) are
        written to the match row by the same statement, saving the caller an UPDATE; it also
        ends any autoplay claim (``autoplay_lease_until``).
        """
        encoded = [encode_event(event) for event in events]
        if not encoded:
            current = self.last_seq(match_id)
            if current != expected_seq:
                raise StaleSeq(expected_seq, current)
            return current

        new_last = expected_seq + len(encoded)
        now = utcnow()
        hinted = self._locked_hashes.pop(match_id, None)
        moved, rows, last_hash = self._move(match_id, expected_seq, encoded, now, hinted, match_fields)
        if not moved and hinted is not None:
            moved, rows, last_hash = self._move(match_id, expected_seq, encoded, now, None, match_fields)
        if not moved:
            raise StaleSeq(expected_seq, self.last_seq(match_id))

        # No savepoint around the insert (it cost two more statements per append): the
        # compare-and-set above already serialises writers, so a duplicate key here means
        # rows were written without moving last_seq, and is only reported.
        try:
            PREPARED_INSERT.execute_many(self._conn, rows)
        except IntegrityError as error:
            if is_unique_violation(error):
                raise StaleSeq(expected_seq, self._current_seq_after_failure(match_id)) from error
            raise
        if self._conn.dialect.name == "postgresql":
            # Delivered at commit to every listening worker (api.store.notify).
            PREPARED_NOTIFY.execute(self._conn, {"channel": CHANNEL, "payload": payload(match_id, new_last)})
        self._locked_hashes[match_id] = last_hash
        self._appended_heads[match_id] = ChainHead(new_last, last_hash)
        return new_last

    def _move(
        self,
        match_id: str,
        expected_seq: int,
        encoded: Sequence[EncodedEvent],
        now: datetime,
        prev: str | None,
        match_fields: Mapping[str, Any] | None = None,
    ) -> tuple[bool, list[dict[str, Any]], str]:
        """Chain the rows onto ``prev`` (read now if None) and compare-and-set the match row."""
        if prev is None:
            prev = self._conn.execute(_LAST_HASH, {"match_id": match_id}).scalar_one_or_none()
            if prev is None:
                raise MatchNotFound(match_id)
        first_prev: str = prev
        rows: list[dict[str, Any]] = []
        for offset, event in enumerate(encoded, start=1):
            seq = expected_seq + offset
            digest = row_hash(prev, seq, event.type, event.schema_version, event.data)
            rows.append(
                {
                    "match_id": match_id,
                    "seq": seq,
                    "type": event.type,
                    "schema_version": event.schema_version,
                    "data": event.data,
                    "recorded_at": now,
                    "prev_hash": prev,
                    "hash": digest,
                }
            )
            prev = digest
        params = {
            "match_id": match_id,
            "expected_seq": expected_seq,
            "expected_hash": first_prev,
            "new_seq": expected_seq + len(rows),
            "new_hash": prev,
            "now": now,
        }
        if match_fields is None:
            moved = PREPARED_MOVE.execute(self._conn, params)
        else:
            moved = PREPARED_MOVE_WITH_SUMMARY.execute(self._conn, {**params, **match_fields})
        return moved == 1, rows, prev

    def _current_seq_after_failure(self, match_id: str) -> int:
        """The highest stored seq, read after a failed insert.

        SQLite undoes just the failed statement, so the transaction can still be read;
        PostgreSQL aborts the whole transaction, so a short connection of its own reads
        what is committed.
        """
        if self._conn.dialect.name == "sqlite":
            return self._conn.execute(_MAX_SEQ, {"match_id": match_id}).scalar_one_or_none() or 0
        with self._conn.engine.connect() as other:
            return other.execute(_MAX_SEQ, {"match_id": match_id}).scalar_one_or_none() or 0

    def load(self, match_id: str, after: int = 0, limit: int | None = None) -> list[StoredEvent]:
        """Events with ``seq > after``, in seq order, at most ``limit`` of them.

        An unknown match simply has no events (use ``uow.matches.get`` to tell).
        """
        if limit is None:
            result = PREPARED_LOAD.rows(self._conn, {"match_id": match_id, "after": after})
        else:
            result = PREPARED_LOAD_LIMITED.rows(self._conn, {"match_id": match_id, "after": after, "limit": limit})
        return [
            StoredEvent(
                seq=row.seq,
                type=row.type,
                schema_version=row.schema_version,
                data=row.data,
                recorded_at=row.recorded_at,
                prev_hash=row.prev_hash,
                hash=row.hash,
            )
            for row in result
        ]
