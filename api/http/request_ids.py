"""Every request has an id, every answer says it (``X-Request-ID``), every log line carries it.

:class:`RequestIds` is the outermost WSGI middleware, so the refusals of the middleware
inside it (a body too slow, the work limit) echo the id as the app's answers do. The id is
the client's or a proxy's ``X-Request-ID`` when it is sane, else a new one
(:func:`api.logs.request_id_from`); gunicorn's own refusals, which never reach the app,
echo it the same way (``api.serving.Worker``).

:func:`note_route` fills in, once Flask has routed the request, what the lines logged for it
say besides the id: the route template (``/v1/matches/<string:match_id>/actions``, never the
path: a path holds ids and is unbounded), the match id and the seat in the path;
:func:`note_seat`, the seat a token acted for.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from wsgiref.types import StartResponse, WSGIApplication, WSGIEnvironment

from apispec import APISpec
from flask import request

from api import logs

_HEADER = logs.REQUEST_ID_HEADER.lower()


class RequestIds:
    """Wrap a WSGI app: each request's :class:`~api.logs.LogContext`, its id in every answer."""

    def __init__(self, app: WSGIApplication):
        self.app = app

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        context = logs.LogContext(logs.request_id_from(environ.get("HTTP_X_REQUEST_ID")))
        environ[logs.ENVIRON_KEY] = context  # for gunicorn's access line, written after the answer
        logs.enter(context)  # not reset when this returns: a streamed body still logs under it

        def start_with_id(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            headers = [(name, value) for name, value in headers if name.lower() != _HEADER]
            headers.append((logs.REQUEST_ID_HEADER, context.request_id))
            return start_response(status, headers, exc_info)

        # The answer is returned as it is, not wrapped: a file answer still goes by sendfile().
        return self.app(environ, start_with_id)


def note_route() -> None:
    """Before each request (the first hook): the route template, match id and seat it names."""
    context = request.environ.get(logs.ENVIRON_KEY)
    if context is None:  # an app called without the middleware (a test's own WSGI call)
        return
    if request.url_rule is not None:
        context.route = request.url_rule.rule
    arguments = request.view_args or {}
    if isinstance(arguments.get("match_id"), str):
        context.match_id = arguments["match_id"]
    if isinstance(arguments.get("seat"), int):
        context.seat = arguments["seat"]


def note_seat(seat: int | None) -> None:
    """The seat a token acted for (known once the use case has read the token)."""
    context = request.environ.get(logs.ENVIRON_KEY)
    if context is not None and seat is not None:
        context.seat = seat


HEADER_DOC = {
    "description": "This request's id: the request's own `X-Request-ID` when it is 1 to "
    f"{logs.REQUEST_ID_MAX_LENGTH} ASCII letters, digits and `{logs.REQUEST_ID_PUNCTUATION}`, else one the "
    "server made. Every log line about the request carries it.",
    "schema": {"type": "string", "minLength": 1, "maxLength": logs.REQUEST_ID_MAX_LENGTH},
}


def document(spec: APISpec) -> None:
    """Every response in the document says it carries ``X-Request-ID`` (once every route is in)."""
    spec.components.header(logs.REQUEST_ID_HEADER, HEADER_DOC)
    reference = {"$ref": f"#/components/headers/{logs.REQUEST_ID_HEADER}"}
    components = spec.components
    responses = [*components.responses.values(), *components.responses_lazy.values()]
    for path in spec.to_dict()["paths"].values():  # apispec's own dicts, not a copy
        for operation in path.values():
            if isinstance(operation, dict):
                responses.extend(operation.get("responses", {}).values())
    for response in responses:
        if isinstance(response, dict) and "$ref" not in response:
            response.setdefault("headers", {})[logs.REQUEST_ID_HEADER] = reference
