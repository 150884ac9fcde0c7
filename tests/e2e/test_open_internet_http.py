"""Waiting costs no thread, over real HTTP: the gunicorn gevent worker as ``gunicorn.conf.py`` ships it.

Clients that go away, clients that hold too many waits, bodies that never come, requests
gunicorn cannot parse, tokens in URLs, and a few hundred idle waiters beside /healthz.
Every wait is observed, not slept on: ``waiter_slots`` rows and the access log are looked at
each time the server commits or writes its log (``tests.servers.Changes``), with a deadline.

One server serves the module (``shared``): each test makes its own match, and starts once the
waits of the test before it have all ended. The tests of what gunicorn and the access log do
with a request (408, 413, 414, 431, 400, the redacted token) are marked ``serving``: no database
changes them, so the PostgreSQL pass of ``scripts/test`` leaves them out. The waiters' slots are
rows of the database, counted across workers and servers: those tests run on both.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests
from sqlalchemy import text

from api.store import make_engine
from tests.servers import Changes, running_gunicorn, watching_changes

# The shared server's database is a module fixture's, which collection does not see.
pytestmark = pytest.mark.database

PROBLEM = "application/problem+json"
TWO_REMOTE = {"seats": [{"name": "Ana", "type": "remote"}, {"name": "Ben", "type": "remote"}]}


@contextmanager
def counting_slots(database_url: str) -> Iterator[Callable[[], int]]:
    """``slots()``: how many waiter rows the database holds now."""
    engine = make_engine(database_url)

    def count() -> int:
        with engine.connect() as conn:
            return conn.execute(text("SELECT count(*) FROM waiter_slots")).scalar_one()

    try:
        yield count
    finally:
        engine.dispose()


@pytest.fixture
def slots(database_url):
    with counting_slots(database_url) as count:
        yield count


@pytest.fixture
def changes():
    with watching_changes() as watched:
        yield watched


def _match(base: str) -> dict:
    created = requests.post(f"{base}/v1/matches", json=TWO_REMOTE, timeout=10)
    assert created.status_code == 201, created.text
    return created.json()


def _open(base: str, path: str, headers: str = "", source: str = "127.0.0.1") -> socket.socket:
    """A raw connection that sent a request and reads nothing (an idle waiter)."""
    host, port = base.removeprefix("http://").split(":")
    sock = socket.socket()
    sock.bind((source, 0))
    sock.connect((host, int(port)))
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\n{headers}\r\n".encode())
    return sock


def _exchange(base: str, raw: bytes, timeout: float = 10) -> tuple[bytes, bytes]:
    """Send raw bytes, read until the server closes: (head, body)."""
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=timeout) as sock:
        sock.sendall(raw)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return head, body


def _problem(head: bytes, body: bytes, status: int, code: str) -> dict:
    import json

    assert head.split(b"\r\n")[0].split(b" ")[1] == str(status).encode(), head
    assert f"content-type: {PROBLEM}".encode() in head.lower(), head
    document = json.loads(body)
    assert document["status"] == status and document["code"] == code, document
    return document


@dataclass
class Served:
    base: str
    log: Path
    changes: Changes
    slots: Callable[[], int]


@pytest.fixture(scope="module")
def shared(module_database_url, tmp_path_factory) -> Iterator[Served]:
    """The module's server: three waits per address, a second for a request body."""
    settings = {
        "AUTO_MIGRATE": "0",
        "RATELIMIT_ENABLED": "false",
        "WAITERS_PER_ADDRESS": "3",
        "REQUEST_BODY_TIMEOUT_SECONDS": "1",
        "LOG_LEVEL": "info",
    }
    log_path = tmp_path_factory.mktemp("open-internet") / "server.log"
    with (
        watching_changes() as changes,
        counting_slots(module_database_url) as slots,
        running_gunicorn(module_database_url, log_path, changes=changes, **settings) as (base, log),
    ):
        yield Served(base, log, changes, slots)


@pytest.fixture
def server(shared: Served) -> Served:
    """The shared server, once no wait of an earlier test holds a slot (a client that has left
    frees its slot a moment later)."""
    shared.changes.until(lambda: shared.slots() == 0, 30, "the earlier tests' waits ended")
    return shared


def test_a_waiter_ends_when_its_client_leaves_not_when_its_wait_runs_out(server):
    """Each wait would last 60 s (the long-poll's, the stream's heartbeat 15 s); the bound of 30 s
    only stops a broken run. How soon after the client leaves its waiter ends (a fraction of a
    second: ``gone_check_interval``) is measured by bench/http_waiters.py, not asserted here."""
    base, slots, changes = server.base, server.slots, server.changes
    created = _match(base)
    poll = _open(base, f"/v1/matches/{created['id']}/events?after={created['seq']}&wait=60")
    stream = _open(base, f"/v1/matches/{created['id']}/stream")
    changes.until(lambda: slots() == 2, 30, "both waiters hold their slots")
    poll.close()
    changes.until(lambda: slots() == 1, 30, "the long-poll's waiter ends once its client has gone")
    stream.close()
    changes.until(lambda: slots() == 0, 30, "the stream's waiter ends once its client has gone")


def test_the_per_address_cap_answers_429_and_frees_when_a_wait_ends(server):
    base, slots, changes = server.base, server.slots, server.changes
    created = _match(base)
    path = f"/v1/matches/{created['id']}/events?after={created['seq']}&wait=60"
    held = [_open(base, path) for _ in range(2)] + [_open(base, f"/v1/matches/{created['id']}/stream")]
    changes.until(lambda: slots() == 3, 30, "three waits held")
    refused = requests.get(base + path, timeout=10)
    assert refused.status_code == 429 and refused.headers["Content-Type"] == PROBLEM
    assert refused.json()["code"] == "too_many_waiters" and int(refused.headers["Retry-After"]) > 0
    refused_stream = requests.get(f"{base}/v1/matches/{created['id']}/stream", timeout=10)
    assert refused_stream.status_code == 429 and refused_stream.json()["code"] == "too_many_waiters"
    # Another address is not held back by this one's waits.
    other = _open(base, path, source="127.0.0.2")
    changes.until(lambda: slots() == 4, 30, "the other address's wait held too")
    held.pop(0).close()
    changes.until(lambda: slots() == 3, 30, "the slot of the client that left freed")
    answer = requests.get(base + path.replace("wait=60", "wait=0.2"), timeout=10)
    assert answer.status_code == 200 and answer.json()["events"] == []
    for sock in held + [other]:
        sock.close()
    changes.until(lambda: slots() == 0, 30, "every slot freed")


@pytest.mark.serving
def test_a_body_that_never_comes_is_408_and_the_connection_closes(server):
    """The server answers 408 of its own (REQUEST_BODY_TIMEOUT_SECONDS=1) and closes: ``_exchange``
    reads until the close, its 10 s socket timeout a bound on a broken run only."""
    base = server.base
    created = _match(base)
    token = created["seats"][0]["token"]
    head, body = _exchange(
        base,
        (
            f"POST /v1/matches/{created['id']}/actions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n"
            'Content-Type: application/json\r\nContent-Length: 300\r\n\r\n{"type": '
        ).encode(),
    )
    _problem(head, body, 408, "request_timeout")
    head, body = _exchange(
        base,
        (  # chunked, stalled after the first chunk
            f"POST /v1/matches/{created['id']}/actions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            "Transfer-Encoding: chunked\r\n\r\n1\r\n{\r\n"
        ).encode(),
    )
    _problem(head, body, 408, "request_timeout")
    head, body = _exchange(
        base,
        (  # too large, announced: refused unread
            b"POST /v1/matches HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 999999999\r\n\r\n{"
        ),
    )
    _problem(head, body, 413, "payload_too_large")
    # A body that does arrive is served as before.
    assert requests.post(f"{base}/v1/matches", json=TWO_REMOTE, timeout=10).status_code == 201


PROTOCOL_ERRORS = [
    (b"GET /" + b"a" * 5000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414, "uri_too_long"),
    (
        b"GET /healthz HTTP/1.1\r\n" + b"".join(b"X-N%d: 1\r\n" % i for i in range(150)) + b"\r\n",
        431,
        "header_too_large",
    ),
    (b"GET /healthz HTTP/1.1\r\nX-Big: " + b"a" * 9000 + b"\r\n\r\n", 431, "header_too_large"),
    (b"\x16\x03\x01garbage\r\n\r\n", 400, "invalid_request_line"),
    (b"GET /healthz HTTP/1.1\r\nBad Header: 1\r\n\r\n", 400, "invalid_header"),
    (b"GET /healthz HTTP/7.1\r\n\r\n", 400, "invalid_http_version"),
]


@pytest.mark.serving
def test_gunicorns_own_refusals_are_problem_documents(server):
    base = server.base
    for raw, status, code in PROTOCOL_ERRORS:
        head, body = _exchange(base, raw)
        document = _problem(head, body, status, code)
        assert document["type"].endswith(code) and document["title"] and document["detail"]


@pytest.mark.serving
def test_the_access_log_never_holds_a_seat_token(server):
    base, log, changes = server.base, server.log, server.changes
    logged_before = len(log.read_bytes())  # what the earlier tests had the server write
    created = _match(base)
    token = created["seats"][0]["token"]
    match = f"{base}/v1/matches/{created['id']}"
    stream = requests.get(f"{match}/stream", params={"token": token}, stream=True, timeout=10)
    assert stream.status_code == 200
    stream.close()
    requests.get(f"{match}/stream?a=1&%74oken={token}", stream=True, timeout=10).close()
    requests.get(
        f"{match}/view",
        headers={"Authorization": f"Bearer {token}", "Referer": f"{match}/stream?token={token}"},
        timeout=10,
    )
    requests.get(f"{match}/stream", params={"token": token + "x"}, timeout=10)  # a 401, logged too
    _exchange(base, f"GET /x?token={token} HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n".encode())
    _exchange(base, f"GARBAGE /x?token={token}\r\n\r\n".encode())

    def logged() -> str:
        return log.read_bytes()[logged_before:].decode(errors="replace")

    changes.until(lambda: logged().count("/stream?") >= 3, 30, "the streams in the access log")
    assert token not in logged()
    assert "token=[redacted]" in logged() and "Bearer" not in logged()


def test_healthz_answers_beside_a_few_hundred_idle_waiters(database_url, tmp_path, slots, changes):
    """Under gthread (32 threads per worker) /healthz stopped answering at about 64 idle waiters:
    with 300 held here, every probe is answered (its 10 s timeout a bound on a broken run). How
    much slower it answers beside them is measured by bench/http_waiters.py (bench/README.md §5),
    not asserted here."""
    settings = {"AUTO_MIGRATE": "0", "RATELIMIT_ENABLED": "false"}
    with running_gunicorn(database_url, tmp_path / "server.log", changes=changes, **settings) as (base, _):
        created = _match(base)
        token = created["seats"][0]["token"]
        session = requests.Session()
        idle, waits = [], 0
        for i in range(300):
            source = f"127.0.{1 + i // 25}.{1 + i % 25}"  # 25 per address: under the default cap of 64
            kind = i % 3
            if kind == 0:
                idle.append(
                    _open(base, f"/v1/matches/{created['id']}/events?after={created['seq']}&wait=60", source=source)
                )
            elif kind == 1:
                idle.append(_open(base, f"/v1/matches/{created['id']}/stream?token={token}", source=source))
            else:
                idle.append(
                    _open(
                        base,
                        f"/v1/matches/{created['id']}/actions",
                        "Content-Type: application/json\r\nContent-Length: 50\r\n",
                        source=source,
                    )
                )
                continue
            waits += 1
        # a bound on a broken run only: 200 slots taken by two workers on PostgreSQL with one core
        # kept busy took over 30 s once (ci-like --busy)
        changes.until(lambda: slots() == waits, 120, "every idle long-poll and stream holds its slot")
        answers = [session.get(f"{base}/healthz", timeout=10).status_code for _ in range(40)]
        assert slots() == waits  # the waiters were all still there while /healthz answered
        for sock in idle:
            sock.close()
        assert answers == [200] * 40
