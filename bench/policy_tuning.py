"""The honest rollouts' seat policy played alone against greedy sides, and tuned for it.

    python bench/policy_tuning.py --deals 5000                       # the shipped policy's share
    python bench/policy_tuning.py --deals 5000 --policy tuned        # a named one (honest.POLICIES)
    python bench/policy_tuning.py --deals 5000 --weights ends=-1,follow=3   # the shipped, some weights changed
    python bench/policy_tuning.py --deals 20000 --tune               # a coordinate search from --weights

The expert on the double-nine set (``DOUBLE_NINE_BUDGET``) picks its plays by honest rollouts
(``api/bots/honest.py``): its own side's seats play the seat policy there, the greedy seats play
as greedy. It is one step of policy improvement over that policy, so a policy that wins more
hands on its own should make the rollouts' values truer. This plays the policy alone as a bot:
``double-nine-partners`` hands (10 tiles each of the double-nine set, 15 out of play, a leader
drawn at random who leads its heaviest tile, as greedy leads), every hand played out by
``HonestRollout.play`` on its TRUE deal with one side's seats playing the policy (each reads only
its own hand, the ends and the knocks it saw: it is honest) and the other's as greedy. Each deal
is played twice, the policy on each side in turn (seats swapped), the greedy ties on the same
randomness, so luck evens out and two policies meet the same hands. Prints the policy side's
share of the decided hands with a 95% Wilson interval, split by how the hands ended.

``--tune`` searches the weights one at a time (each tried a step up and a step down, the steps
halving when none helps) for the share on these deals; confirm its result on fresh deals
(``--offset``). Deals are numbered: ``--offset N --deals M`` plays deals N to N + M - 1.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import random
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # run from anywhere in a checkout
# The sibling scripts, as a script sees them (also when the tests import this as bench.policy_tuning).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from strength import wilson

from api.bots.endgame import ExactLine, SetBits
from api.bots.honest import POLICIES, HonestRollout, SeatPolicy, seat_policy
from api.rules import resolve_rules

PRESET = "double-nine-partners"


class _Watched(ExactLine):
    """An ``ExactLine`` that remembers how its last hand ended (``out_side``: None when blocked)."""

    last_out: int | None = None

    def ended(self, hands: list[int], out_side: int | None) -> float:
        self.last_out = out_side
        return super().ended(hands, out_side)


@dataclass
class Tally:
    """The policy side's decided hands: [won, lost] of the blocked ones and of those a seat went out of."""

    blocked: list[int] = dataclasses.field(default_factory=lambda: [0, 0])
    out: list[int] = dataclasses.field(default_factory=lambda: [0, 0])

    @property
    def won(self) -> int:
        return self.blocked[0] + self.out[0]

    @property
    def decided(self) -> int:
        return sum(self.blocked) + sum(self.out)

    @property
    def share(self) -> float:
        return self.won / max(1, self.decided)


def deals(offset: int, count: int) -> Iterator[tuple[list[int], int, int]]:
    """Deals ``offset`` to ``offset + count - 1``: (the four hands as masks, the leader, a seed for
    the greedy ties), each from its own number alone."""
    rules = resolve_rules(PRESET, {}, 4)
    bits = SetBits.of(rules.set)
    tiles = [1 << i for i in range(len(bits.by_weight))]
    size = rules.hand_size
    for index in range(offset, offset + count):
        rng = random.Random(f"policy-tuning:{index}")
        order = tiles[:]
        rng.shuffle(order)
        hands = [sum(order[s * size : (s + 1) * size]) for s in range(4)]
        yield hands, rng.randrange(4), rng.getrandbits(64)


class PolicySide:
    """Hands played with one side's seats on the seat policy of ``weights`` and the other's as greedy."""

    def __init__(self, weights: SeatPolicy, side: int) -> None:
        rules = resolve_rules(PRESET, {}, 4)
        sides = [rules.side_of(s) for s in range(4)]
        self.side = side
        # a hand's value is its points to the policy side, signed (nothing for the match)
        self.line = _Watched(sides, sides.index(side), [0, 0], 10**9, 0.0, rules.hand_scoring, 0, rules.set)
        greedy = frozenset(s for s in range(4) if sides[s] != side)
        self.rollout = HonestRollout(self.line, greedy, [0, 0, 0, 0], weights=weights)

    def play(self, hands: list[int], leader: int, seed: int) -> tuple[int | None, bool]:
        """One hand on its true deal, the leader leading its heaviest tile: (the winning side, None
        on a tie; whether it blocked)."""
        bits = self.line.bits
        hands = hands[:]
        lead = hands[leader] & -hands[leader]  # the heaviest (``SetBits`` numbers heaviest first)
        hands[leader] ^= lead
        i = lead.bit_length() - 1
        rng = random.Random(seed)
        value = self.rollout.play(hands, bits.highs[i], bits.lows[i], (leader + 1) % 4, rng, placed=lead)
        blocked = self.line.last_out is None
        if value == 0:
            return None, blocked
        return (self.side if value > 0 else 1 - self.side), blocked


def measure(weights: SeatPolicy, offset: int, count: int) -> Tally:
    """The policy side's decided hands over the deals, each played with the policy on either side."""
    tally = Tally()
    players = [PolicySide(weights, side) for side in (0, 1)]
    for hands, leader, seed in deals(offset, count):
        for player in players:
            winner, blocked = player.play(hands, leader, seed)
            if winner is None:
                continue
            kind = tally.blocked if blocked else tally.out
            kind[0 if winner == player.side else 1] += 1
    return tally


def named(policy: str, weights: str) -> SeatPolicy:
    """``--policy tuned --weights ends=-1,follow=3``: read by the budgets' own parser
    (``honest.seat_policy``, where the same is written ``tuned+ends:-1+follow:3``)."""
    changes = "".join(f"+{item.strip().replace('=', ':', 1)}" for item in weights.split(",") if item.strip())
    return seat_policy(policy + changes)


def tune(start: SeatPolicy, offset: int, count: int, names: list[str], step: int, log=print) -> SeatPolicy:
    """A coordinate search: each weight in turn a step up and down, kept when the share rises;
    the step halves when a round changes nothing, until it is below 1."""
    best = start
    best_won = measure(best, offset, count).won
    log(f"start {best} won {best_won}")
    while step >= 1:
        moved = False
        for name in names:
            for delta in (step, -step):
                trial = dataclasses.replace(best, **{name: getattr(best, name) + delta})
                if name == "follow_cap" and trial.follow_cap < 0:
                    continue
                won = measure(trial, offset, count).won
                log(f"  {name}={getattr(trial, name):>3} won {won} ({won - best_won:+d})")
                if won > best_won:
                    best, best_won, moved = trial, won, True
                    break
        log(f"step {step}: {best} won {best_won}")
        if not moved:
            step //= 2
    return best


def report(label: str, tally: Tally, seconds: float) -> None:
    lo, hi = wilson(tally.won, tally.decided)
    blo = tally.blocked[0] / max(1, sum(tally.blocked))
    olo = tally.out[0] / max(1, sum(tally.out))
    print(
        f"| {label} | {tally.decided} | {tally.share:.1%} [{lo:.1%}, {hi:.1%}] | "
        f"{blo:.1%} of {sum(tally.blocked)} / {olo:.1%} of {sum(tally.out)} | {tally.decided / seconds:.0f} |"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=5000, help="deals, each played twice (default 5000)")
    parser.add_argument("--offset", type=int, default=0, help="the first deal's number")
    parser.add_argument("--policy", default="shipped", help="a named policy: " + ", ".join(POLICIES))
    parser.add_argument("--weights", default="", help="its weights changed, e.g. ends=-1,follow=3")
    parser.add_argument("--tune", action="store_true", help="search the weights on these deals")
    parser.add_argument(
        "--names",
        default=",".join(f.name for f in dataclasses.fields(SeatPolicy)),
        help="the weights --tune moves (default: all)",
    )
    parser.add_argument("--step", type=int, default=4, help="--tune's first step (default 4)")
    args = parser.parse_args(argv)
    try:
        weights = named(args.policy, args.weights)
    except ValueError as refused:
        parser.error(str(refused))
    if args.tune:
        weights = tune(weights, args.offset, args.deals, args.names.split(","), args.step)
        print(f"tuned: {weights}")
    t0 = time.perf_counter()
    tally = measure(weights, args.offset, args.deals)
    seconds = time.perf_counter() - t0
    print(f"deals {args.offset} to {args.offset + args.deals - 1}, each played twice (seats swapped)")
    print("| policy | decided hands | policy side's share | blocked / went out | hands/s |")
    print("|---|---:|---|---|---:|")
    report(f"{weights}", tally, seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
