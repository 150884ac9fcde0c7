"""What the transport refuses before an operation runs, and which operations each can reach:
the one list the OpenAPI document reads to declare them on each operation.

Each is answered before any view: a path and query longer than the input guard or gunicorn
reads (414 ``uri_too_long``), a header longer than they read (431 ``header_too_large``),
both on any request; a body larger than ``MAX_CONTENT_LENGTH`` (413 ``payload_too_large``)
or slower than ``REQUEST_BODY_TIMEOUT_SECONDS`` (408 ``request_timeout``: the body deadline,
:mod:`api.http.request_body`), and a body that is not JSON (415 ``unsupported_media_type``:
:mod:`api.http.arguments`), on an operation that takes a body. Every operation's default
response still lists the first four (the body deadline reads a body whatever the operation);
declaring them per operation tells a client, and a schema-driven tester, that the operation
itself may answer them.
"""

from __future__ import annotations

from typing import Any

from apispec import APISpec, BasePlugin

from api.http.problem_codes import (
    CODES_EXTENSION,
    HEADER_TOO_LARGE,
    PAYLOAD_TOO_LARGE,
    REQUEST_TIMEOUT,
    UNSUPPORTED_MEDIA_TYPE,
    URI_TOO_LONG,
    ProblemCode,
    response_doc,
)
from api.http.problem_document import PROBLEM_CONTENT_TYPE

#: Refused on any request, whatever the operation.
ANY_OPERATION: tuple[ProblemCode, ...] = (URI_TOO_LONG, HEADER_TOO_LARGE)
#: Refused on an operation that takes a body (its document has a ``requestBody``).
WITH_A_BODY: tuple[ProblemCode, ...] = (REQUEST_TIMEOUT, PAYLOAD_TOO_LARGE, UNSUPPORTED_MEDIA_TYPE)


def refusals_of(operation: dict[str, Any]) -> tuple[ProblemCode, ...]:
    """The transport refusals an operation (its OpenAPI document) may answer."""
    return ANY_OPERATION + (WITH_A_BODY if "requestBody" in operation else ())


class TransportRefusals(BasePlugin):
    """apispec plugin: each operation declares :func:`refusals_of` it, one response per status
    (as :func:`api.http.problem_codes.problem_responses` declares an operation's own problems)."""

    def operation_helper(
        self, path: str | None = None, operations: dict[str, Any] | None = None, **kwargs: Any
    ) -> None:
        for operation in (operations or {}).values():
            responses = operation.setdefault("responses", {})
            for entry in refusals_of(operation):
                status = str(entry.status)
                if status in responses:
                    raise ValueError(f"{path}: {status} is declared by the transport refusals, not by the operation")
                doc = response_doc(entry.status, [entry])
                responses[status] = {
                    "description": doc["description"],
                    CODES_EXTENSION: doc[CODES_EXTENSION],
                    "content": {PROBLEM_CONTENT_TYPE: {"schema": doc["schema"]}},
                }


def document(spec: APISpec) -> None:
    """Declare the transport refusals on every operation registered from now on. The plugin
    runs first, so that the marshmallow plugin resolves the problem schema as it does for
    every other response."""
    plugin = TransportRefusals()
    plugin.init_spec(spec)
    spec.plugins = [plugin, *spec.plugins]
