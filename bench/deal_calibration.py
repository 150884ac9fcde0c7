"""How close are the expert's guessed deals to the truth, in double-nine partners against greedy?

    python bench/deal_calibration.py                 # 10 matches, 300 deals per decision, ~2 min
    python bench/deal_calibration.py --matches 20 --deals 500

The expert (both seats of a side) plays ``double-nine-partners`` against greedy seats
(``BotMatch``, seats swapped every other match). At each of its decisions after the lead, the script
reads what the seat knows (``Knowledge.read``, the greedy seats' plays read exactly as
``DOUBLE_NINE_BUDGET`` reads them) and draws ``--deals`` deals of the hidden tiles with each sampler:

* ``slot by slot``: ``Knowledge.sample``, the shipped expert's;
* ``weighed``: the same deals weighed by their correction (``Knowledge.weighed_sample``);
* ``exact``: ``Knowledge.uniform_sample`` (``Budget.exact_deals``);
* ``exact, ties``: the same, weighed by ``Knowledge.tie_odds`` (``Budget.greedy_ties``);
* ``exact, partner read``: exact deals weighed by how likely they make the partner's plays if it
  leans toward shedding weight (``Knowledge.likelihood``, the leaning-or-even reading at the
  budget's ``lean`` and ``stray``; the greedy seats are read by the deals alone).

Each is scored against the true hidden hands (from the engine, for the score only): the *log
score* of the truth, the sum over the unseen tiles of the log of the share of deals that put the
tile where it truly is (smoothed by half a deal), averaged over the decisions; its difference from
the slot-by-slot sampler's on the same decisions, with a standard error; and the mean error of
the pips guessed in the partner's hand and in the two greedy hands together (guess less truth).
The same seeds always give the same figures.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
from collections.abc import Callable

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # run from anywhere in a checkout

from api.bots.arena import BotMatch, next_actor
from api.bots.expert import DOUBLE_NINE_BUDGET
from api.bots.knowledge import Knowledge, lean_powers
from api.rules import Tile, resolve_rules

Deal = tuple[dict[int, list[Tile]], list[Tile]]
Draw = Callable[[Knowledge, random.Random], tuple[Deal, float]]


def _slot_by_slot(know: Knowledge, rng: random.Random) -> tuple[Deal, float]:
    return know.sample(rng), 1.0


def _weighed(know: Knowledge, rng: random.Random) -> tuple[Deal, float]:
    hands, boneyard, weight = know.weighed_sample(rng)
    return (hands, boneyard), weight


def _exact(know: Knowledge, rng: random.Random) -> tuple[Deal, float]:
    return know.uniform_sample(rng) or know.sample(rng), 1.0


def _exact_ties(know: Knowledge, rng: random.Random) -> tuple[Deal, float]:
    deal = know.uniform_sample(rng) or know.sample(rng)
    return deal, know.tie_odds(deal[0])


KINDS = ("partner", "greedy")  # the hidden hands scored apart: the expert's partner's, the greedy seats' together


def _exact_lean(know: Knowledge, rng: random.Random) -> tuple[Deal, float]:
    deal = know.uniform_sample(rng) or know.sample(rng)
    return deal, know.likelihood(deal[0], lean_powers(DOUBLE_NINE_BUDGET.lean), DOUBLE_NINE_BUDGET.stray)


SAMPLERS: dict[str, Draw] = {
    "slot by slot": _slot_by_slot,
    "weighed": _weighed,
    "exact": _exact,
    "exact, ties": _exact_ties,
    "exact, partner read": _exact_lean,
}


def _mean_and_error(values: list[float]) -> tuple[float, float]:
    n = len(values)
    mean = sum(values) / n
    spread = sum((x - mean) ** 2 for x in values) / (n - 1) if n > 1 else 0.0
    return mean, math.sqrt(spread / n)


def _score(know: Knowledge, where: dict[Tile, int], share: dict[tuple[Tile, int], float], deals: int) -> float:
    """The log score of the truth: each unseen tile's share of the deals that put it where it is."""
    holders = len(know.slots) + 1
    score = 0.0
    for t in know.unseen:
        p = share.get((t, where.get(t, -1)), 0.0)
        score += math.log((p * deals + 0.5) / (deals + 0.5 * holders))
    return score


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=10)
    parser.add_argument("--deals", type=int, default=300, help="deals drawn per decision by each sampler")
    args = parser.parse_args()
    rules = resolve_rules("double-nine-partners", {}, 4)
    scores: dict[str, list[float]] = {name: [] for name in SAMPLERS}
    pips: dict[tuple[str, str], list[float]] = {(name, kind): [] for name in SAMPLERS for kind in KINDS}
    for m in range(args.matches):
        levels = ["expert", "greedy"] * 2 if m % 2 == 0 else ["greedy", "expert"] * 2
        match = BotMatch(rules, f"deal-calibration:{m // 2}", levels)
        decision = 0
        while match.live:
            seat = next_actor(match.state)
            if levels[seat] == "expert" and match.state.hand_live and match.state.layout.tiles > 0:
                know = Knowledge.read(*match.inputs(seat))  # its ``shed``: the greedy seats' plays read
                partner = (seat + 2) % 4
                kind_of = {s: KINDS[0] if s == partner else KINDS[1] for s in know.slots}
                where = {t: s for s in know.slots for t in match.state.hands[s]}
                true = {kind: 0 for kind in KINDS}
                for s in know.slots:
                    true[kind_of[s]] += sum(t.pips for t in match.state.hands[s])
                for name, draw in SAMPLERS.items():
                    rng = random.Random(f"{m}:{decision}:{name}")
                    seen: dict[tuple[Tile, int], float] = {}
                    guessed = {kind: 0.0 for kind in KINDS}
                    total = 0.0
                    for _ in range(args.deals):
                        (hands, boneyard), weight = draw(know, rng)
                        total += weight
                        for s, hand in hands.items():
                            for t in hand:
                                seen[(t, s)] = seen.get((t, s), 0.0) + weight
                            guessed[kind_of[s]] += weight * sum(t.pips for t in hand)
                        for t in boneyard:
                            seen[(t, -1)] = seen.get((t, -1), 0.0) + weight
                    share = {key: w / total for key, w in seen.items()}
                    scores[name].append(_score(know, where, share, args.deals))
                    for kind in KINDS:
                        pips[(name, kind)].append(guessed[kind] / total - true[kind])
                decision += 1
            match.step()
    base = scores["slot by slot"]
    print(f"{args.matches} matches, {len(base)} decisions, {args.deals} deals per decision and sampler\n")
    print("| sampler | log score | vs slot by slot | partner's pips: error | greedy hands' pips: error |")
    print("|---|---:|---:|---:|---:|")
    for name, values in scores.items():
        mean, error = _mean_and_error([a - b for a, b in zip(values, base)])
        cells = [_mean_and_error(pips[(name, kind)]) for kind in KINDS]
        errors = " | ".join(f"{m:+.2f} ± {e:.2f}" for m, e in cells)
        print(f"| {name} | {sum(values) / len(values):.3f} | {mean:+.3f} ± {error:.3f} | {errors} |")


if __name__ == "__main__":
    main()
