"""Matchmaking over real HTTP: bots with player tokens seek at once through gunicorn's two workers,
each long-polls its seek, and every one is woken by a pairing made in whichever worker (or by the
other worker's commit: the SQLite poller, PostgreSQL's NOTIFY) with exactly one seat and its token."""

from __future__ import annotations

import threading
from collections import Counter

import requests

from tests.e2e.test_portals_http import operator_portal
from tests.servers import running_gunicorn

SEEKERS = 12  # four 3-player matches
TIMEOUT = 30  # a bound on a broken run, never a measure


def test_bots_that_seek_at_once_are_each_seated_once_across_workers(database_url, tmp_path):
    key = operator_portal(database_url, "ladder-http")
    with running_gunicorn(database_url, tmp_path / "gunicorn.log", RATELIMIT_ENABLED="false") as (base, _log):
        tokens = []
        for n in range(SEEKERS):
            made = requests.post(f"{base}/v1/portal/players/bot{n}/tokens", headers={"X-API-Key": key}, timeout=10)
            assert made.status_code == 201, made.text
            tokens.append(made.json()["token"])
        barrier = threading.Barrier(SEEKERS)
        seats: dict[int, dict] = {}
        failures: list[str] = []

        def bot(n: int) -> None:
            headers = {"Authorization": f"Bearer {tokens[n]}"}
            try:
                barrier.wait(TIMEOUT)
                made = requests.post(f"{base}/v1/seeks", json={"players": 3}, headers=headers, timeout=TIMEOUT)
                assert made.status_code == 201, made.text
                seek = made.json()
                while seek["status"] == "waiting":  # a long-poll answers at the pairing (or after 20 s)
                    answer = requests.get(
                        f"{base}/v1/seeks/{seek['id']}", params={"wait": 20}, headers=headers, timeout=TIMEOUT
                    )
                    assert answer.status_code == 200, answer.text
                    seek = answer.json()
                seats[n] = seek
            except Exception as exc:  # reported below, with the others
                failures.append(f"bot{n}: {exc!r}")

        threads = [threading.Thread(target=bot, args=(n,)) for n in range(SEEKERS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(TIMEOUT * 3)
        assert not failures, failures
        assert {s["status"] for s in seats.values()} == {"paired"}
        by_match = Counter(s["match_id"] for s in seats.values())
        assert len(by_match) == SEEKERS // 3 and set(by_match.values()) == {3}
        for seek in seats.values():
            view = requests.get(
                f"{base}/v1/matches/{seek['match_id']}/view",
                headers={"Authorization": f"Bearer {seek['token']}"},
                timeout=10,
            )
            assert view.status_code == 200 and view.json()["seat"] == seek["seat"]
        for n, seek in seats.items():
            page = requests.get(f"{base}/v1/me/events", headers={"Authorization": f"Bearer {tokens[n]}"}, timeout=10)
            started = [e for e in page.json()["events"] if e["type"] == "match_started"]
            assert [(e["match_id"], e["seat"]) for e in started] == [(seek["match_id"], seek["seat"])]
