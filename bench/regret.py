"""Oracle regret: what the expert's choices give away against the best play with the hidden hands shown.

    pip install -e '.[bench]'
    python bench/regret.py --jobs 2                                   # 100 deal pairs vs alphabeta32
    python bench/regret.py --opponent greedy --pairs 20 --jobs 2      # quick: no public AI needed
    python bench/regret.py --variant exact_tiles=20 --sighted --jobs 2

A low-noise yardstick for tuning the expert. ``bench/versus.py`` says who wins, but 400 hands
move about five points from one set of deals to the next, so a change worth one or two points
cannot be told from luck there. This scores single decisions instead.

1. *Positions.* The expert (both seats of a side) plays ``bench/versus.py``'s 4p partner-block
   deals against ``--opponent``, both side arrangements of each deal. At each of its decisions
   with two or more plays the script keeps what the seat was shown (its view, its redacted log
   and its decision seed) and, for the score only, the true hidden hands.
2. *Oracle.* Each play of each decision is valued with the true hands: the rest of the hand is
   solved exactly (``endgame.ExactLine``, every seat playing perfectly for its side; with
   nothing to draw in partner block, that is the whole hand). The perfect-information value,
   in the expert's own units (points to its side against the other side's, ``expert._value``).
3. *Regret.* The expert, at its own budget and at each ``--variant`` (``bench/versus.py``'s
   ``--budget`` syntax), chooses at every decision as it did in play (same view, log and seed:
   the truth is never shown to it). Its regret is the oracle's best value less the value of the
   play it chose: 0 when it chose a best play. The mean over the decisions, and each variant's
   difference from the expert's own budget on the same decisions (paired, so the luck of the
   deals cancels) with its standard error. ``--sighted`` adds the expert shown the true hands
   (its own search and budget, with the truth as every deal): what is left is what its way of
   valuing a play costs, whatever it knows.

The regret is split between the decisions taken before the expert's exact endings (more than
``Budget.exact_tiles`` tiles left in the hands once it has played: there its playouts play
greedily before solving) and those in them (each play solved exactly on each guessed deal: what
is left is what it does not know); a second table splits it finer, by stage of the hand (tiles
left in the hands once the expert has played, four at a time), each stage with its share of
the variant's whole regret. CPU per decision (``time.process_time``) is reported too, so a
variant's cost is on the same line. A perfect-information value is not the value of a play
against opponents who cannot see the hands, so the regret is a proxy: it ranks changes to the
expert's guessing and valuing, and a change it favours still has to show in
``bench/versus.py``. The same deals and seeds always give the same regrets.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.pool import Pool
from typing import TypeVar

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # run from anywhere in a checkout
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import versus
from reading import opponent_player

from api.bots import LEVEL_BUDGETS, LEVELS, Budget, choose_action
from api.bots.actions import Action, make_rng, plays_of, to_move
from api.bots.analysis import sighted
from api.bots.expert import evaluate
from api.bots.knowledge import Knowledge
from api.rules.state import MatchState
from api.rules.tiles import Tile

Json = versus.Json
T = TypeVar("T")
R = TypeVar("R")
LEVEL = "expert"
# The oracle: the true hands as the only deal, solved exactly from the first tile to the last
# (about 40 ms a decision, every play included, 2 s at most; no solve has come near the limit).
ORACLE = Budget(
    determinizations=1,
    min_determinizations=1,
    epsilon=0.0,
    exact_tiles=28,
    exact_limit=50_000_000,
    exact_work=10**12,
    sure=0.0,
    inference=1,
)


@dataclass(frozen=True)
class Decision:
    """One expert decision with a choice: what its seat was shown, and the truth (for the score)."""

    view: Json
    log: list[Json]
    rng_seed: str
    truth: dict[int, list[Tile]]  # every other seat's hand
    tiles_left: int  # in all the hands, the seat's own included, before it plays


@dataclass(frozen=True)
class Variant:
    name: str
    budget: Budget
    sighted: bool = False  # shown the true hands


# --- 1. positions ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Job:
    index: int
    seed: int
    opponent: str


def collect(job: Job) -> list[Decision]:
    """Deal ``job.index`` of ``bench/versus.py``'s seed, both side arrangements: every expert decision
    with two or more plays."""
    rules = versus.four_player_rules()
    expert, other = versus.boneyard_player(LEVEL), opponent_player(job.opponent)
    seed = f"versus:{job.seed}:4p:{job.index}"
    decisions: list[Decision] = []
    now: list[MatchState] = []

    def watch(state: MatchState, seat: int, log: list[Json]) -> None:
        now[:] = [state]

    def recording(seat_view: Json, log: list[Json], rng_seed: str) -> Json:
        if len(plays_of(seat_view["legal_actions"])) >= 2:
            state, seat = now[0], seat_view["seat"]
            truth = {s: list(state.hands[s]) for s in range(rules.players) if s != seat}
            tiles_left = sum(len(hand) for hand in state.hands)
            decisions.append(Decision(seat_view, list(log), rng_seed, truth, tiles_left))
        return expert(seat_view, log, rng_seed)

    for side in (0, 1):
        players = [recording if rules.side_of(s) == side else other for s in range(rules.players)]
        versus.play_hand(rules, seed, players, side, watch, boneyard_level=LEVEL)
    return decisions


# --- 2. the oracle --------------------------------------------------------------------------------
PlayKey = tuple[tuple[int, int], str]  # (tile as [high, low], end)


def play_key(action: Action) -> PlayKey:
    high, low = action["tile"]
    return (high, low), action["end"]


def shown_values(decision: Decision, rng: random.Random, budget: Budget) -> tuple[list[Action], list[float]]:
    """The decision's plays, and the expert's value of each at ``budget`` with the true hands shown."""
    plays = plays_of(decision.view["legal_actions"])
    shown = sighted(Knowledge.read(decision.view, decision.log), decision.truth)
    return plays, evaluate(shown, [to_move(a) for a in plays], rng, budget)


def oracle_values(decision: Decision) -> dict[PlayKey, float]:
    """Each play's value with the true hands, the rest of the hand solved exactly."""
    plays, values = shown_values(decision, random.Random(0), ORACLE)
    return {play_key(a): v for a, v in zip(plays, values)}


# --- 3. regret ------------------------------------------------------------------------------------
def choose(variant: Variant, decision: Decision) -> Action:
    """The play the variant makes at the decision (the expert's own choice, or with the truth shown)."""
    if not variant.sighted:
        return choose_action(LEVEL, decision.view, decision.log, decision.rng_seed, variant.budget)
    plays, values = shown_values(decision, make_rng(decision.rng_seed, LEVEL), variant.budget)
    return plays[max(range(len(plays)), key=lambda i: (values[i], -i))]


def regret_of(task: tuple[Variant, Decision, dict[PlayKey, float]]) -> tuple[float, float]:
    """(regret, CPU seconds) of the variant's choice at one decision."""
    variant, decision, values = task
    began = time.process_time()
    action = choose(variant, decision)
    spent = time.process_time() - began
    return max(values.values()) - values[play_key(action)], spent


@dataclass
class Scored:
    variant: Variant
    regrets: list[float]
    cpu: list[float]


def mean_and_error(values: list[float]) -> tuple[float, float]:
    mean = math.fsum(values) / len(values)
    error = statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else float("nan")
    return mean, error


def before_the_endings(decision: Decision, exact_tiles: int) -> bool:
    """Whether the expert plays its guessed deals out greedily before solving them: more than
    ``exact_tiles`` tiles are left once it has played."""
    return decision.tiles_left - 1 > exact_tiles


def report(scored: list[Scored], decisions: list[Decision], exact_tiles: int) -> list[str]:
    early = [before_the_endings(d, exact_tiles) for d in decisions]
    base = scored[0].regrets
    lines = [
        "| the expert | mean regret | before the exact endings | in them | no regret "
        "| vs its own budget | CPU ms median / p99 / mean |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for s in scored:
        mean, error = mean_and_error(s.regrets)
        before = [r for r, e in zip(s.regrets, early) if e]
        after = [r for r, e in zip(s.regrets, early) if not e]
        zero = sum(r < 1e-9 for r in s.regrets) / len(s.regrets)
        if s is scored[0]:
            versus_base = "-"
        else:
            diff, diff_error = mean_and_error([r - b for r, b in zip(s.regrets, base)])
            versus_base = f"{diff:+.2f} ± {diff_error:.2f}"
        ms = sorted(1000 * t for t in s.cpu)
        cpu = f"{statistics.median(ms):.1f} / {versus.percentile(ms, 0.99):.0f} / {statistics.fmean(ms):.1f}"
        part = [f"{math.fsum(g) / len(g):.2f} (n={len(g)})" if g else "-" for g in (before, after)]
        cells = [f"{mean:.2f} ± {error:.2f}", *part, f"{zero:.0%}", versus_base, cpu]
        lines.append(f"| {s.variant.name} | " + " | ".join(cells) + " |")
    return lines


def stages(exact_tiles: int, top: int = 27, width: int = 4) -> list[tuple[int, int]]:
    """Ranges ``(most, fewest)`` of tiles left in the hands once the expert has played, ``width``
    at a time down from ``top``: none straddles the exact endings' edge, the last reaches 0."""
    out = []
    most = top
    while most >= 0:
        fewest = most - width + 1
        if most > exact_tiles >= fewest:
            fewest = exact_tiles + 1
        if fewest < width:
            fewest = 0
        out.append((most, fewest))
        most = fewest - 1
    return out


def report_by_stage(scored: list[Scored], decisions: list[Decision], exact_tiles: int) -> list[str]:
    """Each variant's mean regret by stage of the hand, with the stage's share of its total regret."""
    ranges = stages(exact_tiles)
    stage_of = [
        next(i for i, (most, fewest) in enumerate(ranges) if fewest <= d.tiles_left - 1 <= most) for d in decisions
    ]
    counts = [stage_of.count(i) for i in range(len(ranges))]
    lines = [
        "| tiles left once it has played | " + " | ".join(f"{most}-{fewest}" for most, fewest in ranges) + " |",
        "|---|" + "---:|" * len(ranges),
        "| decisions | " + " | ".join(str(n) for n in counts) + " |",
    ]
    for s in scored:
        total = math.fsum(s.regrets)
        cells = []
        for i, n in enumerate(counts):
            part = math.fsum(r for r, at in zip(s.regrets, stage_of) if at == i)
            share = f" ({part / total:.0%})" if total > 0 else ""
            cells.append(f"{part / n:.2f}{share}" if n else "-")
        lines.append(f"| {s.variant.name} | " + " | ".join(cells) + " |")
    return lines


def variants_of(specs: list[str], with_sighted: bool) -> list[Variant]:
    own = LEVEL_BUDGETS[LEVEL]
    out = [Variant("its own budget", own)]
    out.extend(Variant(spec, versus.parse_budget(spec, LEVEL)) for spec in specs)
    if with_sighted:
        out.append(Variant("its own budget, shown the hidden hands", own, sighted=True))
    return out


def mapped(pool: Pool | None, work: Callable[[T], R], items: list[T]) -> list[R]:
    return pool.map(work, items, chunksize=8) if pool is not None else [work(item) for item in items]


def run(pool: Pool | None, jobs: list[Job], variants: list[Variant]) -> tuple[list[Decision], list[Scored]]:
    """The positions, their oracle values, and every variant's regrets."""
    decisions = [d for pair in mapped(pool, collect, jobs) for d in pair]
    values = mapped(pool, oracle_values, decisions)
    scored = []
    for variant in variants:
        results = mapped(pool, regret_of, [(variant, d, v) for d, v in zip(decisions, values)])
        scored.append(Scored(variant, [r for r, _ in results], [t for _, t in results]))
    return decisions, scored


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=100, help="deal pairs (each deal played twice, sides swapped)")
    parser.add_argument("--opponent", default="alphabeta32", help="alphabeta32, or a Boneyard level (greedy...)")
    parser.add_argument("--seed", type=int, default=1, help="bench/versus.py's deals of this seed")
    parser.add_argument(
        "--variant", action="append", default=[], help="the expert's budget with fields changed: k=v,k=v (repeat)"
    )
    parser.add_argument("--sighted", action="store_true", help="also score the expert shown the hidden hands")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)
    if args.opponent != "alphabeta32" and args.opponent not in LEVELS:
        parser.error(f"unknown opponent {args.opponent!r}")
    if args.pairs < 1:
        parser.error("--pairs must be at least 1")
    try:
        variants = variants_of(args.variant, args.sighted)
    except ValueError as error:
        parser.error(str(error))
    jobs = [Job(i, args.seed, args.opponent) for i in range(args.pairs)]
    began = time.perf_counter()
    if args.jobs > 1:
        with multiprocessing.Pool(args.jobs) as pool:
            decisions, scored = run(pool, jobs, variants)
    else:
        decisions, scored = run(None, jobs, variants)
    exact_tiles = LEVEL_BUDGETS[LEVEL].exact_tiles
    print(f"Command: {' '.join([os.path.basename(sys.executable), *sys.argv])}")
    print(f"Expert side vs {args.opponent}, 4p partner block, {args.pairs} deal pairs of seed {args.seed}:")
    print(f"{len(decisions)} expert decisions with a choice; regret in points against the best play with the")
    print(f"hidden hands shown (mean ± standard error); 'before the exact endings': more than {exact_tiles} tiles")
    print("left in the hands once the expert has played\n")
    print("\n".join(report(scored, decisions, exact_tiles)))
    print("\nBy stage of the hand: mean regret per decision (the stage's share of the variant's total regret)\n")
    print("\n".join(report_by_stage(scored, decisions, exact_tiles)))
    print(f"\nwall time {time.perf_counter() - began:.0f} s ({args.jobs} jobs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
