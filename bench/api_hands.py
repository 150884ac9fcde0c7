"""Two bot levels head to head through Boneyard's own HTTP API: issue 20's target, an expert side
wins >= 72% of the decided 4p partner-block hands against greedy sides.

    .venv/bin/python bench/api_hands.py                           # expert vs greedy, >= 400 hands, 2 jobs
    .venv/bin/python bench/api_hands.py --quick                   # >= 40 hands
    .venv/bin/python bench/api_hands.py --levels intermediate,greedy --hands 200 --jobs 1

Nothing here calls the bots directly: each worker builds the real app in-process
(``create_app`` on its own SQLite file, rate limits off, no bot reply floor, no autoplay pace,
no cap on all-bot matches), creates every match with ``POST /v1/matches`` through Flask's test
client (``standard-block``, ``partners``, four bot seats; 7 tiles each unless ``--hand-size``
says otherwise: all 28 dealt, the 4p partner block of issue 20 and ``bench/versus.py``), lets
the autoplay runner play it to its end (``Autoplay.drain``, as ``flask boneyard autoplay``
would), then reads its public log with ``GET /v1/matches/{id}/events`` page by page and counts
each ``hand_ended``: the side that won
it (``side``; ``null`` on a tie) and its ``points``. So what is measured is what a person gets
from the server: the levels as the API names them, the seat views and redacted logs the server
hands its bots, the runner's steps.

Seats: the first level of ``--levels`` sits at seats 0 and 2 (side 0) in even matches and at
seats 1 and 3 (side 1) in odd ones. **Reproducible**: the app allows client-chosen server seeds
(``ALLOW_CLIENT_SEED``) and match ``i`` gets the seed ``<--seed>-<i // 2>``; a hand's deal
depends only on that seed and the hand's number (``openapi/shuffle.md``) and every bot decision
on the seed, the log's seq and the seat (``api.bots.bot_seed``), so the two matches of a pair
deal the same hands with the sides swapped (as long as both last), and a run counts the same
hands whatever ``--jobs`` is (as long as the bots themselves do not change).

Whole pairs are played, in index order, until the first ones add up to at least ``--hands``
hands (decided or tied). A match to 1000 lasts some 113 hands (7 each), so even ``--quick`` plays one
pair: about 225 hands, all of them counted (more data for the work done). Reported: the
first level's share of the decided hands with a 95% Wilson interval, its share of the points,
and a PASS/FAIL line against >= 72% (meaningful over >= 400 hands only; fewer are said to be).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # run from anywhere in a checkout
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # the sibling scripts

from strength import wilson

from api import create_app
from api.http.callers import BUS_KEY
from api.services.autoplay import Autoplay

TARGET_SHARE = 0.72  # issue 20: expert sides' share of decided hands against greedy sides
MEANINGFUL_HANDS = 400  # the bar for the figure to count
POINTS_PER_HAND = 13  # about, in 4p partner block: a guess for scheduling only, until a match ends
EVENTS_PAGE = 1000  # the API's largest page


@dataclass(frozen=True)
class Plan:
    """What every match of a run is: the same for every worker."""

    levels: tuple[str, str]
    target: int
    hand_size: int | None
    seed: str

    def prior_hands(self) -> float:
        """Hands a match is guessed to last before one has ended (scheduling only)."""
        return max(1.0, self.target / POINTS_PER_HAND)

    def seats(self, index: int) -> list[str]:
        """The level at each seat of match ``index``: the first level on side 0 in even matches."""
        first, second = self.levels if index % 2 == 0 else self.levels[::-1]
        return [first, second, first, second]

    def body(self, index: int) -> dict[str, Any]:
        """``POST /v1/matches`` for match ``index``: its pair's seed, four bot seats."""
        rules: dict[str, Any] = {"partners": True, "target": self.target}
        if self.hand_size is not None:
            rules["hand_size"] = self.hand_size
        return {
            "preset": "standard-block",
            "rules": rules,
            "seats": [
                {"name": f"{level} {seat}", "type": "bot", "level": level}
                for seat, level in enumerate(self.seats(index))
            ],
            "seed": f"{self.seed}-{index // 2}",
        }


@dataclass(frozen=True)
class Hand:
    """One ``hand_ended``: the level of the side credited (``None`` on a tie) and its points."""

    level: str | None
    points: int


@dataclass(frozen=True)
class MatchResult:
    index: int
    match_id: str
    hands: tuple[Hand, ...]
    events: int
    seconds: float


class Table:
    """One worker's app: its own SQLite file, played through its test client only."""

    def __init__(self, directory: str) -> None:
        self.app = create_app(
            {
                "DATABASE_URL": f"sqlite:///{Path(directory) / 'api_hands.db'}",
                "RATELIMIT_ENABLED": False,
                "BOT_REPLY_FLOOR_MS": {},  # no padding: a decision takes what the bot takes
                "AUTOPLAY_PACE_SECONDS": 0,  # the runner's next step is due at once
                "BOT_MATCHES_PER_ADDRESS": 1_000_000,  # the cap on unfinished all-bot matches, out of the way
                "ALLOW_CLIENT_SEED": True,  # fixed seeds per match: reproducible runs
                "LOG_LEVEL": "WARNING",
            }
        )
        self.client = self.app.test_client()
        self.runner = Autoplay(self.app.extensions[BUS_KEY], step_moves=50)

    def play(self, plan: Plan, index: int) -> MatchResult:
        """Create match ``index``, let the runner play it out, and read its hands from the public log."""
        began = time.perf_counter()
        created = self.client.post("/v1/matches", json=plan.body(index))
        if created.status_code != 201:
            raise RuntimeError(f"match {index} refused: {created.status_code} {created.get_json()}")
        match_id = created.get_json()["id"]
        self.runner.drain()
        status = self.client.get(f"/v1/matches/{match_id}").get_json()["status"]
        if status != "ended":
            raise RuntimeError(f"match {index} ({match_id}) is {status!r} after the runner drained")
        events = self.events(match_id)
        seconds = time.perf_counter() - began
        levels = plan.seats(index)  # side s is seats s and s + 2: its level is levels[s]
        hands = tuple(
            Hand(None if e["side"] is None else levels[e["side"]], e["points"])
            for e in events
            if e["type"] == "hand_ended"
        )
        return MatchResult(index, match_id, hands, len(events), seconds)

    def events(self, match_id: str) -> list[dict[str, Any]]:
        """The whole public log, as a spectator reads it, page by page."""
        out: list[dict[str, Any]] = []
        after: int | None = 0
        while after is not None:
            answer = self.client.get(f"/v1/matches/{match_id}/events?after={after}&limit={EVENTS_PAGE}")
            if answer.status_code != 200:
                raise RuntimeError(f"events of {match_id}: {answer.status_code} {answer.get_json()}")
            page = answer.get_json()
            out += page["events"]
            after = page["next_after"]
        return out


_table: Table | None = None  # the worker process's own app


def _start_worker(root: str) -> None:
    global _table
    directory = Path(root) / str(os.getpid())
    directory.mkdir()
    _table = Table(str(directory))


def _play_in_worker(plan: Plan, index: int) -> MatchResult:
    assert _table is not None, "the pool's initializer makes each worker's table"
    return _table.play(plan, index)


def play_matches(plan: Plan, hands_wanted: int, jobs: int, root: str) -> list[MatchResult]:
    """Pairs of matches (0 and 1, 2 and 3, ...: one seed, the sides swapped) until the first
    pairs hold ``hands_wanted`` hands: those matches, in index order (the same set whatever
    ``jobs`` is; a later match already started is dropped).

    A match is started only while the hands expected of those running (the mean so far per
    match) would not already reach the goal, or to complete its pair, so little work is thrown
    away at the end."""
    done: dict[int, MatchResult] = {}
    counted: list[MatchResult] = []  # the prefix of ``done`` in index order

    def enough() -> bool:
        while len(counted) in done:
            counted.append(done[len(counted)])
        if len(counted) % 2:
            return False  # a pair counts whole: both seatings of its deals
        return sum(len(r.hands) for r in counted) >= hands_wanted

    if jobs == 1:
        (Path(root) / "0").mkdir()
        table = Table(str(Path(root) / "0"))
        while not enough():
            done[len(counted)] = table.play(plan, len(counted))
        return counted

    (Path(root) / "workers").mkdir()
    with ProcessPoolExecutor(jobs, initializer=_start_worker, initargs=(str(Path(root) / "workers"),)) as pool:
        running: dict[Future[MatchResult], int] = {}
        next_index = 0
        while not enough():
            finished = list(done.values())
            # Hands of the matches done, and of those running at the mean so far per match.
            per_match = sum(len(r.hands) for r in finished) / len(finished) if finished else plan.prior_hands()
            expected = sum(len(r.hands) for r in finished) + per_match * len(running)
            while len(running) < jobs and (next_index % 2 or expected < hands_wanted or not running):
                running[pool.submit(_play_in_worker, plan, next_index)] = next_index
                next_index += 1
                expected += per_match
            ready, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in ready:
                done[running.pop(future)] = future.result()
        for future in running:
            future.cancel()  # one already playing runs to its end when the pool shuts down
    return counted


def report(plan: Plan, results: list[MatchResult], wall: float) -> bool:
    """Print the figures; answers whether the first level met the target share."""
    first, second = plan.levels
    hands = [h for r in results for h in r.hands]
    decided = [h for h in hands if h.level is not None]
    won = sum(1 for h in decided if h.level == first)
    points = {level: sum(h.points for h in hands if h.level == level) for level in plan.levels}
    all_points = sum(points.values())
    share = won / len(decided) if decided else float("nan")
    low, high = wilson(won, len(decided))
    rows = [
        ("matches", f"{len(results)} to {plan.target} ({len(hands) / len(results):.1f} hands each), in pairs"),
        ("hands", f"{len(hands)} ({len(hands) - len(decided)} tied)"),
        ("decided hands", f"{len(decided)}: {first} won {won}, {second} {len(decided) - won}"),
        (f"{first} share of decided", f"{share:.1%} [{low:.1%}, {high:.1%}] (95% Wilson)"),
        (
            f"{first} share of points",
            f"{points[first] / all_points:.1%} ({points[first]} of {all_points})" if all_points else "none scored",
        ),
        ("wall time", f"{wall:.1f} s ({sum(r.seconds for r in results):.1f} s of counted matches, all workers)"),
    ]
    width = max(len(label) for label, _ in rows)
    for label, value in rows:
        print(f"{label:<{width}}  {value}")
    passed = bool(decided) and share >= TARGET_SHARE
    caveat = (
        "" if len(hands) >= MEANINGFUL_HANDS else f"; only {len(hands)} hands, meaningful over >= {MEANINGFUL_HANDS}"
    )
    verdict = "PASS" if passed else "FAIL"
    print(f"{verdict}: {first} {share:.1%} of decided hands vs {second}, target >= {TARGET_SHARE:.0%}{caveat}")
    return passed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--levels", default="expert,greedy", help="two bot levels, the measured one first")
    parser.add_argument("--hands", type=int, default=400, help="hands to play at least (default 400)")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes, each with its own app (default 2)")
    parser.add_argument("--target", type=int, default=1000, help="match target (default 1000, the API's largest)")
    parser.add_argument(
        "--hand-size",
        type=int,
        default=7,
        help="tiles dealt per seat (default 7: all 28 dealt, issue 20's 4p partner block; 0: the preset's 5)",
    )
    parser.add_argument("--seed", default="api-hands", help="prefix of the server seeds (default api-hands)")
    parser.add_argument("--quick", action="store_true", help="40 hands")
    args = parser.parse_args(argv)
    if args.quick:
        args.hands = 40
    levels = tuple(level.strip() for level in args.levels.split(","))
    if len(levels) != 2 or not all(levels):
        parser.error("--levels takes two levels, e.g. expert,greedy")
    plan = Plan((levels[0], levels[1]), args.target, args.hand_size or None, args.seed)
    print(
        f"# api_hands: {plan.levels[0]} vs {plan.levels[1]}, 4p partner block to {plan.target} through the HTTP API "
        f"(test client, autoplay runner), >= {args.hands} hands, {args.jobs} job(s), seeds {plan.seed}-*",
        flush=True,
    )
    began = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="boneyard-api-hands-") as root:
        results = play_matches(plan, args.hands, max(1, args.jobs), root)
    report(plan, results, time.perf_counter() - began)
    return 0


if __name__ == "__main__":
    sys.exit(main())
