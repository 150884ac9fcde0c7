"""In-process costs: what the app itself spends on a request, on its rate limits, on a cached match.

    .venv/bin/python bench/in_process.py            # ~1 min: 20 matches, 3,000 refused actions per app
    .venv/bin/python bench/in_process.py --quick    # ~20 s: 6 matches, 1,000 refused actions per app
    .venv/bin/python bench/in_process.py --quick --table partners   # 4 seats, partners (double nine)
    .venv/bin/python bench/in_process.py --quick --table mexican8   # 8 seats of Mexican Train (2 rounds)

No gunicorn and no socket: requests go through Flask's test client, so the figures are the
app's own work (routing, input guard, schemas, services, SQLite) without the worker and the
network that ``http_floor.py`` includes. Three apps, each on its own SQLite file, differ only in
their rate limits: off, ``database://`` (the default: counters in the app's database) and
``memory://`` (per process), with budgets too high to refuse anything.

1. **Requests** (the app without limits): whole matches of one remote seat against greedy
   bots (``--table``: ``line``, the default, is ``standard-draw`` to 100 against one bot;
   ``partners`` four seats of ``double-nine-partners``; ``mexican8`` eight seats of
   ``mexican-train``, two rounds), always ``legal_actions[0]``, on fixed server seeds (the app
   allows a client's, ``ALLOW_CLIENT_SEED``), so every run plays the same deals and runs of two
   trees compare on the same work. Each action's time; the share of
   it spent in the use case (``MessageBus.handle`` of the ``Act`` command: load, authenticate,
   decide, the bot's replies, append, commit); after each action a timed ``GET /view`` (twice:
   the second is a poll of a match that has not moved, which a process may answer from the
   view it rendered for that seat at that seq, ``api.services.rendered``), a page
   of 50 events (``GET /events?after=seq-50&limit=50``, once the log has 50), the summary
   (``GET /v1/matches/{id}``) and ``GET /healthz``; each median also as a multiple of
   ``/healthz``'s in the same run. The bots' reply floor (``BOT_REPLY_FLOOR_MS``, a pause that
   hides what a decision cost, README section 8 of bench/README.md) is off: it is a sleep, not
   work, and would be most of an action's time.
2. **Rate limits**: the same action refused by its schema (422), sent over and over to each
   app in turn (the order rotated every time, so machine noise falls on all three alike). The
   limits run before the schema, so the difference of the medians is what the limits cost; an
   action checks two (per token, per address), so half of it is one limit's cost.
3. **A cached match**: tracemalloc over the snapshots of the matches of 1, folded from their
   stored logs (decoded afresh, as the database hands them over), once as ended (the hand log
   dropped) and once just before its last hand ended (live, the longest hand log it had).
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from _http import machine_line, median, ms, pct, sqlite_url

from api import create_app
from api.services.bus import MessageBus
from api.services.commands import Act
from api.services.snapshots import Snapshot, fold
from api.store import Store


def greedy_bots(count: int) -> list[dict[str, str]]:
    return [{"name": f"bot {i + 1}", "type": "bot", "level": "greedy"} for i in range(count)]


CLIENT = {"name": "client", "type": "remote"}
TABLES: dict[str, dict[str, Any]] = {
    "line": {"preset": "standard-draw", "seats": [CLIENT, *greedy_bots(1)]},
    "partners": {"preset": "double-nine-partners", "seats": [CLIENT, *greedy_bots(3)]},
    "mexican8": {"preset": "mexican-train", "rules": {"rounds": 2}, "seats": [CLIENT, *greedy_bots(7)]},
}
MATCH = TABLES["line"]
EVENTS_PAGE = 50
LIMITS_PER_ACTION = 2  # RATE_LIMIT_ACTIONS_PER_TOKEN and RATE_LIMIT_ACTIONS_PER_ADDRESS
HIGH = "100000000 per minute"  # never reached: the cost of counting, not of refusing
APPS: dict[str, dict[str, Any]] = {
    "off": {"RATELIMIT_ENABLED": False},
    "database://": {"RATELIMIT_ENABLED": True, "RATELIMIT_STORAGE_URI": "database://"},
    "memory://": {"RATELIMIT_ENABLED": True, "RATELIMIT_STORAGE_URI": "memory://"},
}


class Timings:
    """What the matches of section 1 measured: per request kind, wall seconds and this thread's
    CPU seconds (``time.thread_time``: the app runs in the client's thread, so that is the app's
    own work, which a loaded machine stretches far less than wall time)."""

    KINDS = ("action", "view", "view_again", "events", "summary", "healthz")

    def __init__(self) -> None:
        self.wall: dict[str, list[float]] = {kind: [] for kind in self.KINDS}
        self.cpu: dict[str, list[float]] = {kind: [] for kind in self.KINDS}
        self.service: list[float] = []  # CPU seconds in the Act use case, one per action
        self.match_ids: list[str] = []
        self.view_bytes: list[int] = []

    def timed(self, kind: str, request: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        wall, cpu = time.perf_counter(), time.thread_time()
        answer = request(*args, **kwargs)
        self.cpu[kind].append(time.thread_time() - cpu)
        self.wall[kind].append(time.perf_counter() - wall)
        return answer


@contextmanager
def timing_the_use_case(into: list[float]) -> Iterator[None]:
    """Adds the CPU seconds each ``Act`` command spends in its handler to ``into`` while active."""
    original: Callable[[MessageBus, Any], Any] = MessageBus.handle

    def timed(bus: MessageBus, command: Any) -> Any:
        if not isinstance(command, Act):
            return original(bus, command)
        start = time.thread_time()
        try:
            return original(bus, command)
        finally:
            into.append(time.thread_time() - start)

    MessageBus.handle = timed  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        MessageBus.handle = original  # type: ignore[method-assign,assignment]


def play(
    client: Any, out: Timings, matches: int, *, reads: bool, match: dict[str, Any] = MATCH, seeds: str = "in-process"
) -> None:
    """``matches`` whole matches, every action timed (and, with ``reads``, the reads and a probe after it).
    Their server seeds are fixed (``{seeds}-{i}``): every run, on any tree, plays the same deals."""
    for i in range(matches):
        created = client.post("/v1/matches", json={**match, "seed": f"{seeds}-{i}"}).get_json()
        out.match_ids.append(created["id"])
        path = f"/v1/matches/{created['id']}"
        auth = {"Authorization": f"Bearer {created['seats'][0]['token']}"}
        view = client.get(f"{path}/view", headers=auth).get_json()
        while view["status"] != "ended":
            action = view["legal_actions"][0]
            answer = out.timed("action", client.post, f"{path}/actions", json=action, headers=auth)
            if answer.status_code != 200:
                raise RuntimeError(f"action refused: {answer.status_code} {answer.get_json()}")
            view = answer.get_json()["view"]
            if reads:
                read = out.timed("view", client.get, f"{path}/view", headers=auth)
                out.view_bytes.append(len(read.data))
                again = out.timed("view_again", client.get, f"{path}/view", headers=auth)
                if again.data != read.data:
                    raise RuntimeError("the same view asked twice at one seq answered two bodies")
                page = f"{path}/events?after={view['seq'] - EVENTS_PAGE}&limit={EVENTS_PAGE}"
                if view["seq"] >= EVENTS_PAGE:
                    out.timed("events", client.get, page, headers=auth)
                out.timed("summary", client.get, path)
                out.timed("healthz", client.get, "/healthz")


def snapshot_sizes(database_url: str, match_ids: list[str]) -> tuple[float, float, list[int]]:
    """KiB per snapshot of an ended match, and of the same match live before its last hand ended."""
    store = Store.from_url(database_url)
    logs = []
    for match_id in match_ids:
        with store.unit_of_work(readonly=True) as uow:
            logs.append(json.dumps([{"seq": e.seq, **e.to_dict()} for e in uow.events.load(match_id)]))
    store.dispose()

    def kib_each(cut: Callable[[list[dict[str, Any]]], list[dict[str, Any]]]) -> float:
        gc.collect()
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        kept: list[Snapshot] = [fold(None, cut(json.loads(text))) for text in logs]
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - before
        tracemalloc.stop()
        del kept
        return held / len(logs) / 1024

    def before_last_hand_ended(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        last = max(i for i, row in enumerate(rows) if row["type"] in ("hand_ended", "round_ended"))
        return rows[:last]

    ended = kib_each(lambda rows: rows)
    live = kib_each(before_last_hand_ended)
    return ended, live, [len(json.loads(text)) for text in logs]


def refused_actions(clients: dict[str, Any], per_app: int) -> dict[str, list[float]]:
    """Seconds per action refused by its schema (422): the limits run first, then a cheap refusal.

    The same request every time, so what differs between the apps is only their rate limits;
    the apps take turns request by request, the order rotated each time."""
    seats = {}
    for name, client in clients.items():
        created = client.post("/v1/matches", json=MATCH).get_json()
        seats[name] = (
            f"/v1/matches/{created['id']}/actions",
            {"Authorization": f"Bearer {created['seats'][0]['token']}"},
        )
    out: dict[str, list[float]] = {name: [] for name in clients}
    names = list(clients)
    for i in range(per_app):
        for name in names[i % len(names) :] + names[: i % len(names)]:
            path, auth = seats[name]
            start = time.perf_counter()
            answer = clients[name].post(path, json={"type": "no such action"}, headers=auth)
            out[name].append(time.perf_counter() - start)
            if answer.status_code != 422:
                raise RuntimeError(f"expected 422, got {answer.status_code} {answer.get_json()}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=20, help="whole matches timed (default 20)")
    parser.add_argument("--refusals", type=int, default=3000, help="refused actions per app (default 3000)")
    parser.add_argument("--quick", action="store_true", help="6 matches, 1000 refused actions per app")
    parser.add_argument("--table", choices=TABLES, default="line", help="the matches of section 1 (default line)")
    args = parser.parse_args(argv)
    if args.quick:
        args.matches, args.refusals = 6, 1000
    match = TABLES[args.table]

    print(f"# in_process: {machine_line()}")
    print(
        f"# Flask test client, SQLite, bots' reply floor off; {args.matches} whole matches ({args.table}: "
        f"{match['preset']}, one remote seat vs {len(match['seats']) - 1} greedy), {args.refusals} refused "
        f"actions per rate-limit storage\n",
        flush=True,
    )
    began = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        urls, clients = {}, {}
        for i, (name, config) in enumerate(APPS.items()):
            (Path(tmp) / str(i)).mkdir()
            urls[name] = sqlite_url(str(Path(tmp) / str(i)))
            app = create_app(
                {
                    "DATABASE_URL": urls[name],
                    "RATE_LIMIT_CREATE": HIGH,
                    "RATE_LIMIT_ACTIONS_PER_TOKEN": HIGH,
                    "RATE_LIMIT_ACTIONS_PER_ADDRESS": HIGH,
                    "LOG_LEVEL": "WARNING",
                    "BOT_REPLY_FLOOR_MS": None,  # the pause is not work (see above)
                    "ALLOW_CLIENT_SEED": True,  # the same deals in every run (``play``)
                    **config,
                }
            )
            clients[name] = app.test_client()
            # warm-up: imports, caches, statements (deals of its own)
            play(clients[name], Timings(), 1, reads=False, match=match, seeds="warm-up")
        off = Timings()
        with timing_the_use_case(off.service):
            play(clients["off"], off, args.matches, reads=True, match=match)
        refused = refused_actions(clients, args.refusals)
        ended, live, events = snapshot_sizes(urls["off"], off.match_ids)

    print("## 1. Requests, in-process (no rate limits)\n")
    print("| request | n | CPU median | CPU vs `/healthz` | wall median | wall p95 |")
    print("|---|---:|---:|---:|---:|---:|")
    floor = median(off.cpu["healthz"])
    for label, kind in (
        ("`POST /actions` (with the bots' replies)", "action"),
        ("`GET /view`", "view"),
        ("`GET /view` again, at the same seq (a poll)", "view_again"),
        (f"`GET /events` (a page of {EVENTS_PAGE})", "events"),
        ("`GET /v1/matches/{id}` (summary)", "summary"),
        ("`GET /healthz`", "healthz"),
    ):
        cpu, wall = off.cpu[kind], off.wall[kind]
        print(
            f"| {label} | {len(cpu)} | {ms(median(cpu))} | {median(cpu) / floor:.2f}× | {ms(median(wall))} | "
            f"{ms(pct(wall, 0.95))} |"
        )
    print(f"\na seat's view: {median(off.view_bytes):.0f} bytes median, {max(off.view_bytes)} at most")
    share = sum(off.service) / sum(off.cpu["action"])
    print(
        f"\nthe use case (MessageBus.handle(Act)) is {share:.0%} of the actions' CPU in-process "
        f"(median {ms(median(off.service))}); the rest is Flask, flask-smorest, the input guard and the schemas"
    )

    print("\n## 2. Rate limits: an action refused by its schema (422), with limits and without\n")
    print("| storage | median | extra per action | extra per limit (2 per action) |")
    print("|---|---:|---:|---:|")
    base = median(refused["off"])
    for name, sample in refused.items():
        extra = median(sample) - base
        print(f"| {name} | {ms(median(sample))} | {ms(extra)} | {ms(extra / LIMITS_PER_ACTION)} |")

    print("\n## 3. A cached match (tracemalloc)\n")
    print(
        f"{len(events)} finished matches of {min(events)} to {max(events)} events: {ended:.1f} KiB per ended "
        f"snapshot (hand log dropped); {live:.1f} KiB per snapshot just before the last hand ended "
        f"(its whole hand log held)"
    )
    print(f"\nTotal time {time.perf_counter() - began:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
