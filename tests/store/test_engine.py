"""Per-dialect engine settings the store relies on."""

from __future__ import annotations

import sqlite3

import pytest
from sqlalchemy import event
from sqlalchemy.exc import DBAPIError

from api.store import make_engine
from api.store.engine import use_wal


def test_sqlite_connections_use_wal_foreign_keys_and_a_busy_timeout(tmp_path):
    engine = make_engine(f"sqlite:///{tmp_path / 'x.db'}")
    try:
        with engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
            assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 5000
    finally:
        engine.dispose()


def test_a_connection_waits_for_another_to_finish_before_switching_a_fresh_file_to_wal(tmp_path):
    """Workers starting on a new file: one holds the write lock (migrating) in the rollback
    journal; the next to connect waits for it to finish instead of failing "locked"."""
    path = tmp_path / "fresh.db"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN EXCLUSIVE")  # as a migration in progress holds it
    pauses = []

    def waited(seconds):  # the holder commits during the first pause
        pauses.append(seconds)
        holder.execute("COMMIT")

    late = sqlite3.connect(path, isolation_level=None, timeout=0)
    try:
        use_wal(late.cursor(), waited=waited)
        assert late.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert pauses == [0.05]
        use_wal(late.cursor(), waited=waited)  # already WAL: nothing to wait for
        assert pauses == [0.05]
    finally:
        late.close()
        holder.close()


def test_unsupported_backends_are_refused():
    with pytest.raises(ValueError):
        make_engine("mysql://u:p@localhost/db")


@pytest.mark.postgres
def test_a_readonly_unit_of_work_cannot_write_on_postgresql(store):
    with store.unit_of_work(readonly=True) as uow, pytest.raises(DBAPIError):
        uow.matches.add({"preset": "p", "players": 2, "seed": "s", "seed_commitment": "c"})


# --- SQLite writers: a cooperative lock per process, then SQLite's, both bounded ----------------
@pytest.fixture
def short_lock(monkeypatch):
    from api.store import engine as store_engine

    monkeypatch.setattr(store_engine, "WRITE_LOCK_SECONDS", 0.3)
    return 0.3


@pytest.fixture
def sqlite_store(tmp_path):
    from api.store import Store
    from api.store.migrate import upgrade

    engine = make_engine(f"sqlite:///{tmp_path / 'w.db'}")
    upgrade(engine)
    yield Store(engine)
    engine.dispose()


def _write(store, tag: str) -> None:
    with store.unit_of_work() as uow:
        uow.matches.add({"preset": tag, "players": 2, "seed": "s", "seed_commitment": "c"})
        uow.commit()


def test_writers_of_one_process_queue_on_its_lock_and_give_up_as_database_busy(sqlite_store, short_lock):
    import threading
    import time

    from api.store import DatabaseBusy

    holding, release = threading.Event(), threading.Event()

    def hold():
        with sqlite_store.unit_of_work() as uow:
            uow.matches.add({"preset": "held", "players": 2, "seed": "s", "seed_commitment": "c"})
            holding.set()
            release.wait(10)
            uow.commit()

    holder = threading.Thread(target=hold)
    holder.start()
    assert holding.wait(5)
    started = time.monotonic()
    with pytest.raises(DatabaseBusy, match="writers of this process"):
        _write(sqlite_store, "refused")
    assert short_lock * 0.9 < time.monotonic() - started < short_lock + 1
    with sqlite_store.unit_of_work(readonly=True) as uow:  # readers never queue for it
        assert uow.matches.list().items == []
    waiter = threading.Thread(target=_write, args=(sqlite_store, "queued"))

    def waiter_connects(conn) -> None:  # the waiter takes a connection, its write still to begin
        if threading.current_thread() is waiter:
            release.set()  # the holder commits while the waiter heads for the lock it holds

    event.listen(sqlite_store.engine, "engine_connect", waiter_connects)
    waiter.start()  # queues on the process lock and gets it at the holder's commit
    holder.join(5)
    waiter.join(5)
    with sqlite_store.unit_of_work(readonly=True) as uow:
        assert sorted(m.preset for m in uow.matches.list().items) == ["held", "queued"]


def test_another_process_holding_sqlites_lock_is_database_busy_within_the_bound(sqlite_store, short_lock):
    import sqlite3
    import time

    from api.store import DatabaseBusy

    other = sqlite3.connect(sqlite_store.engine.url.database, isolation_level=None)  # "another process"
    other.execute("BEGIN IMMEDIATE")
    started = time.monotonic()
    with pytest.raises(DatabaseBusy, match="another process"):
        _write(sqlite_store, "refused")
    assert time.monotonic() - started < short_lock + 1  # not SQLITE_BUSY_TIMEOUT_MS: the rest of the bound
    other.execute("COMMIT")
    other.close()
    _write(sqlite_store, "after")  # the process lock was not left held


def test_the_process_lock_is_released_by_commit_rollback_and_reuse(sqlite_store, short_lock):
    from api.store import DatabaseBusy

    _write(sqlite_store, "committed")
    with pytest.raises(RuntimeError), sqlite_store.unit_of_work() as uow:
        uow.matches.add({"preset": "rolled back", "players": 2, "seed": "s", "seed_commitment": "c"})
        raise RuntimeError("abandon")
    with sqlite_store.unit_of_work() as uow:  # used again after a commit: a second transaction
        uow.matches.add({"preset": "first", "players": 2, "seed": "s", "seed_commitment": "c"})
        uow.commit()
        uow.matches.add({"preset": "second", "players": 2, "seed": "s", "seed_commitment": "c"})
        uow.commit()
    try:
        _write(sqlite_store, "last")  # any lock left held would make this DatabaseBusy
    except DatabaseBusy:  # pragma: no cover - the failure this test catches
        pytest.fail("the write lock leaked")
    with sqlite_store.unit_of_work(readonly=True) as uow:
        assert sorted(m.preset for m in uow.matches.list().items) == ["committed", "first", "last", "second"]
