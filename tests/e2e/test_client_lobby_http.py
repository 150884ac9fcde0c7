"""The reference client finds opponents over real HTTP: two ``--seek`` processes pair with each
other, and an ``--accept-challenges`` process answers a challenge and plays it."""

from __future__ import annotations

import json
import subprocess
import sys

import requests

from tests.e2e.test_portals_http import operator_portal
from tests.servers import ROOT, running_gunicorn

CLIENT_DIR = ROOT / "clients" / "python"
sys.path.insert(0, str(CLIENT_DIR))

from boneyard_client import BoneyardClient, first_legal  # noqa: E402  (found through the line above)
from boneyard_client.lobby import play_seat  # noqa: E402

SHORT = ["--preset", "standard-block", "--target", "10", "--strategy", "heaviest"]


def client_process(server: str, token: str, *mode: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "boneyard_client", "--server", server, "--player-token", token, "-q", *mode, *SHORT],
        cwd=CLIENT_DIR,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def player_token(server: str, key: str, ref: str) -> str:
    made = requests.post(f"{server}/v1/portal/players/{ref}/tokens", headers={"X-API-Key": key}, json={}, timeout=10)
    assert made.status_code == 201, made.text
    return made.json()["token"]


def finished(process: subprocess.Popen) -> list[dict]:
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    return [json.loads(line) for line in out.splitlines()]


def test_two_seekers_pair_and_an_acceptor_plays_a_challenge(database_url, tmp_path):
    key = operator_portal(database_url, "lobby-client")
    with running_gunicorn(database_url, tmp_path / "gunicorn.log", RATELIMIT_ENABLED="false") as (server, _log):
        ana, ben, cy = (player_token(server, key, ref) for ref in ("ana", "ben", "cy"))
        seekers = [client_process(server, token, "--seek", "--rated", "--games", "1") for token in (ana, ben)]
        first, second = (finished(process) for process in seekers)
        assert len(first) == len(second) == 1
        assert first[0]["match_id"] == second[0]["match_id"] and first[0]["seat"] != second[0]["seat"]
        assert first[0]["fairness_verified"] and first[0]["won"] != second[0]["won"]

        acceptor = client_process(server, cy, "--accept-challenges", "--games", "1")
        client = BoneyardClient(server)
        challenge = client.request(
            "POST",
            "/v1/challenges",
            token=ana,
            json={"opponents": ["cy"], "preset": "standard-block", "rules": {"target": 10}},
        ).json()

        def started_here(event: dict) -> bool:  # not the seek's match_started, earlier in ana's stream
            return event["type"] == "match_started" and event["challenge_id"] == challenge["id"]

        events, after = [], 0
        while not any(started_here(e) for e in events):
            page = client.request("GET", "/v1/me/events", token=ana, params={"after": after, "wait": 30}).json()
            events += page["events"]
            after = events[-1]["seq"] if events else after
        started = next(e for e in events if started_here(e))
        mine = client.request("GET", f"/v1/challenges/{challenge['id']}", token=ana).json()
        result = play_seat(client, started["match_id"], mine["token"], first_legal, True, {})
        theirs = finished(acceptor)
        assert [row["challenge_id"] for row in theirs] == [challenge["id"]]
        assert theirs[0]["match_id"] == result["match_id"] and theirs[0]["won"] != result["won"]
