"""Portals over real HTTP: a portal made with the documented command, its key used through
gunicorn, and the public space beside it.

Marked ``serving``: what a portal keeps to itself, the API tests (tests/api/test_portals.py)
check on every database; this is the command and the key over HTTP, so the PostgreSQL pass of
``scripts/test`` leaves it out."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
import requests

from api import create_app
from tests.api.helpers import new_portal
from tests.servers import ROOT, running_gunicorn

SEATS = [{"name": "Sam", "type": "remote", "player_ref": "sam"}, {"name": "Bo", "type": "bot"}]


def make_portal(database_url: str, name: str) -> str:
    """``flask --app wsgi boneyard portal create NAME``, as the README says; answers the key."""
    environ = {**os.environ, "DATABASE_URL": database_url}
    environ.pop("API_KEYS", None)
    done = subprocess.run(
        [sys.executable, "-m", "flask", "--app", "wsgi", "boneyard", "portal", "create", name],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return next(line.split(": ", 1)[1] for line in done.stdout.splitlines() if line.startswith("key "))


def operator_portal(database_url: str, name: str) -> str:
    """The key of a new portal, made in this process by the use case behind the command (for the
    tests that need a key, not the command: starting it would cost a process start-up each)."""
    app = create_app({"DATABASE_URL": database_url, "AUTO_MIGRATE": False, "LOG_LEVEL": "WARNING"})
    try:
        return new_portal(app, name)
    finally:
        app.extensions["boneyard.store"].dispose()


@pytest.mark.serving
def test_a_portal_made_by_the_command_keeps_its_matches_and_players_to_itself(database_url, tmp_path):
    # The command makes the portal under test; the other one, only there to be kept out, is made
    # in-process (a second command would cost a second process start-up and check nothing more).
    alpha, beta = make_portal(database_url, "alpha-http"), operator_portal(database_url, "beta-http")
    with running_gunicorn(database_url, tmp_path / "gunicorn.log", RATELIMIT_ENABLED="false") as (base, _log):
        forged = requests.post(f"{base}/v1/matches", json={"seats": SEATS}, timeout=10)
        assert forged.status_code == 403 and forged.json()["code"] == "player_ref_needs_portal"
        made = requests.post(f"{base}/v1/matches", json={"seats": SEATS}, headers={"X-API-Key": alpha}, timeout=10)
        assert made.status_code == 201, made.text
        match_id = made.json()["id"]

        def listed(key: str | None) -> list[str]:
            headers = {"X-API-Key": key} if key else {}
            answer = requests.get(f"{base}/v1/matches", headers=headers, timeout=10)
            assert answer.status_code == 200, answer.text
            return [m["id"] for m in answer.json()["items"]]

        assert match_id in listed(alpha) and match_id not in listed(beta) and match_id not in listed(None)
        other = requests.get(f"{base}/v1/matches/{match_id}", headers={"X-API-Key": beta}, timeout=10)
        assert other.status_code == 404 and other.json()["code"] == "unknown_match"
        stats = requests.get(f"{base}/v1/players/sam/stats", headers={"X-API-Key": alpha}, timeout=10)
        assert stats.status_code == 200 and stats.json()["matches_played"] == 0
        assert requests.get(f"{base}/v1/players/sam/stats", timeout=10).status_code == 403
