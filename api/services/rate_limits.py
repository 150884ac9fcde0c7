"""Rate-limit counters kept in the app's own database, so every worker and every app server on
that database shares one budget per client (``RATELIMIT_STORAGE_URI=database://``).

Fixed windows: the first hit of a key starts a window of the limit's length; hits add to it
until it ends; the next hit after that starts a new one (``uow.rate_limits``). Each hit is one
short write transaction. Rows of ended windows are dropped now and then (at most once per
``purge_interval`` seconds per process), in a transaction of their own.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from sqlalchemy.exc import SQLAlchemyError

from api.store import Store

log = logging.getLogger(__name__)

PURGE_INTERVAL = 60.0  # seconds between two purges of ended windows by one process


class RateLimitCounters:
    """Hit, read and clear counters; ``clock`` is epoch seconds (``time.time``), as ``limits`` counts."""

    def __init__(self, store: Store, *, clock: Callable[[], float] = time.time, purge_interval: float = PURGE_INTERVAL):
        self.store = store
        self.clock = clock
        self.purge_interval = purge_interval
        self._next_purge = clock() + purge_interval

    def hit(self, key: str, expiry: float, amount: int = 1) -> tuple[int, float]:
        """Count ``amount`` against ``key``: ``(count in its window now, when the window ends)``."""
        now = self.clock()
        with self.store.unit_of_work() as uow:
            counted = uow.rate_limits.hit(key, amount, expiry, now)
            uow.commit()
        if now >= self._next_purge:
            self._next_purge = now + self.purge_interval
            self.purge(now)
        return counted

    def current(self, key: str) -> tuple[int, float] | None:
        """``(count, window end)`` of ``key``'s running window, or None when none runs."""
        with self.store.unit_of_work(readonly=True) as uow:
            return uow.rate_limits.get(key, self.clock())

    def clear(self, key: str) -> None:
        with self.store.unit_of_work() as uow:
            uow.rate_limits.clear(key)
            uow.commit()

    def clear_all(self) -> int:
        with self.store.unit_of_work() as uow:
            cleared = uow.rate_limits.clear_all()
            uow.commit()
        return cleared

    def purge(self, now: float | None = None) -> int:
        """Drop ended windows; a failure is logged, not raised (the rows only wait for the next purge)."""
        try:
            with self.store.unit_of_work() as uow:
                purged = uow.rate_limits.purge(self.clock() if now is None else now)
                uow.commit()
        except SQLAlchemyError as exc:
            log.warning("rate-limit counters: purge failed (retried later): %s", exc)
            return 0
        return purged

    def reachable(self) -> bool:
        try:
            self.store.ping()
        except SQLAlchemyError:
            return False
        return True
