"""Waiting for the next event of a match, cheaply, across threads and processes.

A waiting request holds a thread but no database connection. It sleeps on a per-match
condition and re-reads the match's seq when woken: by this process after one of its own
commits (``announce``), by the PostgreSQL listener when another process commits (LISTEN/
NOTIFY, see ``api.store.notify``), or by its poll interval — short on SQLite, which has
no notifications, and a safety net on PostgreSQL.
"""

from __future__ import annotations

import threading
import time
from typing import Callable

from api.store import Store
from api.store.notify import PostgresListener


class _Slot:
    __slots__ = ("condition", "waiters", "seq")

    def __init__(self):
        self.condition = threading.Condition()
        self.waiters = 0
        self.seq = 0


class Waiter:
    def __init__(self, store: Store, *, poll_interval: float | None = None):
        self.store = store
        self.listens = store.engine.dialect.name == "postgresql"
        self.poll_interval = poll_interval or (5.0 if self.listens else 0.2)
        self._slots: dict[str, _Slot] = {}
        self._lock = threading.Lock()
        self._listener: PostgresListener | None = None

    # --- wake-ups -----------------------------------------------------------------------
    def announce(self, match_id: str | None, seq: int) -> None:
        """A match reached ``seq`` (``None``: anything may have changed; wake everyone)."""
        with self._lock:
            slots = list(self._slots.values()) if match_id is None else [self._slots.get(match_id)]
        for slot in slots:
            if slot is None:
                continue
            with slot.condition:
                slot.seq = max(slot.seq, seq)
                slot.condition.notify_all()

    def _ensure_listener(self) -> None:
        if not self.listens or (self._listener is not None and self._listener.is_alive()):
            return
        with self._lock:
            if self._listener is None or not self._listener.is_alive():
                self._listener = PostgresListener(self.store.engine.url.render_as_string(hide_password=False),
                                                  self.announce)
                self._listener.start()
                self._listener.ready.wait(2.0)

    def stop(self) -> None:
        if self._listener is not None:
            self._listener.stop()

    # --- waiting --------------------------------------------------------------------------
    def wait_for(self, match_id: str, after_seq: int, timeout: float,
                 current_seq: Callable[[], int]) -> int:
        """Block until the match is past ``after_seq`` or ``timeout`` seconds pass; the seq then."""
        self._ensure_listener()
        deadline = time.monotonic() + timeout
        with self._lock:
            slot = self._slots.setdefault(match_id, _Slot())
            slot.waiters += 1
        try:
            seq = current_seq()
            while seq <= after_seq:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                with slot.condition:
                    if slot.seq <= after_seq:
                        slot.condition.wait(min(remaining, self.poll_interval))
                seq = current_seq()
            return seq
        finally:
            with self._lock:
                slot.waiters -= 1
                if slot.waiters == 0:
                    self._slots.pop(match_id, None)
