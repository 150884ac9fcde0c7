"""Per-dialect engine settings the store relies on."""

from __future__ import annotations

import sqlite3

import pytest
from sqlalchemy import event
from sqlalchemy.exc import DBAPIError

from api.store import Store, make_engine
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


@pytest.mark.postgres
def test_readers_and_writers_take_turns_on_one_postgresql_connection_each_in_its_own_mode(database_url):
    """A reader's transaction is opened read-only by its BEGIN (psycopg's ``read_only``, no
    second statement), a writer's after it on the very same connection is not, and back."""
    store = Store(make_engine(database_url, pool_size=1, max_overflow=0))
    try:
        modes, backends = [], set()
        for readonly in (True, False, True, False):
            with store.unit_of_work(readonly=readonly) as uow:
                modes.append(uow.connection.exec_driver_sql("SHOW transaction_read_only").scalar())
                backends.add(uow.connection.exec_driver_sql("SELECT pg_backend_pid()").scalar())
        assert modes == ["on", "off", "on", "off"] and len(backends) == 1
        sent: list[str] = []
        event.listen(store.engine, "before_cursor_execute", lambda *args: sent.append(args[2]))
        with store.unit_of_work(readonly=True) as uow:
            uow.matches.get("0" * 32)
        assert [sql for sql in sent if "matches" not in sql] == []  # no SET TRANSACTION of its own
        with store.unit_of_work() as uow:  # a writer writes
            uow.matches.add({"preset": "p", "players": 2, "seed": "s", "seed_commitment": "c"})
            uow.commit()
    finally:
        store.dispose()


# --- SQLite writers: a cooperative lock per process, then SQLite's, both bounded ----------------
# How long the waits take is not asserted (that is the machine's speed): the bound each wait is
# given is, and what is left of it after the process lock is reckoned on an injected clock.
@pytest.fixture
def short_lock(monkeypatch):
    from api.store import engine as store_engine

    monkeypatch.setattr(store_engine, "WRITE_LOCK_SECONDS", 0.3)
    return 0.3


class TickingClock:
    """A monotonic clock that finds ``tick`` seconds gone each time it is read."""

    def __init__(self, tick: float) -> None:
        self.now, self.tick = 0.0, tick

    def __call__(self) -> float:
        self.now += self.tick
        return self.now


@pytest.fixture
def clock():
    return TickingClock(0.1)


@pytest.fixture
def sqlite_store(tmp_path, clock):
    from api.store import Store
    from api.store.migrate import upgrade

    engine = make_engine(f"sqlite:///{tmp_path / 'w.db'}", clock=clock)
    upgrade(engine)
    yield Store(engine)
    engine.dispose()


@pytest.fixture
def lock_timeouts(monkeypatch):
    """The timeout each writer of the process gives its wait for the process lock, in order."""
    import threading

    from api.store import engine as store_engine

    asked: list[float] = []
    real_write_lock = store_engine._write_lock

    class Recorded:
        def __init__(self, lock: threading.Lock) -> None:
            self.lock = lock

        def acquire(self, timeout: float = -1) -> bool:
            asked.append(timeout)
            return self.lock.acquire(timeout=timeout)

        def release(self) -> None:
            self.lock.release()

    monkeypatch.setattr(store_engine, "_write_lock", lambda key: Recorded(real_write_lock(key)))
    return asked


@pytest.fixture
def sqlite_statements(sqlite_store):
    """The SQL each connection of ``sqlite_store`` sends from now on, in order: as SQLite runs
    it (the driver's trace), so statements sent on the driver's own connection count too."""
    sent: list[str] = []

    def record(dbapi_connection, _record, _proxy) -> None:
        dbapi_connection.set_trace_callback(sent.append)

    event.listen(sqlite_store.engine, "checkout", record)
    return sent


def _write(store, tag: str) -> None:
    with store.unit_of_work() as uow:
        uow.matches.add({"preset": tag, "players": 2, "seed": "s", "seed_commitment": "c"})
        uow.commit()


def test_writers_of_one_process_queue_on_its_lock_and_give_up_as_database_busy(sqlite_store, short_lock, lock_timeouts):
    import threading

    from api.store import DatabaseBusy

    holding, release = threading.Event(), threading.Event()

    def hold():
        with sqlite_store.unit_of_work() as uow:
            uow.matches.add({"preset": "held", "players": 2, "seed": "s", "seed_commitment": "c"})
            holding.set()
            release.wait(10)  # bounds a broken run only: the test sets it
            uow.commit()

    holder = threading.Thread(target=hold)
    holder.start()
    assert holding.wait(10), "the holder never began its write"
    with pytest.raises(DatabaseBusy, match=r"no write lock within 0.3 s \(writers of this process\)"):
        _write(sqlite_store, "refused")
    assert lock_timeouts == [short_lock, short_lock]  # the holder's wait, then the refused one's: the bound
    with sqlite_store.unit_of_work(readonly=True) as uow:  # readers never queue for it
        assert uow.matches.list().items == []
    waiter = threading.Thread(target=_write, args=(sqlite_store, "queued"))

    def waiter_connects(conn) -> None:  # the waiter takes a connection, its write still to begin
        if threading.current_thread() is waiter:
            release.set()  # the holder commits while the waiter heads for the lock it holds

    event.listen(sqlite_store.engine, "engine_connect", waiter_connects)
    waiter.start()  # queues on the process lock and gets it at the holder's commit
    holder.join(10)
    waiter.join(10)
    assert not holder.is_alive() and not waiter.is_alive(), "a writer never finished"
    with sqlite_store.unit_of_work(readonly=True) as uow:
        assert sorted(m.preset for m in uow.matches.list().items) == ["held", "queued"]


def test_a_writer_waits_on_sqlite_only_for_what_the_process_lock_left_of_the_bound(
    sqlite_store, short_lock, sqlite_statements
):
    """The clock finds 0.1 s gone while the writer takes the process lock: SQLite may make it
    wait 0.2 s more (the rest of the 0.3 s bound), not SQLITE_BUSY_TIMEOUT_MS."""
    _write(sqlite_store, "first")
    assert sqlite_statements[:2] == ["PRAGMA busy_timeout = 200", "BEGIN IMMEDIATE"]
    sqlite_statements.clear()
    _write(sqlite_store, "second")  # the same rest of the bound: the connection has it already
    assert sqlite_statements[0] == "BEGIN IMMEDIATE"


def test_what_is_left_of_the_bound_is_counted_in_tenths_and_never_nothing(
    sqlite_store, short_lock, sqlite_statements, clock
):
    clock.tick = 0.25  # 0.05 s left: rounded up to the next tenth
    _write(sqlite_store, "late")
    clock.tick = 0.5  # the bound already passed: SQLite still gets one try, 1 ms
    _write(sqlite_store, "later")
    assert [s for s in sqlite_statements if s.startswith("PRAGMA")] == [
        "PRAGMA busy_timeout = 100",
        "PRAGMA busy_timeout = 1",
    ]


def test_another_process_holding_sqlites_lock_is_database_busy(sqlite_store, short_lock, sqlite_statements):
    import sqlite3

    from api.store import DatabaseBusy

    other = sqlite3.connect(sqlite_store.engine.url.database, isolation_level=None)  # "another process"
    other.execute("BEGIN IMMEDIATE")
    with pytest.raises(DatabaseBusy, match="another process"):
        _write(sqlite_store, "refused")
    # it waited the rest of the bound (0.2 s), not SQLITE_BUSY_TIMEOUT_MS, before giving up
    assert sqlite_statements[:2] == ["PRAGMA busy_timeout = 200", "BEGIN IMMEDIATE"]
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
