"""A real gunicorn serving Boneyard for end-to-end tests, on a free loopback port.

One helper for every test that needs the deployed server: it starts gunicorn with the
project's own ``gunicorn.conf.py``, waits for ``/healthz``, and always stops the server
(terminate, then kill), whatever happened. The server's output goes to a file, never to a
pipe nobody reads (a full pipe would block gunicorn).
"""

from __future__ import annotations

import os
import select
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def eventually(predicate, within: float, what: str = "condition", step: float = 0.02):
    """Poll ``predicate`` until it is truthy; answers ``(value, seconds it took)``.

    For state held by another process (a gunicorn worker's waiter slot, a runner's progress):
    there is no clock of ours to inject there and nothing that notifies this process, so the
    test looks again every ``step``; ``within`` only bounds a broken run."""
    started = time.monotonic()
    while True:
        value = predicate()
        if value:
            return value, time.monotonic() - started
        if time.monotonic() - started > within:
            raise AssertionError(f"not within {within} s: {what}")
        time.sleep(step)


@contextmanager
def running_gunicorn(
    database_url: str, log_path: Path, *, startup_seconds: float = 30, **env: str
) -> Iterator[tuple[str, Path]]:
    """Yield ``(base_url, log_path)`` of gunicorn serving ``database_url``; ``env`` adds settings."""
    port = free_port()
    environ = {key: value for key, value in os.environ.items() if key not in ("BIND", "API_KEYS")}
    environ.update({"DATABASE_URL": database_url, "PORT": str(port), "LOG_LEVEL": "warning", **env})
    base = f"http://127.0.0.1:{port}"
    # gunicorn's when_ready hook (gunicorn.conf.py) writes to this pipe once it listens: the
    # test waits on that, not on a clock; an exit before it is the pipe's end
    ready, ready_w = os.pipe()
    environ["BONEYARD_READY_FD"] = str(ready_w)
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "wsgi:app"],
            cwd=ROOT,
            env=environ,
            stdout=log,
            stderr=subprocess.STDOUT,
            pass_fds=(ready_w,),
        )
    os.close(ready_w)
    try:
        listening, _, _ = select.select([ready], [], [], startup_seconds)
        said = os.read(ready, 16) if listening else None
        os.close(ready)
        if not said:
            why = "exited" if said == b"" else f"was not listening after {startup_seconds} s"
            raise RuntimeError(f"gunicorn {why}:\n{log_path.read_text()[-3000:]}")
        # listening: this waits in the socket's backlog while the workers boot (no polling)
        try:
            healthy = requests.get(f"{base}/healthz", timeout=startup_seconds).status_code == 200
        except requests.RequestException:
            healthy = False
        if not healthy:
            raise RuntimeError(f"gunicorn not healthy:\n{log_path.read_text()[-3000:]}")
        yield base, log_path
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
