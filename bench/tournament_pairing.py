"""How long Swiss pairing takes for a large field (issue 37: 2,000 entrants in under 1 s).

    .venv/bin/python bench/tournament_pairing.py                    # 2,000 entrants, 8 rounds
    .venv/bin/python bench/tournament_pairing.py --entrants 257 --rounds 9 --check

Plays a Swiss of ``--entrants`` bot entrants through the pure core (``api.tournaments``: the
same commands and fold the server runs), each table's result drawn from a seeded random
generator (wins, some draws), and times ``pair_round`` of every round: the contenders read
from the state, the score-group matching, the events. Prints each round's pairing time, the
slowest, and what the pairings were like (rematches, byes, tables whose sides differ in match
points). ``--check`` exits 1 when a round took 1 s or more, or any rematch or second bye was
made. Timings are wall time on this machine as it is (it is shared: compare within one run).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter

from api import tournaments as t

TARGET_SECONDS = 1.0


def build(entrants: int, rounds: int) -> t.TournamentState:
    settings = t.Settings(
        format=t.SWISS,
        preset="standard-block",
        side_size=1,
        rounds=rounds,
        tiebreaks=(t.BUCHHOLZ, t.SONNEBORN_BERGER, t.WIN_MARGIN),
        turn_seconds=60,
    )
    state = t.replay(t.create("bench", settings))
    for number in range(1, entrants + 1):
        for event in t.register(state, f"bot {number}", [t.Member(t.BOT, level="greedy")], rating=float(number % 97)):
            state = t.apply(state, event)
    for event in t.start(state):
        state = t.apply(state, event)
    return state


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entrants", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--seed", type=int, default=37)
    parser.add_argument("--check", action="store_true", help="exit 1 on a miss")
    args = parser.parse_args()
    chance = random.Random(args.seed)
    state = build(args.entrants, args.rounds)
    print(f"Swiss of {args.entrants} entrants, {args.rounds} rounds (seed {args.seed})")
    print("round  pairing s  tables  bye  tables of unequal points")
    slowest = 0.0
    met: set[frozenset[str]] = set()
    rematches = 0
    for _ in range(args.rounds):
        points = {c.id: c.match_points for c in t.contenders(state)}
        started = time.perf_counter()
        events = t.pair_round(state)
        took = time.perf_counter() - started
        slowest = max(slowest, took)
        for event in events:
            state = t.apply(state, event)
        current = state.current
        assert current is not None
        pairs = {frozenset(table.sides) for table in current.tables}
        rematches += len(pairs & met)
        met |= pairs
        unequal = sum(1 for table in current.tables if points[table.sides[0]] != points[table.sides[1]])
        print(f"{current.number:5}  {took:9.3f}  {len(current.tables):6}  {current.bye or '-':>4}  {unequal}")
        for table in current.pending():
            winner = chance.choices([0, 1, None], weights=[45, 45, 10])[0]
            scores = (chance.randint(0, 100), chance.randint(0, 100))
            for event in t.record_result(state, current.number, table.number, winner, scores):
                state = t.apply(state, event)
    byes = Counter(r.bye for r in state.rounds if r.bye is not None)
    second_byes = sum(1 for count in byes.values() if count > 1)
    print(
        f"slowest pairing: {slowest:.3f} s (target < {TARGET_SECONDS:.0f} s); rematches: {rematches}; "
        f"entrants with a second bye: {second_byes}; ended: {state.status == t.ENDED}"
    )
    missed = slowest >= TARGET_SECONDS or rematches or second_byes
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    sys.exit(main())
