"""WSGI middleware: a request body is read whole, under a deadline, before the app sees it.

A client that announces a body (``Content-Length``, or ``Transfer-Encoding: chunked``) and
then sends it slowly or never would hold its worker greenlet for as long as it likes:
gunicorn bounds the wait for request headers (``keepalive``) but not for a body. Here the
body is read within ``timeout`` seconds, all of it (bodies are small: ``MAX_CONTENT_LENGTH``),
and handed to the app from memory; a client too slow gets ``408 request_timeout`` and its
connection is closed. A declared body over the limit is a 413 without reading a byte of it.
A body on its way is a waiting client like a long-poll: one address may have
``per_address`` of them being read at once in a process (the waiter cap's number), so that
one client cannot fill the worker's connections with bodies that never come (429
``too_many_waiters``, without reading it).

The deadline is a ``gevent.Timeout`` when gevent has patched sockets (gunicorn's gevent
worker); elsewhere (in-process test clients, the werkzeug dev server) reads are not cut.
"""

from __future__ import annotations

import io
import json
import threading
from collections.abc import Iterable
from contextlib import AbstractContextManager, nullcontext
from http import HTTPStatus
from wsgiref.types import InputStream, StartResponse, WSGIApplication, WSGIEnvironment

from api import metrics
from api.http.errors import PROBLEM_CONTENT_TYPE, problem_body
from api.http.problem_codes import PAYLOAD_TOO_LARGE, REQUEST_TIMEOUT, TOO_MANY_WAITERS, ProblemCode

try:
    from gevent import Timeout as _GeventTimeout
    from gevent.monkey import is_module_patched
except ImportError:  # pragma: no cover - gevent is a dependency

    def is_module_patched(mod_name: str) -> bool:
        return False  # without gevent nothing is patched (and _GeventTimeout is never reached)


CHUNK = 16 * 1024


class _TooLarge(Exception):
    pass


class _Timeout(Exception):
    pass


class RequestBodyDeadline:
    """Wrap a WSGI app: bodies arrive within ``timeout`` seconds and ``max_length`` bytes, or never."""

    def __init__(self, app: WSGIApplication, *, timeout: float, max_length: int | None, per_address: int = 0):
        self.app = app
        self.timeout = timeout
        self.max_length = max_length
        self.per_address = per_address  # 0: no cap
        self._reading: dict[str, int] = {}  # address -> bodies being read now
        self._lock = threading.Lock()

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        chunked = "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
        declared = environ.get("CONTENT_LENGTH") or ""
        if not chunked and (not declared.isdigit() or int(declared) == 0):
            return self.app(environ, start_response)  # no body (an invalid length: the app says so)
        length = None if chunked else int(declared)
        if length is not None and self.max_length is not None and length > self.max_length:
            return _refuse(
                environ, start_response, PAYLOAD_TOO_LARGE, f"The request body is larger than {self.max_length} bytes."
            )
        address = environ.get("REMOTE_ADDR") or "unknown"
        if not self._start_reading(address):
            metrics.WAITERS_REFUSED.labels(metrics.UNMATCHED).inc()  # refused before routing
            return _refuse(
                environ,
                start_response,
                TOO_MANY_WAITERS,
                f"This address already has {self.per_address} request bodies on their way.",
                retry_after=1,
            )
        try:
            with _deadline(self.timeout):
                body = self._read(environ["wsgi.input"], length)
        except _Timeout:
            return _refuse(
                environ,
                start_response,
                REQUEST_TIMEOUT,
                f"The request body did not arrive within {self.timeout:g} seconds.",
            )
        except _TooLarge:
            return _refuse(
                environ, start_response, PAYLOAD_TOO_LARGE, f"The request body is larger than {self.max_length} bytes."
            )
        finally:
            self._done_reading(address)
        environ["wsgi.input"] = io.BytesIO(body)
        environ["CONTENT_LENGTH"] = str(len(body))
        environ.pop("HTTP_TRANSFER_ENCODING", None)
        environ["wsgi.input_terminated"] = True
        return self.app(environ, start_response)

    def _start_reading(self, address: str) -> bool:
        with self._lock:
            reading = self._reading.get(address, 0)
            if self.per_address and reading >= self.per_address:
                return False
            self._reading[address] = reading + 1
            return True

    def _done_reading(self, address: str) -> None:
        with self._lock:
            left = self._reading[address] - 1
            if left:
                self._reading[address] = left
            else:
                del self._reading[address]

    def _read(self, stream: InputStream, length: int | None) -> bytes:
        """All of the body (``length`` bytes, or to the end of a chunked one)."""
        limit = self.max_length
        parts: list[bytes] = []
        got = 0
        while length is None or got < length:
            want = CHUNK if length is None else min(CHUNK, length - got)
            part = stream.read(want)
            if not part:
                break  # the client stopped short: the app sees what came
            parts.append(part)
            got += len(part)
            if length is None and limit is not None and got > limit:
                raise _TooLarge
        return b"".join(parts)


def _refuse(
    environ: WSGIEnvironment,
    start_response: StartResponse,
    refusal: ProblemCode,
    detail: str,
    retry_after: int | None = None,
) -> list[bytes]:
    """A problem answer after which the connection is closed (the unread body is not drained)."""
    status, title = refusal.status, HTTPStatus(refusal.status).phrase
    body = json.dumps(problem_body(status, refusal.code, refusal.title, detail)).encode()
    headers = [("Content-Type", PROBLEM_CONTENT_TYPE), ("Content-Length", str(len(body))), ("Connection", "close")]
    if retry_after is not None:
        headers.append(("Retry-After", str(retry_after)))
    start_response(f"{status} {title}", headers)
    _close_after_response(start_response)
    return [body]


def _close_after_response(start_response: StartResponse) -> None:
    """gunicorn drops a ``Connection`` header set by the app; its response object closes on request."""
    force_close = getattr(getattr(start_response, "__self__", None), "force_close", None)
    if callable(force_close):
        force_close()


def _deadline(seconds: float) -> AbstractContextManager:
    """Raise ``_Timeout`` after ``seconds`` of cooperative blocking (gevent only)."""
    if not is_module_patched("socket"):
        return nullcontext()
    return _GeventTimeout(seconds, _Timeout)
