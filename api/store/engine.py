"""Engine creation: the per-dialect settings the store relies on.

SQLite
    One file, many threads and processes.  pysqlite's own transaction handling
    is switched off and every transaction starts with ``BEGIN IMMEDIATE`` (the
    write lock is taken up front), so concurrent writers queue on the busy
    timeout instead of failing with "database is locked" half-way through.
    Read-only units of work start with a plain ``BEGIN``.  WAL mode lets
    readers run beside the writer.  Foreign keys are enforced.

    Writers of one process first take a process-wide lock (one per database
    file), held from ``BEGIN IMMEDIATE`` to the commit or rollback.  SQLite's
    busy handler sleeps inside the C library: under gevent that stalls every
    greenlet of the worker, so writers of the same process queue on a
    cooperative lock instead, and only another process's writer can make SQLite
    itself wait.  Both waits together are bounded by ``WRITE_LOCK_SECONDS``; a
    lock that cannot be had raises :class:`DatabaseBusy` (503 over HTTP).

PostgreSQL
    psycopg 3, a small pool with pre-ping.  Row locks (``FOR UPDATE``) and the
    ``(match_id, seq)`` primary key do the serialising.
"""

from __future__ import annotations

import math
import sqlite3
import threading
import time
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError
from sqlalchemy.pool import ConnectionPoolEntry, StaticPool

from api.store.prepared import driver_execute
from api.store.records import DatabaseBusy

#: Execution option a connection carries for a read-only unit of work.
READONLY_OPTION = "boneyard_readonly"

SQLITE_BUSY_TIMEOUT_MS = 5000
#: The longest a SQLite writer waits for the write lock, in this process and in SQLite together.
WRITE_LOCK_SECONDS = SQLITE_BUSY_TIMEOUT_MS / 1000

_BUSY_TIMEOUT = "boneyard_busy_timeout_ms"  # key in a DBAPI connection's ``info``: its busy timeout now
#: The SQLAlchemy connections holding their database's writer lock (forgotten with the connection).
_holders: weakref.WeakKeyDictionary[Connection, threading.Lock] = weakref.WeakKeyDictionary()
_write_locks: dict[str, threading.Lock] = {}
_write_locks_guard = threading.Lock()


def _write_lock(key: str) -> threading.Lock:
    """The process-wide writer lock of one database file (created on first use, so that under
    gevent it is made after monkey-patching and waits cooperatively)."""
    with _write_locks_guard:
        lock = _write_locks.get(key)
        if lock is None:
            lock = _write_locks[key] = threading.Lock()
        return lock


def is_busy_error(error: BaseException) -> bool:
    """True for "the database is locked" (SQLite) or a lock timeout (PostgreSQL)."""
    if isinstance(error, DatabaseBusy):
        return True
    if not isinstance(error, OperationalError):
        return False
    if getattr(error.orig, "sqlstate", None) == "55P03":  # lock_not_available
        return True
    message = str(error.orig).lower()
    return "database is locked" in message or "database table is locked" in message or "busy" in message


def is_sqlite(url_or_engine: str | Engine) -> bool:
    """True for a SQLite URL or engine."""
    if isinstance(url_or_engine, Engine):
        return url_or_engine.dialect.name == "sqlite"
    return make_url(url_or_engine).get_backend_name() == "sqlite"


def make_engine(url: str, *, pool_size: int = 5, clock: Callable[[], float] = time.monotonic, **kwargs: Any) -> Engine:
    """An engine for ``url`` with Boneyard's pool and transaction settings.

    ``clock`` is the monotonic clock a SQLite writer measures its wait for the write lock on
    (tests inject theirs). Extra keyword arguments go to :func:`sqlalchemy.create_engine`.
    """
    parsed = make_url(url)
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        return _make_sqlite_engine(url, parsed.database, clock, **kwargs)
    if backend == "postgresql":
        options: dict[str, Any] = {
            "pool_pre_ping": True,
            "pool_size": pool_size,
            "max_overflow": pool_size * 2,
            "pool_recycle": 1800,
        }
        options.update(kwargs)
        engine = create_engine(url, **options)

        @event.listens_for(engine, "begin")
        def _pg_begin(conn: Connection) -> None:
            # psycopg opens the transaction itself with its first statement, as ``BEGIN READ
            # ONLY`` while the connection's ``read_only`` is set: one round trip, where a
            # ``SET TRANSACTION READ ONLY`` after its ``BEGIN`` was a second one (each costs the
            # app some 80 us of CPU: bench/README.md, issue 36). Writers' ``BEGIN`` stays plain.
            wanted = True if conn.get_execution_options().get(READONLY_OPTION) else None
            driver = conn.connection.driver_connection
            if driver.read_only is not wanted:  # type: ignore[union-attr]  # psycopg's connection
                driver.read_only = wanted  # type: ignore[union-attr]  # no transaction is open yet

        return engine
    raise ValueError(f"unsupported database backend {backend!r} in DATABASE_URL")


def use_wal(cursor: sqlite3.Cursor, *, waited: Callable[[float], object] = time.sleep) -> None:
    """Put the database in WAL mode (a no-op once it is: the mode is kept in the file).

    Switching a fresh file's journal needs the database to itself, and SQLite answers
    "database is locked" at once rather than calling its busy handler. Several gunicorn
    workers starting on a new file meet exactly that: the first one migrates it (holding the
    write lock) while the next connects. So the switch is retried for as long as a writer
    would wait (``SQLITE_BUSY_TIMEOUT_MS``); ``waited(seconds)`` is the pause between tries.
    """
    deadline = time.monotonic() + SQLITE_BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            if cursor.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                cursor.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() >= deadline:
                raise
            waited(0.05)


def _make_sqlite_engine(url: str, database: str | None, clock: Callable[[], float], **kwargs: Any) -> Engine:
    in_memory = database in (None, "", ":memory:")
    options: dict[str, Any] = {"connect_args": {"check_same_thread": False}}
    if in_memory:
        # One shared connection, otherwise every pooled connection would be a
        # separate empty database.  Good for quick experiments only: tests use
        # a file in a temporary directory.
        options["poolclass"] = StaticPool
    options.update(kwargs)
    engine = create_engine(url, **options)

    @event.listens_for(engine, "connect")
    def _sqlite_connect(dbapi_connection: sqlite3.Connection, _record: ConnectionPoolEntry) -> None:
        # Let SQLAlchemy's "begin" hook below emit BEGIN itself.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
            cursor.execute("PRAGMA foreign_keys = ON")
            if not in_memory:
                use_wal(cursor)
                cursor.execute("PRAGMA synchronous = NORMAL")
        finally:
            cursor.close()

    lock_key = f"memory:{id(engine)}" if in_memory or database is None else str(Path(database).resolve())

    @event.listens_for(engine, "begin")
    def _sqlite_begin(conn: Connection) -> None:
        if conn.get_execution_options().get(READONLY_OPTION):
            # On the driver's own connection, as every write's BEGIN IMMEDIATE: SQLAlchemy's
            # statement path cost a read a fifth of its database time (api.store.prepared).
            driver_execute(conn, "BEGIN")
        else:
            _begin_writing(conn, _write_lock(lock_key), clock)

    @event.listens_for(engine, "commit")
    @event.listens_for(engine, "rollback")
    def _sqlite_end(conn: Connection) -> None:
        # These events fire just before the COMMIT/ROLLBACK itself.  Releasing here is safe: a
        # writer of this process that gets the lock first waits in SQLite's busy handler for the
        # few microseconds until the COMMIT lands (and under gevent nothing else runs in between:
        # a release only schedules the next waiter).  A rollback with no write open does nothing.
        held = _holders.pop(conn, None)
        if held is not None:
            held.release()

    return engine


def _begin_writing(conn: Connection, lock: threading.Lock, clock: Callable[[], float]) -> None:
    """Take the process lock, then SQLite's write lock, both within ``WRITE_LOCK_SECONDS``."""
    started = clock()
    if not lock.acquire(timeout=WRITE_LOCK_SECONDS):
        raise DatabaseBusy(f"no write lock within {WRITE_LOCK_SECONDS:g} s (writers of this process)")
    try:
        # What is left of the bound, in steps of 0.1 s so that the PRAGMA is rarely needed.
        left_ms = max(1, math.ceil((WRITE_LOCK_SECONDS - (clock() - started)) * 10) * 100)
        if conn.info.get(_BUSY_TIMEOUT, SQLITE_BUSY_TIMEOUT_MS) != left_ms:
            conn.exec_driver_sql(f"PRAGMA busy_timeout = {left_ms}")
            conn.info[_BUSY_TIMEOUT] = left_ms
        driver_execute(conn, "BEGIN IMMEDIATE")
    except BaseException as error:
        lock.release()
        if is_busy_error(error):
            raise DatabaseBusy(f"no write lock within {WRITE_LOCK_SECONDS:g} s (another process)") from error
        raise
    _holders[conn] = lock
