"""Wake-up sources: how a process learns that other processes appended to a match.

One source per process serves all of its waiters (``api.services.waiting.Waiter``), which
never query the database while they wait. The source asks its waiter hub which matches
are being waited on (``watched()``), and reports their last seqs (``seen({id: seq})``) or a
single append (``on_event(id, seq)``).

PostgreSQL
    ``EventRepository.append`` sends ``NOTIFY boneyard_events, '<match_id>:<seq>'`` in the
    appending transaction, so PostgreSQL delivers it at commit, to every listening process.
    ``PostgresListener`` holds one connection of its own (outside the pool) and turns
    notifications into wake-ups. After every (re)connect, and every ``REFRESH_SECONDS`` as a
    safety net that also proves the connection alive, it reads the last seq of every watched
    match in one query: notifications sent while it was not listening are lost.
SQLite
    No notifications. ``SqlitePoller`` holds one connection of its own and asks
    ``PRAGMA data_version`` every ``interval`` (a few microseconds: it changes when any
    other connection commits); only when it changed does it read the last seqs of the
    watched matches, in chunks of ``CHUNK`` ids per query.

Both are threads; under gevent (after monkey-patching) they are greenlets. Each stops by
itself once nothing has been watched for ``IDLE_SECONDS`` (the hub starts a new one when
a waiter comes), so an idle process runs no loop at all.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from sqlalchemy.engine import make_url

if TYPE_CHECKING:
    import psycopg  # imported where used: only the PostgreSQL listener needs it

log = logging.getLogger(__name__)

CHANNEL = "boneyard_events"
CHUNK = 500  # ids per "last seqs" query (SQLite's default limit is 32,766 variables)
IDLE_SECONDS = 30.0
REFRESH_SECONDS = 5.0

Watched = Callable[[], list[str]]
Seen = Callable[[dict[str, int]], None]
Retire = Callable[["threading.Thread"], bool]


def payload(match_id: str, seq: int) -> str:
    return f"{match_id}:{seq}"


def _chunks(ids: list[str]) -> Iterable[list[str]]:
    for start in range(0, len(ids), CHUNK):
        yield ids[start : start + CHUNK]


#: Waiter keys that name no match but matchmaking's rows (api.store.matchmaking): the prefix, the
#: query of their seqs (``{marks}``: one placeholder per id), and whether the id drops the prefix.
KEYED_QUERIES = (
    (
        "seek-",
        "SELECT 'seek-' || id, CASE status WHEN 'waiting' THEN 0 ELSE 1 END FROM seeks WHERE id IN ({marks})",
        True,
    ),
    ("player-", "SELECT key, last_seq FROM player_event_heads WHERE key IN ({marks})", False),
)


def keyed_seqs(execute: Callable[[str, list[str]], Iterable[Any]], keys: list[str], mark: str) -> dict[str, int]:
    """The seqs of the matchmaking keys among ``keys`` (``execute(sql, params)`` runs one query)."""
    seqs: dict[str, int] = {}
    for prefix, sql, strip in KEYED_QUERIES:
        ids = [k.removeprefix(prefix) if strip else k for k in keys if k.startswith(prefix)]
        for chunk in _chunks(ids):
            seqs.update((key, int(seq)) for key, seq in execute(sql.format(marks=",".join([mark] * len(chunk))), chunk))
    return seqs


class SqliteChanges:
    """One SQLite connection of its own that tells whether anyone committed, and reads last seqs."""

    def __init__(self, path: str):
        # Autocommit: no read transaction stays open between two checks, so each sees the latest commit.
        self._conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._version: int | None = None
        self.checks = 0  # PRAGMA data_version asked
        self.reads = 0  # "last seqs" queries run

    def changed(self) -> bool:
        """True when another connection committed since the last call (and on the first call)."""
        self.checks += 1
        version = self._conn.execute("PRAGMA data_version").fetchone()[0]
        changed, self._version = version != self._version, version
        return changed

    def last_seqs(self, match_ids: list[str]) -> dict[str, int]:
        seqs: dict[str, int] = {}
        for chunk in _chunks(match_ids):
            self.reads += 1
            marks = ",".join("?" * len(chunk))
            seqs.update(self._conn.execute(f"SELECT id, last_seq FROM matches WHERE id IN ({marks})", chunk))
        seqs.update(keyed_seqs(self._conn.execute, match_ids, "?"))
        return seqs

    def close(self) -> None:
        self._conn.close()


class _Source(threading.Thread):
    """A daemon loop that stops when asked, or when ``retire`` agrees that nothing is watched."""

    def __init__(self, name: str, watched: Watched, retire: Retire):
        super().__init__(name=name, daemon=True)
        self._watched = watched
        self._retire = retire
        self._stopping = threading.Event()
        self._idle_since: float | None = None

    def stop(self) -> None:
        self._stopping.set()

    def _ids(self) -> list[str]:
        """The watched match ids; noting how long there have been none."""
        ids = self._watched()
        self._idle_since = None if ids else (self._idle_since or time.monotonic())
        return ids

    def _done(self) -> bool:
        if self._stopping.is_set():
            return True
        idle = self._idle_since is not None and time.monotonic() - self._idle_since > IDLE_SECONDS
        return idle and self._retire(self)


class SqlitePoller(_Source):
    """The SQLite wake-up source: ``PRAGMA data_version`` every ``interval`` seconds."""

    def __init__(self, path: str, watched: Watched, seen: Seen, retire: Retire, *, interval: float = 0.15):
        super().__init__("boneyard-sqlite-poll", watched, retire)
        self._path = path
        self._seen = seen
        self.interval = interval
        self.changes: SqliteChanges | None = None

    def poll_once(self) -> None:
        """One check: when anything was committed, read and report the watched matches' seqs."""
        if self.changes is None:
            self.changes = SqliteChanges(self._path)
        if self.changes.changed():
            ids = self._ids()
            if ids:
                self._seen(self.changes.last_seqs(ids))
        else:
            self._ids()

    def run(self) -> None:
        try:
            while not self._done():
                try:
                    self.poll_once()
                except sqlite3.Error as exc:  # e.g. the file is being replaced: reopen
                    log.warning("SQLite change poll failed (%s); reopening", exc)
                    if self.changes is not None:
                        self.changes.close()
                    self.changes = None
                    self._stopping.wait(1.0)
                self._stopping.wait(self.interval)
        finally:
            if self.changes is not None:
                self.changes.close()


class PostgresListener(_Source):
    """The PostgreSQL wake-up source: ``LISTEN boneyard_events`` on a connection of its own."""

    def __init__(self, url: str, on_event: Callable[[str, int], None], watched: Watched, seen: Seen, retire: Retire):
        super().__init__("boneyard-listen", watched, retire)
        self._conninfo = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
        self._on_event = on_event
        self._seen = seen
        self.ready = threading.Event()

    def _refresh(self, conn: psycopg.Connection[Any]) -> None:
        ids = self._ids()
        for chunk in _chunks(ids):
            self._seen(dict(conn.execute("SELECT id, last_seq FROM matches WHERE id = ANY(%s)", [chunk])))
        self._seen(keyed_seqs(lambda sql, params: conn.execute(sql, params), ids, "%s"))  # type: ignore[arg-type,return-value]

    def run(self) -> None:  # pragma: no cover - exercised through the waiting tests on PostgreSQL
        import psycopg

        while not self._done():
            try:
                with psycopg.connect(self._conninfo, autocommit=True) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    self.ready.set()
                    refreshed = time.monotonic()
                    self._refresh(conn)  # what was appended before LISTEN took effect
                    while not self._done():
                        for note in conn.notifies(timeout=1.0):
                            match_id, _, seq = note.payload.partition(":")
                            self._on_event(match_id, int(seq or 0))
                        if time.monotonic() - refreshed > REFRESH_SECONDS:
                            refreshed = time.monotonic()
                            self._refresh(conn)
            except Exception as exc:  # the database went away: retry; waiters are re-checked on reconnect
                log.warning("LISTEN connection lost (%s); reconnecting", exc)
                self.ready.clear()
                self._stopping.wait(1.0)
