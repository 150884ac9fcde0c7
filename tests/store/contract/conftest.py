"""One contract for every store: each test here runs on the in-memory store and on a SQL one.

``store`` (and with it ``uow_factory`` and ``make_match`` of tests/conftest.py) is
parametrised: ``memory`` is an ``api.store.memory.MemoryStore``; the SQL parameter is an
``api.store.Store`` on the test database (``database_url``), named after the database the run
has: ``sqlite`` on the first pass of scripts/test, ``postgres`` on its PostgreSQL pass. Only the
SQL parameter is marked ``database``, so the PostgreSQL pass (``-m database``) runs these tests
on PostgreSQL alone and the memory store runs once, on the first pass.

``rows`` reaches under a store's ports for the few states no port can make (rows inserted
behind the store's back, timestamps set at will): what a test needs of it, on each backend.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import replace
from datetime import datetime

import pytest
from sqlalchemy import insert, update
from sqlalchemy.engine import make_url

from api.store import Store, tables
from api.store.memory import MemoryStore
from api.store.records import StoredEvent


def _sql_backend() -> str:
    """What the SQL parameter runs on: the backend of DATABASE_URL (SQLite when it is unset)."""
    url = os.environ.get("DATABASE_URL")
    return "sqlite" if not url else make_url(url).get_backend_name().replace("postgresql", "postgres")


BACKENDS = [pytest.param("memory", id="memory"), pytest.param("sql", id=_sql_backend(), marks=pytest.mark.database)]


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest) -> Iterator[MemoryStore | Store]:
    if request.param == "memory":
        yield MemoryStore()
        return
    sql = Store.from_url(request.getfixturevalue("database_url"))
    yield sql
    sql.dispose()


class Rows:
    """Writes under the ports, per backend."""

    def __init__(self, store: MemoryStore | Store):
        self.store = store

    def set_created_at(self, match_ids: list[str], at: datetime) -> None:
        if isinstance(self.store, MemoryStore):
            for match_id in match_ids:
                row = self.store.tables.matches[match_id]
                row.record = replace(row.record, created_at=at)
            return
        with self.store.engine.begin() as conn:
            conn.execute(update(tables.matches).where(tables.matches.c.id.in_(match_ids)).values(created_at=at))

    def insert_stray_event(self, match_id: str, seq: int, at: datetime) -> None:
        """An event row stored without moving the match's ``last_seq`` (a writer that broke the rules)."""
        if isinstance(self.store, MemoryStore):
            self.store.tables.events[match_id].append(StoredEvent(seq, "x", 1, {}, at))
            return
        with self.store.engine.begin() as conn:
            conn.execute(
                insert(tables.events).values(
                    match_id=match_id, seq=seq, type="x", schema_version=1, data={}, recorded_at=at
                )
            )


@pytest.fixture
def rows(store: MemoryStore | Store) -> Rows:
    return Rows(store)
