"""Health and readiness: can this process serve? Its database must answer *and take writes*.

A database that answers reads but refuses writes (a read-only replica after a failover, a
full disk, a file the process may not write, ``default_transaction_read_only``) would pass
a ``SELECT 1`` while every move failed. So the probe is a real write: this process upserts
its own row in ``health_probes`` and commits. When the write fails, a ``SELECT 1`` tells a
database that refuses writes (``database_read_only``) from one that is not there at all
(``database_unavailable``); a write lock not had within the busy timeout is
``database_busy``, as it is for any request.

The outcome, good or bad, is kept for ``interval`` seconds (measured on an injectable
monotonic clock): load balancers and attackers may ask ``/healthz`` as often as they like,
the database sees at most one probe per process per interval.

:meth:`Readiness.ready` (``/readyz``) asks more: the process is not draining (it got SIGTERM
and finishes what it holds: ``draining``), the database is at the migration scripts' head (a
new release whose migrations have not run yet is still starting: ``migrations_pending``;
once at the head, a process does not ask again), and then the probe above passes.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.exc import SQLAlchemyError

from api.store import Store, StoreError, is_busy_error
from api.store.repositories import utcnow

log = logging.getLogger(__name__)

OK, UNAVAILABLE, READ_ONLY, BUSY = "ok", "database_unavailable", "database_read_only", "database_busy"
DRAINING, MIGRATIONS_PENDING = "draining", "migrations_pending"
CHECK_INTERVAL = 2.0  # seconds a probe's outcome is reused
PROBE_RETENTION = timedelta(days=1)  # rows of processes silent for this long are dropped


@dataclass(frozen=True)
class Health:
    status: str  # OK, UNAVAILABLE, READ_ONLY, BUSY, DRAINING or MIGRATIONS_PENDING
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.status == OK


def probe_id() -> str:
    """This process's row: host and pid (read at each probe, so a forked worker has its own)."""
    return f"{socket.gethostname()}:{os.getpid()}"[:64]


class Readiness:
    def __init__(
        self,
        store: Store,
        *,
        interval: float = CHECK_INTERVAL,
        clock: Callable[[], float] = time.monotonic,
        now: Callable[[], datetime] = utcnow,
        draining: Callable[[], bool] = lambda: False,
        script_location: str | None = None,
    ):
        self.store = store
        self.interval = interval
        self.clock = clock
        self.now = now
        self.draining = draining
        self.script_location = script_location  # of the migration scripts (None: the repository's)
        self._lock = threading.Lock()
        self._last: tuple[float, Health] | None = None
        self._last_schema: tuple[float, Health] | None = None
        self._at_head = False

    def ready(self) -> Health:
        """Whether this process should be sent requests: not draining, the database at the
        migrations' head (asked first: a database without this release's tables fails the
        probe's write, which would read as read-only), and :meth:`check`'s probe passing."""
        if self.draining():
            return Health(DRAINING, "This server is shutting down; it finishes the requests it holds.")
        schema = self._schema()
        return self.check() if schema.ok else schema

    def _schema(self) -> Health:
        """At the head once: so it stays (a process runs the scripts it started with). Until then,
        the outcome is kept ``interval`` seconds like a probe's."""
        with self._lock:
            if self._at_head:
                return Health(OK)
            if self._last_schema is not None and self.clock() - self._last_schema[0] < self.interval:
                return self._last_schema[1]
            try:
                pending = self.store.migrations_pending(self.script_location)
            except (SQLAlchemyError, StoreError, OSError) as error:
                log.warning("readiness: database unreachable: %s", error)
                health = Health(UNAVAILABLE, "The database is unreachable.")
            else:
                self._at_head = pending is None
                health = Health(OK) if pending is None else Health(MIGRATIONS_PENDING, f"Not ready: {pending}.")
            self._last_schema = (self.clock(), health)
            return health

    def check(self) -> Health:
        """The last probe's outcome if it is fresh, else a new probe's (one at a time)."""
        with self._lock:
            if self._last is not None and self.clock() - self._last[0] < self.interval:
                return self._last[1]
            health = self._probe()
            self._last = (self.clock(), health)
            return health

    def _probe(self) -> Health:
        try:
            with self.store.unit_of_work() as uow:
                now = self.now()
                uow.health_probes.touch(probe_id(), now)
                uow.health_probes.purge(now - PROBE_RETENTION)
                uow.commit()
            return Health(OK)
        except (SQLAlchemyError, StoreError, OSError) as write_error:
            if is_busy_error(write_error):
                log.warning("health check: database write lock not had in time: %s", write_error)
                return Health(BUSY, "The database is busy with other writes.")
            try:
                self.store.ping()
            except (SQLAlchemyError, StoreError, OSError) as read_error:
                log.warning("health check: database unreachable: %s", read_error)
                return Health(UNAVAILABLE, "The database is unreachable.")
            log.warning("health check: database refuses writes: %s", write_error)
            return Health(READ_ONLY, f"The database answers but refuses writes ({type(write_error).__name__}).")
