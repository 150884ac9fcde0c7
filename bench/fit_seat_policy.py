"""Fit the honest rollouts' seat policy to the expert's own choices (issue 33, double-nine partners).

    python bench/fit_seat_policy.py --matches 160 --jobs 1        # play, fit, print the weights
    python bench/fit_seat_policy.py --matches 160 --policy fitted   # the data of an expert on those weights

The expert plays double-nine by honest rollouts (``api/bots/honest.py``): on each guessed deal
every candidate is played out with its own side (itself later, and its partner, an expert too)
played by the seat policy, a fixed scoring of each play by what that seat can see
(``honest.FEATURES``). Its choice is one step of improvement over that policy, and the better the
policy foresees what the side will really play, the truer the rollouts. This plays matches of
``double-nine-partners``, experts against greedy sides on seeds of its own (not the strength
benchmark's), records every decision of an expert seat with a real choice after the lead (the
rollouts never lead): each play it could make, what the seat policy reads of it and which the
expert chose. It then fits the weights of a conditional logit model (the chosen play's odds
against the others', ``exp(weights · features)``) by gradient ascent, pure standard library, on
the first three quarters of the matches, and prints how often the hand-set weights
(``HAND_WEIGHTS``) and the fitted ones pick the expert's play on the last quarter, and the
weights to commit as ``honest.FITTED_WEIGHTS``.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import multiprocessing
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from api.bots import level_budget
from api.bots.actions import plays_of, to_move
from api.bots.arena import BotMatch
from api.bots.expert import honest_rollout
from api.bots.honest import FEATURES, HAND_WEIGHTS
from api.bots.knowledge import Knowledge
from api.rules import resolve_rules
from api.rules.layout import LEFT, RIGHT

PRESET = "double-nine-partners"
# A decision: each play's features, and the index of the expert's.
Decision = tuple[list[tuple[float, ...]], int]


def decisions_of_match(job: tuple[int, str]) -> list[Decision]:
    """Play one match (experts against greedy sides, seats swapped on odd indices) and return the
    expert seats' decisions."""
    index, policy = job
    rules = resolve_rules(PRESET, {}, 4)
    budget = dataclasses.replace(level_budget("expert", rules.set), seat_policy=policy)
    levels = ["expert" if rules.side_of(s) == index % 2 else "greedy" for s in range(4)]
    out: list[Decision] = []

    def observe(seat, level, seconds, view, log, action) -> None:
        if level != "expert":
            return
        plays = plays_of(view["legal_actions"])
        if len(plays) < 2 or action.get("type") != "play":
            return
        know = Knowledge.read(view, log)
        if know.layout.tiles == 0:
            return  # a lead: the rollouts never lead
        moves = [to_move(a) for a in plays]
        honest = honest_rollout(know, moves, budget)
        if honest is None:
            return
        left, right = know.layout.values[LEFT], know.layout.values[RIGHT]
        assert left is not None and right is not None
        bits = honest.line.bits
        hand = bits.mask_of(know.hand)
        options = honest.features(hand, seat, left, right, honest.lacks, honest.table)
        if len(options) < 2:
            return
        move = to_move(action)
        chosen_bit = bits.bit[move[1]]
        on_left = move[2] == LEFT or left == right
        picked = [i for i, (bit, on_a, _f) in enumerate(options) if bit == chosen_bit and on_a == on_left]
        if len(picked) == 1:
            out.append(([f for _b, _o, f in options], picked[0]))

    match = BotMatch(rules, f"fit-seat-policy:{index // 2}", levels, budget)
    while match.live:
        match.step(observe)
    return out


def agreement(decisions: list[Decision], weights: tuple[float, ...]) -> float:
    """The share of decisions where ``weights`` score the expert's play highest (ties: the first)."""
    hits = 0
    for options, chosen in decisions:
        scores = [sum(w * f for w, f in zip(weights, features)) for features in options]
        best = max(range(len(scores)), key=lambda i: (scores[i], -i))
        hits += best == chosen
    return hits / max(1, len(decisions))


def fit(decisions: list[Decision], steps: int = 400, rate: float = 0.5, l2: float = 1e-3) -> tuple[float, ...]:
    """Conditional logit weights by full-batch gradient ascent on standardized features."""
    k = len(FEATURES)
    rows = [f for options, _c in decisions for f in options]
    mean = [sum(r[j] for r in rows) / len(rows) for j in range(k)]
    spread = [math.sqrt(sum((r[j] - mean[j]) ** 2 for r in rows) / len(rows)) or 1.0 for j in range(k)]
    scaled = [([tuple((f[j] - mean[j]) / spread[j] for j in range(k)) for f in options], c) for options, c in decisions]
    w = [0.0] * k
    for _ in range(steps):
        grad = [0.0] * k
        for options, chosen in scaled:
            scores = [sum(wj * fj for wj, fj in zip(w, f)) for f in options]
            top = max(scores)
            exps = [math.exp(s - top) for s in scores]
            total = sum(exps)
            for f, e in zip(options, exps):
                p = e / total
                for j in range(k):
                    grad[j] -= p * f[j]
            for j in range(k):
                grad[j] += options[chosen][j]
        for j in range(k):
            w[j] += rate * (grad[j] / len(scaled) - l2 * w[j])
    raw = [w[j] / spread[j] for j in range(k)]
    scale = 2.0 / raw[0] if raw[0] > 0 else 1.0  # in half-pips: 2 per pip shed, as the hand-set weights
    return tuple(round(x * scale, 2) for x in raw)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=160)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--policy", default="hand", help="the seat policy the experts play on (Budget.seat_policy)")
    args = parser.parse_args(argv)
    jobs = [(i, args.policy) for i in range(args.matches)]
    if args.jobs > 1:
        with multiprocessing.Pool(args.jobs) as pool:
            per_match = pool.map(decisions_of_match, jobs)
    else:
        per_match = [decisions_of_match(j) for j in jobs]
    cut = len(per_match) * 3 // 4
    train = [d for m in per_match[:cut] for d in m]
    held = [d for m in per_match[cut:] for d in m]
    print(f"{args.matches} matches, {len(train)} decisions to fit, {len(held)} held out")
    weights = fit(train)
    print(f"hand-set weights pick the expert's play: {agreement(held, HAND_WEIGHTS):.1%} of the held-out decisions")
    fitted, held_out = agreement(train, weights), agreement(held, weights)
    print(f"fitted weights pick it: {held_out:.1%} (on the fitted ones: {fitted:.1%})")
    for name, w in zip(FEATURES, weights):
        print(f"  {name:<20} {w:8.2f}")
    print(f"FITTED_WEIGHTS = {weights}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
