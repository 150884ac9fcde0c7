"""WSGI middleware: at most ``limit`` requests of one worker do their work at once.

A gevent worker accepts every connection at once (that is what lets it hold thousands of
idle waiters). Under a burst of real work that means dozens of requests interleaved at
every database round trip: the same throughput as a bounded pool, but each request waits
on all the others, and the slowest ones far longer (measured at saturation on PostgreSQL,
``bench/http_pg_workers.py``: p99 1.1 s without this limit, 0.45 to 0.52 s with 8 permits;
bench/README.md section 3). So requests that work queue here,
first come first served, ``limit`` at a time, as a thread pool would make them.

Requests that mostly wait are not counted, or they would hold a permit while idle: a
long-poll with ``wait`` and an event stream (their reads are a few small queries), and the
probes (``/readyz``, ``/livez``, ``/healthz``), which must answer while the worker is busy.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterable
from urllib.parse import parse_qs
from wsgiref.types import StartResponse, WSGIApplication, WSGIEnvironment

PROBES = ("/readyz", "/livez", "/healthz")


def is_waiting_request(environ: WSGIEnvironment) -> bool:
    """A stream, a long-poll that asks to wait, or a probe: not counted against the limit."""
    path = environ.get("PATH_INFO", "")
    if path in PROBES or path.endswith("/stream"):
        return True
    if path.endswith("/events") and "wait=" in environ.get("QUERY_STRING", ""):
        waits = parse_qs(environ["QUERY_STRING"]).get("wait", ["0"])
        return waits[-1].strip() not in ("", "0", "0.0")
    return False


class FifoPermits:
    """``limit`` permits handed to waiters strictly in arrival order: a freed permit goes to
    the longest waiter, never to a request that arrived just now (no barging), so no request
    waits behind a stream of later ones."""

    def __init__(self, limit: int):
        self._free = limit
        self._lock = threading.Lock()
        self._queue: deque[threading.Event] = deque()

    @property
    def waiting(self) -> int:
        """How many requests are queued for a permit."""
        return len(self._queue)

    def acquire(self) -> None:
        with self._lock:
            if self._free > 0 and not self._queue:
                self._free -= 1
                return
            turn = threading.Event()
            self._queue.append(turn)
        turn.wait()  # set by release(): the permit is handed over

    def release(self) -> None:
        with self._lock:
            if self._queue:
                self._queue.popleft().set()
            else:
                self._free += 1


class WorkLimit:
    """Wrap a WSGI app: ``limit`` working requests at a time (0: no limit)."""

    def __init__(self, app: WSGIApplication, *, limit: int):
        self.app = app
        self.limit = limit
        # Made when the app is (after gevent patched threading in a gevent worker): cooperative
        # locks and events there, plain ones under threads.
        self._permits = FifoPermits(limit) if limit > 0 else None

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        if self._permits is None or is_waiting_request(environ):
            return self.app(environ, start_response)
        self._permits.acquire()
        try:
            # Flask builds a JSON answer before it returns: the work is done when this returns.
            return self.app(environ, start_response)
        finally:
            self._permits.release()
