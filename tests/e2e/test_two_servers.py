"""One set of limits across servers: two gunicorn servers, each with its autoplay runner, on
one database. The per-address caps (open waiters, unfinished all-bot matches) hold across
them, and the two runners share the all-bot matches without ever playing a move twice.
"""

from __future__ import annotations

import socket
from contextlib import ExitStack

import requests
from sqlalchemy import text

from api.store import Store, make_engine
from tests.servers import running_autoplay, running_gunicorn, watching_changes

SETTINGS = {
    "WEB_CONCURRENCY": "1",
    "RATELIMIT_ENABLED": "false",
    "WAITERS_PER_ADDRESS": "4",
    "BOT_MATCHES_PER_ADDRESS": "4",
    "AUTOPLAY_PACE_SECONDS": "0.01",
}
BOTS = [{"name": f"R{i}", "type": "bot", "level": "random"} for i in range(3)]
TARGET = 30  # a few dozen steps a match: enough for both runners to play some of each
PEOPLE = [{"name": "Ana", "type": "remote"}, {"name": "Ben", "type": "remote"}]


def runner(database_url: str, log_path, changes):
    """The autoplay runner, logging each step it plays."""
    return running_autoplay(database_url, log_path, changes=changes, LOG_LEVEL="DEBUG", **SETTINGS)


def hold_long_poll(base: str, match_id: str, after: int) -> socket.socket:
    """An idle long-poll on a raw socket: sent, never read (the server holds it waiting)."""
    host, port = base.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=5)
    sock.sendall(f"GET /v1/matches/{match_id}/events?after={after}&wait=60 HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
    return sock


def test_caps_and_the_bot_player_hold_across_two_servers_on_one_database(database_url, tmp_path):
    engine = make_engine(database_url)

    def slots() -> int:
        with engine.connect() as conn:
            return conn.execute(text("SELECT count(*) FROM waiter_slots")).scalar_one()

    def all_ended(match_ids: list[str]) -> bool:
        """Read from the database (each commit of the runners wakes the test to look)."""
        with Store(engine).unit_of_work(readonly=True) as uow:
            return all(uow.matches.get(match_id).status == "ended" for match_id in match_ids)

    with ExitStack() as stack:
        stack.callback(engine.dispose)
        changes = stack.enter_context(watching_changes())
        base_a, _ = stack.enter_context(running_gunicorn(database_url, tmp_path / "a.log", changes=changes, **SETTINGS))
        base_b, _ = stack.enter_context(running_gunicorn(database_url, tmp_path / "b.log", changes=changes, **SETTINGS))
        # The runners start here: they start up while the waiters are tested, not while the all-bot
        # matches wait (the first runner up would play most of their moves alone).
        runner_a = stack.enter_context(runner(database_url, tmp_path / "runner-a.log", changes))
        runner_b = stack.enter_context(runner(database_url, tmp_path / "runner-b.log", changes))

        # Waiters: 4 per address in all, whichever server holds them.
        live = requests.post(f"{base_a}/v1/matches", json={"seats": PEOPLE}, timeout=10).json()
        held = [hold_long_poll(base, live["id"], live["seq"]) for base in (base_a, base_b, base_a, base_b)]
        changes.until(lambda: slots() == 4, 30, "four waiters held, two on each server")
        url = f"/v1/matches/{live['id']}/events?after={live['seq']}&wait=5"
        for base in (base_a, base_b):
            refused = requests.get(base + url, timeout=10)
            assert refused.status_code == 429 and refused.headers["Content-Type"] == "application/problem+json"
            assert refused.json()["code"] == "too_many_waiters" and int(refused.headers["Retry-After"]) >= 1
        held.pop().close()  # one client leaves: its slot frees
        changes.until(lambda: slots() == 3, 30, "the slot of a client that left freed")
        freed = requests.get(f"{base_a}/v1/matches/{live['id']}/events?after={live['seq']}&wait=0.2", timeout=10)
        assert freed.status_code == 200, freed.text  # the freed slot is there to take
        for sock in held:
            sock.close()

        # All-bot matches: 4 unfinished per address across both servers; two runners play them.
        made = []
        for base in (base_a, base_b, base_a, base_b):
            created = requests.post(f"{base}/v1/matches", timeout=10, json={"seats": BOTS, "rules": {"target": TARGET}})
            assert created.status_code == 201, created.text
            made.append(created.json()["id"])
        for base in (base_a, base_b):
            refused = requests.post(f"{base}/v1/matches", json={"seats": BOTS}, timeout=10)
            assert refused.status_code == 409 and refused.json()["code"] == "too_many_bot_matches"

        changes.until(lambda: all_ended(made), 120, "the runners end every all-bot match")
        assert all(requests.get(f"{base_a}/v1/matches/{m}", timeout=10).json()["status"] == "ended" for m in made)
        assert runner_a.poll() is None and runner_b.poll() is None
        for match_id in made:
            report = requests.get(f"{base_b}/v1/matches/{match_id}/fairness", timeout=30).json()
            # Every deal re-derived, every move re-decided, the chain whole: nothing played twice.
            assert report["verified"] is True and report["problems"] == [], report
        steps = {}
        for name in ("runner-a", "runner-b"):
            steps[name] = (tmp_path / f"{name}.log").read_text().count("autoplay: match ")
        assert steps["runner-a"] > 0 and steps["runner-b"] > 0, steps  # the work was shared
        assert requests.post(f"{base_b}/v1/matches", json={"seats": BOTS}, timeout=10).status_code == 201
