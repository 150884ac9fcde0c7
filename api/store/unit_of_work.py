"""The unit of work: one transaction, the repositories that share it.

>>> with store.unit_of_work() as uow:                      # doctest: +SKIP
...     match = uow.matches.get_for_update(match_id)
...     uow.events.append(match_id, match.last_seq, new_events)
...     uow.matches.update(match_id, summary=new_summary)
...     uow.commit()

Leaving the block without ``commit()`` (or by an exception) rolls back.
After ``commit()`` the unit of work may be used again: the next statement
starts a new transaction, which is rolled back at exit unless committed too.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from types import TracebackType
from typing import Any, Generic, TypeVar, overload

from sqlalchemy import Connection, Engine, text

from api.store.analyses import AnalysisRepository
from api.store.engine import READONLY_OPTION, make_engine
from api.store.event_store import EventRepository
from api.store.fairness import FairnessReportRepository
from api.store.health import HealthProbeRepository
from api.store.idempotency import IdempotencyRepository
from api.store.matchmaking import MatchmakingRepository
from api.store.notify import PostgresListener, SqlitePoller
from api.store.portals import PlayerStatsRepository, PortalRepository
from api.store.rate_limits import RateLimitRepository
from api.store.ratings import RatingRepository
from api.store.repositories import MatchRepository, SeatRepository
from api.store.tournaments import TournamentRepository
from api.store.waiters import WaiterSlotRepository
from api.store.webhooks import WebhookRepository

R = TypeVar("R")


class _Repository(Generic[R]):
    """A unit of work's repository, made on first use in its transaction and kept there."""

    def __init__(self, make: Callable[..., R], *, shares_locks: bool = False):
        self.make = make
        # made with the unit of work's locked rows' hashes too (matches and events share them)
        self.shares_locks = shares_locks

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name
        _REPOSITORIES.append(name)

    @overload
    def __get__(self, uow: None, owner: type) -> _Repository[R]: ...
    @overload
    def __get__(self, uow: UnitOfWork, owner: type) -> R: ...
    def __get__(self, uow: UnitOfWork | None, owner: type) -> R | _Repository[R]:
        if uow is None:
            return self
        connection = uow.connection
        made = self.make(connection, uow.locked_hashes) if self.shares_locks else self.make(connection)
        uow.__dict__[self.name] = made
        return made


#: The names of the repositories, forgotten when a unit of work ends (filled by ``_Repository``).
_REPOSITORIES: list[str] = []


class UnitOfWork:
    """A context manager around one database transaction.

    ``readonly=True`` starts a read-only transaction (plain ``BEGIN`` on
    SQLite, so readers do not queue behind writers; ``READ ONLY`` on
    PostgreSQL).  Writers should use the default.
    """

    matches = _Repository(MatchRepository, shares_locks=True)
    seats = _Repository(SeatRepository)
    events = _Repository(EventRepository, shares_locks=True)
    idempotency = _Repository(IdempotencyRepository)
    player_stats = _Repository(PlayerStatsRepository)
    ratings = _Repository(RatingRepository)
    portals = _Repository(PortalRepository)
    waiters = _Repository(WaiterSlotRepository)
    fairness = _Repository(FairnessReportRepository)
    analyses = _Repository(AnalysisRepository)
    rate_limits = _Repository(RateLimitRepository)
    health_probes = _Repository(HealthProbeRepository)
    webhooks = _Repository(WebhookRepository)
    matchmaking = _Repository(MatchmakingRepository)
    tournaments = _Repository(TournamentRepository)

    def __init__(self, engine: Engine, *, readonly: bool = False, on_commit: Callable[[], None] | None = None):
        """``engine``: for a read-only unit of work, one whose connections carry
        ``READONLY_OPTION`` already (``Store`` keeps such an engine, rather than setting the
        option on each connection of each read)."""
        self._engine = engine
        self._readonly = readonly
        self._on_commit = on_commit
        self._conn: Connection | None = None

    def __enter__(self) -> UnitOfWork:
        if self._conn is not None:
            raise RuntimeError("unit of work already entered")
        conn = self._engine.connect()
        try:
            conn.begin()
        except BaseException:
            conn.close()
            raise
        self._conn = conn
        # last_hash of the rows this transaction locked, shared by matches and events so
        # an append after get_for_update skips one SELECT; forgotten when the transaction ends.
        self.locked_hashes: dict[str, str] = {}
        # The repositories are made when first used (_Repository): a request uses two or three
        # of the fifteen, and every unit of work made all of them.
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        conn, self._conn = self._conn, None
        if conn is None:
            return
        for name in _REPOSITORIES:
            self.__dict__.pop(name, None)
        # Closing rolls back a transaction still open and tells the pool so, which then skips
        # its own rollback on return (a rollback after ``rollback()`` was one too many per read);
        # after ``commit()`` with nothing new, the pool's reset is the only rollback.
        conn.close()

    @property
    def connection(self) -> Connection:
        """The underlying connection (for the odd query repositories lack)."""
        if self._conn is None:
            raise RuntimeError("unit of work not entered")
        return self._conn

    def commit(self) -> None:
        """Make everything done so far durable."""
        self.connection.commit()
        self.locked_hashes.clear()  # the row locks end with the transaction
        if self._on_commit is not None and not self._readonly:
            self._on_commit()  # after the commit: whoever it wakes can read what was written

    def rollback(self) -> None:
        """Discard everything since the last commit."""
        self.connection.rollback()
        self.locked_hashes.clear()


class Store:
    """The store for one database: its engine and a unit-of-work factory.

    Made by ``api.bootstrap.open_store`` for ``create_app``, which keeps it in
    ``app.extensions["boneyard.store"]``. ``on_commit``
    runs after every commit of a writing unit of work (``api.commit_notice``).
    """

    def __init__(self, engine: Engine, *, on_commit: Callable[[], None] | None = None):
        self.engine = engine
        self.on_commit = on_commit
        self._reading = engine.execution_options(**{READONLY_OPTION: True})  # shares its pool and events

    @classmethod
    def from_url(cls, url: str, **engine_options: Any) -> Store:
        """A store with a new engine from :func:`~api.store.engine.make_engine`."""
        return cls(make_engine(url, **engine_options))

    def unit_of_work(self, *, readonly: bool = False) -> UnitOfWork:
        """A new (not yet entered) :class:`UnitOfWork`."""
        return UnitOfWork(self._reading if readonly else self.engine, readonly=readonly, on_commit=self.on_commit)

    def ping(self) -> None:
        """Run ``SELECT 1``; raises if the database is unreachable."""
        # Read-only: on SQLite a plain BEGIN, so a health check never queues for the write
        # lock behind busy writers (BEGIN IMMEDIATE waits up to the busy timeout).
        with self._reading.connect() as conn:
            conn.execute(text("SELECT 1"))
            conn.rollback()

    def migrations_pending(self, script_location: str | None = None) -> str | None:
        """What is missing when the database is not at the newest revision of the migration
        scripts (the revision it is at, and the head), else None; raises if it is unreachable."""
        from api.config import migrations_dir
        from api.store.migrate import current_revision, head_revision  # alembic: loaded when asked

        with self._reading.connect() as conn:
            at = current_revision(conn)
            conn.rollback()
        head = head_revision(str(script_location or migrations_dir()))
        return None if at == head else f"the database is at revision {at or 'none'}, the scripts' head is {head}"

    def dispose(self) -> None:
        """Close pooled connections."""
        self.engine.dispose()

    def wake_up_source(
        self,
        announce: Callable[[str, int], None],
        watched: Callable[[], list[str]],
        seen: Callable[[dict[str, int]], None],
        may_retire: Callable[[threading.Thread], bool],
        interval: float,
    ) -> PostgresListener | SqlitePoller | None:
        """A listener for other processes' appends (not started): PostgreSQL LISTEN/NOTIFY, or a
        poller of a SQLite file every ``interval`` seconds; None for an in-memory SQLite database,
        which no other process can write (this process's own ``announce`` is enough)."""
        engine = self.engine
        if engine.dialect.name == "postgresql":
            url = engine.url.render_as_string(hide_password=False)
            return PostgresListener(url, announce, watched, seen, may_retire)
        if engine.url.database in (None, "", ":memory:"):
            return None
        return SqlitePoller(engine.url.database, watched, seen, may_retire, interval=interval)
