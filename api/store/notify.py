"""Cross-process wake-ups: PostgreSQL LISTEN/NOTIFY on every append.

``EventRepository.append`` sends ``NOTIFY boneyard_events, '<match_id>:<seq>'`` in the
appending transaction, so PostgreSQL delivers it at commit, to every listening process.
Each worker runs one ``PostgresListener`` thread with its own connection (outside the
pool) that turns notifications into in-process wake-ups. SQLite has no such thing; the
waiting side polls there.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Callable

from sqlalchemy.engine import make_url

log = logging.getLogger(__name__)

CHANNEL = "boneyard_events"


def payload(match_id: str, seq: int) -> str:
    return f"{match_id}:{seq}"


class PostgresListener(threading.Thread):
    """Calls ``on_event(match_id, seq)`` for every notification; ``on_event(None, 0)`` after a
    reconnect, since notifications sent while disconnected are lost (waiters re-check)."""

    def __init__(self, url: str, on_event: Callable[[str | None, int], None]):
        super().__init__(name="boneyard-listen", daemon=True)
        self._conninfo = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
        self._on_event = on_event
        self._stopping = threading.Event()
        self.ready = threading.Event()

    def stop(self) -> None:
        self._stopping.set()

    def run(self) -> None:  # pragma: no cover - exercised through the waiting tests on PostgreSQL
        import psycopg

        while not self._stopping.is_set():
            try:
                with psycopg.connect(self._conninfo, autocommit=True) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    self.ready.set()
                    self._on_event(None, 0)
                    while not self._stopping.is_set():
                        for note in conn.notifies(timeout=1.0):
                            match_id, _, seq = note.payload.partition(":")
                            self._on_event(match_id, int(seq or 0))
            except Exception as exc:  # the database went away: retry, waiters poll meanwhile
                log.warning("LISTEN connection lost (%s); reconnecting", exc)
                self.ready.clear()
                time.sleep(1.0)
