"""Concurrency stress: racing copies of the same move, nothing lost, nothing doubled.

Many threads play several matches at once, each up to a fixed number of races (the run is
bounded by that count, not by seconds). For every move, several copies of the seat's
legal action race each other, each guarded by the seq it was decided at (``expected_seq``
in the body, ``If-Match`` in a header, or one shared ``Idempotency-Key``), while other
threads send actions the rules refuse. Of each race exactly one copy may win; the others
must lose cleanly (409 ``stale_seq`` / 412, or the idempotent replay). Afterwards every
log is gapless, folds, and re-checks: the fairness endpoint verifies each finished match,
``verify_log`` every unfinished one (each accepted action legal where it stands).

Two ways in: the in-process app shared by threads (SQLite by default, PostgreSQL when
``DATABASE_URL`` points at it), and, on PostgreSQL, several gunicorn worker processes.
"""

from __future__ import annotations

import random
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from api import create_app
from api.rules import event_from_dict, replay
from api.rules.audit import verify_log
from api.store import Store, make_engine
from tests.servers import running_gunicorn

COPIES = 4  # racing copies of each move
RACES_PER_MATCH = 40  # moves raced per match at most (a short match ends sooner)
TARGET = 30  # points that end a match: most end within their races, so both checks run
TABLES = [
    ("standard-draw", 2, {}),
    ("all-fives", 3, {"auto_draw": True}),
    ("standard-block", 4, {}),
    ("muggins", 2, {"muggins_calls": True}),
]


class InProcess:
    """One shared app; a test client per call (werkzeug's client is not meant to be shared)."""

    def __init__(self, app):
        self.app = app

    def request(self, method, path, json=None, headers=None):
        response = self.app.test_client().open(path, method=method, json=json, headers=headers or {})
        return response.status_code, response.get_json(silent=True), dict(response.headers)


class OverHttp:
    def __init__(self, base_url):
        self.base_url = base_url
        self.local = threading.local()

    def request(self, method, path, json=None, headers=None):
        session = getattr(self.local, "session", None)
        if session is None:
            session = self.local.session = requests.Session()
        response = session.request(method, self.base_url + path, json=json, headers=headers or {}, timeout=30)
        try:
            body = response.json()
        except ValueError:
            body = None
        return response.status_code, body, dict(response.headers)


def _auth(token):
    return {"Authorization": f"Bearer {token}"}


class Race:
    """Plays matches by racing copies of every move; tallies every answer."""

    def __init__(self, api, seed: int):
        self.api = api
        self.rng = random.Random(seed)
        self.lock = threading.Lock()
        self.statuses: Counter = Counter()
        self.races = 0
        self.winners: Counter = Counter()  # races won, per match
        self.problems: list[str] = []

    def create(self, preset, players, rules):
        seats = [{"name": f"P{i}", "type": "remote"} for i in range(players)]
        status, body, _ = self.api.request(
            "POST", "/v1/matches", json={"preset": preset, "rules": {**rules, "target": TARGET}, "seats": seats}
        )
        assert status == 201, body
        return body["id"], {s["seat"]: s["token"] for s in body["seats"]}

    def _note(self, status, body, where):
        with self.lock:
            self.statuses[status] += 1
            if status >= 500 or body is None:
                self.problems.append(f"{where}: {status} {body}")

    def one_race(self, match_id, tokens, pool: ThreadPoolExecutor) -> bool:
        """Race one move of this match; False once it has ended."""
        status, spectator, _ = self.api.request("GET", f"/v1/matches/{match_id}/view")
        assert status == 200, spectator
        if spectator["status"] == "ended":
            return False
        candidates = []
        for seat, token in tokens.items():
            status, seat_view, headers = self.api.request("GET", f"/v1/matches/{match_id}/view", headers=_auth(token))
            assert status == 200, seat_view
            if seat_view["seq"] != spectator["seq"]:
                return True  # a bot or another race moved in between: look again
            candidates += [(seat, action, headers["ETag"]) for action in seat_view["legal_actions"]]
        assert candidates, f"{match_id} is live but nobody may act"
        seat, action, tag = self.rng.choice(candidates)
        seq = spectator["seq"]
        guard = self.rng.choice(["expected_seq", "if_match", "idempotency_key"])
        copies = []
        for _ in range(COPIES):
            body, headers = dict(action), _auth(tokens[seat])
            if guard == "expected_seq":
                body["expected_seq"] = seq
            elif guard == "if_match":
                headers["If-Match"] = tag
            else:
                body["expected_seq"] = seq
                headers["Idempotency-Key"] = f"{match_id}-{seq}"
            copies.append((body, headers))
        # Guarded by the seq too: once the move lands, the next seat's knock may well be legal.
        refused = [({"type": "knock", "expected_seq": seq}, _auth(tokens[other])) for other in tokens if other != seat][
            :2
        ]
        refused.append(({"type": "play", "tile": [9, 9]}, _auth(tokens[seat])))
        refused.append(({"type": "knock", "expected_seq": seq}, _auth("not-a-token")))

        barrier = threading.Barrier(len(copies) + len(refused))

        def send(body, headers):
            barrier.wait()
            return self.api.request("POST", f"/v1/matches/{match_id}/actions", json=body, headers=headers)

        racing = [pool.submit(send, b, h) for b, h in copies]
        refusing = [pool.submit(send, b, h) for b, h in refused]
        outcomes = [f.result() for f in racing]
        for status, body, _ in (f.result() for f in refusing):
            self._note(status, body, f"refused action on {match_id}")
            if not 400 <= status < 500:
                self.problems.append(f"a refused action got {status}: {body}")
        wins = [o for o in outcomes if o[0] == 200 and o[2].get("Idempotent-Replayed") != "true"]
        for status, body, _headers in outcomes:
            self._note(status, body, f"race on {match_id} at seq {seq} ({guard})")
            if status == 200:
                continue
            code = (body or {}).get("code")
            allowed = {
                "expected_seq": {(409, "stale_seq")},
                "if_match": {(412, "precondition_failed")},
                "idempotency_key": {(409, "stale_seq"), (409, "idempotency_in_flight")},
            }[guard]
            if (status, code) not in allowed:
                self.problems.append(f"a losing copy ({guard}) got {status} {code}: {body}")
        with self.lock:
            self.races += 1
            self.winners[match_id] += len(wins)
        if len(wins) != 1:
            self.problems.append(
                f"{len(wins)} copies won the race at seq {seq} of {match_id} ({guard}): {[o[0] for o in outcomes]}"
            )
        return True

    def play(self, matches, workers: int) -> None:
        with ThreadPoolExecutor(max_workers=workers * (COPIES + 4)) as pool:

            def drive(match_id, tokens):
                for _ in range(RACES_PER_MATCH):
                    if not self.one_race(match_id, tokens, pool):
                        return

            with ThreadPoolExecutor(max_workers=workers) as drivers:
                for future in [drivers.submit(drive, m, t) for m, t in matches]:
                    future.result()


def check_logs(race: Race, store: Store, matches) -> dict:
    """Every log gapless, folding, and re-checked; one appended action per race won."""
    ended = 0
    for match_id, _tokens in matches:
        with store.unit_of_work(readonly=True) as uow:
            record = uow.matches.get(match_id)
            stored = uow.events.load(match_id)
        log = [e.to_dict() for e in stored]
        assert [e.seq for e in stored] == list(range(1, len(stored) + 1)), f"{match_id}: gaps or duplicates"
        assert record.last_seq == len(stored)
        state = replay(event_from_dict(e) for e in log)
        assert state.status == record.status
        seat_moves = sum(
            1 for e in log if e["type"] in ("tile_played", "tile_drawn", "knocked") and not e.get("auto")
        ) + sum(1 for e in log if e.get("how") == "muggins")
        # One race won = one seat action (a draw until playable may draw several tiles).
        until_draws = seat_moves - race.winners[match_id]
        assert until_draws >= 0, f"{match_id}: {race.winners[match_id]} races won, {seat_moves} moves logged"
        if record.status == "ended":
            ended += 1
            status, report, _ = race.api.request("GET", f"/v1/matches/{match_id}/fairness")
            assert status == 200 and report["verified"], report
        else:
            report = verify_log(log, record.seed)
            assert report.ok, report.problems
    return {"matches": len(matches), "ended": ended}


def stress(api, store: Store, seed: int, n_matches: int, workers: int) -> dict:
    race = Race(api, seed)
    matches = [race.create(*TABLES[i % len(TABLES)]) for i in range(n_matches)]
    race.play(matches, workers)
    assert not race.problems, sorted({p[:300] for p in race.problems})[:15]
    assert race.races >= n_matches, race.races
    assert sum(race.winners.values()) == race.races
    summary = check_logs(race, store, matches)
    return {**summary, "races": race.races, "statuses": dict(race.statuses)}


@pytest.fixture
def shared_app(database_url):
    app = create_app({"TESTING": True, "DATABASE_URL": database_url, "RATELIMIT_ENABLED": False, "DB_POOL_SIZE": 10})
    yield app
    app.extensions["boneyard.store"].dispose()


def test_racing_copies_of_every_move_through_one_shared_app_lose_nothing(shared_app):
    result = stress(InProcess(shared_app), shared_app.extensions["boneyard.store"], seed=5, n_matches=6, workers=6)
    print("in-process stress:", result)
    assert result["statuses"].get(200, 0) >= result["races"]


@pytest.fixture
def gunicorn_url(database_url, is_postgres, tmp_path):
    with running_gunicorn(
        database_url,
        tmp_path / "gunicorn.log",
        WEB_CONCURRENCY="3",
        GUNICORN_THREADS="8",
        AUTO_MIGRATE="false",
        RATELIMIT_ENABLED="false",
        DB_POOL_SIZE="4",
    ) as (url, log):
        yield url
    output = log.read_text()
    assert "Traceback" not in output, output[-3000:]


@pytest.mark.postgres
def test_racing_copies_of_every_move_across_gunicorn_workers_lose_nothing(gunicorn_url, database_url):
    store = Store(make_engine(database_url, pool_size=2))
    try:
        result = stress(OverHttp(gunicorn_url), store, seed=7, n_matches=6, workers=6)
    finally:
        store.dispose()
    print("gunicorn stress:", result)
