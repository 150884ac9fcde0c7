"""WSGI middleware: a request body is read whole, under a deadline, before the app sees it.

A client that announces a body (``Content-Length``, or ``Transfer-Encoding: chunked``) and
then sends it slowly or never would hold its worker greenlet for as long as it likes:
gunicorn bounds the wait for request headers (``keepalive``) but not for a body. Here the
body is read within ``timeout`` seconds, all of it (bodies are small: ``MAX_CONTENT_LENGTH``),
and handed to the app from memory; a client too slow gets ``408 request_timeout`` and its
connection is closed. A declared body over the limit is a 413 without reading a byte of it.

The deadline is a ``gevent.Timeout`` when gevent has patched sockets (gunicorn's gevent
worker); elsewhere (in-process test clients, the werkzeug dev server) reads are not cut.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from api.http.errors import PROBLEM_CONTENT_TYPE, problem_body

try:
    from gevent import Timeout as _GeventTimeout
    from gevent.monkey import is_module_patched
except ImportError:                      # pragma: no cover - gevent is a dependency
    _GeventTimeout, is_module_patched = None, None

CHUNK = 16 * 1024


class _TooLarge(Exception):
    pass


class _Timeout(Exception):
    pass


class RequestBodyDeadline:
    """Wrap a WSGI app: bodies arrive within ``timeout`` seconds and ``max_length`` bytes, or never."""

    def __init__(self, app: Callable, *, timeout: float, max_length: int | None):
        self.app = app
        self.timeout = timeout
        self.max_length = max_length

    def __call__(self, environ: dict[str, Any], start_response: Callable) -> Iterable[bytes]:
        chunked = "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
        declared = environ.get("CONTENT_LENGTH") or ""
        if not chunked and (not declared.isdigit() or int(declared) == 0):
            return self.app(environ, start_response)      # no body (an invalid length: the app says so)
        length = None if chunked else int(declared)
        if length is not None and self.max_length is not None and length > self.max_length:
            return _refuse(environ, start_response, 413, "payload_too_large", "Payload Too Large",
                           f"The request body is larger than {self.max_length} bytes.")
        try:
            with _deadline(self.timeout):
                body = self._read(environ["wsgi.input"], length)
        except _Timeout:
            return _refuse(environ, start_response, 408, "request_timeout", "Request Timeout",
                           f"The request body did not arrive within {self.timeout:g} seconds.")
        except _TooLarge:
            return _refuse(environ, start_response, 413, "payload_too_large", "Payload Too Large",
                           f"The request body is larger than {self.max_length} bytes.")
        environ["wsgi.input"] = io.BytesIO(body)
        environ["CONTENT_LENGTH"] = str(len(body))
        environ.pop("HTTP_TRANSFER_ENCODING", None)
        environ["wsgi.input_terminated"] = True
        return self.app(environ, start_response)

    def _read(self, stream, length: int | None) -> bytes:
        """All of the body (``length`` bytes, or to the end of a chunked one)."""
        limit = self.max_length
        parts, got = [], 0
        while length is None or got < length:
            want = CHUNK if length is None else min(CHUNK, length - got)
            part = stream.read(want)
            if not part:
                break                    # the client stopped short: the app sees what came
            parts.append(part)
            got += len(part)
            if length is None and limit is not None and got > limit:
                raise _TooLarge
        return b"".join(parts)


def _refuse(environ, start_response, status: int, code: str, title: str, detail: str) -> list[bytes]:
    """A problem answer after which the connection is closed (the unread body is not drained)."""
    body = json.dumps(problem_body(status, code, title, detail)).encode()
    start_response(f"{status} {title}", [("Content-Type", PROBLEM_CONTENT_TYPE),
                                         ("Content-Length", str(len(body))), ("Connection", "close")])
    _close_after_response(start_response)
    return [body]


def _close_after_response(start_response: Callable) -> None:
    """gunicorn drops a ``Connection`` header set by the app; its response object closes on request."""
    response = getattr(start_response, "__self__", None)
    if callable(getattr(response, "force_close", None)):
        response.force_close()


def _deadline(seconds: float) -> AbstractContextManager:
    """Raise ``_Timeout`` after ``seconds`` of cooperative blocking (gevent only)."""
    if _GeventTimeout is None or not is_module_patched("socket"):
        return nullcontext()
    return _GeventTimeout(seconds, _Timeout)
