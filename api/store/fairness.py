"""``uow.fairness``: the fairness check of an ended match, stored once it has been computed.

An ended match's log never changes, so neither does its report: the first request (or the
background runner when the match ends) computes it, every later request reads it here.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Connection, bindparam, select

from api.store import tables
from api.store.upsert import dialect_insert

_f = tables.fairness_reports
_GET = select(_f.c.report).where(_f.c.match_id == bindparam("match_id"))


class FairnessReportRepository:
    def __init__(self, connection: Connection):
        self._conn = connection

    def get(self, match_id: str) -> dict[str, Any] | None:
        """The stored report, or ``None`` when none has been stored yet."""
        return self._conn.execute(_GET, {"match_id": match_id}).scalar_one_or_none()

    def add_if_absent(self, match_id: str, report: dict[str, Any], computed_at: datetime) -> bool:
        """Store ``report`` unless one is stored already; True when this one was stored.

        ``ON CONFLICT DO NOTHING``: two servers that computed the same report at once both
        succeed, and the first to commit is the one kept (the reports are equal anyway).
        """
        statement = (
            dialect_insert(self._conn)(_f)
            .values(match_id=match_id, report=report, computed_at=computed_at)
            .on_conflict_do_nothing(index_elements=[_f.c.match_id])
            .returning(_f.c.match_id)
        )  # a row back only when inserted (rowcount is not portable)
        return self._conn.execute(statement).first() is not None
