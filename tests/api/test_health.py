"""The HTTP shell: health, the OpenAPI document, problem responses for unknown routes."""

from __future__ import annotations

import subprocess
import sys

import pytest
from sqlalchemy import select
from sqlalchemy.engine import make_url

from api import create_app
from api.http.health import READINESS_KEY
from api.services.health import BUSY, Readiness, probe_id
from api.store import Store, make_engine, tables
from api.store import engine as store_engine
from api.store.migrate import upgrade

from .helpers import assert_problem


def test_healthz_answers_ok(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.get_json() == {"status": "ok"}


def test_an_unknown_route_is_a_not_found_problem(client):
    response = client.get("/no/such/thing")
    assert response.status_code == 404
    assert response.mimetype == "application/problem+json"
    body = response.get_json(force=True)
    assert body["code"] == "not_found"
    assert body["status"] == 404
    assert body["type"] == "https://boneyard.dev/problems/not_found"
    assert body["title"] and body["detail"]


def test_a_wrong_method_is_a_method_not_allowed_problem_with_allow(client):
    response = client.delete("/healthz")
    assert response.status_code == 405
    assert response.get_json(force=True)["code"] == "method_not_allowed"
    assert "GET" in response.headers["Allow"]


def test_the_openapi_document_is_served_under_v1(client):
    response = client.get("/v1/openapi.json")
    assert response.status_code == 200
    spec = response.get_json()
    assert spec["openapi"] == "3.0.3"
    assert (spec["info"]["title"], spec["info"]["version"]) == ("Boneyard", "1.0.0")
    assert "/healthz" in spec["paths"]


def test_the_docs_page_is_served(client):
    response = client.get("/docs")
    assert response.status_code == 200
    assert b"swagger" in response.data.lower()


def test_cors_allows_any_origin_by_default(client):
    response = client.get("/healthz", headers={"Origin": "https://example.org"})
    assert response.headers["Access-Control-Allow-Origin"] == "*"


def test_healthz_writes_this_process_row_in_health_probes(app, client):
    assert client.get("/healthz").status_code == 200
    with app.extensions["boneyard.store"].engine.connect() as conn:
        rows = conn.execute(select(tables.health_probes.c.id)).scalars().all()
    assert rows == [probe_id()]


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def read_only_store(database_url: str) -> Store:
    """A store on the same database that really refuses writes (root ignores file modes, so
    SQLite opens the file read-only; PostgreSQL sessions default to read-only transactions)."""
    url = make_url(database_url)
    if url.get_backend_name() == "sqlite":
        return Store(make_engine(f"sqlite:///file:{url.database}?mode=ro&uri=true"))
    return Store(make_engine(database_url, connect_args={"options": "-c default_transaction_read_only=on"}))


def test_a_database_that_refuses_writes_is_not_ready_and_probes_are_reused_for_the_interval(app, client, database_url):
    clock = Clock()
    writable = Readiness(app.extensions["boneyard.store"], interval=2, clock=clock)
    assert writable.check().ok
    refusing = read_only_store(database_url)
    try:
        refusing.ping()  # it answers reads: only writes fail
        readiness = Readiness(refusing, interval=2, clock=clock)
        app.extensions[READINESS_KEY] = readiness
        response = client.get("/healthz")
        body = assert_problem(response, 503, "database_read_only")
        assert "refuses writes" in body["detail"] and response.headers["Retry-After"] == "2"
        readiness.store = app.extensions["boneyard.store"]  # writable again, but the outcome is kept
        clock.now += 1.9
        assert_problem(client.get("/healthz"), 503, "database_read_only")
        clock.now += 0.1  # the interval is over: probed again
        assert client.get("/healthz").status_code == 200
        readiness.store = refusing  # and kept, the good outcome too
        assert client.get("/healthz").status_code == 200
    finally:
        refusing.dispose()


def test_healthz_reports_an_unreachable_database_as_503(app, client, tmp_path):
    unreachable = Store(make_engine(f"sqlite:///{tmp_path / 'no-such-dir' / 'boneyard.db'}"))
    app.extensions[READINESS_KEY] = Readiness(unreachable)
    assert_problem(client.get("/healthz"), 503, "database_unavailable")
    unreachable.dispose()


def test_livez_answers_without_the_database(client):
    response = client.get("/livez")
    assert response.status_code == 200 and response.get_json() == {"status": "ok"}


HOLD_THE_WRITE_LOCK = """
import sqlite3, sys
connection = sqlite3.connect(sys.argv[1], isolation_level=None)
connection.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
sys.stdin.read()
"""


def test_a_write_lock_held_past_the_busy_timeout_is_database_busy(database_url, is_postgres, monkeypatch):
    if is_postgres:
        pytest.skip("SQLite's write lock; PostgreSQL locks rows, and the probe's row is its own")
    monkeypatch.setattr(store_engine, "WRITE_LOCK_SECONDS", 0.2)  # the busy timeout, shortened
    engine = make_engine(database_url)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_THE_WRITE_LOCK, make_url(database_url).database],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline() == "locked\n"  # another server is writing, and goes on
        assert Readiness(Store(engine)).check().status == BUSY
        holder.stdin.close()
        holder.wait(10)
        assert Readiness(Store(engine)).check().ok  # and free again
    finally:
        holder.kill()
        engine.dispose()


def test_readyz_answers_ok_when_the_database_is_at_head_and_takes_writes(client):
    response = client.get("/readyz")
    assert response.status_code == 200 and response.get_json() == {"status": "ok"}


def test_a_draining_process_is_not_ready_but_alive_and_its_database_healthy(app, client):
    draining = False
    app.extensions[READINESS_KEY] = Readiness(app.extensions["boneyard.store"], interval=3, draining=lambda: draining)
    assert client.get("/readyz").status_code == 200
    draining = True  # as after SIGTERM (api.serving.Worker.handle_exit)
    response = client.get("/readyz")
    assert_problem(response, 503, "draining")
    assert response.headers["Retry-After"] == "3"
    assert client.get("/livez").status_code == 200 and client.get("/healthz").status_code == 200


def test_a_database_behind_the_migrations_is_starting_until_they_run(empty_database_url):
    app = create_app({"DATABASE_URL": empty_database_url, "AUTO_MIGRATE": False, "TESTING": True})
    store = app.extensions["boneyard.store"]
    try:
        clock = Clock()
        app.extensions[READINESS_KEY] = Readiness(store, interval=2, clock=clock)
        client = app.test_client()
        response = client.get("/readyz")
        body = assert_problem(response, 503, "migrations_pending")
        assert "revision none" in body["detail"] and response.headers["Retry-After"] == "2"
        upgrade(store.engine)
        assert_problem(client.get("/readyz"), 503, "migrations_pending")  # the outcome is kept...
        clock.now += 2  # ...for the interval
        assert client.get("/readyz").status_code == 200
    finally:
        store.dispose()
