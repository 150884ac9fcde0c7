"""How long arena pairing takes for a large field (issue 37's 2,000 entrants, as an arena).

    .venv/bin/python bench/arena_pairing.py                      # 2,000 entrants, 12,000 games
    .venv/bin/python bench/arena_pairing.py --entrants 300 --games 3000 --check

Plays an arena of ``--entrants`` bot entrants through the pure core (``api.tournaments``: the same
commands and fold the server runs). The first pairing seats the whole field; then tables end one
at a time, in an order drawn from a seeded random generator (results too: 45% wins each side, 10%
draws), and after every ``--batch`` results the free pool is paired, as the server's sweep does
once a second. Times every ``pair_round`` (the free pool and its points read from the state, the
matching, the events) and prints the first pairing's, the slowest later one's and their pool
sizes, and how many immediate rematches were made. ``--check`` exits 1 when a pairing took 1 s of
CPU or more. Timings are wall time on this machine as it is (it is shared: compare within one run)
and this process's CPU time beside it (what the shared machine's load does not add to).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from datetime import UTC, datetime

from api import tournaments as t

TARGET_SECONDS = 1.0


def build(entrants: int) -> t.TournamentState:
    settings = t.Settings(
        format=t.ARENA,
        preset="standard-block",
        side_size=1,
        rounds=None,
        tiebreaks=(t.BUCHHOLZ,),
        turn_seconds=60,
        duration_minutes=60,
    )
    state = t.replay(t.create("bench", settings))
    for number in range(1, entrants + 1):
        for event in t.register(state, f"bot {number}", [t.Member(t.BOT, level="greedy")], rating=float(number % 97)):
            state = t.apply(state, event)
    for event in t.start(state, datetime(2026, 1, 1, tzinfo=UTC)):
        state = t.apply(state, event)
    return state


def paired(state: t.TournamentState) -> tuple[t.TournamentState, tuple[float, float], int, int]:
    """The state after pairing its free pool; the (wall, CPU) seconds it took, the pool's size, the
    immediate rematches it made."""
    last = {c.id: c.last_opponent for c in t.arena_contenders(state)}
    pool = len(last)
    started, cpu = time.perf_counter(), time.process_time()
    events = t.pair_round(state)
    took = (time.perf_counter() - started, time.process_time() - cpu)
    for event in events:
        state = t.apply(state, event)
    assert state.current is not None
    rematches = sum(1 for table in state.current.tables if last[table.sides[0]] == table.sides[1])
    return state, took, pool, rematches


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entrants", type=int, default=2000)
    parser.add_argument("--games", type=int, default=12000, help="results recorded after the first pairing")
    parser.add_argument("--batch", type=int, default=20, help="results between two pairings")
    parser.add_argument("--seed", type=int, default=37)
    parser.add_argument("--check", action="store_true", help="exit 1 on a miss")
    args = parser.parse_args()
    chance = random.Random(args.seed)
    state = build(args.entrants)
    state, first, first_pool, rematches = paired(state)
    slowest, slowest_pool, pairings = (0.0, 0.0), 0, 1
    for number in range(1, args.games + 1):
        pending = [(r.number, table) for r in state.rounds if not r.ended for table in r.pending()]
        round_, table = chance.choice(pending)
        winner = chance.choices([0, 1, None], weights=[45, 45, 10])[0]
        for event in t.record_result(state, round_, table.number, winner, (chance.randint(0, 100), 0)):
            state = t.apply(state, event)
        if number % args.batch == 0 and t.is_due_for_pairing(state):
            state, took, pool, made = paired(state)
            pairings += 1
            rematches += made
            if took[1] > slowest[1]:
                slowest, slowest_pool = took, pool
    print(f"arena of {args.entrants} entrants, {args.games} results, paired every {args.batch} (seed {args.seed})")
    print(f"first pairing: {first[0]:.3f} s ({first[1]:.3f} s CPU) for a pool of {first_pool}")
    print(
        f"slowest later pairing: {slowest[0]:.3f} s ({slowest[1]:.3f} s CPU) for a pool of {slowest_pool} "
        f"({pairings - 1} later pairings)"
    )
    print(f"immediate rematches made: {rematches}; target < {TARGET_SECONDS:.0f} s of CPU a pairing")
    return 1 if args.check and max(first[1], slowest[1]) >= TARGET_SECONDS else 0


if __name__ == "__main__":
    sys.exit(main())
