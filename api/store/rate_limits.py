"""``uow.rate_limits``: fixed-window rate-limit counters in the ``rate_limit_counters`` table.

One row per key (a limit and who it counts: an address, a token's hash) holds the count of
the current window and when that window ends (``expires_at``, seconds since the epoch, as the
``limits`` library counts time). Every app server on the database shares the rows, so a
client's budget is one budget however many servers and workers answer it.

A hit is one atomic statement on both backends, ``INSERT ... ON CONFLICT (key) DO UPDATE``:
it starts a window (the row is new, or its window has ended) or adds to the running one,
and answers the count after this hit. Concurrent hits on one key serialise on the row (the
write lock on SQLite), so no two requests ever see the same count.
"""

from __future__ import annotations

from sqlalchemy import Connection, Executable, bindparam, case, delete, select

from api.store import tables
from api.store.upsert import dialect_insert

_c = tables.rate_limit_counters
_GET = select(_c.c["count"], _c.c.expires_at).where(_c.c.key == bindparam("key"))
_CLEAR = delete(_c).where(_c.c.key == bindparam("key"))
_PURGE = delete(_c).where(_c.c.expires_at <= bindparam("now"))
_HITS: dict[str, Executable] = {}


def _hit_statement(connection: Connection) -> Executable:
    """The upsert for this connection's dialect, built once (hot: every limited request)."""
    statement = _HITS.get(connection.dialect.name)
    if statement is None:
        insert = dialect_insert(connection)(_c).values(
            key=bindparam("key"), count=bindparam("amount"), expires_at=bindparam("new_expires_at")
        )
        # In SET, column names mean the row as it was before this statement, on both backends.
        ended = _c.c.expires_at <= bindparam("now")
        statement = insert.on_conflict_do_update(
            index_elements=[_c.c.key],
            set_={
                "count": case((ended, insert.excluded["count"]), else_=_c.c["count"] + insert.excluded["count"]),
                "expires_at": case((ended, insert.excluded.expires_at), else_=_c.c.expires_at),
            },
        ).returning(_c.c["count"], _c.c.expires_at)
        _HITS[connection.dialect.name] = statement
    return statement


class RateLimitRepository:
    def __init__(self, connection: Connection):
        self._conn = connection

    def hit(self, key: str, amount: int, expiry: float, now: float) -> tuple[int, float]:
        """Count ``amount`` against ``key``: ``(count in the window after this hit, window end)``.

        A key without a running window (none yet, or it ended at or before ``now``) starts
        one of ``expiry`` seconds with ``count = amount``.
        """
        row = self._conn.execute(
            _hit_statement(self._conn), {"key": key, "amount": amount, "new_expires_at": now + expiry, "now": now}
        ).one()
        return row[0], row[1]  # by position: a Row's .count is tuple.count

    def get(self, key: str, now: float) -> tuple[int, float] | None:
        """``(count, window end)`` of the running window of ``key``, or ``None`` without one."""
        row = self._conn.execute(_GET, {"key": key}).first()
        if row is None or row[1] <= now:
            return None
        return row[0], row[1]

    def clear(self, key: str) -> None:
        self._conn.execute(_CLEAR, {"key": key})

    def clear_all(self) -> int:
        """Forget every counter; how many there were."""
        return self._conn.execute(delete(_c)).rowcount

    def purge(self, now: float) -> int:
        """Drop the rows of windows that have ended (the next hit would restart them anyway)."""
        return self._conn.execute(_PURGE, {"now": now}).rowcount
