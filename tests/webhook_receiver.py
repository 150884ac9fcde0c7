"""A real webhook receiver on loopback, and the verification recipe of docs/webhooks.md (its code).

The receiver answers each request as its script says (a status, or ``HANG``: hold the
request until the test releases it — a ``threading.Event``, not a sleep) and keeps what it
got: headers and the raw body, for the test to verify as a portal would.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

HANG = "hang"
DOCS = Path(__file__).resolve().parents[1] / "docs" / "webhooks.md"


def documented_recipe() -> dict[str, Any]:
    """The Python verification recipe of docs/webhooks.md, run as written: the tests verify
    real deliveries with the very code a portal is told to copy."""
    blocks = re.findall(r"```python\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.DOTALL)
    (recipe,) = [block for block in blocks if "def verify(" in block]
    namespace: dict[str, Any] = {}
    exec(compile(recipe, str(DOCS), "exec"), namespace)
    return namespace


_RECIPE = documented_recipe()
verify = _RECIPE["verify"]
SignatureError: type[Exception] = _RECIPE["SignatureError"]


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes
    #: The receiver's clock (Unix seconds) when the request came: the ``now`` a portal verifies with.
    at: float


@dataclass
class Receiver:
    url: str
    script: list[int | str] = field(default_factory=list)  # answers, in order; then 200s
    received: list[Received] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def next_answer(self) -> int | str:
        with self.lock:
            return self.script.pop(0) if self.script else 200


@contextmanager
def running_receiver(*script: int | str) -> Iterator[Receiver]:
    receiver: Receiver

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            with receiver.lock:
                receiver.received.append(Received(dict(self.headers.items()), body, time.time()))
            answer = receiver.next_answer()
            if answer == HANG:
                receiver.release.wait(30)
                return  # no answer at all: the sender timed out long ago
            self.send_response(int(answer))
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    receiver = Receiver(f"http://127.0.0.1:{server.server_address[1]}/hooks/boneyard", list(script))
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        receiver.release.set()
        server.shutdown()
        server.server_close()
        thread.join(5)
