"""Calibrate the computer players' fixed ratings: bot-vs-bot matches, fitted with openskill.

    python bench/calibrate_ratings.py                  # default: 100 matches per pairing and family
    python bench/calibrate_ratings.py --matches 40     # quicker look
    python bench/calibrate_ratings.py --families fives_and_threes,double_nine   # some families only

For each rules family (``RuleSet.family``) it plays matches between every pair of bot levels
(``api.bots.LEVELS``: random-greedy, random-intermediate, …) on the preset that stands for the
family (``PRESET_OF``), each seed twice with the sides swapped so both levels see the same
deals, through ``api.bots.arena`` (every decision gets only the acting seat's view and
redacted log, as the server gives them). Most families are two-player matches; the
double-nine family is played only by four as partners, so there each side is two seats of
one level (seats 0 and 2 against 1 and 3) and the model rates it as a team of two, as rated
partner matches are rated. The trains families (``mexican_train``, ``chicken_foot``) are
free-for-alls: four seats, one per level, each seed played in all 24 seatings of the levels (the
order of play matters, not only the seat), ranked by the final totals, lowest first (``api.services.standings``; a tie
rated as rated matches rate it). Then it fits each level's (mu, sigma) with the
rating model rated matches use (``api.services.ratings.MODEL``): every level starts at the
model's default and the recorded results are folded in with ``tau = 0`` (a bot's strength
does not drift, so its sigma is the fit's remaining uncertainty, not a guess at change),
averaged over many shuffles of the results (one pass depends on the order). ``--save`` keeps
the results, ``--load`` fits them again without playing. It prints each pairing's wins, the
table ``api.bots.ratings.FIXED_RATINGS`` holds, and whether the levels' ratings rise in
``LEVELS`` order (random < greedy < intermediate < expert) in every family (exit 1 when not).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import statistics
import sys
import time
from collections.abc import Iterable
from itertools import combinations, permutations
from math import factorial

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from api.bots import LEVELS
from api.bots.arena import BotMatch
from api.rules import resolve_rules
from api.rules.vocabulary import Family
from api.services.ratings import MODEL, tie_orders
from api.services.standings import standing

#: The preset whose matches stand for each family, and its number of players (two sides:
#: one seat each, or two partners each; a free-for-all: one seat per level).
PRESET_OF = {
    Family.DRAW: ("standard-draw", 2),
    Family.BLOCK: ("standard-block", 2),
    Family.FIVES: ("all-fives", 2),
    Family.FIVES_AND_THREES: ("fives-and-threes", 2),
    Family.DOUBLE_NINE: ("double-nine-partners", 4),
    Family.MEXICAN_TRAIN: ("mexican-train", 4),
    Family.CHICKEN_FOOT: ("chicken-foot", 4),
}
#: The families calibrated as one free-for-all of every level at once, not pair by pair.
FREE_FOR_ALL_FAMILIES = frozenset({Family.MEXICAN_TRAIN, Family.CHICKEN_FOOT})
PAIRINGS = tuple(combinations(LEVELS, 2))  # weaker level first

# (family, index in its pairing, the levels by side, each side's rank: 0 first, equal ranks tie)
Result = tuple[str, int, tuple[str, ...], tuple[int, ...]]


def pairings_of(family: Family) -> tuple[tuple[str, ...], ...]:
    """The groups of levels the family's matches are played between (weakest first)."""
    return (tuple(LEVELS),) if family in FREE_FOR_ALL_FAMILIES else PAIRINGS


def _one_match(job: tuple[str, tuple[str, ...], int]) -> Result:
    family, pairing, index = job
    preset, players = PRESET_OF[Family(family)]
    rules = resolve_rules(preset, {}, players)
    assert rules.sides == len(pairing), "one level per side"
    # each seed dealt to every seating of the levels (two sides: swapped; four: all 24, since the
    # turn order matters too, not only the seat: a seat plays after the one to its right)
    seatings = list(permutations(pairing))
    levels = seatings[index % len(seatings)]
    by_seat = [levels[rules.side_of(seat)] for seat in range(players)]
    match = BotMatch(rules, f"calibrate:{family}:{'-'.join(pairing)}:{index // len(seatings)}", by_seat)
    while match.live:
        match.step()
    final = match.events[-1].to_dict()
    assert final["type"] == "match_ended", "a bot match always ends"
    return family, index, levels, standing(final).ranks


def _side_size(family: str) -> int:
    """Seats per side in the family's calibration matches: 1, or 2 for partners."""
    preset, players = PRESET_OF[Family(family)]
    return players // resolve_rules(preset, {}, players).sides


def filtered(results: Iterable[Result]) -> dict[str, dict[str, tuple[float, float]]]:
    """Each family's levels' (mu, sigma) after the model's updates over ``results`` in their order
    (a tie averaged over the orders rated matches average it over: ``tie_orders``)."""
    fitted: dict[str, dict[str, tuple[float, float]]] = {}
    for family, _index, levels, ranks in results:
        table = fitted.setdefault(family, {level: (MODEL.mu, MODEL.sigma) for level in LEVELS})
        size = _side_size(family)
        teams = [[MODEL.rating(*table[level]) for _ in range(size)] for level in levels]
        runs = [MODEL.rate(teams, ranks=list(order), tau=0) for order in tie_orders(ranks)]
        for side, level in enumerate(levels):
            # a team's seats are of one level and one rating: they move alike
            mu = statistics.fmean(run[side][0].mu for run in runs)
            sigma = statistics.fmean(run[side][0].sigma for run in runs)
            table[level] = (mu, sigma)
    return fitted


def fit(results: list[Result], orders: int) -> dict[str, dict[str, tuple[float, float]]]:
    """The filter's answer averaged over ``orders`` shuffles of the results (seeded, so a rerun
    fits the same): one pass of the updates depends on the order the matches are folded in
    (the first few move a rating most), and bot matches have no order."""
    rng = random.Random("calibrate")
    runs = []
    for _ in range(orders):
        shuffled = sorted(results)
        rng.shuffle(shuffled)
        runs.append(filtered(shuffled))
    return {
        family: {
            level: (
                statistics.fmean(run[family][level][0] for run in runs),
                statistics.fmean(run[family][level][1] for run in runs),
            )
            for level in LEVELS
        }
        for family in runs[0]
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument(
        "--matches",
        type=int,
        default=100,
        help="matches per pairing and family (even; a free-for-all's: a multiple of 24)",
    )
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--orders", type=int, default=64, help="shuffles of the results the fit averages over")
    parser.add_argument(
        "--families",
        default=",".join(f.value for f in Family),
        help="comma-separated families to play and print (default all): " + ", ".join(f.value for f in Family),
    )
    parser.add_argument("--save", help="write the recorded results to this JSON file")
    parser.add_argument("--load", help="fit the results of an earlier --save instead of playing")
    args = parser.parse_args(argv)
    matches = max(2, args.matches + args.matches % 2)
    try:
        families = [Family(name.strip()) for name in args.families.split(",") if name.strip()]
    except ValueError as e:
        parser.error(str(e))
    t0 = time.perf_counter()
    if args.load:
        with open(args.load, encoding="utf-8") as f:
            # a result saved before the free-for-alls holds the winning side, not the ranks
            results: list[Result] = [
                (fam, i, tuple(lv), tuple(rk) if isinstance(rk, list) else (int(rk != 0), int(rk != 1)))
                for fam, i, lv, rk in json.load(f)
            ]
        results = [r for r in results if Family(r[0]) in families]
        matches = len(results) // sum(len(pairings_of(family)) for family in families)
        print(f"{len(results)} recorded results from {args.load}")
    else:
        jobs = [
            (family.value, pairing, i)
            for family in families
            for pairing in pairings_of(family)
            for i in range(-(-matches // factorial(len(pairing))) * factorial(len(pairing)))  # whole seatings
        ]
        print(f"{matches} matches per pairing and family ({len(jobs)} in all), {args.jobs} jobs")
        if args.jobs > 1:
            with multiprocessing.Pool(args.jobs) as pool:
                results = list(pool.imap_unordered(_one_match, jobs, chunksize=4))
        else:
            results = [_one_match(job) for job in jobs]
        if args.save:
            with open(args.save, "w", encoding="utf-8") as f:
                json.dump(sorted(results), f)
    wall = time.perf_counter() - t0

    print()
    print(f"{'family':<16} {'pairing':<36} {'wins, weakest first (shared: 1/k each)':<40} {'of':>4}")
    for family in families:
        for pairing in pairings_of(family):
            mine = [r for r in results if r[0] == family.value and tuple(sorted(r[2])) == tuple(sorted(pairing))]
            wins = dict.fromkeys(pairing, 0.0)
            for _f, _i, levels, ranks in mine:
                first = [level for level, rank in zip(levels, ranks, strict=True) if rank == 0]
                for level in first:
                    wins[level] += 1 / len(first)
            shown = " ".join(f"{wins[level]:g}" for level in pairing)
            print(f"{family.value:<16} {'-'.join(pairing):<36} {shown:<40} {len(mine):>4}")

    fitted = fit(results, args.orders)
    ordered = True
    print()
    chosen = "" if len(families) == len(Family) else f" --families {','.join(f.value for f in families)}"
    run = f"--matches {matches}{chosen}: {len(results)} matches, {wall:.0f} s, fit over {args.orders} orders"
    print(f"# bench/calibrate_ratings.py {run}")
    print("FIXED_RATINGS = {")
    for family in families:
        table = fitted[family.value]
        print(f"    Family.{family.name}: {{")
        for level in LEVELS:
            mu, sigma = table[level]
            print(f"        BotLevel.{level.upper()}: BotRating({mu:.2f}, {sigma:.2f}),")
        print("    },")
        mus = [table[level][0] for level in LEVELS]
        ordered = ordered and mus == sorted(mus) and len(set(mus)) == len(mus)
    print("}")
    print()
    print(f"{' < '.join(LEVELS)} in every family: {'yes' if ordered else 'NO'}")
    return 0 if ordered else 1


if __name__ == "__main__":
    sys.exit(main())
