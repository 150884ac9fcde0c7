"""Idempotency-Key survives crashes: workers killed (SIGKILL) in the middle of a burst of
keyed actions, over real HTTP through gunicorn, on SQLite and on PostgreSQL.

Each client plays its own match, sending every action with a fresh key and retrying with
the same key and body until it gets an answer that is not a crash (connection error, 5xx).
Meanwhile worker processes are killed at random moments; the master starts new ones. In
the end, every action the log holds must be answered by exactly one key, and a last retry
of every key must replay the answer its client got: no action applied twice, none applied
without its stored answer.
"""

from __future__ import annotations

import os
import random
import signal
import threading
import time
import uuid
from pathlib import Path

import requests

from tests.servers import running_gunicorn

# Each kill costs a worker's start-up (a second or more of CPU, and the time no worker serves
# when the other one is starting too): five kills, each in the middle of four players' requests.
MATCHES = 4
ACTIONS_PER_MATCH = 32
KILLS = 5
KILL_EVERY = 20  # answered actions between two kills (4 x 32 actions leave room for 5)


def worker_pids(master: int) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                status = (entry / "status").read_text()
            except OSError:
                continue
            if f"\nPPid:\t{master}\n" in status:
                pids.append(int(entry.name))
    return pids


def send_until_answered(base: str, match_id: str, token: str, action: dict, key: str, deadline: float):
    """POST with the same key and body until a real answer (not a crash) comes back."""
    headers = {"Authorization": f"Bearer {token}", "Idempotency-Key": key}
    while time.monotonic() < deadline:
        try:
            response = requests.post(f"{base}/v1/matches/{match_id}/actions", json=action, headers=headers, timeout=10)
        except requests.RequestException:
            # the worker died under us: ask again at once, same key (gunicorn's master keeps the
            # socket listening, so the request waits in its backlog for the replacement worker)
            continue
        if response.status_code >= 500:
            continue
        return response
    raise AssertionError(f"no answer for key {key} before the deadline")


def read(base: str, path: str, token: str | None = None) -> dict:
    """GET until a real answer: a killed worker's connection is simply asked again."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    for _ in range(200):
        try:
            response = requests.get(f"{base}{path}", headers=headers, timeout=10)
            if response.status_code == 200:
                return response.json()
        except requests.RequestException:
            pass  # a killed worker's connection: the next request waits for its replacement
    raise AssertionError(f"GET {path} kept failing")


class Answers(list):
    """The answered actions, in order; the killer waits on their count (not on the clock)."""

    def __init__(self):
        super().__init__()
        self.changed = threading.Condition()

    def append(self, answer) -> None:
        with self.changed:
            super().append(answer)
            self.changed.notify_all()

    def wait_for(self, count: int, players: list[threading.Thread]) -> bool:
        """Block until ``count`` answers are in (True), or every player has stopped (False)."""
        with self.changed:
            while len(self) < count:
                if not any(t.is_alive() for t in players):
                    return False
                self.changed.wait(1)  # re-checks the players; woken at once by an answer
            return True


def play(base: str, match_id: str, tokens: dict[int, str], sent: list, deadline: float, rng: random.Random):
    for _ in range(ACTIONS_PER_MATCH):
        spectator = read(base, f"/v1/matches/{match_id}/view")
        if spectator["status"] != "playing":
            return
        turn = spectator["turn"]
        legal = read(base, f"/v1/matches/{match_id}/view", tokens[turn])["legal_actions"]
        draws = [a for a in legal if a["type"] == "draw" and "until" not in a]
        action = draws[0] if draws and rng.random() < 0.5 else rng.choice(legal)
        key = uuid.uuid4().hex
        response = send_until_answered(base, match_id, tokens[turn], action, key, deadline)
        sent.append((match_id, tokens[turn], action, key, response.status_code, response.json()))


def test_killed_workers_never_apply_an_action_twice_or_without_its_answer(database_url, tmp_path):
    pidfile = tmp_path / "gunicorn.pid"
    settings = {
        "WEB_CONCURRENCY": "2",
        "RATELIMIT_ENABLED": "false",
        "GUNICORN_CMD_ARGS": f"--pid {pidfile}",
        "INLINE_BOT_MOVES": "0",
    }
    with running_gunicorn(database_url, tmp_path / "server.log", **settings) as (base, _):
        master = int(pidfile.read_text().strip())
        matches, created_seqs = [], []
        for _ in range(MATCHES):
            created = requests.post(
                f"{base}/v1/matches",
                timeout=10,
                json={
                    "preset": "standard-draw",
                    "seats": [{"name": "Ana", "type": "remote"}, {"name": "Ben", "type": "remote"}],
                },
            ).json()
            matches.append((created["id"], {s["seat"]: s["token"] for s in created["seats"]}))
            created_seqs.append(created["seq"])
        sent = Answers()
        deadline = time.monotonic() + 90
        threads = [
            threading.Thread(target=play, args=(base, match_id, tokens, sent, deadline, random.Random(i)))
            for i, (match_id, tokens) in enumerate(matches)
        ]
        for thread in threads:
            thread.start()
        # A kill after every KILL_EVERY answered actions (so the burst always gets them all),
        # plus 0 to 3 more answers chosen at random: the other matches' requests are then in
        # flight, so a kill mostly lands in the middle of some.
        killer = random.Random(7)
        kills = 0
        while kills < KILLS and sent.wait_for((kills + 1) * KILL_EVERY + killer.randint(0, 3), threads):
            pids = worker_pids(master)
            if pids:
                os.kill(killer.choice(pids), signal.SIGKILL)
                kills += 1
        for thread in threads:
            thread.join(timeout=120)
        # The deadlines bound how long the players try (a broken server must not hang the run);
        # nothing here says how fast the answers came.
        assert kills == KILLS and not any(t.is_alive() for t in threads), (
            f"{kills} of {KILLS} kills, {len(sent)} actions answered: a player stopped early "
            "(no answer for a key before its deadline) or never stopped"
        )

        # Every key retried once more replays exactly the answer its client got.
        for match_id, token, action, key, status, body in sent:
            again = send_until_answered(base, match_id, token, action, key, time.monotonic() + 30)
            assert again.headers.get("Idempotent-Replayed") == "true", (key, again.status_code, again.text)
            assert (again.status_code, again.json()) == (status, body)

        # Every event after each match's creation was appended by exactly one answered key.
        for (match_id, _), created_seq in zip(matches, created_seqs):
            answered = [
                e["seq"] for m, _, _, _, status, body in sent if m == match_id and status == 200 for e in body["events"]
            ]
            log = read(base, f"/v1/matches/{match_id}/events?limit=1000")
            assert sorted(answered) == [e["seq"] for e in log["events"] if e["seq"] > created_seq], match_id
        assert sum(1 for *_, status, _ in sent if status == 200) > MATCHES * 10
