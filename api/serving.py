"""How gunicorn serves Boneyard: the worker class, the access logger, the open-files limit.

``gunicorn.conf.py`` names these. gunicorn imports this module in its master process,
before it forks the workers and before a worker monkey-patches the standard library for
gevent, so it imports nothing of the app at module level (a lock made before patching
would block a whole worker instead of one greenlet).

* :class:`Worker`: gunicorn's gevent worker. A waiting client (long-poll, stream, a body
  still on its way) costs a greenlet, not a thread, so a worker holds thousands. The only
  change: the answers gunicorn writes itself when a request cannot even be parsed (a bad
  request line, a URI or headers over the limits, a bad chunk...) are problem documents
  with a stable ``code``, like every other error of the API, instead of gunicorn's HTML.
* :class:`AccessLogger`: the access and error logs never hold a seat token. ``?token=``
  (the stream's query parameter for ``EventSource``) is redacted from every atom, and the
  ``Authorization`` and ``X-API-Key`` headers are never written. With ``LOG_FORMAT=json``
  each line is a JSON object (``api.logs``), the access line with the request's id and route.
* :func:`raise_open_files_limit`: every connection is a file descriptor.
* :func:`cpu_offload`: how a worker runs CPU-heavy pure work (a bot's thinking, a fairness
  check) without stopping its other greenlets.
"""

from __future__ import annotations

import json
import logging
import os
import resource
import socket
import ssl
from collections.abc import Callable, MutableMapping
from datetime import datetime, timedelta
from typing import Any, cast

import gevent
from gunicorn import util
from gunicorn.config import Config
from gunicorn.glogging import Logger
from gunicorn.http import Request
from gunicorn.http import errors as http_errors
from gunicorn.http.wsgi import Response, default_environ
from gunicorn.workers.ggevent import GeventWorker

from api import logs
from api.logs import REDACTED, SECRET_HEADERS, redact_query, redact_text

#: What gunicorn refuses before the app runs: (exception, status, code, title, detail), first match wins.
PROTOCOL_ERRORS: list[tuple[type[BaseException], int, str, str, str]] = [
    (
        http_errors.InvalidResponseHeaderName,  # type: ignore[attr-defined]  # gunicorn 27; its stubs are 26.2
        500,
        "internal_error",
        "Internal Server Error",
        "An unexpected error occurred.",
    ),
    (
        http_errors.InvalidResponseHeader,  # type: ignore[attr-defined]  # gunicorn 27; its stubs are 26.2
        500,
        "internal_error",
        "Internal Server Error",
        "An unexpected error occurred.",
    ),
    (
        http_errors.LimitRequestLine,
        414,
        "uri_too_long",
        "URI Too Long",
        "The request line is longer than this server accepts.",
    ),
    (
        http_errors.LimitRequestHeaders,
        431,
        "header_too_large",
        "Request Header Fields Too Large",
        "Too many request headers, or one too large.",
    ),
    (
        http_errors.InvalidRequestLine,
        400,
        "invalid_request_line",
        "Bad Request",
        "The request line is not HTTP: METHOD /path HTTP/1.1.",
    ),
    (http_errors.InvalidRequestMethod, 400, "invalid_method", "Bad Request", "The request method is not valid."),
    (http_errors.InvalidHTTPVersion, 400, "invalid_http_version", "Bad Request", "The HTTP version is not supported."),
    (http_errors.InvalidHeaderName, 400, "invalid_header", "Bad Request", "A request header name is not valid."),
    (http_errors.InvalidHeader, 400, "invalid_header", "Bad Request", "A request header is not valid."),
    (
        http_errors.ObsoleteFolding,
        400,
        "invalid_header",
        "Bad Request",
        "A request header is folded over lines (obsolete line folding).",
    ),
    (
        http_errors.UnsupportedTransferCoding,
        501,
        "unsupported_transfer_coding",
        "Not Implemented",
        "The Transfer-Encoding is not supported.",
    ),
    (
        http_errors.ExpectationFailed,
        417,
        "expectation_failed",
        "Expectation Failed",
        "The Expect header cannot be met.",
    ),
    (http_errors.InvalidChunkSize, 400, "invalid_chunked_body", "Bad Request", "The chunked body is malformed."),
    (http_errors.ChunkMissingTerminator, 400, "invalid_chunked_body", "Bad Request", "The chunked body is malformed."),
    (http_errors.InvalidChunkExtension, 400, "invalid_chunked_body", "Bad Request", "The chunked body is malformed."),
    (
        http_errors.InvalidSchemeHeaders,
        400,
        "invalid_scheme_headers",
        "Bad Request",
        "The forwarded scheme headers disagree.",
    ),
    (
        http_errors.ForbiddenProxyRequest,
        403,
        "forbidden_proxy",
        "Forbidden",
        "Proxy requests are not accepted from this address.",
    ),
    (http_errors.InvalidProxyLine, 400, "invalid_proxy_line", "Bad Request", "The PROXY protocol line is invalid."),
    (http_errors.InvalidProxyHeader, 400, "invalid_proxy_line", "Bad Request", "The PROXY protocol header is invalid."),
    (http_errors.InvalidH2CPreface, 400, "bad_request", "Bad Request", "The HTTP/2 preface is invalid."),
    (http_errors.ConfigurationProblem, 500, "internal_error", "Internal Server Error", "The server is misconfigured."),
    (ssl.SSLError, 400, "tls_error", "Bad Request", "The TLS handshake failed."),
    (http_errors.ParseException, 400, "bad_request", "Bad Request", "The request is not valid HTTP."),
]
_UNEXPECTED = (500, "internal_error", "Internal Server Error", "An unexpected error occurred.")


def protocol_error(exc: BaseException) -> tuple[int, str, str, str]:
    """(status, code, title, detail) of what gunicorn refused, or of an unexpected failure."""
    for kind, *answer in PROTOCOL_ERRORS:
        if isinstance(exc, kind):
            return tuple(answer)  # type: ignore[return-value]
    return _UNEXPECTED


def problem_response(status: int, code: str, title: str, detail: str, request_id: str | None = None) -> bytes:
    """A whole HTTP/1.1 response carrying a problem document; the connection closes after it.
    ``request_id`` (made when not given) is echoed in ``X-Request-ID``, as the app's answers do."""
    # Imported here, not above: this module loads in gunicorn's master, the app only in workers.
    from api.http.problem_document import PROBLEM_CONTENT_TYPE, problem_document

    body = json.dumps(problem_document(status, code, title, detail)).encode()
    head = (
        f"HTTP/1.1 {status} {title}\r\nConnection: close\r\nContent-Type: {PROBLEM_CONTENT_TYPE}\r\n"
        f"Content-Length: {len(body)}\r\n{logs.REQUEST_ID_HEADER}: {logs.request_id_from(request_id)}\r\n\r\n"
    )
    return head.encode("latin-1") + body


_draining = False


def is_draining() -> bool:
    """Whether this process got SIGTERM and is finishing what it holds (``/readyz`` says 503)."""
    return _draining


class Worker(GeventWorker):
    """gunicorn's gevent worker, answering its own protocol errors as problem documents, and
    draining on SIGTERM: ``/readyz`` answers 503 from then on (:func:`is_draining`)."""

    def handle_exit(self, sig: int, frame: Any) -> None:
        """SIGTERM: gunicorn's graceful stop (stop accepting, finish the requests held, at most
        ``graceful_timeout``), and from now on not ready."""
        global _draining
        _draining = True
        super().handle_exit(sig, frame)
        # Out of the signal handler, as gunicorn does with its own handlers' blocking calls.
        gevent.spawn(self.log.info, "draining: /readyz answers 503 until this worker exits")

    def handle_error(self, req: Request | None, client: socket.socket, addr: Any, exc: BaseException) -> None:
        """Replaces ``gunicorn.workers.base.Worker.handle_error`` (gunicorn 27), whose answer is HTML."""
        started = datetime.now()
        addr = addr or ("", -1)  # a unix socket
        status, code, title, detail = protocol_error(exc)
        parsed = getattr(exc, "req", None)  # a header error knows its request (a request-line
        if req is None and status < 500 and hasattr(parsed, "headers"):  # error only the line)
            req = parsed
        offered = _header(req, logs.REQUEST_ID_HEADER) if req is not None else None
        context = logs.LogContext(logs.request_id_from(offered))
        logs.enter(context)  # the lines below are about this refusal, not this connection's last request
        if status < 500:
            self.log.warning("Invalid request from ip=%s: %s (%s)", addr[0], code, redact_text(str(exc)))
        else:
            self.log.exception("Error handling request %s", redact_text(getattr(req, "uri", "(no URI read)")))
        data = problem_response(status, code, title, detail, context.request_id)
        if req is not None:
            environ = default_environ(req, client, self.cfg)
            environ[logs.ENVIRON_KEY] = context
            environ["REMOTE_ADDR"], environ["REMOTE_PORT"] = addr[0], str(addr[1])
            response = Response(req, client, self.cfg)
            response.status = f"{status} {title}"
            response.response_length = len(data)
            self.log.access(response, req, environ, datetime.now() - started)
        try:
            util.write_nonblock(client, data)
        except Exception:
            self.log.debug("Failed to send the error answer.")


def _header(req: Request, name: str) -> str | None:
    """The value of a request header gunicorn parsed (the last one of that name)."""
    found = [value for key, value in getattr(req, "headers", []) if key.upper() == name.upper()]
    return found[-1] if found else None


# --- logs without secrets ------------------------------------------------------------------
class _RedactRecords(logging.Filter):
    """For the error log: messages and tracebacks that quote a URL lose its secrets."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        redacted = redact_text(message)
        if redacted != message:
            record.msg, record.args = redacted, ()
        if record.exc_info and not record.exc_text:
            record.exc_text = redact_text(logging.Formatter().formatException(record.exc_info))
        return True


class AccessLogger(Logger):
    """gunicorn's logger, with secrets taken out of every access-log atom and error-log line;
    with ``LOG_FORMAT=json``, each line of both logs is a JSON object (``api.logs``)."""

    json_lines = False

    def setup(self, cfg: Config) -> None:
        super().setup(cfg)
        if not any(isinstance(f, _RedactRecords) for f in self.error_log.filters):
            self.error_log.addFilter(_RedactRecords())
        self.json_lines = logs.log_format(os.environ) == logs.JSON
        if self.json_lines:
            for handler in (*self.error_log.handlers, *self.access_log.handlers):
                handler.setFormatter(logs.JsonFormatter())

    def access(self, resp: Response, req: Request, environ: MutableMapping[str, Any], request_time: timedelta) -> None:
        if not self.json_lines:
            super().access(resp, req, environ, request_time)
            return
        if not getattr(self, "access_log_enabled", True):  # gunicorn 27; its stubs are 26.2
            return
        sent = resp.response_length if _sent_by_sendfile(resp) else resp.sent
        self.access_log.info(
            "request",
            extra={
                "log_context": environ.get(logs.ENVIRON_KEY),  # this request's, whichever is current
                "method": req.method,
                "path": req.path,  # without the query: a stream's ?token= never gets here
                "status": int(str(resp.status).split()[0]),
                "duration": round(request_time.total_seconds(), 6),
                "bytes": sent,
                "remote": environ.get("REMOTE_ADDR"),
            },
        )

    # The stub types the answer as a TypedDict of the fixed atoms; it is a plain dict (below).
    def atoms(  # type: ignore[override]
        self, resp: Response, req: Request, environ: dict[str, Any], request_time: timedelta
    ) -> dict[str, Any]:
        # A plain dict at run time, with a key per header too ("{name}i"): more than the
        # stub's TypedDict of fixed atoms can name.
        atoms = cast("dict[str, Any]", super().atoms(resp, req, environ, request_time))
        for key, value in atoms.items():
            if not isinstance(value, str):
                continue
            if key in ("q", "{query_string}e"):
                atoms[key] = redact_query(value)
            elif _is_secret_header(key):
                atoms[key] = REDACTED
            else:
                atoms[key] = redact_text(value)
        if _sent_by_sendfile(resp):
            atoms["b"], atoms["B"] = str(resp.response_length), resp.response_length
        return atoms


def _sent_by_sendfile(resp: Response) -> bool:
    """A file answer (``send_file``: /docs' assets, the web table's) goes out by ``sendfile()``,
    which gunicorn does not count in ``resp.sent``: a 1.7 MB script was logged as 0 bytes. Then
    the headers went, no byte was counted, yet a body of ``response_length`` was due: that is
    what the log says (also for a client that left midway, as sendfile() cannot tell)."""
    return (
        getattr(resp, "headers_sent", False)
        and getattr(resp, "sent", None) == 0
        and bool(getattr(resp, "response_length", None))
        and not getattr(resp, "_omits_body", True)
    )


def _is_secret_header(atom: str) -> bool:
    if atom.startswith("{") and atom.endswith("}i"):
        return atom[1:-2] in SECRET_HEADERS
    if atom.startswith("{http_") and atom.endswith("}e"):
        return atom[6:-2].replace("_", "-") in SECRET_HEADERS
    return False


# --- the process ------------------------------------------------------------------------------
def raise_open_files_limit(log: Logger | None = None) -> int:
    """Raise this process's soft RLIMIT_NOFILE to its hard limit (every waiting client is a
    descriptor; the soft limit is often 1,024); the workers inherit it. Answers the limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
    if target > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError) as exc:
            if log is not None:
                log.warning("could not raise the open-files limit from %s to %s: %s", soft, target, exc)
    return soft


def cpu_offload() -> Callable[..., Any] | None:
    """``offload(fn, *args)`` for the services, or None to run work in place.

    A gevent worker runs every request on one OS thread and switches only when one blocks:
    a bot thinking for 50 ms would stall every other request of the worker, /healthz
    included. Under gevent such work goes to the hub's pool of native threads instead; the
    interpreter then switches between it and the event loop every few milliseconds. Only
    pure functions go there (the rules engine and bots touch no sockets, locks or database).
    """
    try:
        from gevent import get_hub
        from gevent.monkey import is_module_patched
    except ImportError:  # pragma: no cover - gevent is a dependency
        return None
    if not is_module_patched("threading"):
        return None

    def offload(fn: Callable[..., Any], *args: Any) -> Any:
        return get_hub().threadpool.apply(fn, args)

    return offload
