"""Idle waiters against a default server: does /healthz and a player's action stay fast?

    .venv/bin/python bench/http_waiters.py                  # ~4 min: steps 0, 1,000, 5,000
    .venv/bin/python bench/http_waiters.py --steps 0,300 --samples 60     # a quick look

The server is started exactly as ``scripts/run`` starts it: ``flask --app wsgi boneyard
migrate``, then the autoplay runner (``flask --app wsgi boneyard autoplay``) and ``gunicorn
-c gunicorn.conf.py wsgi:app``, with nothing but ``PORT`` and ``DATABASE_URL`` (SQLite in a
temporary directory) set: 2 gevent workers, the access log on, rate limits and waiter caps
at their defaults.

A holder process opens idle connections in steps, a quarter of each kind:

* ``longpoll``  ``GET /events?after=<seq>&wait=60`` without a token (a spectator);
* ``seated``    the same with a seat's ``Authorization`` header;
* ``stream``    ``GET /stream`` (half of them with ``?token=``, as ``EventSource`` sends it);
* ``body``      ``POST /actions`` announcing 256 bytes of body and sending one.

Every request says ``Connection: close`` and the holder reopens whatever the server ends:
long-polls answered after 60 s, and the unfinished bodies, which the server answers with
408 after ``REQUEST_BODY_TIMEOUT_SECONDS`` (10 s by default). So the bodies are **reopened**:
the count of open connections stays at the step's level for the whole measurement, and the
408 churn (a new connection every ~10 s per body) is part of the load. The connections come
from many loopback addresses (127.0.x.y, 20 per address), so the default per-address cap
on waiters (64) is respected, as it would be by many real clients.

At each step, once every connection is open and the server shows its waiter rows, this
process (from 127.0.0.1, on keep-alive connections) measures ``GET /healthz`` and a seated
player's action in a remote-vs-remote match (``POST /actions``, alternately with ``If-Match``
and plain; the view that says what to play is not timed), and reports p50/p99 and their
ratio to step 0. Then it measures how long a waiter takes to end after its client goes:
``--probes`` long-polls from addresses of their own are closed at once, and the time until
each one's ``waiter_slots`` row is gone is read from the database file.

Bounded: loopback only, the step sizes given, ``--samples`` per step, a time limit per
phase. The holder raises its own RLIMIT_NOFILE.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import multiprocessing as mp
import os
import resource
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _http import HOST, ROOT, VENV_BIN, Http, bearer, free_port, machine_line, pct

KINDS = ("longpoll", "seated", "stream", "body")
PER_ADDRESS = 20  # idle connections per source address (the cap is 64 waiters)
TWO_REMOTE = {
    "preset": "standard-draw",
    "seats": [{"name": "Ana", "type": "remote"}, {"name": "Ben", "type": "remote"}],
}
TARGET_P99 = 0.250
IDLE_WINDOW = 5.0  # seconds of no measuring traffic, to see the cost of idle connections


def raise_nofile() -> int:
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


def source_address(index: int) -> str:
    """127.0.1.1, 127.0.1.2, ... (never 127.0.0.1, the measuring client's)."""
    return f"127.0.{1 + index // 250}.{1 + index % 250}"


# --- the server, as scripts/run starts it ----------------------------------------------------
class DefaultServer:
    def __init__(self, workdir: Path):
        self.port = free_port()
        self.url = f"http://{HOST}:{self.port}"
        self.db = workdir / "boneyard.db"
        self.log = workdir / "server.log"
        keep = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")}
        self.env = {**keep, "PORT": str(self.port), "DATABASE_URL": f"sqlite:///{self.db}"}

    def __enter__(self) -> DefaultServer:
        subprocess.run(
            [str(VENV_BIN / "flask"), "--app", "wsgi", "boneyard", "migrate"],
            cwd=ROOT,
            env={**self.env, "AUTO_MIGRATE": "0"},
            check=True,
            stdout=subprocess.DEVNULL,
        )
        self._out = open(self.log, "wb")
        # scripts/run starts the autoplay runner beside gunicorn: so does this.
        self.runner = subprocess.Popen(
            [str(VENV_BIN / "flask"), "--app", "wsgi", "boneyard", "autoplay"],
            cwd=ROOT,
            env={**self.env, "AUTO_MIGRATE": "0"},
            stdout=self._out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.proc = subprocess.Popen(
            [str(VENV_BIN / "gunicorn"), "-c", str(ROOT / "gunicorn.conf.py"), "wsgi:app"],
            cwd=ROOT,
            env={**self.env, "AUTO_MIGRATE": "0"},
            stdout=self._out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            probe = Http(self.url, timeout=2)
            try:
                if probe.get("/healthz")[0] == 200 and len(self.workers()) >= 2:
                    return self
            except OSError:
                pass
            finally:
                probe.close()
            time.sleep(0.2)
        raise RuntimeError("the server did not come up: " + self.log.read_text()[-2000:])

    def workers(self) -> list[int]:
        path = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children")
        return [int(p) for p in path.read_text().split()] if path.exists() else []

    def rss_mib(self) -> list[float]:
        out = []
        for pid in self.workers():
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    out.append(int(line.split()[1]) / 1024)
        return out

    def cpu_seconds(self) -> float:
        """User + system CPU of the workers so far."""
        ticks = os.sysconf("SC_CLK_TCK")
        total = 0
        for pid in self.workers():
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        return total / ticks

    def __exit__(self, *exc) -> None:
        for proc in (self.proc, self.runner):
            proc.terminate()
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self._out.close()


# --- the holder of idle connections (its own process) -------------------------------------------
def _request(kind: str, match: dict) -> bytes:
    mid, seq = match["id"], match["seq"]
    if kind == "longpoll":
        head = f"GET /v1/matches/{mid}/events?after={seq}&wait=60 HTTP/1.1\r\n"
    elif kind == "seated":
        head = (
            f"GET /v1/matches/{mid}/events?after={seq}&wait=60 HTTP/1.1\r\n"
            f"Authorization: Bearer {match['tokens'][0]}\r\n"
        )
    elif kind == "stream":
        query = f"?token={match['tokens'][1]}" if match["half"] else ""
        head = f"GET /v1/matches/{mid}/stream{query} HTTP/1.1\r\nAccept: text/event-stream\r\n"
    else:
        head = (
            f"POST /v1/matches/{mid}/actions HTTP/1.1\r\nAuthorization: Bearer {match['tokens'][0]}\r\n"
            "Content-Type: application/json\r\nContent-Length: 256\r\n"
        )
    body = "{" if kind == "body" else ""
    return f"{head}Host: {HOST}\r\nConnection: close\r\n\r\n{body}".encode()


async def _hold(port: int, kind: str, source: str, match: dict, state: dict, stop: asyncio.Event) -> None:
    request = _request(kind, match)
    while not stop.is_set():
        writer = None
        try:
            reader, writer = await asyncio.open_connection(HOST, port, local_addr=(source, 0))
            writer.write(request)
            await writer.drain()
            state["open"][kind] += 1
            try:
                read = asyncio.ensure_future(reader.read(65536))
                stopped = asyncio.ensure_future(stop.wait())
                while True:
                    done, _ = await asyncio.wait({read, stopped}, return_when=asyncio.FIRST_COMPLETED)
                    if stopped in done:
                        read.cancel()
                        return
                    if not read.result():
                        break  # the server ended it: reopen
                    read = asyncio.ensure_future(reader.read(65536))
                stopped.cancel()
                state["reopened"][kind] += 1
            finally:
                state["open"][kind] -= 1
        except OSError:
            state["errors"] += 1
            await asyncio.sleep(0.5)
        finally:
            if writer is not None:
                writer.close()


async def _holder_main(port: int, matches: list[dict], conn) -> None:
    loop = asyncio.get_running_loop()
    state = {"open": {k: 0 for k in KINDS}, "reopened": {k: 0 for k in KINDS}, "errors": 0}
    tasks: list[asyncio.Future[None]] = []
    stops: list[asyncio.Event] = []
    while True:
        command = await loop.run_in_executor(None, conn.recv)
        if command[0] == "target":
            target, rate = command[1], command[2]
            while len(tasks) < target:
                index = len(tasks)
                kind = KINDS[index % len(KINDS)]
                match = matches[index % len(matches)]
                stop = asyncio.Event()
                stops.append(stop)
                tasks.append(
                    asyncio.ensure_future(_hold(port, kind, source_address(index // PER_ADDRESS), match, state, stop))
                )
                if index % max(1, rate // 20) == 0:
                    await asyncio.sleep(0.05)  # about ``rate`` new connections a second
            conn.send("ok")
        elif command[0] == "status":
            conn.send(json.loads(json.dumps(state)))
        elif command[0] == "quit":
            for stop in stops:
                stop.set()
            await asyncio.gather(*tasks, return_exceptions=True)
            conn.send("bye")
            return


def holder(port: int, matches: list[dict], conn) -> None:
    raise_nofile()
    asyncio.run(_holder_main(port, matches, conn))


# --- measuring ---------------------------------------------------------------------------------
class Player:
    """Both seats of a remote-vs-remote match, acting in turn from 127.0.0.1."""

    def __init__(self, base: str, creator: Http):
        self.base, self.creator = base, creator
        self.http = Http(base)
        self.new_match()

    def new_match(self) -> None:
        status, created, _ = self.creator.post("/v1/matches", TWO_REMOTE)
        assert status == 201, (status, created)
        self.match_id = created["id"]
        self.tokens = {s["seat"]: s["token"] for s in created["seats"]}

    def act(self, with_if_match: bool) -> float | None:
        """One action by the seat to move; its latency (None when the match just ended)."""
        _, spectator, _ = self.http.get(f"/v1/matches/{self.match_id}")
        if spectator["status"] == "ended":
            self.new_match()
            return None
        token = self.tokens[spectator["turn"]]
        _, view, _ = self.http.get(f"/v1/matches/{self.match_id}/view", bearer(token))
        headers = bearer(token)
        if with_if_match:
            headers["If-Match"] = f'"{view["seq"]}"'
        status, body, took = self.http.post(f"/v1/matches/{self.match_id}/actions", view["legal_actions"][0], headers)
        if status != 200:
            raise RuntimeError(f"action refused: {status} {body}")
        return took


def measure(base: str, player: Player, samples: int) -> dict:
    health = Http(base)
    healthz: list[float] = []
    actions: list[float] = []
    statuses: dict[int, int] = {}
    for i in range(samples):
        status, _, took = health.get("/healthz")
        statuses[status] = statuses.get(status, 0) + 1
        healthz.append(took)
        took = player.act(with_if_match=i % 2 == 0)
        if took is not None:
            actions.append(took)
        time.sleep(0.03)
    health.close()
    return {"healthz": healthz, "actions": actions, "healthz_status": statuses}


def slot_rows(db: Path) -> dict[str, int]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
        return dict(conn.execute("SELECT address_key, count(*) FROM waiter_slots GROUP BY address_key"))


def disconnect_times(port: int, db: Path, match: dict, probes: int, timeout: float = 10) -> list[float]:
    """Seconds from closing each probe long-poll to its waiter row being gone."""
    keys, socks = [], []
    for i in range(probes):
        address = f"127.0.250.{1 + i}"
        keys.append(hashlib.sha256(address.encode()).hexdigest())
        sock = socket.socket()
        sock.bind((address, 0))
        sock.connect((HOST, port))
        sock.sendall(_request("longpoll", match))
        socks.append(sock)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not all(k in slot_rows(db) for k in keys):
        time.sleep(0.05)
    closed = time.monotonic()
    for sock in socks:
        sock.close()
    gone: dict[str, float] = {}
    while len(gone) < len(keys) and time.monotonic() < closed + timeout:
        rows = slot_rows(db)
        now = time.monotonic()
        for key in keys:
            if key not in gone and key not in rows:
                gone[key] = now - closed
        time.sleep(0.01)
    return sorted(gone.values()) + [float("inf")] * (len(keys) - len(gone))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", default="0,1000,5000", help="idle connections at each step")
    parser.add_argument("--samples", type=int, default=200, help="healthz requests and actions per step")
    parser.add_argument("--probes", type=int, default=20, help="long-polls closed to time the disconnect")
    parser.add_argument("--rate", type=int, default=400, help="new idle connections per second while ramping")
    args = parser.parse_args()
    steps = [int(s) for s in args.steps.split(",")]
    raise_nofile()
    print(f"# {machine_line()}")
    results = []
    with tempfile.TemporaryDirectory(prefix="boneyard-bench-waiters-") as tmp, DefaultServer(Path(tmp)) as server:
        print(f"# server: gunicorn -c gunicorn.conf.py wsgi:app (as scripts/run), SQLite, pid {server.proc.pid}")
        matches = []
        for i in range(40):  # 40 matches to wait on (creation limit: 30/min per address)
            creator = _Source(server.url, source_address(1000 + i // 20))
            status, created, _ = creator.post("/v1/matches", TWO_REMOTE)
            assert status == 201, (status, created)
            matches.append(
                {
                    "id": created["id"],
                    "seq": created["seq"],
                    "half": i % 2,
                    "tokens": [s["token"] for s in created["seats"]],
                }
            )
            creator.close()
        player = Player(server.url, Http(server.url))
        measure(server.url, player, 30)  # warm up: first requests of each worker
        parent, child = mp.Pipe()
        proc = mp.Process(target=holder, args=(server.port, matches, child), daemon=True)
        proc.start()
        try:
            for step in steps:
                started = time.monotonic()
                parent.send(("target", step, args.rate))
                parent.recv()
                expected_waiters = step - step // 4  # long-polls and streams take a slot
                deadline = time.monotonic() + 120
                while time.monotonic() < deadline:
                    parent.send(("status",))
                    state = parent.recv()
                    opened = sum(state["open"].values())
                    rows = sum(slot_rows(server.db).values())
                    if opened >= step and rows >= expected_waiters:
                        break
                    time.sleep(0.5)
                ramp = time.monotonic() - started
                time.sleep(3)  # settle
                cpu, quiet = server.cpu_seconds(), time.monotonic()
                time.sleep(IDLE_WINDOW)  # what merely holding them costs
                idle_cpu = (server.cpu_seconds() - cpu) / (time.monotonic() - quiet)
                got = measure(server.url, player, args.samples)
                parent.send(("status",))
                state = parent.recv()
                rows = sum(slot_rows(server.db).values())
                probe = disconnect_times(server.port, server.db, matches[0], args.probes) if step else []
                results.append(
                    {
                        "step": step,
                        "open": state["open"],
                        "reopened": state["reopened"],
                        "errors": state["errors"],
                        "rows": rows,
                        "ramp_s": ramp,
                        "idle_cpu": idle_cpu,
                        "rss_mib": server.rss_mib(),
                        "disconnect": probe,
                        **got,
                    }
                )
                _print_step(results[-1], results[0])
        finally:
            parent.send(("quit",))
            if parent.poll(60):
                parent.recv()
            proc.join(10)
        _print_table(results)
    return 0


class _Source(Http):
    """An ``Http`` whose connection comes from a given loopback address (creation limits are per address)."""

    def __init__(self, base_url: str, source: str):
        super().__init__(base_url)
        self._source = source

    def request(self, method, path, body=None, headers=None):
        import http.client

        if self._conn is None:
            host, port, timeout = self._args
            self._conn = http.client.HTTPConnection(host, port, timeout=timeout, source_address=(self._source, 0))
        return super().request(method, path, body, headers)


def _summary(r: dict, base: dict) -> dict:
    out = {}
    for name in ("healthz", "actions"):
        p50, p99 = pct(r[name], 0.5), pct(r[name], 0.99)
        out[name] = (p50, p99, p50 / pct(base[name], 0.5), p99 / pct(base[name], 0.99))
    return out


def _print_step(r: dict, base: dict) -> None:
    s = _summary(r, base)
    print(
        f"step {r['step']:>5}: open {sum(r['open'].values())} {r['open']}, waiter rows {r['rows']}, "
        f"reopened {r['reopened']}, errors {r['errors']}, ramp {r['ramp_s']:.1f} s, "
        f"worker RSS {', '.join(f'{m:.0f}' for m in r['rss_mib'])} MiB, workers' CPU while idle "
        f"{r['idle_cpu'] * 100:.0f}% of a core, healthz statuses {r['healthz_status']}"
    )
    for name, (p50, p99, r50, r99) in s.items():
        print(
            f"    {name:8} p50 {p50 * 1000:7.1f} ms  p99 {p99 * 1000:7.1f} ms   ratio to step 0: "
            f"p50 {r50:.2f}  p99 {r99:.2f}   (n={len(r[name])})"
        )
    if r["disconnect"]:
        d = r["disconnect"]
        print(
            f"    waiter ended after its client closed: p50 {pct(d, 0.5) * 1000:.0f} ms, "
            f"p99 {pct(d, 0.99) * 1000:.0f} ms, max {max(d) * 1000:.0f} ms (n={len(d)})"
        )
    sys.stdout.flush()


def _print_table(results: list[dict]) -> None:
    base = results[0]
    print(
        "\n| idle connections | /healthz p50 / p99 (ratio) | action p50 / p99 (ratio) | waiter end after "
        "disconnect p50 / max | workers' CPU, idle |"
    )
    print("|---|---|---|---|---|")
    for r in results:
        s = _summary(r, base)
        h, a = s["healthz"], s["actions"]
        d = r["disconnect"]
        gone = f"{pct(d, 0.5) * 1000:.0f} / {max(d) * 1000:.0f} ms" if d else "-"
        print(
            f"| {r['step']:,} | {h[0] * 1000:.1f} / {h[1] * 1000:.1f} ms ({h[2]:.2f} / {h[3]:.2f}) | "
            f"{a[0] * 1000:.1f} / {a[1] * 1000:.1f} ms ({a[2]:.2f} / {a[3]:.2f}) | {gone} | "
            f"{r['idle_cpu'] * 100:.0f}% |"
        )
    worst = max(max(pct(r["healthz"], 0.99), pct(r["actions"], 0.99)) for r in results)
    print(
        f"\nworst p99 {worst * 1000:.0f} ms (target < {TARGET_P99 * 1000:.0f} ms): "
        f"{'met' if worst < TARGET_P99 else 'MISSED'}"
    )


if __name__ == "__main__":
    sys.exit(main())
