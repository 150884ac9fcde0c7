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

Which tests does the PostgreSQL pass run?  Those marked ``database``, and the mark
is given here, by fixture use: every fixture that reaches the test database depends
on ``database_url`` or ``empty_database_url`` (``DATABASE_FIXTURES``), so a test
using any of them is marked at collection, and a new one cannot silently miss
PostgreSQL.  A test that reaches the database otherwise (its own server reading
``DATABASE_URL``) says so with an explicit ``pytest.mark.database``; one that asks
for ``database_url`` at run time without the mark fails, on either database.  Of those, the
tests of serving (``SERVING_TESTS``: static files, their compression, the docs, the problem
document each request gets, what each answer may show of the hidden tiles, a client over
HTTP) are also marked ``serving``: they need a
database to run on, but no database changes what they check, so the PostgreSQL pass leaves
them out (``-m "database and not serving ..."``) instead of running them twice.

Parallel runs (pytest-xdist, ``scripts/test`` uses two workers): on PostgreSQL each
worker gets a database of its own, ``<name>_<worker>``, made afresh when the worker
starts (and left for the next run to replace: an app's LISTEN thread may still hold
it at exit), so one worker's ``TRUNCATE`` never empties another's tables;
``DATABASE_URL`` in the worker's environment names it, for the servers tests start
(a SQLite ``DATABASE_URL`` gets a file per worker the same way).  Tests sharing an
expensive module- or session-scoped fixture (a Chromium, a gunicorn, a TypeScript
build in the source tree) are kept on one worker (``xdist_group``), so it is set up
once and never twice at the same time.
The long tests (``slow``, ``processes``) are run first, so both workers finish together.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, text
from sqlalchemy.engine import URL, make_url

from api import create_app
from api.store import MatchRecord, Store, UnitOfWork, make_engine
from api.store import tables as store_tables
from api.store.migrate import downgrade, upgrade

# The computer players' reply floors (api.services.pacing) make every bot decision take tens
# of milliseconds on purpose; the suite plays thousands of them, so its apps (the configuration
# is read when one is made) and the servers it starts (they inherit this environment) have
# none. tests/services/test_reply_floor.py checks the padding on a fake clock; bench/reply_floor.py
# measures the shipped floors on this machine.
os.environ.setdefault("BOT_REPLY_FLOOR_MS", "")

# Fixtures through which a test reaches the test database; every other database fixture
# (engine, store, app, client, ...) depends on one of these.
DATABASE_FIXTURES = frozenset({"database_url", "empty_database_url"})
# Module- or session-scoped fixtures that are cheap, or per worker by nature: sharing
# them is no reason to keep their tests on one xdist worker.
UNGROUPED_SHARED_FIXTURES = frozenset(
    # a Chromium or a live server per worker costs about a second: the browser tests spread;
    # the fuzz tests' seeded SQLite file, a fraction of a second
    {
        "_external_engine",
        "_sqlite_template",
        "_seeded_sqlite",
        "tmp_path_factory",
        "artifacts",
        "browser",
        "live_server",
    }
)
# Tests that run real processes (gunicorn, Chromium, npm and tsc, Node with the JavaScript
# replayer, the generated Python client, the contract script): marked `processes`, which
# `scripts/test --quick` leaves out to stay an in-process loop. Node IDs or their prefixes.
PROCESS_TESTS = (
    "tests/e2e/",
    "tests/clients/test_contract_script.py",
    "tests/clients/test_generated_sdk.py",
    "tests/clients/test_typescript_client.py",
    "tests/clients/test_js_replayer.py",
    "tests/clients/test_js_shuffle.py",
    "tests/clients/test_js_trains.py",
    "tests/clients/test_trains_verified.py",
    "tests/clients/test_new_games_verified.py",
    "tests/records/test_independent_parser.py",
    "tests/records/test_js_replayer_records.py",
)
# Tests that reach the database but check serving, which is the same on every database (the
# store's own behaviour, exceptions included, is held equal on all of them by
# tests/store/contract/): marked `serving`, which the PostgreSQL pass of scripts/test leaves
# out. Node IDs or their prefixes.
SERVING_TESTS = (
    "tests/api/test_docs_ui.py",
    "tests/api/test_problem_codes.py",
    "tests/api/test_secrecy_property.py",
    "tests/api/test_web_compression.py",
    "tests/clients/test_typescript_client.py",
    "tests/e2e/test_client_lobby_http.py",
    "tests/e2e/test_docs_offline.py",
)
WORKER = os.environ.get("PYTEST_XDIST_WORKER")  # "gw0", "gw1", ... under pytest-xdist; unset otherwise


def _backend(url: str) -> str:
    return make_url(url).get_backend_name()


def _per_worker(url: str | None) -> str | None:
    """The database this process tests on: ``url`` itself, or under xdist a private copy of
    it, named after the worker (a PostgreSQL database, or a SQLite file beside the given one)."""
    if not url or not WORKER:
        return url
    parsed = make_url(url)
    database = parsed.database or ""
    if parsed.get_backend_name() == "sqlite":
        stem, dot, suffix = database.rpartition(".")
        private = f"{stem}_{WORKER}.{suffix}" if dot else f"{database}_{WORKER}"
    else:
        private = f"{database}_{WORKER}"
    return parsed.set(database=private).render_as_string(hide_password=False)


ROOT = Path(__file__).resolve().parents[1]
EXTERNAL_URL = _per_worker(os.environ.get("DATABASE_URL") or None)
if EXTERNAL_URL:
    # Servers the tests start (gunicorn inherits the environment) and fixtures that read the
    # variable themselves use this worker's database too.
    os.environ["DATABASE_URL"] = EXTERNAL_URL


def _postgres_admin(url: str) -> URL:
    """The given server's maintenance database, from which a worker's database is made."""
    return make_url(url).set(drivername="postgresql", database="postgres")


def _fresh_worker_database() -> None:
    """(Re)create this worker's PostgreSQL database, empty."""
    if not (WORKER and EXTERNAL_URL and _backend(EXTERNAL_URL) == "postgresql"):
        return
    import psycopg

    url = _postgres_admin(EXTERNAL_URL)
    name = make_url(EXTERNAL_URL).database or ""
    if "test" not in name:
        return  # never touched: the `_external_engine` fixture refuses to run on it
    with psycopg.connect(
        host=url.host, port=url.port, user=url.username, password=url.password, dbname=url.database, autocommit=True
    ) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def pytest_configure(config: pytest.Config) -> None:
    _fresh_worker_database()


def uses_the_database(item: pytest.Item) -> bool:
    """Whether the test reaches the test database through a fixture (or says so with the mark)."""
    fixtures = set(getattr(item, "fixturenames", ()))
    return bool(fixtures & DATABASE_FIXTURES) or item.get_closest_marker("database") is not None


def shared_fixture_group(item: pytest.Item) -> str | None:
    """The xdist group of a test that uses an expensive module- or session-scoped fixture:
    the fixture's name (session) or its module and name (module), the first in name order."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return None
    for name in sorted(info.name2fixturedefs):
        if name in UNGROUPED_SHARED_FIXTURES:
            continue
        scope = info.name2fixturedefs[name][-1].scope
        if scope == "session":
            return name
        if scope in ("package", "module", "class"):
            return f"{item.nodeid.split('::')[0]}::{name}"
    return None


def pytest_report_header(config: pytest.Config) -> str:
    if EXTERNAL_URL:
        shown = make_url(EXTERNAL_URL).render_as_string(hide_password=True)
        return f"database: {shown} (from DATABASE_URL)"
    return "database: SQLite, a temporary file per test (DATABASE_URL unset)"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    on_postgres = bool(EXTERNAL_URL and _backend(EXTERNAL_URL) == "postgresql")
    skip = pytest.mark.skip(reason="needs PostgreSQL (set DATABASE_URL, or run scripts/test)")
    for item in items:
        if uses_the_database(item) or "postgres" in item.keywords:
            item.add_marker(pytest.mark.database)
        if item.nodeid.startswith(PROCESS_TESTS):
            item.add_marker(pytest.mark.processes)
        if item.nodeid.startswith(SERVING_TESTS):
            item.add_marker(pytest.mark.serving)
        group = shared_fixture_group(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
        if "postgres" in item.keywords and not on_postgres:
            item.add_marker(skip)
    # The long tests first (a stable sort: otherwise in collection order), so that under xdist
    # the last one to finish is a short one, not a long run that started late on one worker.
    items.sort(key=lambda item: not ("slow" in item.keywords or "processes" in item.keywords))


def _require_database_mark(request: pytest.FixtureRequest) -> None:
    """A test that asks for the database at run time (``getfixturevalue``) was not marked at
    collection, so the PostgreSQL pass would leave it out: fail it, on every database."""
    if request.node.get_closest_marker("database") is None:
        pytest.fail(
            f"{request.node.nodeid} reaches the test database without the `database` mark "
            "(request the fixture as an argument, or mark the test pytest.mark.database)",
            pytrace=False,
        )


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
    _require_database_mark(request)
    if _external_engine is not None:
        _empty_tables(_external_engine)
        return EXTERNAL_URL  # type: ignore[return-value]
    template = request.getfixturevalue("_sqlite_template")
    path = tmp_path / "boneyard.db"
    shutil.copyfile(template, path)
    return f"sqlite:///{path}"


@pytest.fixture
def empty_database_url(
    _external_engine: Engine | None, request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[str]:
    """URL of a database with no tables at all (for migration tests).

    On an external database this downgrades to ``base``; the test should
    upgrade again (the next ``database_url`` re-checks ``head`` anyway).
    """
    _require_database_mark(request)
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
