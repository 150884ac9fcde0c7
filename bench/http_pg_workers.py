"""PostgreSQL with several gunicorn workers: throughput, latency, and no lost events.

    .venv/bin/python bench/http_pg_workers.py                  # ~2-3 min: workers 1,2,4 x 30 s
    .venv/bin/python bench/http_pg_workers.py --workers 1,2 --seconds 20

Starts a throwaway PostgreSQL cluster on a free 127.0.0.1 port (as ``scripts/test`` does:
temporary directory, durability off, run as the ``postgres`` user when root, removed
afterwards), then for each worker count a fresh database and ``gunicorn`` with N of the
project's gevent workers, ``DB_POOL_SIZE`` 5, rate limits off. A gevent worker serves every
connection it accepts at once, one greenlet per request, so no thread count caps it: the
requests it works on at once are bounded by ``WORKING_REQUESTS_PER_WORKER`` (8 by default;
the environment reaches the server, so ``WORKING_REQUESTS_PER_WORKER=0`` runs without the
limit) and its transactions by its pool (``DB_POOL_SIZE`` + 2 x that in overflow, 15
connections). This script is the load generator:
``--clients`` (100) threads, each on its own keep-alive connection, each playing whole
matches back to back for ``--seconds``, never starting a request after the deadline.
Matches are mixed by client number:

* 0 mod 3: two remote seats (the client plays both, fetching the view of the seat to move);
* 1 mod 3: one remote seat against a greedy bot;
* 2 mod 3: four seats, two remote and two bots (random, expert).

All ``standard-draw`` with ``{"target": --target}`` (50) so matches finish within the run.
None is all-bot: every table has a person, so the bots' replies come inline in the answer to
the action before them (``INLINE_BOT_MOVES``), as the log check below requires; no autoplay
runner is started (a move it played would be one no client was told of).
The client sends ``legal_actions[0]``. Reported: matches finished/s, actions/s, requests/s,
p50/p95/p99 latency (actions, and all requests), status counts.

Afterwards every match is read back from the database and checked: seqs 1..last gapless,
the seqs the server acknowledged to clients (creation + every action's ``events``) cover
exactly 1..last once each with the same types (nothing lost, nothing duplicated), the
hash chain verifies, the log replays with ``api.rules.replay``, and finished matches pass
``api.rules.audit.verify_log`` (every deal and move re-decided from the seed).
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

import psycopg
from _http import Http, Server, bearer, machine_line, ms, pct, postgres
from sqlalchemy.engine import make_url

CLIENT_RSS_NOTE = "client threads share the 2 cores with the server and PostgreSQL"


def seats_for(client: int) -> list[dict]:
    kind = client % 3
    if kind == 0:
        return [{"name": "a", "type": "remote"}, {"name": "b", "type": "remote"}]
    if kind == 1:
        return [{"name": "a", "type": "remote"}, {"name": "bot", "type": "bot", "level": "greedy"}]
    return [
        {"name": "a", "type": "remote"},
        {"name": "r", "type": "bot", "level": "random"},
        {"name": "b", "type": "remote"},
        {"name": "x", "type": "bot", "level": "expert"},
    ]


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.action_lat, self.all_lat = [], []
        self.status: dict[int, int] = {}
        self.finished = 0
        self.matches: dict[str, dict] = {}  # id -> {"created_seq", "acked": [(seq, type)], "final_seq"}

    def record(self, status: int, took: float, action: bool):
        with self.lock:
            self.status[status] = self.status.get(status, 0) + 1
            self.all_lat.append(took)
            if action:
                self.action_lat.append(took)


def client_loop(base: str, client: int, target: int, deadline: float, stats: Stats, errors: list):
    http = Http(base)
    try:
        while time.perf_counter() < deadline:
            status, created, took = http.post(
                "/v1/matches", {"preset": "standard-draw", "rules": {"target": target}, "seats": seats_for(client)}
            )
            stats.record(status, took, False)
            if status != 201:
                errors.append(f"create {status}: {created}")
                return
            mid = created["id"]
            record = {"created_seq": created["seq"], "acked": [], "final_seq": created["seq"]}
            with stats.lock:
                stats.matches[mid] = record
            tokens = {s["seat"]: s["token"] for s in created["seats"] if s.get("token")}
            views: dict[int, dict] = {}
            turn, over = created["turn"], created["status"] == "ended"
            while not over and time.perf_counter() < deadline:
                # the remote seat to move (the bots' replies came inline, in the last answer)
                seat = turn if turn in tokens else next(iter(tokens))
                view = views.get(seat)
                if view is None or view["seq"] != record["final_seq"]:
                    status, view, took = http.get(f"/v1/matches/{mid}/view", bearer(tokens[seat]))
                    stats.record(status, took, False)
                    if status != 200:
                        errors.append(f"view {status}: {view}")
                        return
                if not view["legal_actions"]:
                    others = [s for s in tokens if s != seat]
                    if not others:
                        errors.append(f"{mid}: seat {seat} has no legal action at seq {view['seq']}")
                        return
                    seat = others[0]
                    status, view, took = http.get(f"/v1/matches/{mid}/view", bearer(tokens[seat]))
                    stats.record(status, took, False)
                if time.perf_counter() >= deadline:
                    break
                status, result, took = http.post(
                    f"/v1/matches/{mid}/actions", view["legal_actions"][0], bearer(tokens[seat])
                )
                stats.record(status, took, True)
                if status != 200:
                    errors.append(f"action {status}: {result}")
                    return
                record["acked"] += [(e["seq"], e["type"]) for e in result["events"]]
                record["final_seq"] = result["seq"]
                views[seat] = result["view"]
                turn, over = result["view"]["turn"], result["view"]["status"] == "ended"
            if over:
                with stats.lock:
                    stats.finished += 1
    except Exception as exc:
        errors.append(f"client {client}: {type(exc).__name__}: {exc}")
    finally:
        http.close()


def verify(database_url: str, stats: Stats) -> list[str]:
    """Every match as stored against what clients were told; an empty list if all is well."""
    from api.rules import event_from_dict, replay
    from api.rules.audit import verify_log
    from api.store import Store
    from api.store.chain import verify_chain

    problems: list[str] = []
    store = Store.from_url(database_url)
    for mid, rec in stats.matches.items():
        with store.unit_of_work(readonly=True) as uow:
            stored = uow.events.load(mid)
            row = uow.matches.get(mid)
        if row is None:
            problems.append(f"{mid}: acknowledged as created, but not stored")
            continue
        seqs = [e.seq for e in stored]
        if seqs != list(range(1, len(seqs) + 1)) or row.last_seq != len(seqs):
            problems.append(f"{mid}: stored seqs not gapless 1..{row.last_seq}")
        acked = sorted(rec["acked"])
        expected = list(range(rec["created_seq"] + 1, rec["final_seq"] + 1))
        if [s for s, _ in acked] != expected or rec["final_seq"] != row.last_seq:
            problems.append(
                f"{mid}: acknowledged seqs {len(acked)} do not cover "
                f"{rec['created_seq'] + 1}..{rec['final_seq']} once each (stored last {row.last_seq})"
            )
        by_seq = {e.seq: e.type for e in stored}
        if any(by_seq.get(s) != t for s, t in acked):
            problems.append(f"{mid}: an acknowledged event differs from the stored one")
        problems += [f"{mid}: {p}" for p in verify_chain(stored)]
        try:
            state = replay(event_from_dict(e.to_dict()) for e in stored)
        except Exception as exc:
            problems.append(f"{mid}: replay failed: {exc}")
            continue
        if state.status != row.status:
            problems.append(f"{mid}: replayed status {state.status} != stored {row.status}")
        if row.status == "ended":
            report = verify_log([e.to_dict() for e in stored], row.seed)
            if not report.ok:
                problems.append(f"{mid}: verify_log: {report.problems[:3]}")
    store.dispose()
    return problems


def one_row(cursor: psycopg.Cursor[Any]) -> tuple[Any, ...]:
    """The row of a query that always answers one (an aggregate, a function call)."""
    row = cursor.fetchone()
    if row is None:
        raise LookupError("the query answered no row")
    return row


def sample_connections(url, name: str, stop: threading.Event, peak: list) -> None:
    """Peak backends connected to ``name`` (from pg_stat_activity), sampled every 0.5 s."""
    with psycopg.connect(host=url.host, port=url.port, user="postgres", dbname="postgres", autocommit=True) as conn:
        while not stop.wait(0.5):
            count = one_row(conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s", (name,)))[0]
            peak[0] = max(peak[0], count)


def cpu_seconds(pids) -> float:
    """utime + stime of these processes (gone ones count 0)."""
    total, tick = 0, os.sysconf("SC_CLK_TCK")
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        total += int(fields[11]) + int(fields[12])
    return total / tick


def postgres_pids(url) -> list[int]:
    """The cluster's postmaster and every process it runs (backends, walwriter, ...)."""
    with psycopg.connect(host=url.host, port=url.port, user="postgres", dbname="postgres") as conn:
        backend = one_row(conn.execute("SELECT pg_backend_pid()"))[0]
        postmaster = int(Path(f"/proc/{backend}/stat").read_text().rsplit(")", 1)[1].split()[1])
    children = Path(f"/proc/{postmaster}/task/{postmaster}/children").read_text().split()
    return [postmaster, *map(int, children)]


def table_sizes(url, name: str) -> dict:
    """Rows and bytes (heap + indexes + TOAST) of each table: the growth the deployment doc quotes."""
    out = {}
    with psycopg.connect(host=url.host, port=url.port, user="postgres", dbname=name, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")
        for table in ("matches", "seats", "events"):
            rows = one_row(conn.execute(f"SELECT count(*) FROM {table}"))[0]
            total, heap, index = one_row(
                conn.execute(
                    "SELECT pg_total_relation_size(%s), pg_relation_size(%s), pg_indexes_size(%s)",
                    (table, table, table),
                )
            )
            out[table] = {"rows": rows, "total": total, "heap": heap, "index": index}
    return out


def run(database_url: str, workers: int, args) -> dict:
    with Server(
        database_url, workers=workers, env={"RATELIMIT_ENABLED": "false", "DB_POOL_SIZE": str(args.pool)}
    ) as server:
        stats = Stats()
        errors: list[str] = []
        cpu0, start = time.process_time(), time.perf_counter()
        deadline = start + args.seconds
        threads = [
            threading.Thread(target=client_loop, args=(server.url, i, args.target, deadline, stats, errors))
            for i in range(args.clients)
        ]
        url, stop, peak = make_url(database_url), threading.Event(), [0]
        name = url.database
        assert name, "DATABASE_URL names its database"
        workers_pids = server.worker_pids()
        app_cpu0, db_cpu0 = cpu_seconds(workers_pids), cpu_seconds(postgres_pids(url))
        sampler = threading.Thread(target=sample_connections, args=(url, name, stop, peak))
        sampler.start()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.perf_counter() - start
        stop.set()
        sampler.join()
        app_cpu = cpu_seconds(workers_pids) - app_cpu0
        db_cpu = cpu_seconds(postgres_pids(url)) - db_cpu0
        client_cpu = (time.process_time() - cpu0) / elapsed
        rss = sorted(server.rss_kib(pid) // 1024 for pid in server.worker_pids())
    problems = verify(database_url, stats)
    return {
        "workers": workers,
        "elapsed": elapsed,
        "stats": stats,
        "errors": errors,
        "problems": problems,
        "client_cpu": client_cpu,
        "rss": rss,
        "peak_connections": peak[0],
        "app_cpu": app_cpu,
        "db_cpu": db_cpu,
        "sizes": table_sizes(url, name),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", default="1,2,4", help="comma-separated worker counts")
    parser.add_argument("--pool", type=int, default=5, help="DB_POOL_SIZE per worker")
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--target", type=int, default=50)
    args = parser.parse_args()

    results = []
    with postgres() as base_url:
        url = make_url(base_url)
        print(f"# http_pg_workers: {machine_line()}")
        print(
            f"# PostgreSQL on 127.0.0.1:{url.port} (fsync off); {args.clients} client threads, "
            f"{args.seconds:.0f} s per run; gunicorn N gevent workers, DB_POOL_SIZE {args.pool}; "
            f"standard-draw to {args.target}, mixed seats\n",
            flush=True,
        )
        for n in [int(w) for w in args.workers.split(",")]:
            name = f"boneyard_w{n}"
            with psycopg.connect(
                host=url.host, port=url.port, user="postgres", dbname="postgres", autocommit=True
            ) as conn:
                conn.execute(f"CREATE DATABASE {name}")
            res = run(url.set(database=name).render_as_string(hide_password=False), n, args)
            s = res["stats"]
            print(
                f"workers {n}: {s.finished} matches, {len(s.action_lat)} actions, {len(s.all_lat)} requests "
                f"in {res['elapsed']:.1f} s; statuses {dict(sorted(s.status.items()))}; "
                f"client CPU {res['client_cpu'] * 100:.0f}%; worker RSS {res['rss']} MiB; "
                f"peak DB connections {res['peak_connections']}; "
                f"CPU per action: app {res['app_cpu'] / max(1, len(s.action_lat)) * 1000:.2f} ms, "
                f"PostgreSQL {res['db_cpu'] / max(1, len(s.action_lat)) * 1000:.2f} ms "
                f"(all requests of the run / actions); "
                f"errors {len(res['errors'])}; log problems {len(res['problems'])} "
                f"({len(s.matches)} matches checked)",
                flush=True,
            )
            for line in (res["errors"] + res["problems"])[:10]:
                print("   ", line)
            results.append(res)

    base = results[0]
    print(
        "\n| workers | matches/s | actions/s | requests/s | action p50 / p95 / p99 | all requests p50 / p95 / p99 "
        "| 5xx | log problems | vs 1 worker |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for res in results:
        s, t = res["stats"], res["elapsed"]
        five = sum(n for code, n in s.status.items() if code >= 500)
        speedup = (len(s.action_lat) / t) / (len(base["stats"].action_lat) / base["elapsed"])
        print(
            f"| {res['workers']} | {s.finished / t:.1f} | {len(s.action_lat) / t:.0f} | {len(s.all_lat) / t:.0f} | "
            f"{ms(pct(s.action_lat, 0.5))} / {ms(pct(s.action_lat, 0.95))} / {ms(pct(s.action_lat, 0.99))} | "
            f"{ms(pct(s.all_lat, 0.5))} / {ms(pct(s.all_lat, 0.95))} / {ms(pct(s.all_lat, 0.99))} | "
            f"{five} | {len(res['problems'])} | {speedup:.2f}x |"
        )
    sizes = results[-1]["sizes"]
    print(f"\ntable sizes after the {results[-1]['workers']}-worker run (VACUUM ANALYZE first):")
    for table, z in sizes.items():
        per = z["total"] / z["rows"] if z["rows"] else 0
        print(
            f"  {table}: {z['rows']} rows, {z['total'] / 2**20:.1f} MiB total "
            f"(heap {z['heap'] / 2**20:.1f}, indexes {z['index'] / 2**20:.1f}) = {per:.0f} B/row"
        )
    ev, ma = sizes["events"], sizes["matches"]
    if ma["rows"]:
        print(
            f"  events per match {ev['rows'] / ma['rows']:.0f}; bytes per match (all tables) "
            f"{sum(z['total'] for z in sizes.values()) / ma['rows']:.0f}"
        )
    bad = any(r["errors"] or r["problems"] or any(c >= 500 for c in r["stats"].status) for r in results)
    print(
        "\nall logs gapless, acknowledged exactly once, chained and replayable"
        if not bad
        else "\nPROBLEMS FOUND (see above)"
    )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
