"""How strong are the built-in bots? One command, bounded, prints a table.

    python bench/strength.py                 # default: 120 matches per row, a few minutes on 2 cores
    python bench/strength.py --matches 40    # quicker look
    python bench/strength.py --rows draw-greedy,draw-random --determinizations 60

Every row plays matches to 100 between the expert and a weaker level on fixed seeds.
Each seed is played twice with the seats swapped (the expert's side first, then the
other's), so both sides see the same deals and luck evens out. Win rates come with 95%
Wilson score intervals. The engine drives the matches directly, and every decision gets
only the acting seat's view and redacted log, as the server gives them. The expert's
thinking time per decision is reported too (median, 99th percentile and max, over all
its decisions and over those with a real choice). Runs in parallel over ``--jobs``
processes; results do not depend on the number of jobs.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import statistics
import sys
import time
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from api.bots import DEFAULT_BUDGET, Budget
from api.bots.arena import play_match
from api.rules import resolve_rules


@dataclass(frozen=True)
class Row:
    name: str
    preset: str
    players: int
    options: tuple
    opponent: str
    label: str


ROWS = (
    Row("draw-greedy", "standard-draw", 2, (), "greedy", "2p standard-draw  expert vs greedy"),
    Row("draw-random", "standard-draw", 2, (), "random", "2p standard-draw  expert vs random"),
    Row("block-greedy", "standard-block", 2, (), "greedy", "2p standard-block expert vs greedy"),
    Row("block-random", "standard-block", 2, (), "random", "2p standard-block expert vs random"),
    Row(
        "partners-greedy",
        "standard-draw",
        4,
        (("partners", True),),
        "greedy",
        "4p partners draw  expert side vs greedy side",
    ),
    Row(
        "partners-random",
        "standard-draw",
        4,
        (("partners", True),),
        "random",
        "4p partners draw  expert side vs random side",
    ),
)


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def _levels(row: Row, expert_side: int) -> list[str]:
    rules = resolve_rules(row.preset, dict(row.options), row.players)
    return ["expert" if rules.side_of(s) == expert_side else row.opponent for s in range(row.players)]


def _one_match(job):
    row, index, budget, target = job
    rules = resolve_rules(row.preset, {**dict(row.options), "target": target}, row.players)
    expert_side = index % 2  # seats swapped on every other match
    levels = _levels(row, expert_side)
    times: list[tuple[float, bool]] = []

    def observe(seat, level, seconds, view, log, action):
        if level == "expert":
            times.append((seconds, len(view["legal_actions"]) > 1))

    seed = f"strength:{row.name}:{index // 2}"
    st = play_match(rules, seed, levels, budget, observe)
    return row.name, st.winner == expert_side, times


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=120, help="matches per row (even; default 120)")
    parser.add_argument(
        "--rows",
        default=",".join(r.name for r in ROWS),
        help="comma-separated rows: " + ", ".join(r.name for r in ROWS),
    )
    parser.add_argument("--target", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--determinizations", type=int, default=DEFAULT_BUDGET.determinizations)
    parser.add_argument("--rollouts", type=int, default=DEFAULT_BUDGET.rollouts)
    parser.add_argument("--max-playouts", type=int, default=DEFAULT_BUDGET.max_playouts)
    parser.add_argument("--epsilon", type=float, default=DEFAULT_BUDGET.epsilon)
    args = parser.parse_args(argv)

    budget = Budget(
        determinizations=args.determinizations,
        rollouts=args.rollouts,
        max_playouts=args.max_playouts,
        min_determinizations=DEFAULT_BUDGET.min_determinizations,
        epsilon=args.epsilon,
    )
    wanted = [n.strip() for n in args.rows.split(",") if n.strip()]
    rows = [r for r in ROWS if r.name in wanted]
    unknown = set(wanted) - {r.name for r in rows}
    if unknown:
        parser.error(f"unknown rows: {', '.join(sorted(unknown))}")
    matches = max(2, args.matches + args.matches % 2)
    jobs = [(row, i, budget, args.target) for row in rows for i in range(matches)]

    print(f"budget: {budget}")
    print(f"{matches} matches to {args.target} per row, seats swapped on every seed, {args.jobs} jobs")
    t0 = time.perf_counter()
    results: dict[str, list[bool]] = {r.name: [] for r in rows}
    times: list[tuple[float, bool]] = []
    if args.jobs > 1:
        with multiprocessing.Pool(args.jobs) as pool:
            outcomes = pool.imap_unordered(_one_match, jobs, chunksize=2)
            for name, won, t in outcomes:
                results[name].append(won)
                times.extend(t)
    else:
        for job in jobs:
            name, won, t = _one_match(job)
            results[name].append(won)
            times.extend(t)
    wall = time.perf_counter() - t0

    print()
    print(f"{'row':<46} {'matches':>7} {'expert wins':>11} {'win rate':>8}  {'95% CI (Wilson)':>16}")
    for row in rows:
        won = sum(results[row.name])
        n = len(results[row.name])
        lo, hi = wilson(won, n)
        print(f"{row.label:<46} {n:>7} {won:>11} {won / n:>8.1%}  [{lo:6.1%}, {hi:6.1%}]")
    print()
    for label, sample in (
        ("all expert decisions", [s for s, _ in times]),
        ("with a real choice", [s for s, choice in times if choice]),
    ):
        if sample:
            sample.sort()
            p99 = sample[min(len(sample) - 1, int(0.99 * len(sample)))]
            print(
                f"expert time, {label:<22} n={len(sample):<7} median {1000 * statistics.median(sample):6.2f} ms"
                f"  p99 {1000 * p99:6.1f} ms  max {1000 * sample[-1]:6.1f} ms"
            )
    print(f"wall time {wall:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
