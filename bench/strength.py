"""How strong are the built-in bots? The ladder random < greedy < intermediate < expert, as a table.

    python bench/strength.py                 # default: 120 matches per row, ~10 min on 2 cores
    python bench/strength.py --matches 40    # quicker look
    python bench/strength.py --rows block-expert-greedy,partners-expert-greedy
    python bench/strength.py --rows d9partners-expert-greedy,f3-expert-greedy   # issue 33's games
    python bench/strength.py --rows d9partners-expert-greedy --budget hand_win=40.0   # a tuning run
    python bench/strength.py --rows d9partners-expert-greedy --sighted     # the ceiling: the expert sees the hands
    python bench/strength.py --rows d9partners-expert-greedy --first greedy   # the same seeds, greedy vs greedy

Every row plays matches between two levels on fixed seeds: to 100 (``--target``), except the
rows of presets whose target is part of the game (``fives-and-threes``: exactly 61;
``double-nine-partners``: 100), played to their preset's own target. Each seed is played
twice with the seats swapped (the first level's side first, then the other's), so both
sides see the same deals and luck evens out. Win rates (of matches, and of the hands a
side won) come with 95% Wilson score intervals. The engine drives the matches directly,
and every decision gets only the acting seat's view and redacted log, as the server gives
them. Each level plays at its own budget (``api.bots.level_budget``: the expert plays double-nine at
``DOUBLE_NINE_BUDGET``, by honest rollouts). The thinking time
per decision of each playout level is reported too (median, 99th percentile and max, over
the decisions with a real choice, in CPU time). Runs in parallel over ``--jobs`` processes;
results do not depend on the number of jobs.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import multiprocessing
import os
import statistics
import sys
import time
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from api.bots import level_budget
from api.bots.arena import BotMatch
from api.rules import resolve_rules
from api.rules.events import HandEnded, HandStarted


@dataclass(frozen=True)
class Row:
    name: str
    preset: str
    players: int
    options: tuple
    first: str  # the level whose wins are counted
    second: str
    label: str
    own_target: bool = False  # played to the preset's target, not ``--target``


PARTNERS = (("partners", True),)


def _row(
    game: str, preset: str, players: int, options: tuple, first: str, second: str, what: str, own: bool = False
) -> Row:
    label = f"{what}  {first} vs {second}"
    return Row(f"{game}-{first}-{second}", preset, players, options, first, second, label, own)


ROWS = (
    tuple(
        _row(game, preset, players, options, first, second, what)
        for game, preset, players, options, what in (
            ("draw", "standard-draw", 2, (), "2p standard-draw "),
            ("block", "standard-block", 2, (), "2p standard-block"),
            ("partners", "standard-block", 4, PARTNERS, "4p partners block"),
            ("partners7", "standard-block", 4, (*PARTNERS, ("hand_size", 7)), "4p partners block, 7 each"),
            ("fives", "all-fives", 2, (), "2p all-fives     "),
        )
        for first, second in (("expert", "greedy"), ("intermediate", "greedy"), ("expert", "intermediate"))
    )
    + (_row("draw", "standard-draw", 2, (), "expert", "random", "2p standard-draw "),)
    + tuple(
        _row(game, preset, players, (), first, second, what, own=True)
        for game, preset, players, what in (
            ("d9partners", "double-nine-partners", 4, "4p double-nine partners"),
            ("f3", "fives-and-threes", 2, "2p fives-and-threes"),
        )
        for first, second in (("expert", "greedy"), ("intermediate", "greedy"))
    )
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


def _levels(row: Row, first_side: int, first: str | None = None) -> list[str]:
    rules = resolve_rules(row.preset, dict(row.options), row.players)
    mine = first or row.first
    return [mine if rules.side_of(s) == first_side else row.second for s in range(row.players)]


def _one_match(job):
    row, index, target, changes, first, sighted = job
    options = dict(row.options) if row.own_target else {**dict(row.options), "target": target}
    rules = resolve_rules(row.preset, options, row.players)
    first_side = index % 2  # seats swapped on every other match
    levels = _levels(row, first_side, first)
    times: list[tuple[str, float]] = []

    def observe(seat, level, seconds, view, log, action):
        if len(view["legal_actions"]) > 1:
            times.append((level, seconds))

    seed = f"strength:{row.name}:{index // 2}"
    budget = None if changes is None else dataclasses.replace(level_budget("expert", rules.set), **changes)
    match: BotMatch
    if sighted:
        from sighted import SightedMatch  # (bench/ is on the path: this script's own folder)

        match = SightedMatch(rules, seed, levels, budget, sighted=frozenset({first or row.first}), shown=sighted)
    else:
        match = BotMatch(rules, seed, levels, budget)
    while match.live:
        match.step(observe)
    breakdown = hands_by_kind(match.events, first_side, rules.side_of)
    return row.name, match.state.winner == first_side, hands_won(match.events, first_side), times, breakdown


def hands_won(events, first_side: int) -> tuple[int, int]:
    """Hands won by the first level's side and by the other (a tied hand counts for neither)."""
    won = [0, 0]
    for e in events:
        if isinstance(e, HandEnded) and e.side is not None:
            won[0 if e.side == first_side else 1] += 1
    return won[0], won[1]


def hands_by_kind(events, first_side: int, side_of) -> dict[tuple[str, str], list[int]]:
    """The decided hands by how they ended (``domino`` or ``blocked``) and which side led
    (``first`` or ``second``): [the first level's wins, the other's]."""
    out: dict[tuple[str, str], list[int]] = {}
    leader = None
    for e in events:
        if isinstance(e, HandStarted):
            leader = e.leader
        elif isinstance(e, HandEnded) and e.side is not None and leader is not None:
            led = "first" if side_of(leader) == first_side else "second"
            won = out.setdefault((str(e.reason), led), [0, 0])
            won[0 if e.side == first_side else 1] += 1
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=120, help="matches per row (even; default 120)")
    parser.add_argument(
        "--rows",
        default=",".join(r.name for r in ROWS),
        help="comma-separated rows: " + ", ".join(r.name for r in ROWS),
    )
    parser.add_argument("--target", type=int, default=100)
    parser.add_argument(
        "--offset",
        type=int,
        default=0,
        help="skip the rows' first OFFSET matches (even): --offset 120 --matches 120 plays the second half of "
        "--matches 240, the same matches",
    )
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument(
        "--diagnose",
        action="store_true",
        help="also print each row's decided hands by how they ended (domino, blocked) and which side led",
    )
    parser.add_argument(
        "--budget",
        help="the expert's budget with some fields changed, e.g. exact_tiles=20 (api/bots/expert.py Budget), "
        "its own for each row's set (api.bots.level_budget); "
        "every playout-level seat of the rows plays it",
    )
    parser.add_argument(
        "--first",
        help="play this level instead of each row's first one, on the row's own seats and seeds "
        "(e.g. greedy: the rows' second level against itself, a sanity row near 50%%)",
    )
    parser.add_argument(
        "--sighted",
        nargs="?",
        const="all",
        help="the first level's expert seats see the true hidden tiles (bench/sighted.py): a ceiling, never a "
        "server seat; all (the default), or some of partner, opponents, boneyard (comma-separated)",
    )
    args = parser.parse_args(argv)
    changes = None  # the budget fields changed, by name
    if args.budget:
        from versus import parse_budget  # (versus imports this module: not at the top)

        try:
            parsed = parse_budget(args.budget, "expert")
        except ValueError as e:
            parser.error(str(e))
        names = [item.partition("=")[0].strip() for item in args.budget.split(",") if item.strip()]
        changes = {name: getattr(parsed, name) for name in names}

    wanted = [n.strip() for n in args.rows.split(",") if n.strip()]
    rows = [r for r in ROWS if r.name in wanted]
    unknown = set(wanted) - {r.name for r in rows}
    if unknown:
        parser.error(f"unknown rows: {', '.join(sorted(unknown))}")
    matches = max(2, args.matches + args.matches % 2)
    offset = args.offset + args.offset % 2
    jobs = [
        (row, i, args.target, changes, args.first, args.sighted)
        for row in rows
        for i in range(offset, offset + matches)
    ]

    own = ", ".join(r.name for r in rows if r.own_target)
    to = f"{args.target}" + (f" (to their preset's target: {own})" if own else "")
    skipped = f" (after the first {offset})" if offset else ""
    print(f"{matches} matches{skipped} to {to} per row, seats swapped on every seed, {args.jobs} jobs")
    if changes is not None:
        print(f"Budget changes: {changes}")
    if args.first:
        print(f"First level: {args.first} (in place of each row's own)")
    if args.sighted:
        print(f"Sighted: the first level's expert seats are shown the true hidden tiles ({args.sighted}): a ceiling")
    t0 = time.perf_counter()
    results: dict[str, list[bool]] = {r.name: [] for r in rows}
    hands: dict[str, list[int]] = {r.name: [0, 0] for r in rows}
    times: dict[str, list[float]] = {}
    kinds: dict[str, dict[tuple[str, str], list[int]]] = {r.name: {} for r in rows}

    def take(outcome) -> None:
        name, won, (mine, theirs), t, breakdown = outcome
        for kind, (a, b) in breakdown.items():
            both = kinds[name].setdefault(kind, [0, 0])
            both[0] += a
            both[1] += b
        results[name].append(won)
        hands[name][0] += mine
        hands[name][1] += theirs
        for level, seconds in t:
            times.setdefault(level, []).append(seconds)

    if args.jobs > 1:
        with multiprocessing.Pool(args.jobs) as pool:
            for outcome in pool.imap_unordered(_one_match, jobs, chunksize=2):
                take(outcome)
    else:
        for job in jobs:
            take(_one_match(job))
    wall = time.perf_counter() - t0

    print()
    print(f"| {'row':<44} | matches | first wins | 95% CI (Wilson) | decided hands | first's share | 95% CI (Wilson) |")
    print(f"|{'-' * 46}|---:|---:|---|---:|---:|---|")
    for row in rows:
        won = sum(results[row.name])
        n = len(results[row.name])
        lo, hi = wilson(won, n)
        mine, theirs = hands[row.name]
        decided = mine + theirs
        hlo, hhi = wilson(mine, decided)
        print(
            f"| {row.label:<44} | {n} | {won / n:.1%} | [{lo:.1%}, {hi:.1%}] | {decided} | "
            f"{mine / max(1, decided):.1%} | [{hlo:.1%}, {hhi:.1%}] |"
        )
    if args.diagnose:
        print()
        print("| row | ended | led by | decided hands | first's share | 95% CI (Wilson) |")
        print("|---|---|---|---:|---:|---|")
        for row in rows:
            for (reason, led), (mine, theirs) in sorted(kinds[row.name].items()):
                lo, hi = wilson(mine, mine + theirs)
                print(
                    f"| {row.name} | {reason} | {led} | {mine + theirs} | {mine / (mine + theirs):.1%} | "
                    f"[{lo:.1%}, {hi:.1%}] |"
                )
    print()
    for level in ("intermediate", "expert"):
        sample = sorted(times.get(level, []))
        if sample:
            p99 = sample[min(len(sample) - 1, int(0.99 * len(sample)))]
            print(
                f"{level} time per decision with a real choice: n={len(sample)} median "
                f"{1000 * statistics.median(sample):.1f} ms, p99 {1000 * p99:.1f} ms, max {1000 * sample[-1]:.1f} ms"
            )
    print(f"wall time {wall:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
