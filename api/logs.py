"""What a log line says about its request, and how lines are written: readable text or JSON.

Stdlib only, and nothing of the app at module level: gunicorn's master imports this (through
``api.serving``) before it forks the workers.

* The request id: taken from the request's ``X-Request-ID`` when it is sane (1 to 128
  characters of a safe set: what a proxy or a client library makes, never a line break or a
  quote a log reader could trip on), else made here. Every answer echoes it
  (``api.http.request_ids``), and every line logged while the request is served carries it.
* :class:`LogContext`: the request id, and the route template, match id and seat once
  routing knows them. It lives in a context variable (per greenlet under gevent, per thread
  otherwise) for the app's own lines, and in the WSGI environ for gunicorn's access line.
* Redaction: a URL's ``?token=`` (the stream's seat or player token) never reaches a line, in
  either format (:func:`redact_text`); ``api.serving`` keeps secret headers out of the access log.
* :class:`JsonFormatter` and :func:`configure`: ``LOG_FORMAT=json`` makes every line of the app,
  the runner and gunicorn (``api.serving.AccessLogger``) one JSON object.
"""

from __future__ import annotations

import json
import logging
import re
import uuid
from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import unquote_plus

REQUEST_ID_HEADER = "X-Request-ID"
#: The WSGI environ key of the request's :class:`LogContext`.
ENVIRON_KEY = "boneyard.log_context"
REQUEST_ID_MAX_LENGTH = 128
#: Besides ASCII letters and digits, what a sane request id may hold (UUIDs, trace ids, base64).
REQUEST_ID_PUNCTUATION = "._:@/+=-"
_SANE_REQUEST_ID = re.compile(rf"[A-Za-z0-9{re.escape(REQUEST_ID_PUNCTUATION)}]{{1,{REQUEST_ID_MAX_LENGTH}}}")

REDACTED = "[redacted]"
#: Query parameters whose values are secrets (``/stream?token=``).
SECRET_PARAMETERS = frozenset({"token"})
#: Request headers never logged.
SECRET_HEADERS = frozenset({"authorization", "proxy-authorization", "x-api-key", "cookie"})
_QUERY = re.compile(r"\?(\S*)")
_PARAMETER_SEPARATOR = re.compile(r"([&;])")

TEXT, JSON = "text", "json"
LOG_FORMATS = (TEXT, JSON)
#: The readable text format of the app's and the runner's lines (``LOG_FORMAT=text``).
TEXT_LINE = "%(asctime)s %(levelname)s [%(name)s] %(message)s"
#: The fields a line may carry beyond time, level, logger and event, in this order.
FIELDS = ("request_id", "method", "path", "route", "status", "duration", "bytes", "match_id", "seat", "remote")


def log_format(environ: Mapping[str, str]) -> str:
    """``LOG_FORMAT`` from an environment: ``text`` (the default) or ``json``."""
    value = environ.get("LOG_FORMAT", TEXT).strip().lower() or TEXT
    if value not in LOG_FORMATS:
        raise ValueError(f"LOG_FORMAT must be one of {', '.join(LOG_FORMATS)}, not {value!r}")
    return value


def request_id_from(offered: str | None) -> str:
    """The offered request id when it is sane, else a new one (32 hex digits)."""
    if offered and _SANE_REQUEST_ID.fullmatch(offered):
        return offered
    return uuid.uuid4().hex


@dataclass
class LogContext:
    """What the lines logged for one request say about it."""

    request_id: str
    route: str | None = None
    match_id: str | None = None
    seat: int | None = None

    def fields(self) -> dict[str, Any]:
        return {key: value for key, value in vars(self).items() if value is not None}


# --- logs without secrets ------------------------------------------------------------------
def redact_query(query: str) -> str:
    """A query string with the values of secret parameters replaced (names matched decoded,
    so ``%74oken=`` is caught as well)."""
    parts = _PARAMETER_SEPARATOR.split(query)
    for index, part in enumerate(parts):
        name, equals, _value = part.partition("=")
        if equals and unquote_plus(name).strip().lower() in SECRET_PARAMETERS:
            parts[index] = f"{name}={REDACTED}"
    return "".join(parts)


def redact_text(text: str) -> str:
    """Any text with every URL query in it redacted (a request line, a URI, a referrer, a message)."""
    if "?" not in text:
        return text
    return _QUERY.sub(lambda match: "?" + redact_query(match.group(1)), text)


# --- the request's context --------------------------------------------------------------------
_CONTEXT: ContextVar[LogContext | None] = ContextVar("boneyard_log_context", default=None)


def enter(context: LogContext) -> None:
    """``context`` is the current request's, for the lines logged from here on in this greenlet
    (or thread), until the next request served there enters its own."""
    _CONTEXT.set(context)


def current() -> LogContext | None:
    return _CONTEXT.get()


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time (UTC, ISO 8601), level, logger, event (the message), the
    request's context, and those of :data:`FIELDS` the call passed in ``extra``.

    The request's context is the record's own ``log_context`` when the call passed one (gunicorn's
    access line, written for the request it is about), else the current one. The message and the
    traceback are redacted (:func:`redact_text`: a URL's ``?token=`` never reaches a line)."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "event": redact_text(record.getMessage()),
        }
        context = getattr(record, "log_context", None) or current()
        if context is not None:
            line.update(context.fields())
        for field in FIELDS:
            value = getattr(record, field, None)
            if value is not None:
                line[field] = value
        if record.exc_info:
            line["exception"] = redact_text(self.formatException(record.exc_info))
        elif record.exc_text:
            line["exception"] = redact_text(record.exc_text)
        if record.stack_info:
            line["stack"] = record.stack_info
        return json.dumps(line, default=str)


def configure(log_format: str, level: str) -> None:
    """The app's and the runner's lines (loggers under ``api``) at ``level``, in ``log_format``.

    Text: a handler on ``api`` alone, unless the process has set up logging itself. JSON: the
    handler goes on the root logger, so that every library's lines and Python's warnings are
    JSON objects too (a line of another shape would break the pipeline that parses them)."""
    logger = logging.getLogger("api")
    logger.setLevel(level)
    root = logging.getLogger()
    if log_format == JSON:
        if not any(isinstance(handler.formatter, JsonFormatter) for handler in root.handlers):
            handler = logging.StreamHandler()
            handler.setFormatter(JsonFormatter())
            root.addHandler(handler)
        logging.captureWarnings(True)
    elif not root.handlers and not logger.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter(TEXT_LINE))
        logger.addHandler(handler)
