"""Engine creation: the per-dialect settings the store relies on.

SQLite
    One file, many threads and processes.  pysqlite's own transaction handling
    is switched off and every transaction starts with ``BEGIN IMMEDIATE`` (the
    write lock is taken up front), so concurrent writers queue on the busy
    timeout instead of failing with "database is locked" half-way through.
    Read-only units of work start with a plain ``BEGIN``.  WAL mode lets
    readers run beside the writer.  Foreign keys are enforced.

PostgreSQL
    psycopg 3, a small pool with pre-ping.  Row locks (``FOR UPDATE``) and the
    ``(match_id, seq)`` primary key do the serialising.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.pool import StaticPool

#: Execution option a connection carries for a read-only unit of work.
READONLY_OPTION = "boneyard_readonly"

SQLITE_BUSY_TIMEOUT_MS = 5000


def is_sqlite(url_or_engine: str | Engine) -> bool:
    """True for a SQLite URL or engine."""
    if isinstance(url_or_engine, Engine):
        return url_or_engine.dialect.name == "sqlite"
    return make_url(url_or_engine).get_backend_name() == "sqlite"


def make_engine(url: str, *, pool_size: int = 5, **kwargs: Any) -> Engine:
    """An engine for ``url`` with Boneyard's pool and transaction settings.

    Extra keyword arguments go to :func:`sqlalchemy.create_engine`.
    """
    parsed = make_url(url)
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        return _make_sqlite_engine(url, parsed.database, **kwargs)
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
        def _pg_begin(conn):  # pragma: no cover - trivial
            if conn.get_execution_options().get(READONLY_OPTION):
                conn.exec_driver_sql("SET TRANSACTION READ ONLY")

        return engine
    raise ValueError(f"unsupported database backend {backend!r} in DATABASE_URL")


def _make_sqlite_engine(url: str, database: str | None, **kwargs: Any) -> Engine:
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
    def _sqlite_connect(dbapi_connection, _record):
        # Let SQLAlchemy's "begin" hook below emit BEGIN itself.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
            cursor.execute("PRAGMA foreign_keys = ON")
            if not in_memory:
                cursor.execute("PRAGMA journal_mode = WAL")
                cursor.execute("PRAGMA synchronous = NORMAL")
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _sqlite_begin(conn):
        if conn.get_execution_options().get(READONLY_OPTION):
            conn.exec_driver_sql("BEGIN")
        else:
            conn.exec_driver_sql("BEGIN IMMEDIATE")

    return engine
