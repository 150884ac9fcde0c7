"""Shared fixtures: one database per test, the app and its test client.

Which database?

* ``DATABASE_URL`` unset: a fresh SQLite file per test, copied from a
  template migrated once per session (so every test starts at ``head``, empty).
* ``DATABASE_URL`` set (``scripts/test`` sets it to a throwaway PostgreSQL):
  migrated once per session, emptied before every test (``TRUNCATE`` on
  PostgreSQL).  Its database name must contain ``test``: the tests wipe it.

Fixtures: ``database_url``, ``is_postgres``, ``engine``, ``store``,
``uow_factory``, ``make_match``, ``app``, ``client``, ``empty_database_url``.
Tests marked ``postgres`` are skipped unless the database is PostgreSQL.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, text
from sqlalchemy.engine import make_url

from api import create_app
from api.store import MatchRecord, Store, UnitOfWork, make_engine
from api.store import tables as store_tables
from api.store.migrate import downgrade, upgrade

EXTERNAL_URL = os.environ.get("DATABASE_URL") or None


def _backend(url: str) -> str:
    return make_url(url).get_backend_name()


def pytest_report_header(config: pytest.Config) -> str:
    if EXTERNAL_URL:
        shown = make_url(EXTERNAL_URL).render_as_string(hide_password=True)
        return f"database: {shown} (from DATABASE_URL)"
    return "database: SQLite, a temporary file per test (DATABASE_URL unset)"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if EXTERNAL_URL and _backend(EXTERNAL_URL) == "postgresql":
        return
    skip = pytest.mark.skip(reason="needs PostgreSQL (set DATABASE_URL, or run scripts/test)")
    for item in items:
        if "postgres" in item.keywords:
            item.add_marker(skip)


def _empty_tables(engine: Engine) -> None:
    names = [table.name for table in reversed(store_tables.metadata.sorted_tables)]
    with engine.begin() as conn:
        if engine.dialect.name == "postgresql":
            conn.execute(text(f"TRUNCATE {', '.join(names)}"))
        else:
            for name in names:
                conn.execute(text(f"DELETE FROM {name}"))


@pytest.fixture(scope="session")
def _external_engine() -> Iterator[Engine | None]:
    if not EXTERNAL_URL:
        yield None
        return
    database = make_url(EXTERNAL_URL).database or ""
    if "test" not in database:
        pytest.exit(
            f"refusing to run tests against database {database!r}: "
            "its name must contain 'test' because every test empties it",
            returncode=4,
        )
    engine = make_engine(EXTERNAL_URL, pool_size=2)
    upgrade(engine)
    yield engine
    engine.dispose()


@pytest.fixture(scope="session")
def _sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("template") / "boneyard.db"
    engine = make_engine(f"sqlite:///{path}")
    upgrade(engine)
    engine.dispose()  # closing the last connection checkpoints and removes the WAL
    assert not path.with_name(path.name + "-wal").exists()
    return path


@pytest.fixture
def database_url(_external_engine: Engine | None, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """URL of an empty database migrated to ``head``, private to this test."""
    if _external_engine is not None:
        _empty_tables(_external_engine)
        return EXTERNAL_URL  # type: ignore[return-value]
    template = request.getfixturevalue("_sqlite_template")
    path = tmp_path / "boneyard.db"
    shutil.copyfile(template, path)
    return f"sqlite:///{path}"


@pytest.fixture
def empty_database_url(_external_engine: Engine | None, tmp_path: Path) -> Iterator[str]:
    """URL of a database with no tables at all (for migration tests).

    On an external database this downgrades to ``base``; the test should
    upgrade again (the next ``database_url`` re-checks ``head`` anyway).
    """
    if _external_engine is not None:
        downgrade(_external_engine, "base")
        yield EXTERNAL_URL  # type: ignore[misc]
        upgrade(_external_engine)
        return
    yield f"sqlite:///{tmp_path / 'empty.db'}"


@pytest.fixture
def is_postgres(database_url: str) -> bool:
    return _backend(database_url) == "postgresql"


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    engine = make_engine(database_url)
    yield engine
    engine.dispose()


@pytest.fixture
def store(engine: Engine) -> Store:
    return Store(engine)


@pytest.fixture
def uow_factory(store: Store) -> Callable[..., UnitOfWork]:
    """``uow_factory()`` / ``uow_factory(readonly=True)``: a new unit of work."""
    return store.unit_of_work


@pytest.fixture
def make_match(store: Store) -> Callable[..., MatchRecord]:
    """Insert and commit a match; keyword arguments override the defaults."""

    def make(**fields: Any) -> MatchRecord:
        row = {
            "preset": "draw",
            "players": 2,
            "seed": "s3cr3t-seed",
            "seed_commitment": "c0ffee",
            **fields,
        }
        with store.unit_of_work() as uow:
            record = uow.matches.add(row)
            uow.commit()
        return record

    return make


@pytest.fixture
def app(database_url: str):
    """The real app on this test's database."""
    # All-bot tables move as soon as the test lets the runner play (tests/api/helpers.play_bots).
    app = create_app(
        {"TESTING": True, "DATABASE_URL": database_url, "RATELIMIT_ENABLED": False, "AUTOPLAY_PACE_SECONDS": 0}
    )
    yield app
    app.extensions["boneyard.store"].dispose()


@pytest.fixture
def client(app):
    return app.test_client()
