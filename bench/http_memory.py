"""Memory as finished matches pile up: is it flat, in the web worker and in the autoplay runner?

    .venv/bin/python bench/http_memory.py                     # ~15 min: 10,000 matches
    .venv/bin/python bench/http_memory.py --matches 2000      # ~3 min

One gunicorn worker (the project's gevent worker) on SQLite and, beside it, the autoplay runner
(``flask --app wsgi boneyard autoplay``, as ``scripts/run`` starts it). ``POST /v1/matches`` no
longer plays a match of only computer players: it answers at once and the runner plays the
match, one move per step, each step its own short transaction. So finished matches now pile up
in two processes, and both are measured:

* the **runner** holds in its snapshot cache every match it plays;
* the **worker** holds every match a client asks about: after a match has ended, this script
  reads it once, ``GET /v1/matches/{id}`` (the summary a spectator asks for), which folds its
  whole log into the worker's cache, as the in-request play used to leave it there.

Both caches are LRUs of ``SNAPSHOT_CACHE_SIZE`` (default 2048) match states. The script creates
bot-only matches (``standard-draw``, greedy vs random, ``{"target": --target}``) and keeps up to
``--window`` of them unfinished at once; the server's ``BOT_MATCHES_PER_ADDRESS`` is set to that
window, so the cap is in force (a 409 from it fails the run). The runner runs with
``AUTOPLAY_PACE_SECONDS=0``: the default pause of 0.1 s between two moves of a match would make
the run last hours, and it changes when moves are stored, not what is stored or kept. Every
0.2 s one ``GET /v1/matches?status=playing`` tells which matches have ended. At each checkpoint
(1, 100, 1,000, 2,000, 5,000, 10,000 finished matches) the script lets every unfinished match
end and be read, then takes the VmRSS of the worker and of the runner from ``/proc/<pid>/status``
and reports each against its 1,000-match figure (target: 10,000 within 20% of 1,000, for both).
Rate limits stay on, with a creation limit high enough for the run; their counters live in the
database (``RATELIMIT_STORAGE_URI``'s default ``database://``), not in either process.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time

from _http import AutoplayRunner, Http, Server, machine_line, sqlite_url

TARGET = 1.20
POLL_SECONDS = 0.2
MAX_LIST = 100  # the list endpoint's largest page: every unfinished match fits in one


def match_body(target):
    return {
        "preset": "standard-draw",
        "rules": {"target": target},
        "seats": [{"name": "g", "type": "bot", "level": "greedy"}, {"name": "r", "type": "bot", "level": "random"}],
    }


class Piler:
    """Creates bot-only matches, at most ``window`` unfinished at once, and reads each ended one."""

    def __init__(self, base: str, target: int, window: int):
        self.http, self.target, self.window = Http(base), target, window
        self.pending: set[str] = set()
        self.created = self.finished = self.events = 0
        self.wait_seconds = 0.0  # time spent waiting for the runner with nothing left to create

    def until(self, finished: int) -> None:
        """Create and follow matches until ``finished`` have ended and been read, none pending."""
        while self.finished < finished:
            while len(self.pending) < self.window and self.created < finished:
                status, body, _ = self.http.post("/v1/matches", match_body(self.target))
                if status != 201 or body["status"] == "waiting":
                    raise RuntimeError(f"create: {status}: {str(body)[:300]}")
                self.created += 1
                self.pending.add(body["id"])
            started = time.perf_counter()
            time.sleep(POLL_SECONDS)
            status, page, _ = self.http.get(f"/v1/matches?status=playing&limit={MAX_LIST}")
            if status != 200:
                raise RuntimeError(f"list: {status}: {str(page)[:300]}")
            playing = {item["id"] for item in page["items"]}
            for match_id in self.pending - playing:
                status, summary, _ = self.http.get(f"/v1/matches/{match_id}")
                if status != 200 or summary["status"] != "ended":
                    raise RuntimeError(f"{match_id} is not playing, yet: {status}: {str(summary)[:300]}")
                self.pending.discard(match_id)
                self.finished += 1
                self.events += summary["seq"]
            if self.created >= finished:
                self.wait_seconds += time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=10000)
    parser.add_argument("--target", type=int, default=30)
    parser.add_argument(
        "--window",
        type=int,
        default=40,
        help=f"unfinished matches at once (BOT_MATCHES_PER_ADDRESS too; at most {MAX_LIST})",
    )
    parser.add_argument("--cache", type=int, default=None, help="SNAPSHOT_CACHE_SIZE (default: the app's)")
    parser.add_argument(
        "--check",
        action="store_true",
        help=f"exit 1 if the largest RSS of either process is over {TARGET}x its 1,000-match RSS",
    )
    args = parser.parse_args()
    if not 1 <= args.window <= MAX_LIST:
        parser.error(f"--window must be 1 to {MAX_LIST}")

    checkpoints = [c for c in (1, 100, 1000, 2000, 5000, 10000, 20000, 50000) if c <= args.matches]
    if checkpoints[-1] != args.matches:
        checkpoints.append(args.matches)
    env = {
        "RATE_LIMIT_CREATE": "100000000 per minute",
        "BOT_MATCHES_PER_ADDRESS": str(args.window),
        "AUTOPLAY_PACE_SECONDS": "0",
    }
    if args.cache is not None:
        env["SNAPSHOT_CACHE_SIZE"] = str(args.cache)
    rows = []
    with (
        tempfile.TemporaryDirectory() as tmp,
        Server(sqlite_url(tmp), workers=1, env=env) as server,
        AutoplayRunner(server) as runner,
    ):
        (pid,) = server.worker_pids()
        assert runner.proc is not None  # started on entering
        print(f"# http_memory: {machine_line()}")
        print(
            f"# gunicorn 1 gevent worker + the autoplay runner (pace 0), SQLite, SNAPSHOT_CACHE_SIZE "
            f"{args.cache or 'default (2048)'}; bot-only standard-draw to {args.target}, "
            f"up to {args.window} unfinished at once; each ended match read once through the worker"
        )
        time.sleep(1.0)  # the runner's interpreter and app start
        print(
            f"RSS before any match: worker {server.rss_kib(pid) / 1024:.1f} MiB, "
            f"runner {server.rss_kib(runner.proc.pid) / 1024:.1f} MiB",
            flush=True,
        )
        piler, start = Piler(server.url, args.target, args.window), time.perf_counter()
        for checkpoint in checkpoints:
            piler.until(checkpoint)
            worker, player = server.rss_kib(pid) / 1024, server.rss_kib(runner.proc.pid) / 1024
            rows.append((checkpoint, piler.events, worker, player))
            print(
                f"  {checkpoint:>6} matches ({piler.events} events): RSS worker {worker:.1f} MiB, "
                f"runner {player:.1f} MiB ({time.perf_counter() - start:.0f} s; runner CPU "
                f"{runner.cpu_seconds():.0f} s)",
                flush=True,
            )
        piler.http.close()
        elapsed = time.perf_counter() - start
        assert server.worker_pids() == [pid], "the worker was replaced during the run"
        assert runner.proc.poll() is None, "the autoplay runner exited during the run"
        runner_errors = [
            line
            for line in runner.log.read_text(errors="replace").splitlines()
            if "Traceback" in line or " ERROR " in line
        ]
    if runner_errors:
        print(f"autoplay runner log had {len(runner_errors)} error lines, first: {runner_errors[:3]}")
    ref = next((row for row in rows if row[0] == 1000), rows[0])
    print("\n| finished matches | events stored | worker RSS | vs 1,000 | runner RSS | vs 1,000 |")
    print("|---|---|---|---|---|---|")
    for n, ev, worker, player in rows:
        print(
            f"| {n:,} | {ev:,} | {worker:.1f} MiB | {worker / ref[2]:.2f} | {player:.1f} MiB | {player / ref[3]:.2f} |"
        )
    worst_worker = max(row[2] for row in rows) / ref[2]
    worst_runner = max(row[3] for row in rows) / ref[3]
    print(
        f"\n{rows[-1][0]:,} matches in {elapsed:.0f} s ({piler.wait_seconds:.0f} s of it waiting at checkpoints "
        f"for the last matches to end)"
    )
    print(f"largest / 1,000-match RSS: worker {worst_worker:.2f}, runner {worst_runner:.2f} (target <= {TARGET})")
    bad = max(worst_worker, worst_runner) > TARGET or bool(runner_errors)
    return 1 if args.check and bad else 0


if __name__ == "__main__":
    sys.exit(main())
