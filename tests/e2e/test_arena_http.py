"""A dozen bots find each other over real HTTP: each seeks rated matches with its own player
token through the reference client, plays, and seeks again; the portal's ladder counts them all.

The issue's own check, through the public API only: no seeker paired twice or left hanging,
every match seated with distinct players, every log passing the pins and the fairness check.
"""

from __future__ import annotations

import importlib.util
import sys

import requests

from tests.e2e.test_portals_http import operator_portal
from tests.servers import ROOT, running_gunicorn

# Twelve seekers at once across gunicorn's two workers, as many as test_matchmaking_http.py's:
# each bot sends some three dozen requests a game (its views, actions, audit and fairness check).
BOTS, GAMES = 12, 2


def arena_module():
    spec = importlib.util.spec_from_file_location("arena", ROOT / "clients" / "python" / "examples" / "arena.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["arena"] = module
    spec.loader.exec_module(module)
    return module


def test_a_dozen_bots_seek_pair_play_and_make_a_ladder(database_url, tmp_path):
    key = operator_portal(database_url, "arena-http")
    arena = arena_module()
    with running_gunicorn(database_url, tmp_path / "gunicorn.log", RATELIMIT_ENABLED="false") as (base, _log):
        done = arena.run_arena(base, key, BOTS, GAMES, "standard-block", {"target": 10})
        assert done["problems"] == []
        assert done["matches"] == BOTS * GAMES // 2  # two players a match, every bot in GAMES of them
        results = [row for rows in done["results"].values() for row in rows]
        assert len(results) == BOTS * GAMES and all(row["fairness_verified"] for row in results)
        board = requests.get(
            f"{base}/v1/leaderboards/block", params={"limit": 100}, headers={"X-API-Key": key}, timeout=10
        ).json()["items"]
        assert sorted(row["player_ref"] for row in board) == sorted(done["results"])
        assert all(row["matches"] == GAMES for row in board)
        ordinals = [row["ordinal"] for row in board]
        assert ordinals == sorted(ordinals, reverse=True)
        wins = sum(row["won"] for row in results)
        assert wins == done["matches"]  # one winner a match (block: no draws between two sides)
