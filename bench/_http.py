"""Shared plumbing for the HTTP benchmarks: a gunicorn server, a throwaway PostgreSQL,
a bounded load loop, and the statistics the README quotes.

The server always runs as its own process tree (gunicorn from ``.venv``) and the load
generator is the benchmark script itself, a separate process; both talk over
127.0.0.1 only.  Nothing here targets any other address.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV_BIN = ROOT / ".venv" / "bin"
HOST = "127.0.0.1"  # the only address any benchmark talks to

sys.path.insert(0, str(ROOT))


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


# --- statistics ------------------------------------------------------------------------
def pct(values, q: float) -> float:
    """The q-quantile (0..1) by nearest rank; NaN for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def median(values) -> float:
    return statistics.median(values) if values else float("nan")


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


# --- the server ------------------------------------------------------------------------
GUNICORN_CONF = """
import os
exec(open({conf!r}).read())
# The benchmark measures the application: no access log line per request.
accesslog = None if os.environ.get("BENCH_ACCESS_LOG", "0") == "0" else "-"
loglevel = "warning"
"""


class Server:
    """``gunicorn -c gunicorn.conf.py wsgi:app`` on a free loopback port, migrated first.

    The workers are the project's gevent workers (``api.serving.Worker``): each takes up to
    ``GUNICORN_WORKER_CONNECTIONS`` connections at once, one greenlet each, so a worker's
    concurrency is bounded by its connections (and its database pool), not by threads.
    Nothing plays the all-bot tables here: start an :class:`AutoplayRunner` beside it for that.
    """

    def __init__(self, database_url: str, *, workers: int = 1, env: dict | None = None, access_log: bool = False):
        self.port = free_port()
        self.url = f"http://{HOST}:{self.port}"
        self.database_url = database_url
        self._tmp = tempfile.mkdtemp(prefix="boneyard-bench-")
        conf = Path(self._tmp) / "gunicorn_bench.conf.py"
        conf.write_text(GUNICORN_CONF.format(conf=str(ROOT / "gunicorn.conf.py")))
        self.env = {
            **os.environ,
            "DATABASE_URL": database_url,
            "BIND": f"{HOST}:{self.port}",
            "WEB_CONCURRENCY": str(workers),
            "AUTO_MIGRATE": "false",
            "LOG_LEVEL": "WARNING",
            "BENCH_ACCESS_LOG": "1" if access_log else "0",
            **(env or {}),
        }
        self.conf = conf
        self.proc: subprocess.Popen | None = None
        self.log = Path(self._tmp) / "server.log"

    def __enter__(self) -> Server:
        subprocess.run(
            [str(VENV_BIN / "flask"), "--app", "wsgi", "boneyard", "migrate"],
            cwd=ROOT,
            env=self.env,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        self._logfile = open(self.log, "wb")
        self.proc = subprocess.Popen(
            [str(VENV_BIN / "gunicorn"), "-c", str(self.conf), "wsgi:app"],
            cwd=ROOT,
            env=self.env,
            stdout=self._logfile,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"gunicorn exited: {self.log.read_text()[-2000:]}")
            probe = Http(self.url, timeout=2)
            try:
                if probe.get("/healthz")[0] == 200:
                    break
            except OSError:
                pass
            finally:
                probe.close()
            time.sleep(0.2)
        else:
            raise RuntimeError("gunicorn did not answer /healthz within 60 s")
        # Every worker must be up before timing starts.
        while len(self.worker_pids()) < int(self.env["WEB_CONCURRENCY"]):
            time.sleep(0.1)
        return self

    def worker_pids(self) -> list[int]:
        assert self.proc is not None
        try:
            children = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children").read_text().split()
        except FileNotFoundError:
            return []
        return [int(p) for p in children]

    def rss_kib(self, pid: int) -> int:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise RuntimeError(f"no VmRSS for {pid}")

    def __exit__(self, *exc) -> None:
        stop(self.proc)  # the master stops its own workers
        self._logfile.close()
        errors = [
            line
            for line in self.log.read_text(errors="replace").splitlines()
            if "Traceback" in line or " ERROR " in line or "[ERROR]" in line
        ]
        if errors:
            print(
                f"server log had {len(errors)} error lines; tail:\n" + self.log.read_text(errors="replace")[-3000:],
                file=sys.stderr,
            )
        shutil.rmtree(self._tmp, ignore_errors=True)


class AutoplayRunner:
    """``flask --app wsgi boneyard autoplay`` beside a :class:`Server`, on its database (as
    ``scripts/run`` starts it): it plays the all-bot tables and expired turn clocks."""

    def __init__(self, server: Server, env: dict | None = None):
        self.env = {**server.env, **(env or {})}
        self.log = Path(server._tmp) / "autoplay.log"
        self.proc: subprocess.Popen | None = None

    def __enter__(self) -> AutoplayRunner:
        self._logfile = open(self.log, "wb")
        self.proc = subprocess.Popen(
            [str(VENV_BIN / "flask"), "--app", "wsgi", "boneyard", "autoplay"],
            cwd=ROOT,
            env=self.env,
            stdout=self._logfile,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        return self

    def cpu_seconds(self) -> float:
        """User + system CPU the runner used so far (from /proc)."""
        assert self.proc is not None
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def __exit__(self, *exc) -> None:
        stop(self.proc)
        self._logfile.close()


def stop(proc: subprocess.Popen | None) -> None:
    """SIGTERM, up to 20 s to finish, then SIGKILL."""
    if proc is not None and proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def sqlite_url(directory: str) -> str:
    return f"sqlite:///{Path(directory) / 'bench.db'}"


# --- a throwaway PostgreSQL cluster (as scripts/test makes one) ---------------------------
def _pg_bin() -> Path:
    found = shutil.which("pg_ctl")
    if found:
        d = Path(os.path.realpath(found)).parent
        if (d / "initdb").exists() and (d / "postgres").exists():
            return d
    candidates = sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: int(p.parent.name), reverse=True)
    for d in candidates:
        if (d / "pg_ctl").exists() and (d / "initdb").exists():
            return d
    raise SystemExit(
        "PostgreSQL server binaries not found: apt-get install postgresql (scripts/test does it for you as root)"
    )


@contextlib.contextmanager
def postgres(max_connections: int = 200, shared_buffers: str = "256MB"):
    """Yield a DATABASE_URL of a fresh cluster on a free 127.0.0.1 port; removed afterwards.

    Durability off (fsync, synchronous_commit, full_page_writes), like the test cluster:
    the figures are about CPU and locking, not this machine's disk.
    """
    pg_bin = _pg_bin()
    as_root = os.geteuid() == 0
    as_pg = ["runuser", "-u", "postgres", "--"] if as_root else []
    tmp = tempfile.mkdtemp(prefix="boneyard-bench-pg-")
    data = Path(tmp) / "data"
    if as_root:
        shutil.chown(tmp, "postgres")
    port = free_port()
    started = False
    try:
        subprocess.run(
            [
                *as_pg,
                str(pg_bin / "initdb"),
                "-D",
                str(data),
                "-U",
                "postgres",
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--no-locale",
                "--no-sync",
            ],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        opts = (
            f"-c listen_addresses={HOST} -c port={port} -c unix_socket_directories={tmp} "
            f"-c fsync=off -c synchronous_commit=off -c full_page_writes=off "
            f"-c max_connections={max_connections} -c shared_buffers={shared_buffers}"
        )
        started = True
        subprocess.run(
            [
                *as_pg,
                str(pg_bin / "pg_ctl"),
                "-D",
                str(data),
                "-l",
                f"{tmp}/server.log",
                "-o",
                opts,
                "-w",
                "-t",
                "60",
                "start",
            ],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        import psycopg

        with psycopg.connect(host=HOST, port=port, user="postgres", dbname="postgres", autocommit=True) as c:
            c.execute("CREATE DATABASE boneyard_bench")
        yield f"postgresql+psycopg://postgres@{HOST}:{port}/boneyard_bench"
    finally:
        if started:
            subprocess.run(
                [*as_pg, str(pg_bin / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        shutil.rmtree(tmp, ignore_errors=True)


# --- the load generator's client --------------------------------------------------------
class Http:
    """One keep-alive HTTP/1.1 connection to the server (stdlib ``http.client``).

    The load generator shares two cores with the server, so its client must be cheap:
    ``http.client`` spent less CPU per request than ``httpx.AsyncClient``, which was tried
    first (by hand: no committed script compares the two).
    """

    def __init__(self, base_url: str, timeout: float = 60):
        host, port = base_url.removeprefix("http://").split(":")
        assert host == HOST, "benchmarks only ever talk to 127.0.0.1"
        self._args = (host, int(port), timeout)
        self._conn: http.client.HTTPConnection | None = None

    def request(self, method: str, path: str, body=None, headers: dict | None = None):
        """(status, parsed JSON body or None, seconds taken)."""
        payload = None if body is None else json.dumps(body).encode()
        hdrs = {"Accept": "application/json", **(headers or {})}
        if payload is not None:
            hdrs["Content-Type"] = "application/json"
        for attempt in (1, 2):
            if self._conn is None:
                self._conn = http.client.HTTPConnection(*self._args[:2], timeout=self._args[2])
            start = time.perf_counter()
            try:
                self._conn.request(method, path, body=payload, headers=hdrs)
                response = self._conn.getresponse()
                raw = response.read()
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                # a keep-alive connection the server closed while idle: reconnect once
                self._conn.close()
                self._conn = None
                if attempt == 2:
                    raise
                continue
            took = time.perf_counter() - start
            data = json.loads(raw) if raw and response.headers.get("Content-Type", "").endswith("json") else None
            return response.status, data, took
        raise AssertionError("unreachable")

    def get(self, path, headers=None):
        return self.request("GET", path, None, headers)

    def post(self, path, body, headers=None):
        return self.request("POST", path, body, headers)

    def close(self):
        if self._conn is not None:
            self._conn.close()
            self._conn = None


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def machine_line() -> str:
    import platform

    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    return (
        f"{platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} cores, "
        f"{platform.machine()}, {time.strftime('%Y-%m-%d %H:%M')}, load average before the run {load}"
    )
