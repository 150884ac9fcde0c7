"""A real gunicorn serving Boneyard for end-to-end tests, on a free loopback port.

One helper for every test that needs the deployed server: it starts gunicorn with the
project's own ``gunicorn.conf.py``, waits for ``/readyz``, and always stops the server
(terminate, then kill), whatever happened. The server's output goes to a file, or through a
pipe this process reads all along, never to a pipe nobody reads (a full pipe would block
gunicorn). ``running_autoplay`` does the same for the autoplay runner, and ``Changes`` is
what a test waits on for what those processes do.
"""

from __future__ import annotations

import os
import select
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, TypeVar

import requests

ROOT = Path(__file__).resolve().parents[1]
T = TypeVar("T")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Changes:
    """What a test waits on instead of a clock: a pipe that every server and runner it starts
    writes a byte to after each commit (``BONEYARD_COMMIT_FD``, ``api/commit_notice.py``), and
    that the copier of a server's output pokes when a line arrives.

    ``until(predicate, within, what)`` looks at state held by those other processes each time
    something may have changed it, and only then: no polling step, no sleep. ``within`` bounds a
    broken run only (it fails with ``what``); ``until`` returns the predicate's value and not how
    long it took, so that no test asserts on speed (speeds are measured in ``bench/``). Every use,
    and the signal it wakes on:

    * waiter slots (``SELECT count(*) FROM waiter_slots``): a server commits when a long-poll or
      stream takes or frees its slot (``test_open_internet_http``, ``test_two_servers``,
      ``test_waiting_http``: the long-poll is waiting before the other server acts);
    * the access log (``test_open_internet_http``): the copier pokes when the server writes a line;
    * all-bot matches ended (``test_two_servers``): the autoplay runners commit each move;
    * webhook deliveries delivered (``test_webhooks_http``): the runner commits each attempt.
    """

    def __init__(self) -> None:
        self._read, self.write_fd = os.pipe()
        os.set_blocking(self._read, False)
        os.set_blocking(self.write_fd, False)  # shared with the servers: a full pipe never stalls them

    def environ(self) -> dict[str, str]:
        """The variable that makes a server or runner write here (with ``pass_fds=(write_fd,)``)."""
        return {"BONEYARD_COMMIT_FD": str(self.write_fd)}

    def poke(self) -> None:
        """Something changed (a full pipe has a byte to wake on already)."""
        with suppress(BlockingIOError):
            os.write(self.write_fd, b"!")

    def until(self, predicate: Callable[[], T], within: float, what: str) -> T:
        """The predicate's first truthy value; fails, saying ``what``, once ``within`` seconds pass."""
        started = time.monotonic()
        while True:
            self._drain()  # before looking: whatever changes after the look wakes the select below
            value = predicate()
            if value:
                return value
            left = within - (time.monotonic() - started)
            if left <= 0 or not select.select([self._read], [], [], left)[0]:
                raise AssertionError(f"not within {within} s: {what}")

    def _drain(self) -> None:
        with suppress(BlockingIOError):
            while os.read(self._read, 65536):
                pass

    def close(self) -> None:
        os.close(self._read)
        os.close(self.write_fd)


@contextmanager
def watching_changes() -> Iterator[Changes]:
    changes = Changes()
    try:
        yield changes
    finally:
        changes.close()


def _copy_output(source: IO[bytes], log_path: Path, changes: Changes) -> None:
    """A server's output into its log file as it comes, each chunk a change to look at."""
    with open(log_path, "ab") as log:
        while chunk := source.read1(65536):
            log.write(chunk)
            log.flush()
            changes.poke()


@contextmanager
def running_gunicorn(
    database_url: str, log_path: Path, *, startup_seconds: float = 30, changes: Changes | None = None, **env: str
) -> Iterator[tuple[str, Path]]:
    """Yield ``(base_url, log_path)`` of gunicorn serving ``database_url``; ``env`` adds settings.

    With ``changes``, the server writes to it after each commit, and its output reaches the log
    file through a pipe this process copies, poking ``changes`` as it comes."""
    port = free_port()
    environ = {key: value for key, value in os.environ.items() if key not in ("BIND", "API_KEYS")}
    environ.update({"DATABASE_URL": database_url, "PORT": str(port), "LOG_LEVEL": "warning", **env})
    base = f"http://127.0.0.1:{port}"
    # gunicorn's when_ready hook (gunicorn.conf.py) writes to this pipe once it listens: the
    # test waits on that, not on a clock; an exit before it is the pipe's end
    ready, ready_w = os.pipe()
    environ["BONEYARD_READY_FD"] = str(ready_w)
    passed = [ready_w]
    if changes is not None:
        environ.update(changes.environ())
        passed.append(changes.write_fd)
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "wsgi:app"],
            cwd=ROOT,
            env=environ,
            stdout=log if changes is None else subprocess.PIPE,
            stderr=subprocess.STDOUT,
            pass_fds=passed,
        )
    os.close(ready_w)
    copier = None
    if changes is not None:
        assert proc.stdout is not None
        copier = threading.Thread(target=_copy_output, args=(proc.stdout, log_path, changes), daemon=True)
        copier.start()

    def stop() -> None:
        _stop(proc)
        if copier is not None:
            copier.join(timeout=15)  # the pipe ends when the last worker has gone
            assert proc.stdout is not None
            proc.stdout.close()

    try:
        listening, _, _ = select.select([ready], [], [], startup_seconds)
        said = os.read(ready, 16) if listening else None
        os.close(ready)
        if not said:
            why = "exited" if said == b"" else f"was not listening after {startup_seconds} s"
            stop()
            raise RuntimeError(f"gunicorn {why}:\n{log_path.read_text()[-3000:]}")
        # listening: this waits in the socket's backlog while the workers boot (no polling)
        try:
            ready = requests.get(f"{base}/readyz", timeout=startup_seconds).status_code == 200
        except requests.RequestException:
            ready = False
        if not ready:
            stop()
            raise RuntimeError(f"gunicorn not ready:\n{log_path.read_text()[-3000:]}")
        yield base, log_path
    finally:
        stop()


@contextmanager
def running_autoplay(
    database_url: str, log_path: Path, *, changes: Changes | None = None, **env: str
) -> Iterator[subprocess.Popen[bytes]]:
    """``flask boneyard autoplay`` as ``scripts/run`` starts it, on ``database_url`` (``env`` adds
    settings; with ``changes``, it writes there after each commit); stopped at the end."""
    environ = {key: value for key, value in os.environ.items() if key != "API_KEYS"}
    # no analyses after the matches unless a test asks (ANALYSIS_SLOTS): worker processes per core
    # would compete with the servers the other tests measure
    environ.update({"DATABASE_URL": database_url, "AUTO_MIGRATE": "0", "ANALYSIS_SLOTS": "0", **env})
    passed: list[int] = []
    if changes is not None:
        environ.update(changes.environ())
        passed.append(changes.write_fd)
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "flask", "--app", "wsgi", "boneyard", "autoplay"],
            cwd=ROOT,
            env=environ,
            stdout=log,
            stderr=subprocess.STDOUT,
            pass_fds=passed,
        )
    try:
        yield proc
    finally:
        _stop(proc)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Terminate, and kill what has not gone within 15 s."""
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
