"""``database://``: a storage for the ``limits`` library (under flask-limiter) that keeps the
counters in the app's own database (``api.services.rate_limits``), so every worker of every
app server on that database counts against one budget per client.

The ``limits`` library finds storages by URI scheme (``STORAGE_SCHEME``); flask-limiter builds
one from ``RATELIMIT_STORAGE_URI``. The limiter is one object for the process, so the storage
finds the database through the app serving the request (``current_app``): two apps in one
process on two databases keep two sets of counters, two apps on one database share one.

flask-limiter reads a limit's count and window end again right after counting a hit (for
the ``X-RateLimit-*`` and ``Retry-After`` headers); the hit's own answer, remembered for the
rest of the request, serves those reads without another round trip.
"""

from __future__ import annotations

import hashlib
from typing import Any

from flask import current_app, g, has_app_context
from limits.storage import Storage
from sqlalchemy.exc import SQLAlchemyError

from api.services.rate_limits import RateLimitCounters

COUNTERS_KEY = "boneyard.rate_limits"
MAX_KEY_LENGTH = 255  # rate_limit_counters.key


def stored_key(key: str) -> str:
    """The key as stored: as given when short and printable ASCII, else its SHA-256."""
    if len(key) <= MAX_KEY_LENGTH and key.isascii() and key.isprintable():
        return key
    return "sha256:" + hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def _seen() -> dict[str, tuple[int, float]]:
    """This request's hits: key -> (count, window end)."""
    if not has_app_context():
        return {}
    if "rate_limit_hits" not in g:
        g.rate_limit_hits = {}
    return g.rate_limit_hits


class DatabaseStorage(Storage):
    # limits declares it a plain attribute (list[str] | None), so no ClassVar here.
    STORAGE_SCHEME = ["database"]  # noqa: RUF012

    def __init__(self, uri: str | None = None, wrap_exceptions: bool = False, **options: Any):
        super().__init__(uri, wrap_exceptions=wrap_exceptions, **options)

    @property
    def base_exceptions(self) -> type[Exception]:
        return SQLAlchemyError

    @staticmethod
    def counters() -> RateLimitCounters:
        return current_app.extensions[COUNTERS_KEY]

    def _current(self, key: str) -> tuple[int, float] | None:
        key = stored_key(key)
        counters = self.counters()
        seen = _seen().get(key)
        if seen is not None and seen[1] > counters.clock():
            return seen
        return counters.current(key)

    def incr(self, key: str, expiry: int, amount: int = 1) -> int:
        key = stored_key(key)
        count, expires_at = self.counters().hit(key, expiry, amount)
        _seen()[key] = (count, expires_at)
        return count

    def get(self, key: str) -> int:
        current = self._current(key)
        return 0 if current is None else current[0]

    def get_expiry(self, key: str) -> float:
        current = self._current(key)
        return self.counters().clock() if current is None else current[1]

    def check(self) -> bool:
        return self.counters().reachable()

    def reset(self) -> int | None:
        _seen().clear()
        return self.counters().clear_all()

    def clear(self, key: str) -> None:
        key = stored_key(key)
        _seen().pop(key, None)
        self.counters().clear(key)
