"""What the store's reads cost the app: CPU per unit of work that reads a match and its seats.

    .venv/bin/python bench/store_reads.py                # ~20 s: SQLite, then a throwaway PostgreSQL
    .venv/bin/python bench/store_reads.py --reads 10000  # more of each

Every request reads its match and its seats (``uow.matches.get_with_seats``) in a unit of work
of its own: a view, an events page and a summary in a read-only one, an action in a writer's,
locked. This script times those alone, outside any request, as this thread's CPU (on
PostgreSQL that includes the driver's work for each round trip, which is the app's cost, not
the database's), on a SQLite file and on a fresh PostgreSQL cluster on a free 127.0.0.1 port
(started and removed as ``http_pg_workers.py`` does; ``--sqlite-only`` skips it):

* ``read``: a read-only unit of work with the read, the same row each time (a poll);
* ``read, the row moved``: the same, the match's row changed before each read (a view after a
  move: nothing read before can answer it);
* ``locked read``: a writer's unit of work with the read ``FOR UPDATE``, rolled back.

Kinds alternate read by read, so machine noise falls on all alike; medians in microseconds.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable

from _http import machine_line, postgres, sqlite_url

from api.store import Store
from api.store.migrate import upgrade

ROW = {"preset": "standard-draw", "players": 2, "seed": "s" * 64, "seed_commitment": "c" * 64}
SUMMARY = {"status": "playing", "scores": [0, 0], "seats": [{"name": "Ana"}, {"name": "bot"}], "turn": 0}


def measured(url: str, reads: int) -> dict[str, float]:
    """Median CPU microseconds of each kind of read on the database at ``url``."""
    store = Store.from_url(url)
    try:
        upgrade(store.engine)
        with store.unit_of_work() as uow:
            match = uow.matches.add({**ROW, "summary": SUMMARY})
            for seat, name in enumerate(("Ana", "bot")):
                uow.seats.add({"match_id": match.id, "seat": seat, "name": name, "type": "remote"})
            uow.commit()
        moves = iter(range(1, 10**9))

        def read() -> None:
            with store.unit_of_work(readonly=True) as uow:
                uow.matches.get_with_seats(match.id)

        def move() -> None:
            with store.unit_of_work() as uow:
                uow.matches.update(match.id, summary={**SUMMARY, "turn": next(moves) % 2})
                uow.commit()

        def locked() -> None:
            with store.unit_of_work() as uow:
                uow.matches.get_with_seats(match.id, for_update=True)

        kinds: dict[str, tuple[Callable[[], None] | None, Callable[[], None]]] = {
            "read": (None, read),
            "read, the row moved": (move, read),
            "locked read": (None, locked),
        }
        cpu: dict[str, list[float]] = {name: [] for name in kinds}
        for i in range(reads + 200):
            for name, (before, timed) in kinds.items():
                if before is not None:
                    before()
                start = time.thread_time()
                timed()
                if i >= 200:  # the first reads warm the pool, the caches and the statements
                    cpu[name].append(time.thread_time() - start)
        return {name: statistics.median(values) * 1e6 for name, values in cpu.items()}
    finally:
        store.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reads", type=int, default=3000)
    parser.add_argument("--sqlite-only", action="store_true")
    args = parser.parse_args()
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        results["SQLite"] = measured(sqlite_url(tmp), args.reads)
    if not args.sqlite_only:
        with postgres() as url:
            results["PostgreSQL"] = measured(url, args.reads)
    print(f"# {machine_line()}; {args.reads} reads of each kind, in turn")
    print()
    print("| unit of work | " + " | ".join(results) + " |")
    print("|---|" + "---:|" * len(results))
    for kind in next(iter(results.values())):
        print(f"| {kind} | " + " | ".join(f"{figures[kind]:.0f} µs" for figures in results.values()) + " |")


if __name__ == "__main__":
    main()
