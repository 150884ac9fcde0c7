"""Readiness: can this process serve? Its database must answer *and take writes*.

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
CHECK_INTERVAL = 2.0  # seconds a probe's outcome is reused
PROBE_RETENTION = timedelta(days=1)  # rows of processes silent for this long are dropped


@dataclass(frozen=True)
class Health:
    status: str  # OK, UNAVAILABLE, READ_ONLY or BUSY
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
    ):
        self.store = store
        self.interval = interval
        self.clock = clock
        self.now = now
        self._lock = threading.Lock()
        self._last: tuple[float, Health] | None = None

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
