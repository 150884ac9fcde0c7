"""How well the expert reads the hidden hands from the other seats' plays.

    pip install -e '.[bench]'
    python bench/reading.py --jobs 2                     # 100 deal pairs vs alphabeta32
    python bench/reading.py --opponent greedy --jobs 2   # against heaviest-first seats

The expert weighs its guesses of the hidden hands by how likely each makes what the other
seats chose to play (``Knowledge.likelihood``). This measures that reading against the
truth. The expert (both seats of a side) plays ``bench/versus.py``'s 4p partner-block hands
against an opponent side, and at each of its decisions with a choice the script takes what
the seat knows (``Knowledge.read`` of its view and redacted log: the truth is never shown
to the bot) and the true hidden hands (from the engine, for the score only).

The score of a reading is the *log predictive score* of the truth: the log of the truth's
likelihood over the mean likelihood of ``--guesses`` guesses drawn as the expert draws them
(``Knowledge.sample``, which knows the knocks and the forced lead), in nats, averaged over
the decisions where the seats read made a choice. It is how much more (above 0) or less
(below 0) likely the weighing makes the true hands than the unweighed guesses do: reading
nothing scores 0, and a reading that leans the wrong way scores below 0. It is a proper
score: no reading beats the true model of the players on average.

Readings compared (``lean`` 2.5, the expert's):

* ``every seat leaning``: each choice in proportion to ``lean ** key``, every seat (the
  expert's reading before the leaning-or-even one: ``odds=1, stray=0``);
* ``leaning or even``: each seat at even odds a leaning player (straying on ``Budget.stray`` of
  its choices) or an even one (``knowledge.LEANING_ODDS``): the expert's reading of the
  opponents, and of its partner before the partnership convention;
* ``the convention for the partner``: the expert's: the opponents leaning or even, the partner
  (an expert too, playing ``Budget.signal``) read by the convention (``signal_lean``).

Reported separately for the partner's choices, the opponents', and all of them. The same
deals and seeds always give the same figures.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import random
import sys
import time
from dataclasses import dataclass, replace

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # run from anywhere in a checkout
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import versus

from api.bots import DEFAULT_BUDGET, LEVELS
from api.bots.expert import signalling_partner
from api.bots.knowledge import LEANING_ODDS, Knowledge, lean_powers, signal_powers
from api.rules.state import MatchState
from api.rules.tiles import Tile

Json = versus.Json

Reading = tuple[str, float, float, bool]  # (name, stray, odds, the partner read by the convention)
READINGS: tuple[Reading, ...] = (
    ("every seat leaning", 0.0, 1.0, False),
    ("leaning or even", DEFAULT_BUDGET.stray, LEANING_ODDS, False),
    ("the convention for the partner (the expert's)", DEFAULT_BUDGET.stray, LEANING_ODDS, True),
)
GROUPS = ("partner", "opponents", "all")
GROUP_LABELS = {"partner": "the partner's choices", "opponents": "the opponents' choices", "all": "all choices"}


@dataclass(frozen=True)
class Job:
    index: int
    seed: int
    opponent: str
    guesses: int


def opponent_player(name: str) -> versus.Player:
    if name == "alphabeta32":
        return versus.AlphabetaAnchor(32)
    return versus.boneyard_player(name)


def score_decision(
    know: Knowledge, truth: dict[int, list[Tile]], guesses: list[dict[int, list[Tile]]]
) -> dict[tuple[str, str], float]:
    """Each reading's log score of the truth, for each group of seats that made a choice."""
    side_of, mine = know.rules.side_of, know.rules.side_of(know.seat)
    powers = lean_powers(DEFAULT_BUDGET.lean)
    signals = signal_powers(DEFAULT_BUDGET.signal_lean)
    partner = signalling_partner(know)
    scores: dict[tuple[str, str], float] = {}
    for group in GROUPS:
        chosen = [c for c in know.choices if group == "all" or (side_of(c.seat) == mine) == (group == "partner")]
        if not chosen:
            continue
        seen = replace(know, choices=chosen)
        for name, stray, odds, convention in READINGS:
            signaller = partner if convention else None
            true = seen.likelihood(truth, powers, stray, odds, signaller, signals)
            guessed = (seen.likelihood(g, powers, stray, odds, signaller, signals) for g in guesses)
            scores[(name, group)] = math.log(true / (math.fsum(guessed) / len(guesses)))
    return scores


def play_pair(job: Job) -> list[dict[tuple[str, str], float]]:
    """Deal ``job.index``, both side arrangements: the log scores at every expert decision."""
    rules = versus.four_player_rules()
    expert, other = versus.boneyard_player("expert"), opponent_player(job.opponent)
    out: list[dict[tuple[str, str], float]] = []
    rng = random.Random(f"reading:{job.seed}:{job.index}")
    seed = f"versus:{job.seed}:4p:{job.index}"  # bench/versus.py's deals
    for side in (0, 1):

        def watch(state: MatchState, seat: int, log: list[Json], side: int = side) -> None:
            if rules.side_of(seat) != side:
                return
            know = Knowledge.read(versus.view(state, seat), log)
            if not know.choices:
                return
            truth = {s: list(state.hands[s]) for s in know.slots}
            guesses = [know.sample(rng)[0] for _ in range(job.guesses)]
            out.append(score_decision(know, truth, guesses))

        players = [expert if rules.side_of(s) == side else other for s in range(4)]
        versus.play_hand(rules, seed, players, side, watch, boneyard_level="expert")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=100, help="deal pairs (each deal played twice, sides swapped)")
    parser.add_argument("--opponent", default="alphabeta32", help="alphabeta32, or a Boneyard level (greedy...)")
    parser.add_argument("--seed", type=int, default=1, help="bench/versus.py's deals of this seed")
    parser.add_argument("--guesses", type=int, default=200, help="guesses drawn at each decision")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)
    if args.opponent != "alphabeta32" and args.opponent not in LEVELS:
        parser.error(f"unknown opponent {args.opponent!r}")
    jobs = [Job(i, args.seed, args.opponent, args.guesses) for i in range(args.pairs)]
    began = time.perf_counter()
    if args.jobs > 1:
        with multiprocessing.Pool(args.jobs) as pool:
            results = pool.map(play_pair, jobs)
    else:
        results = [play_pair(j) for j in jobs]
    rows = [r for pair in results for r in pair]
    print(f"Command: {' '.join([os.path.basename(sys.executable), *sys.argv])}")
    print(f"Expert side vs {args.opponent}, 4p partner block, {args.pairs} deal pairs of seed {args.seed};")
    print(f"log predictive score of the true hidden hands (nats; {args.guesses} guesses per decision)\n")
    print("| reading | " + " | ".join(GROUP_LABELS[g] for g in GROUPS) + " |")
    print("|---|" + "---:|" * len(GROUPS))
    for name, _stray, _odds, _convention in READINGS:
        cells = []
        for group in GROUPS:
            values = [r[(name, group)] for r in rows if (name, group) in r]
            cells.append(f"{math.fsum(values) / len(values):+.2f} (n={len(values)})" if values else "-")
        print(f"| {name} | " + " | ".join(cells) + " |")
    print(f"\nwall time {time.perf_counter() - began:.0f} s ({args.jobs} jobs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
