"""Fixtures shared by the API tests (the app, client and database come from tests/conftest.py)."""

from __future__ import annotations

import pytest

from api import create_app
from tests.problem_guard import answered_problems_are_declared  # noqa: F401  (autouse: every answer declared)

from .helpers import TWO_REMOTE, create, new_portal, portal_client, tokens_of, view


@pytest.fixture
def make_client(database_url):
    """Clients of apps configured for one test (``make(RATELIMIT_ENABLED=True)``), disposed after it."""
    apps = []

    def make(**config):
        app = create_app({"TESTING": True, "DATABASE_URL": database_url, **config})
        apps.append(app)
        return app.test_client()

    yield make
    for app in apps:
        app.extensions["boneyard.store"].dispose()


@pytest.fixture
def live(client):
    """A 2-player match of remote seats in play: (match id, tokens by seat, seat to move)."""
    created = create(client, TWO_REMOTE)
    match_id, tokens = created["id"], tokens_of(created)
    return match_id, tokens, view(client, match_id)["turn"]


@pytest.fixture
def portal(app):
    """A client of the portal "arcade": every request carries its key."""
    return portal_client(app, new_portal(app, "arcade"))
