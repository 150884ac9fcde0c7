"""Memory of one worker as finished matches pile up: is it flat?

    .venv/bin/python bench/http_memory.py                     # ~3-5 min: 10,000 matches
    .venv/bin/python bench/http_memory.py --matches 2000      # quicker

One gunicorn worker (``gthread``, ``--threads`` 2) on SQLite. This script creates bot-only
matches (``standard-draw``, two bots, greedy vs random, ``{"target": --target}``): each
``POST /v1/matches`` plays the whole match inside the request, so one request = one
finished match in the log and in the worker's snapshot cache (``SNAPSHOT_CACHE_SIZE``,
default 2048, an LRU). Rate limits stay on, with a creation limit high enough for the run,
so the limiter's own storage is part of what is measured. After each checkpoint
(1, 100, 1,000, 2,000, 5,000, 10,000 matches) the script reads the worker's RSS from
``/proc/<pid>/status`` (VmRSS), and reports each against the 1,000-match figure
(target: 10,000 within 20% of 1,000).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time

from _http import Http, Server, machine_line, sqlite_url

TARGET = 1.20
MATCH = lambda target: {"preset": "standard-draw", "rules": {"target": target},  # noqa: E731
                        "seats": [{"name": "g", "type": "bot", "level": "greedy"},
                                  {"name": "r", "type": "bot", "level": "random"}]}


def create_many(base: str, count: int, target: int, clients: int, errors: list) -> int:
    """Create ``count`` bot-only matches over ``clients`` connections; the events they hold."""
    left, lock, events = [count], threading.Lock(), [0]

    def loop():
        http = Http(base)
        while True:
            with lock:
                if left[0] <= 0:
                    break
                left[0] -= 1
            status, body, _ = http.post("/v1/matches", MATCH(target))
            if status != 201 or body["status"] != "ended":
                errors.append(f"{status}: {str(body)[:200]}")
                break
            with lock:
                events[0] += body["seq"]
        http.close()

    threads = [threading.Thread(target=loop) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return events[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=10000)
    parser.add_argument("--target", type=int, default=30)
    parser.add_argument("--threads", type=int, default=2, help="GUNICORN_THREADS of the one worker")
    parser.add_argument("--clients", type=int, default=2)
    parser.add_argument("--cache", type=int, default=None, help="SNAPSHOT_CACHE_SIZE (default: the app's)")
    parser.add_argument("--check", action="store_true", help=f"exit 1 if 10,000 is over {TARGET}x 1,000")
    args = parser.parse_args()

    checkpoints = [c for c in (1, 100, 1000, 2000, 5000, 10000, 20000, 50000) if c <= args.matches]
    if checkpoints[-1] != args.matches:
        checkpoints.append(args.matches)
    env = {"RATE_LIMIT_CREATE": "100000000 per minute"}
    if args.cache is not None:
        env["SNAPSHOT_CACHE_SIZE"] = str(args.cache)
    errors: list[str] = []
    rows = []
    with tempfile.TemporaryDirectory() as tmp, \
            Server(sqlite_url(tmp), workers=1, threads=args.threads, env=env) as server:
        (pid,) = server.worker_pids()
        print(f"# http_memory: {machine_line()}")
        print(f"# gunicorn 1 worker x {args.threads} threads, SQLite, SNAPSHOT_CACHE_SIZE "
              f"{args.cache or 'default (2048)'}; bot-only standard-draw to {args.target}, "
              f"{args.clients} client connections")
        print(f"worker RSS before any match: {server.rss_kib(pid) / 1024:.1f} MiB", flush=True)
        done, events, start = 0, 0, time.perf_counter()
        for checkpoint in checkpoints:
            events += create_many(server.url, checkpoint - done, args.target, args.clients, errors)
            done = checkpoint
            if errors:
                break
            rss = server.rss_kib(pid) / 1024
            rows.append((checkpoint, rss, events, time.perf_counter() - start))
            print(f"  {checkpoint:>6} matches ({events} events): RSS {rss:.1f} MiB "
                  f"({time.perf_counter() - start:.0f} s)", flush=True)
        assert server.worker_pids() == [pid], "the worker was replaced during the run"
    if errors:
        print("errors:", errors[:5])
        return 1
    ref = next((rss for n, rss, _, _ in rows if n == 1000), rows[0][1])
    print("\n| finished matches | events stored | worker RSS | vs 1,000 matches |")
    print("|---|---|---|---|")
    for n, rss, ev, _ in rows:
        print(f"| {n:,} | {ev:,} | {rss:.1f} MiB | {rss / ref:.2f} |")
    worst = max(rss for _, rss, _, _ in rows) / ref
    print(f"\nlargest / 1,000-match RSS = {worst:.2f} (target <= {TARGET})")
    return 1 if args.check and worst > TARGET else 0


if __name__ == "__main__":
    sys.exit(main())
