"""How strong is the trains expert? One expert against three greedy seats, 4 players, whole matches.

    .venv/bin/python bench/trains_strength.py --matches 200 --jobs 2   # both games
    .venv/bin/python bench/trains_strength.py --rows mexican --matches 40

Each row plays ``--matches`` whole matches (every round: 13 of Mexican Train, 10 of Chicken
Foot) of its preset at 4 players, on fixed seeds, the expert's seat rotated over the matches
(match i: seat i mod 4), the other seats greedy. A match is won by the lowest total; a tie
shares it. The table counts the expert's wins two ways: a shared win as a whole win, and as
1/k of one for each of its k winners (the share a seat would take on average if it were no
better than the others: 25% at a table of four). Intervals are 95% Wilson score intervals
(of a fractional count, for the second). Also printed: the expert's CPU time per decision
(median, 90th, 99th percentile, slowest) over its decisions with a real choice.

The engine plays the matches (``create_match``, ``start_match``, ``decide``) and every
decision gets only the acting seat's ``view`` and the log since the round began, each event
``redact_event``-ed for it. Results do not depend on ``--jobs``.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import sys
import time
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # run from anywhere in a checkout
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # the sibling scripts

from strength import wilson

from api.bots import choose_action
from api.bots.actions import Action, Json
from api.rules import (
    PLAYING,
    create_match,
    decide,
    parse_action,
    redact_event,
    replay,
    resolve_rules,
    start_match,
    view,
)
from api.rules.events import Event, RoundStarted
from api.rules.ruleset import RuleSet

PLAYERS = 4


@dataclass(frozen=True)
class Row:
    name: str
    preset: str
    label: str


ROWS = (
    Row("mexican", "mexican-train", "4p mexican-train, 13 rounds"),
    Row("chicken", "chicken-foot", "4p chicken-foot, 10 rounds"),
)


class TrainsBotMatch:
    """A trains match between bots of ``levels`` (one per seat), one decision at a time, through
    the engine as the server plays it; ``logs[seat]``: the events since the round began,
    redacted for that seat (what the server gives a bot)."""

    def __init__(self, rules: RuleSet, seed: str, levels: list[str]) -> None:
        self.seed, self.levels = seed, list(levels)
        seats = [{"name": f"{level}-{i}", "type": "bot", "level": level} for i, level in enumerate(levels)]
        created = create_match(rules, seats, seed)
        self.state = replay(created)
        self.logs: list[list[Json]] = [[] for _ in levels]
        self.decisions = 0
        self._take(start_match(self.state, seed))

    def _take(self, events: list[Event]) -> None:
        self.state = replay(events, self.state)
        for event in events:
            data = event.to_dict()
            for seat, log in enumerate(self.logs):
                if isinstance(event, RoundStarted):
                    log.clear()
                log.append(redact_event(data, seat))

    @property
    def live(self) -> bool:
        return self.state.status == PLAYING

    def step(self) -> tuple[int, float, Json, Action]:
        """Ask the seat to move, apply its answer; returns (seat, CPU seconds, its view, its action)."""
        seat = self.state.next_to_act(range(len(self.levels)))
        assert seat is not None
        seat_view = view(self.state, seat)
        t0 = time.process_time()
        action = choose_action(self.levels[seat], seat_view, self.logs[seat], f"{self.seed}:{self.decisions}")
        elapsed = time.process_time() - t0
        self._take(decide(self.state, parse_action(seat, action), self.seed))
        self.decisions += 1
        return seat, elapsed, seat_view, action


Outcome = tuple[str, tuple[int, ...], int, list[float]]  # row, winners, the level's seat, its decision times


def _one_match(job: tuple[Row, int, str, str]) -> Outcome:
    row, index, level, against = job
    rules = resolve_rules(row.preset, {}, PLAYERS)
    seat = index % PLAYERS
    levels = [level if s == seat else against for s in range(PLAYERS)]
    match = TrainsBotMatch(rules, f"trains-strength:{row.name}:{index}", levels)
    times: list[float] = []
    while match.live:
        who, seconds, view, _ = match.step()
        if who == seat and len(view["legal_actions"]) > 1:
            times.append(seconds)
    assert match.state.trains is not None
    winners = match.state.trains.winners
    assert winners is not None
    return row.name, winners, seat, times


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[round(share * (len(ordered) - 1))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=200, help="matches per row (default 200)")
    parser.add_argument("--rows", default=",".join(r.name for r in ROWS), help="mexican, chicken")
    parser.add_argument("--level", default="expert", help="the level in the rotated seat (default expert)")
    parser.add_argument("--against", default="greedy", help="the level in the other seats (default greedy)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)
    wanted = [n.strip() for n in args.rows.split(",") if n.strip()]
    rows = [r for r in ROWS if r.name in wanted]
    if len(rows) != len(wanted):
        parser.error(f"rows are: {', '.join(r.name for r in ROWS)}")
    jobs = [(row, i, args.level, args.against) for row in rows for i in range(args.matches)]
    print(
        f"{args.matches} matches per row, {args.level} in seat i mod {PLAYERS}, {args.against} elsewhere, "
        f"{args.jobs} jobs"
    )
    t0 = time.perf_counter()
    wins: dict[str, list[float]] = {r.name: [0, 0.0, 0] for r in rows}  # whole, shared 1/k, played
    times: dict[str, list[float]] = {r.name: [] for r in rows}

    def take(outcome: Outcome) -> None:
        name, winners, seat, t = outcome
        tally = wins[name]
        tally[2] += 1
        if seat in winners:
            tally[0] += 1
            tally[1] += 1 / len(winners)
        times[name].extend(t)

    if args.jobs > 1:
        with multiprocessing.Pool(args.jobs) as pool:
            for outcome in pool.imap_unordered(_one_match, jobs, chunksize=1):
                take(outcome)
    else:
        for job in jobs:
            take(_one_match(job))
    wall = time.perf_counter() - t0
    print()
    print(
        f"| row | matches | {args.level} lowest total (ties whole) [95% Wilson] | ties shared 1/k [95% Wilson] "
        f"| {args.level} CPU ms per decision: median / p90 / p99 / max |"
    )
    print("|---|---:|---|---|---|")
    for row in rows:
        whole, shared, n = wins[row.name]
        lo, hi = wilson(int(whole), int(n))
        slo, shi = wilson_fraction(shared, int(n))
        sample = [1000 * s for s in times[row.name]]
        quantiles = (statistics.median(sample), percentile(sample, 0.9), percentile(sample, 0.99), max(sample))
        timing = " / ".join(f"{q:.2f}" for q in quantiles) if sample else "-"
        print(
            f"| {row.label} | {int(n)} | {whole / n:.1%} [{lo:.1%}, {hi:.1%}] "
            f"| {shared / n:.1%} [{slo:.1%}, {shi:.1%}] | {timing} |"
        )
    print(f"wall time {wall:.0f} s")
    return 0


def wilson_fraction(wins: float, n: int) -> tuple[float, float]:
    """``wilson`` of a count that may be fractional (a shared win counted 1/k)."""
    return wilson(wins, n)  # type: ignore[arg-type]  # the formula needs only the rate


if __name__ == "__main__":
    sys.exit(main())
