"""Tournaments' SQL: each tournament's row and its own hash-chained log, and its matches.

A tournament's log is chained exactly as a match's (``api.store.chain``: the same row hash, the
same genesis) and appended the same way: a compare-and-set of ``tournaments.last_seq`` and
``last_hash`` (PostgreSQL re-checks it after waiting on the row lock; SQLite's writers are
serialised), then the rows, whose ``(tournament_id, seq)`` primary key refuses a duplicate.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Row, insert, select, update

from api.store import tables
from api.store.chain import GENESIS, row_hash
from api.store.codec import encode_event
from api.store.records import ChainHead, StaleSeq, StoredEvent
from api.store.repositories import utcnow


@dataclass(frozen=True)
class TournamentRecord:
    id: str
    portal_id: str
    status: str
    last_seq: int
    last_hash: str
    due_at: datetime | None
    created_at: datetime
    updated_at: datetime

    @property
    def head(self) -> ChainHead:
        return ChainHead(self.last_seq, self.last_hash)


@dataclass(frozen=True)
class TournamentMatchRecord:
    """A match a round is played in; ``seats``: ``[{seat, entrant_id, player_ref, token}]``."""

    match_id: str
    tournament_id: str
    round: int
    table_number: int
    seats: list[dict[str, Any]]


class TournamentNotFound(LookupError):
    pass


_t, _e, _m = tables.tournaments, tables.tournament_events, tables.tournament_matches
_ACTIVE = ("registering", "running")


def chained(
    tournament_id: str, head: ChainHead, events: Sequence[Mapping[str, Any]], now: datetime
) -> list[dict[str, Any]]:
    """The rows that store ``events`` after ``head``, each hashed onto the one before."""
    rows = []
    prev = head.hash
    for seq, event in enumerate((encode_event(e) for e in events), start=head.seq + 1):
        digest = row_hash(prev, seq, event.type, event.schema_version, event.data)
        rows.append(
            {
                "tournament_id": tournament_id,
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
    return rows


def _record(row: Row[Any]) -> TournamentRecord:
    return TournamentRecord(
        row.id, row.portal_id, row.status, row.last_seq, row.last_hash, row.due_at, row.created_at, row.updated_at
    )


class TournamentRepository:
    def __init__(self, connection: Connection):
        self._conn = connection

    def add(self, tournament_id: str, portal_id: str, now: datetime) -> TournamentRecord:
        """A new tournament, its log still empty."""
        record = TournamentRecord(tournament_id, portal_id, "registering", 0, GENESIS, None, now, now)
        self._conn.execute(insert(_t), vars(record))
        return record

    def get(self, tournament_id: str, *, for_update: bool = False) -> TournamentRecord | None:
        query = select(_t).where(_t.c.id == tournament_id)
        if for_update:
            query = query.with_for_update()
        row = self._conn.execute(query).first()
        return None if row is None else _record(row)

    def append(
        self,
        tournament_id: str,
        expected: ChainHead,
        events: Sequence[Mapping[str, Any]],
        *,
        status: str,
        due_at: datetime | None,
    ) -> ChainHead:
        """Store ``events`` after ``expected`` (else :class:`StaleSeq`), with the row's new
        status and due time; answers the new head."""
        now = utcnow()
        rows = chained(tournament_id, expected, events, now)
        head = ChainHead(rows[-1]["seq"], rows[-1]["hash"]) if rows else expected
        moved = self._conn.execute(
            update(_t)
            .where(_t.c.id == tournament_id, _t.c.last_seq == expected.seq, _t.c.last_hash == expected.hash)
            .values(last_seq=head.seq, last_hash=head.hash, status=status, due_at=due_at, updated_at=now)
        ).rowcount
        if moved != 1:
            current = self.get(tournament_id)
            if current is None:
                raise TournamentNotFound(tournament_id)
            raise StaleSeq(expected.seq, current.last_seq)
        if rows:
            self._conn.execute(insert(_e), rows)
        return head

    def set_due(self, tournament_id: str, due_at: datetime | None) -> None:
        self._conn.execute(update(_t).where(_t.c.id == tournament_id).values(due_at=due_at))

    def load(self, tournament_id: str, after: int = 0, limit: int | None = None) -> list[StoredEvent]:
        query = (
            select(_e.c.seq, _e.c.type, _e.c.schema_version, _e.c.data, _e.c.recorded_at, _e.c.prev_hash, _e.c.hash)
            .where(_e.c.tournament_id == tournament_id, _e.c.seq > after)
            .order_by(_e.c.seq)
        )
        if limit is not None:
            query = query.limit(limit)
        return [StoredEvent(*row) for row in self._conn.execute(query)]

    def due(self, now: datetime, limit: int) -> list[str]:
        """Tournaments the sweep has work for: due by now, not over."""
        query = (
            select(_t.c.id)
            .where(_t.c.due_at <= now, _t.c.status.in_(_ACTIVE))
            .order_by(_t.c.due_at, _t.c.id)
            .limit(limit)
        )
        return list(self._conn.execute(query).scalars())

    def add_match(self, row: Mapping[str, Any]) -> None:
        self._conn.execute(insert(_m), dict(row))

    def match(self, match_id: str) -> TournamentMatchRecord | None:
        row = self._conn.execute(select(_m).where(_m.c.match_id == match_id)).first()
        return None if row is None else TournamentMatchRecord(*row)

    def matches(self, tournament_id: str) -> list[TournamentMatchRecord]:
        query = select(_m).where(_m.c.tournament_id == tournament_id).order_by(_m.c.round, _m.c.table_number)
        return [TournamentMatchRecord(*row) for row in self._conn.execute(query)]
