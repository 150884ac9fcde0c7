"""A span per request, when traces are on (``api.traces``; installed by ``create_app`` only then).

It sits inside :class:`api.http.request_ids.RequestIds`, so the request's log context is there
to name the span once Flask has routed it: ``POST /v1/matches/<string:match_id>/actions``,
never the path (ids would make every span name unique). The span covers the app's work up to
its answer; a stream's body, sent after, is not in it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from wsgiref.types import StartResponse, WSGIApplication, WSGIEnvironment

from api import logs, traces


class TracedRequests:
    def __init__(self, app: WSGIApplication):
        self.app = app

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        method = environ.get("REQUEST_METHOD", "GET")
        statuses: list[str] = []

        def start_noting_status(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            statuses.append(status)
            return start_response(status, headers, exc_info)

        with traces.span(method, **{"http.request.method": method}) as span:
            answer = self.app(environ, start_noting_status)
            context = environ.get(logs.ENVIRON_KEY)
            route = context.route if context is not None else None
            span.update_name(f"{method} {route}" if route else method)
            attributes = {
                "http.route": route,
                "http.response.status_code": int(statuses[-1].split()[0]) if statuses else None,
                "boneyard.request_id": context.request_id if context is not None else None,
                "boneyard.match_id": context.match_id if context is not None else None,
                "boneyard.seat": context.seat if context is not None else None,
            }
            span.set_attributes({key: value for key, value in attributes.items() if value is not None})
        return answer
