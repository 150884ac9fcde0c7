"""``uow.health_probes``: one row per app process, rewritten by its readiness check.

Writing the row and committing is what proves the database takes writes (a read-only
replica, a full disk or a file the process may not write all refuse it).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Connection, bindparam, delete

from api.store import tables
from api.store.upsert import dialect_insert

_h = tables.health_probes
_PURGE = delete(_h).where(_h.c.checked_at < bindparam("before"))


class HealthProbeRepository:
    def __init__(self, connection: Connection):
        self._conn = connection

    def touch(self, probe_id: str, now: datetime) -> None:
        """Write ``probe_id``'s row (insert, or move its ``checked_at`` to ``now``)."""
        insert = dialect_insert(self._conn)(_h).values(id=probe_id, checked_at=now)
        self._conn.execute(
            insert.on_conflict_do_update(index_elements=[_h.c.id], set_={"checked_at": insert.excluded.checked_at})
        )

    def purge(self, before: datetime) -> int:
        """Drop the rows of processes not heard from since ``before`` (they have stopped)."""
        return self._conn.execute(_PURGE, {"before": before}).rowcount
