"""Every error as RFC 9457 ``application/problem+json``.

A problem body always has::

    {"type": "https://boneyard.dev/problems/<code>", "title": "...",
     "status": 404, "detail": "...", "code": "<code>", ...extra members}

``code`` is the stable machine-readable name clients switch on; every code the API
answers, with its one status and title, is in :mod:`api.http.problem_codes` (a code it
knows always gets its title there). Views either ``raise SEAT_TAKEN.error("Seat 2 is
taken")`` (an entry of that catalogue), ``raise ProblemError(...)`` or ``return
problem(...)``; flask-smorest's ``abort(status, message=...)`` and plain werkzeug
exceptions are translated too.  Request validation failures
(422) carry webargs' messages under ``errors``, keyed by location then field:
``{"json": {"name": ["Missing data for required field."]}}``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any

from flask import Flask, Request, Response, current_app
from werkzeug.exceptions import BadRequest, HTTPException

from api.http.problem_codes import entry_of
from api.http.problem_document import (
    PROBLEM_CONTENT_TYPE,
    STATUS_CODES,
    ProblemError,
    ProblemSchema,
    problem_document,
    status_phrase,
)

__all__ = ["PROBLEM_CONTENT_TYPE", "STATUS_CODES", "ProblemError", "ProblemSchema", "problem", "problem_body"]

log = logging.getLogger(__name__)


class MalformedJSON(BadRequest):
    """The request body claims to be JSON but does not parse, or breaks the JSON policy
    (:mod:`api.http.input_guard`); ``reason`` says which, as the problem's ``reason``."""

    description = "The request body is not valid JSON."

    def __init__(self, description: str | None = None, reason: str = "syntax"):
        super().__init__(description)
        self.reason = reason


class BoneyardRequest(Request):
    """Request class whose ``get_json`` failures become ``malformed_json``."""

    def on_json_loading_failed(self, e: ValueError | None) -> Any:
        # Refused by the JSON policy (api.http.input_guard): read but unacceptable values are
        # a 422 by field, like the schemas' own refusals; an unreadable body says why.
        # (input_guard's JSONRefused, read by attribute: that module imports this one)
        errors = getattr(e, "errors", None)
        if errors:
            raise ProblemError(422, "invalid_request", status_phrase(422), str(e), errors={"json": errors})
        reason = getattr(e, "reason", None)
        if reason:
            raise MalformedJSON(str(e), reason)
        raise MalformedJSON()


def problem_body(
    status: int, code: str, title: str | None = None, detail: str | None = None, **extra: Any
) -> dict[str, Any]:
    """The problem document as a dict (no response); a catalogued code gets its one title."""
    entry = entry_of(code)
    title = (entry.title if entry is not None else None) or title  # one title per code (RFC 9457)
    return problem_document(status, code, title or status_phrase(status), detail, **extra)


def problem(
    status: int,
    code: str,
    title: str | None = None,
    detail: str | None = None,
    *,
    headers: Mapping[str, str] | None = None,
    **extra: Any,
) -> Response:
    """An ``application/problem+json`` response."""
    body = problem_body(status, code, title, detail, **extra)
    response = current_app.response_class(json.dumps(body), status=status, mimetype=PROBLEM_CONTENT_TYPE)
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def handle_problem_error(error: ProblemError) -> Response:
    return problem(error.status, error.code, error.title, error.detail, headers=error.headers, **error.extra)


def handle_http_exception(error: HTTPException) -> Response:
    """werkzeug/Flask exceptions and flask-smorest ``abort`` -> problem."""
    status = error.code or 500
    if status >= 500:
        # Flask wraps unhandled errors in InternalServerError(original_exception=...).
        original = getattr(error, "original_exception", None)
        if original is not None:
            return handle_unexpected(original)
    data = getattr(error, "data", None) or {}
    headers = dict(data.get("headers") or {})
    for name, value in error.get_headers():
        if name.lower() != "content-type":
            headers.setdefault(name, value)

    code = data.get("code") if isinstance(data.get("code"), str) else STATUS_CODES.get(status)
    code = code or f"http_{status}"
    title = status_phrase(status)
    detail = data.get("message") or error.description or title
    extra: dict[str, Any] = {}

    messages = data.get("errors") or data.get("messages")
    if isinstance(error, MalformedJSON):
        code, detail, extra["reason"] = "malformed_json", error.description, error.reason
    elif status == 400 and isinstance(getattr(error, "exc", None), (json.JSONDecodeError, UnicodeDecodeError)):
        # webargs' abort puts the parse error on the exception as ``exc``
        code, detail, extra["reason"] = "malformed_json", MalformedJSON.description, "syntax"
    elif status == 422:
        # webargs names the schema that refused the request: a schema may give its own code
        # (an action body that is no action is ``invalid_action``), by field all the same.
        code = getattr(data.get("schema"), "PROBLEM_CODE", code)
        detail = data.get("message") or "The request did not pass validation."
        if messages:
            extra["errors"] = messages
    elif messages:
        extra["errors"] = messages
    if status == 413:
        limit = current_app.config.get("MAX_CONTENT_LENGTH")
        if limit:
            detail = f"The request body is larger than {limit} bytes."
    return problem(status, code, title, str(detail), headers=headers, **extra)


def handle_unexpected(error: BaseException) -> Response:
    """Anything else: log it with its traceback, answer 500 without one."""
    if isinstance(error, HTTPException):
        return handle_http_exception(error)
    if isinstance(error, ProblemError):
        return handle_problem_error(error)
    log.error("unhandled exception", exc_info=error)
    return problem(500, "internal_error", "Internal Server Error", "An unexpected error occurred.")


def register_error_handlers(app: Flask) -> None:
    """Install the handlers (call after flask-smorest's ``Api.init_app``)."""
    app.request_class = BoneyardRequest
    app.register_error_handler(ProblemError, handle_problem_error)
    app.register_error_handler(HTTPException, handle_http_exception)
    app.register_error_handler(Exception, handle_unexpected)
