"""How soon a long-poll on one server answers an action taken through another.

    .venv/bin/python bench/http_wakeup.py               # ~30 s: SQLite, 30 wake-ups
    .venv/bin/python bench/http_wakeup.py --postgres    # the same on a throwaway PostgreSQL

Why: a client long-polling server A must hear of an action taken through server B at once:
PostgreSQL tells every process by LISTEN/NOTIFY at the commit; on SQLite each process has one
poller of ``PRAGMA data_version`` (every 0.15 s). ``tests/e2e/test_waiting_http.py`` checks
that the long-poll is woken (it answers long before its wait runs out); how soon is this
machine's speed, so it is measured here.

Two gunicorn servers (one gevent worker each, rate limits off) on one database. Each trial
creates a two-seat match on A, long-polls ``GET /events?after=<seq>&wait=20`` on A from a
thread, waits until that long-poll holds its waiter slot in the database, then sends the
seat's first legal action through B. Printed: the time from B's answer to A's answer (the
wake-up), p50/p90/max, and how many long-polls ran out their wait instead (should be 0).
"""

from __future__ import annotations

import argparse
import contextlib
import tempfile
import threading
import time
from collections.abc import Iterator

from _http import Http, Server, bearer, machine_line, median, pct, postgres, sqlite_url
from sqlalchemy import text

from api.store import make_engine

TWO_REMOTE = {"seats": [{"name": "Ana", "type": "remote"}, {"name": "Ben", "type": "remote"}]}
WAIT = 20


@contextlib.contextmanager
def database(on_postgres: bool) -> Iterator[str]:
    if on_postgres:
        with postgres() as url:
            yield url
    else:
        with tempfile.TemporaryDirectory(prefix="boneyard-bench-wakeup-") as directory:
            yield sqlite_url(directory)


def trial(a: Http, b: Http, base_a: str, slots) -> tuple[float, bool]:
    """(seconds from B's answer to A's, whether A's long-poll held the new event)."""
    status, created, _ = a.post("/v1/matches", TWO_REMOTE)
    assert status == 201, created
    match_id, seq, turn = created["id"], created["seq"], created["turn"]
    token = next(s["token"] for s in created["seats"] if s["seat"] == turn)
    _, seat_view, _ = b.get(f"/v1/matches/{match_id}/view", bearer(token))
    action = seat_view["legal_actions"][0]
    answered_at: list[float] = []
    first_seq: list[int] = []
    waiting_before = slots()

    def long_poll() -> None:
        poll = Http(base_a, timeout=WAIT + 10)
        status, page, _ = poll.get(f"/v1/matches/{match_id}/events?after={seq}&wait={WAIT}")
        answered_at.append(time.perf_counter())
        first_seq.extend(e["seq"] for e in (page or {}).get("events", [])[:1] if status == 200)
        poll.close()

    thread = threading.Thread(target=long_poll)
    thread.start()
    deadline = time.monotonic() + 10
    while slots() <= waiting_before:  # the long-poll holds its slot: it is waiting
        if time.monotonic() > deadline:
            raise RuntimeError("the long-poll never began waiting")
        time.sleep(0.005)
    status, _, _ = b.post(f"/v1/matches/{match_id}/actions", action, bearer(token))
    done = time.perf_counter()
    assert status == 200
    thread.join()
    return answered_at[0] - done, first_seq == [seq + 1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--postgres", action="store_true", help="a throwaway PostgreSQL instead of SQLite")
    parser.add_argument("--trials", type=int, default=30)
    args = parser.parse_args()
    print(machine_line())
    env = {"RATELIMIT_ENABLED": "false", "BOT_REPLY_FLOOR_MS": ""}
    with database(args.postgres) as url, Server(url, env=env) as server_a, Server(url, env=env) as server_b:
        engine = make_engine(url)

        def slots() -> int:
            with engine.connect() as conn:
                return int(conn.execute(text("SELECT count(*) FROM waiter_slots")).scalar_one())

        a, b = Http(server_a.url), Http(server_b.url)
        wakeups, missed = [], 0
        for _ in range(args.trials):
            seconds, woken = trial(a, b, server_a.url, slots)
            if woken and seconds < WAIT / 2:
                wakeups.append(seconds)
            else:
                missed += 1
        a.close()
        b.close()
        engine.dispose()
    name = "PostgreSQL (LISTEN/NOTIFY)" if args.postgres else "SQLite (PRAGMA data_version poll, 0.15 s)"
    print(
        f"{name}: {len(wakeups)} wake-ups, ms from B's answer to A's: p50 {median(wakeups) * 1000:.1f}, "
        f"p90 {pct(wakeups, 0.9) * 1000:.1f}, max {max(wakeups) * 1000:.1f}; long-polls not woken: {missed}"
    )


if __name__ == "__main__":
    main()
