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
from typing import Any

from sqlalchemy import Connection, insert, select, update
from sqlalchemy.exc import IntegrityError

from api.store import tables
from api.store.chain import row_hash
from api.store.codec import encode_event
from api.store.records import MatchNotFound, StaleSeq, StoredEvent
from api.store.repositories import utcnow

_UNIQUE_VIOLATION_SQLSTATE = "23505"


def _is_unique_violation(error: IntegrityError) -> bool:
    orig = error.orig
    sqlstate = getattr(orig, "sqlstate", None)  # psycopg 3
    if sqlstate is not None:
        return sqlstate == _UNIQUE_VIOLATION_SQLSTATE
    message = str(orig)
    return "UNIQUE constraint failed" in message or "PRIMARY KEY" in message.upper()


class EventRepository:
    """Append to and read a match's event stream."""

    def __init__(self, connection: Connection):
        self._conn = connection

    def last_seq(self, match_id: str) -> int:
        """The match's last seq (0 before the first event); :class:`MatchNotFound` if absent."""
        value = self._conn.execute(
            select(tables.matches.c.last_seq).where(tables.matches.c.id == match_id)
        ).scalar_one_or_none()
        if value is None:
            raise MatchNotFound(match_id)
        return value

    def append(
        self, match_id: str, expected_seq: int, events: Sequence[Mapping[str, Any]]
    ) -> int:
        """Store ``events`` as seqs ``expected_seq + 1 ...`` and return the new last seq.

        Events are ``{"type": "<snake_case>", **fields}`` dicts (see
        :mod:`api.store.codec`).  Raises :class:`StaleSeq` if the match's last
        seq is not ``expected_seq`` (the unit of work should then be rolled
        back and the command retried), :class:`MatchNotFound` if there is no
        such match, :class:`~api.store.codec.EventCodecError` for an event
        that cannot be stored.  ``matches.last_seq`` and ``updated_at`` move
        in the same transaction.  An empty list only checks ``expected_seq``.
        """
        encoded = [encode_event(event) for event in events]
        if not encoded:
            current = self.last_seq(match_id)
            if current != expected_seq:
                raise StaleSeq(expected_seq, current)
            return current

        new_last = expected_seq + len(encoded)
        now = utcnow()
        m = tables.matches
        prev = self._conn.execute(select(m.c.last_hash).where(m.c.id == match_id)).scalar_one_or_none()
        if prev is None:
            raise MatchNotFound(match_id)
        rows = []
        for offset, event in enumerate(encoded, start=1):
            seq = expected_seq + offset
            digest = row_hash(prev, seq, event.type, event.schema_version, event.data)
            rows.append({"match_id": match_id, "seq": seq, "type": event.type,
                         "schema_version": event.schema_version, "data": event.data,
                         "recorded_at": now, "prev_hash": prev, "hash": digest})
            prev = digest
        moved = self._conn.execute(
            update(m)
            .where(m.c.id == match_id, m.c.last_seq == expected_seq, m.c.last_hash == rows[0]["prev_hash"])
            .values(last_seq=new_last, last_hash=prev, updated_at=now)
        ).rowcount
        if moved != 1:
            raise StaleSeq(expected_seq, self.last_seq(match_id))

        savepoint = self._conn.begin_nested()
        try:
            self._conn.execute(insert(tables.events), rows)
        except IntegrityError as error:
            savepoint.rollback()
            if _is_unique_violation(error):
                current = self._conn.execute(
                    select(tables.events.c.seq)
                    .where(tables.events.c.match_id == match_id)
                    .order_by(tables.events.c.seq.desc())
                    .limit(1)
                ).scalar_one_or_none()
                raise StaleSeq(expected_seq, current or 0) from error
            raise
        savepoint.commit()
        return new_last

    def load(
        self, match_id: str, after: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        """Events with ``seq > after``, in seq order, at most ``limit`` of them.

        An unknown match simply has no events (use ``uow.matches.get`` to tell).
        """
        e = tables.events
        query = (
            select(e.c.seq, e.c.type, e.c.schema_version, e.c.data, e.c.recorded_at, e.c.prev_hash, e.c.hash)
            .where(e.c.match_id == match_id, e.c.seq > after)
            .order_by(e.c.seq)
        )
        if limit is not None:
            query = query.limit(limit)
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
            for row in self._conn.execute(query)
        ]
