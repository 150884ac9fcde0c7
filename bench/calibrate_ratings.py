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
partner matches are rated. Then it fits each level's (mu, sigma) with the
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
from itertools import combinations

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from api.bots import LEVELS
from api.bots.arena import play_match
from api.rules import resolve_rules
from api.rules.vocabulary import Family
from api.services.ratings import MODEL

#: The preset whose matches stand for each family, and its number of players (two sides:
#: one seat each, or two partners each).
PRESET_OF = {
    Family.DRAW: ("standard-draw", 2),
    Family.BLOCK: ("standard-block", 2),
    Family.FIVES: ("all-fives", 2),
    Family.FIVES_AND_THREES: ("fives-and-threes", 2),
    Family.DOUBLE_NINE: ("double-nine-partners", 4),
}
PAIRINGS = tuple(combinations(LEVELS, 2))  # weaker level first

# (family, index in its pairing, the levels by side, the winning side)
Result = tuple[str, int, tuple[str, str], int]


def _one_match(job: tuple[str, tuple[str, str], int]) -> Result:
    family, pairing, index = job
    preset, players = PRESET_OF[Family(family)]
    rules = resolve_rules(preset, {}, players)
    assert rules.sides == 2, "every family is calibrated as two sides"
    levels = pairing if index % 2 == 0 else (pairing[1], pairing[0])  # sides swapped on every other match
    by_seat = [levels[rules.side_of(seat)] for seat in range(players)]
    state = play_match(rules, f"calibrate:{family}:{'-'.join(pairing)}:{index // 2}", by_seat)
    assert state.winner is not None, "a bot match always ends"
    return family, index, levels, state.winner


def _side_size(family: str) -> int:
    """Seats per side in the family's calibration matches: 1, or 2 for partners."""
    _preset, players = PRESET_OF[Family(family)]
    return players // 2


def filtered(results: Iterable[Result]) -> dict[str, dict[str, tuple[float, float]]]:
    """Each family's levels' (mu, sigma) after the model's updates over ``results`` in their order."""
    fitted: dict[str, dict[str, tuple[float, float]]] = {}
    for family, _index, levels, winner in results:
        table = fitted.setdefault(family, {level: (MODEL.mu, MODEL.sigma) for level in LEVELS})
        size = _side_size(family)
        teams = [[MODEL.rating(*table[level]) for _ in range(size)] for level in levels]
        rated = MODEL.rate(teams, ranks=[0 if side == winner else 1 for side in range(2)], tau=0)
        for level, team in zip(levels, rated, strict=True):
            rating = team[0]  # a team's seats are of one level and one rating: they move alike
            table[level] = (rating.mu, rating.sigma)
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
    parser.add_argument("--matches", type=int, default=100, help="matches per pairing and family (even)")
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
            results: list[Result] = [(fam, i, (lv[0], lv[1]), w) for fam, i, lv, w in json.load(f)]
        results = [r for r in results if Family(r[0]) in families]
        matches = len(results) // (len(families) * len(PAIRINGS))
        print(f"{len(results)} recorded results from {args.load}")
    else:
        jobs = [(family.value, pairing, i) for family in families for pairing in PAIRINGS for i in range(matches)]
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
    print(f"{'family':<16} {'pairing':<21} {'weaker wins':>11} {'of':>4}")
    for family in families:
        for pairing in PAIRINGS:
            mine = [r for r in results if r[0] == family.value and tuple(sorted(r[2])) == tuple(sorted(pairing))]
            weaker = sum(1 for _f, _i, levels, winner in mine if levels[winner] == pairing[0])
            print(f"{family.value:<16} {'-'.join(pairing):<21} {weaker:>11} {len(mine):>4}")

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
