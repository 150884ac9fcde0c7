"""The problem document itself (RFC 9457): its media type, members, schema and exception.

Kept apart from the catalogue of codes (``api.http.problem_codes``, which documents every
response with this schema) and from the Flask handlers (``api.http.errors``, which give every
catalogued code its one title), so that each builds on this and nothing builds in a circle;
gunicorn's own refusals (``api.serving``) are written with it too, outside any app.
"""

from __future__ import annotations

from collections.abc import Mapping
from http import HTTPStatus
from typing import Any

import marshmallow as ma

from api.http.openapi_shapes import component

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

RESERVED_MEMBERS = frozenset({"type", "title", "status", "detail", "code"})


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


class ProblemSchema(ma.Schema):
    """An RFC 9457 problem document (extension members may appear)."""

    class Meta:
        unknown = ma.INCLUDE

    def __deepcopy__(self, memo: dict[int, Any]) -> ProblemSchema:
        # A schema is never changed once made, so a copy of one is the schema itself. apispec
        # copies every response it documents, and flask-smorest documents one per HTTP status
        # for each app (``ERROR_SCHEMA``, one instance per process): copying the schema's fields
        # each time was most of what making a later app cost beside its routes.
        return self

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


def status_phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


def problem_document(status: int, code: str, title: str, detail: str | None = None, **extra: Any) -> dict[str, Any]:
    """The document of one problem: ``extra`` members may not override the standard ones."""
    clash = RESERVED_MEMBERS & extra.keys()
    if clash:
        raise ValueError(f"extra members may not override {sorted(clash)}")
    body: dict[str, Any] = {
        "type": PROBLEM_TYPE_BASE + code,
        "title": title,
        "status": status,
        "detail": detail or title,
        "code": code,
    }
    body.update(extra)
    return body
