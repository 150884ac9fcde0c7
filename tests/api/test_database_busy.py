"""A write lock that cannot be had is a 503 problem with Retry-After, never a 500 (SQLite)."""

from __future__ import annotations

import sqlite3

import pytest
from sqlalchemy.exc import OperationalError

from api.http.callers import BUS_KEY
from api.services.commands import GetSummary
from api.store import engine as store_engine

from .helpers import TWO_REMOTE, assert_problem, auth, create, tokens_of, view


@pytest.fixture
def sqlite_only(is_postgres):
    if is_postgres:
        pytest.skip("SQLite's write lock")


def test_an_action_that_cannot_get_the_write_lock_is_503_database_busy(sqlite_only, app, client, monkeypatch):
    monkeypatch.setattr(store_engine, "WRITE_LOCK_SECONDS", 0.2)
    created = create(client, TWO_REMOTE)
    tokens = tokens_of(created)
    turn = view(client, created["id"])["turn"]
    action = view(client, created["id"], tokens[turn])["legal_actions"][0]
    other = sqlite3.connect(app.config["DATABASE_URL"].removeprefix("sqlite:///"), isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
    try:
        refused = client.post(f"/v1/matches/{created['id']}/actions", json=action, headers=auth(tokens[turn]))
        assert_problem(refused, 503, "database_busy")
        assert int(refused.headers["Retry-After"]) >= 1
        assert client.get("/livez").status_code == 200
    finally:
        other.execute("ROLLBACK")
        other.close()
    done = client.post(f"/v1/matches/{created['id']}/actions", json=action, headers=auth(tokens[turn]))
    assert done.status_code == 200, done.get_json()  # nothing was applied by the refused one


def test_database_is_locked_from_anywhere_is_503_not_500(sqlite_only, app, client, monkeypatch):
    def locked(*args, **kwargs):
        raise OperationalError("INSERT ...", {}, sqlite3.OperationalError("database is locked"))

    monkeypatch.setitem(app.extensions[BUS_KEY].handlers, GetSummary, locked)
    created = create(client, TWO_REMOTE)
    assert_problem(client.get(f"/v1/matches/{created['id']}"), 503, "database_busy")

    def broken(*args, **kwargs):
        raise OperationalError("SELECT ...", {}, sqlite3.OperationalError("no such table: matches"))

    monkeypatch.setitem(app.extensions[BUS_KEY].handlers, GetSummary, broken)
    assert_problem(client.get(f"/v1/matches/{created['id']}"), 500, "internal_error")
