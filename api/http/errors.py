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
from http import HTTPStatus
from typing import Any

import marshmallow as ma
from flask import Flask, Request, Response, current_app
from werkzeug.exceptions import BadRequest, HTTPException

from api.http.openapi_shapes import component

log = logging.getLogger(__name__)

PROBLEM_TYPE_BASE = "https://boneyard.dev/problems/"
PROBLEM_CONTENT_TYPE = "application/problem+json"

#: Default ``code`` for each HTTP status when the raiser gave none.
STATUS_CODES: dict[int, str] = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    409: "conflict",
    410: "gone",
    412: "precondition_failed",
    413: "payload_too_large",
    414: "uri_too_long",
    415: "unsupported_media_type",
    422: "invalid_request",
    428: "precondition_required",
    429: "too_many_requests",
    431: "header_too_large",
    500: "internal_error",
    501: "not_implemented",
    503: "service_unavailable",
}

_RESERVED = frozenset({"type", "title", "status", "detail", "code"})


class ProblemError(Exception):
    """Raise from a view to answer with a problem document.

    ``extra`` members are added to the body (e.g. ``current_seq=12``);
    ``headers`` (keyword) are added to the response.
    """

    def __init__(
        self,
        status: int,
        code: str,
        title: str,
        detail: str | None = None,
        *,
        headers: Mapping[str, str] | None = None,
        **extra: Any,
    ):
        super().__init__(detail or title)
        self.status = status
        self.code = code
        self.title = title
        self.detail = detail
        self.headers = dict(headers or {})
        self.extra = extra


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
        if getattr(e, "errors", None):
            raise ProblemError(422, "invalid_request", _status_phrase(422), str(e), errors={"json": e.errors})
        if getattr(e, "reason", None):
            raise MalformedJSON(str(e), e.reason)
        raise MalformedJSON()


class ProblemSchema(ma.Schema):
    """An RFC 9457 problem document (extension members may appear)."""

    class Meta:
        unknown = ma.INCLUDE

    type = ma.fields.String(
        required=True, metadata={"description": "URI naming the problem type: `https://boneyard.dev/problems/<code>`"}
    )
    title = ma.fields.String(required=True, metadata={"description": "Short summary of the problem type"})
    status = ma.fields.Integer(required=True, metadata={"description": "HTTP status code"})
    detail = ma.fields.String(required=True, metadata={"description": "Explanation of this occurrence"})
    code = ma.fields.String(
        required=True,
        metadata={
            "description": "Stable machine-readable code, e.g. `not_your_turn`: always with the same status and "
            "title; docs/problems.md lists every one, and each response of an operation the codes it "
            "may carry (`x-problem-codes`)"
        },
    )
    errors = component(
        "FieldErrors",
        metadata={"description": "`invalid_request` and `invalid_action` (422): the messages by location, then field"},
    )
    reason = ma.fields.String(
        metadata={
            "description": "`malformed_json` only: why the body could not be read (`encoding`, `syntax`, `depth`)"
        }
    )
    location = ma.fields.String(
        metadata={
            "description": "`invalid_text` (and a credential header refused as not text): where the refused text "
            "was (`path`, `query`, `header`)"
        }
    )
    name = ma.fields.String(
        metadata={
            "description": "`invalid_text`, `header_too_large` (and a credential header refused as not text): the "
            "header or query parameter refused"
        }
    )
    field = ma.fields.String(
        metadata={"description": "`invalid_rules` only: the option (or `rules`, `preset`, `players`) refused"}
    )
    current_seq = ma.fields.Integer(
        metadata={"description": "`stale_seq` and `precondition_failed` only: the match's seq now"}
    )
    match_status = ma.fields.String(
        metadata={"description": "`match_not_over` only: the match's status now (`waiting` or `playing`)"}
    )
    limit = ma.fields.Integer(
        metadata={
            "description": "`event_limit_reached`, `too_many_bot_matches` only: the server's bound that was reached"
        }
    )


def problem_body(
    status: int, code: str, title: str | None = None, detail: str | None = None, **extra: Any
) -> dict[str, Any]:
    """The problem document as a dict (no response)."""
    clash = _RESERVED & extra.keys()
    if clash:
        raise ValueError(f"extra members may not override {sorted(clash)}")
    title = _catalogued_title(code) or title  # one title per code (RFC 9457), the catalogue's
    body: dict[str, Any] = {
        "type": PROBLEM_TYPE_BASE + code,
        "title": title or _status_phrase(status),
        "status": status,
        "detail": detail or title or _status_phrase(status),
        "code": code,
    }
    body.update(extra)
    return body


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


def _catalogued_title(code: str) -> str | None:
    """The title :mod:`api.http.problem_codes` gives ``code`` (None for a code it does not know).
    Imported here, not above: the catalogue builds on this module."""
    from api.http.problem_codes import entry_of

    entry = entry_of(code)
    return entry.title if entry is not None else None


def _status_phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


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
    title = _status_phrase(status)
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
