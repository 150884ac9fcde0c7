"""Fixtures shared by the API tests (the app, client and database come from tests/conftest.py)."""

from __future__ import annotations

import pytest

from .helpers import create, tokens_of, view

TWO_REMOTE = [{"name": "Ana", "type": "remote"}, {"name": "Ben", "type": "remote"}]


@pytest.fixture
def live(client):
    """A 2-player match of remote seats in play: (match id, tokens by seat, seat to move)."""
    created = create(client, TWO_REMOTE)
    match_id, tokens = created["id"], tokens_of(created)
    return match_id, tokens, view(client, match_id)["turn"]
