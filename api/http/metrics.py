"""The HTTP edge's metrics: every request counted and timed, the refusals made here, ``/metrics``.

* :class:`RequestMetrics` (WSGI, outermost): each request's route, method and status, and its
  time to the answer's headers. The route is the template Flask matched, put in the environ by
  :func:`note_route` (the app's first ``before_request``); a request refused before routing (a
  body too slow or too large, too many bodies on their way) or matching no route is
  ``unmatched``, so no path a client makes up becomes a label.
* Rate-limit refusals (429 from flask-limiter) are counted by route before the usual problem
  answer; database-busy refusals where they are answered (``api.http.domain_errors``).
* ``GET /metrics``: the text exposition on the public listener only when ``METRICS_TOKEN`` is
  set, and only to ``Authorization: Bearer <METRICS_TOKEN>`` (compared in constant time);
  otherwise it answers 404 as any unknown path does, so nothing shows that it exists. It is no
  part of the public OpenAPI document (a plain blueprint, not the API's). ``METRICS_BIND``
  serves it off the public listener instead (``gunicorn.conf.py``, the autoplay runner).
"""

from __future__ import annotations

import hmac
import time
from collections.abc import Callable, Iterable
from typing import Any

from flask import Blueprint, Flask, Response, abort, current_app, request
from flask_limiter.errors import RateLimitExceeded

from api import metrics
from api.http.callers import bearer_in
from api.http.errors import handle_http_exception

#: Where :func:`note_route` leaves the matched route's template for :class:`RequestMetrics`.
ROUTE_KEY = "boneyard.route"

blp = Blueprint("metrics", __name__)

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


class RequestMetrics:
    """Counts and times every request the wrapped app answers (see the module's docstring)."""

    def __init__(self, app: WSGIApp, clock: Callable[[], float] = time.perf_counter) -> None:
        self.app = app
        self.clock = clock

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        started = self.clock()
        answered: list[str] = []

        def noting_status(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            answered[:] = [status.split(" ", 1)[0]]
            return start_response(status, headers, exc_info) if exc_info else start_response(status, headers)

        try:
            return self.app(environ, noting_status)
        finally:
            route = environ.get(ROUTE_KEY, metrics.UNMATCHED)
            method = metrics.method_label(environ.get("REQUEST_METHOD", ""))
            status = answered[0] if answered else "500"
            metrics.HTTP_REQUESTS.labels(route, method, status).inc()
            metrics.HTTP_REQUEST_DURATION.labels(route, method).observe(self.clock() - started)


def note_route() -> None:
    """The matched route's template, for :class:`RequestMetrics` (registered first of the hooks)."""
    rule = request.url_rule
    request.environ[ROUTE_KEY] = rule.rule if rule is not None else metrics.UNMATCHED


def route_label() -> str:
    """The current request's route template (``unmatched`` when none matched)."""
    return str(request.environ.get(ROUTE_KEY, metrics.UNMATCHED))


def handle_rate_limited(error: RateLimitExceeded) -> Response:
    """A flask-limiter breach: counted, then answered as every 429 is."""
    metrics.RATE_LIMITED.labels(route_label()).inc()
    return handle_http_exception(error)


@blp.get("/metrics")
def scrape() -> Response:
    """The exposition, to the holder of ``METRICS_TOKEN`` alone (404 to anyone else, and to all
    when it is not set)."""
    expected = current_app.config.get("METRICS_TOKEN") or ""
    given = bearer_in(request.headers.get("Authorization", "")) or ""
    if not expected or not hmac.compare_digest(given.encode(), expected.encode()):
        abort(404)
    return Response(metrics.exposition(), mimetype=None, content_type=metrics.CONTENT_TYPE)


def install(app: Flask) -> None:
    """Count every request of ``app`` (call before the other ``before_request`` hooks and last of
    the WSGI middleware, so it is outermost), and serve ``/metrics`` to the token's holder."""
    app.before_request(note_route)
    app.wsgi_app = RequestMetrics(app.wsgi_app)  # type: ignore[method-assign]  # Flask's documented way to add WSGI middleware
    app.register_error_handler(RateLimitExceeded, handle_rate_limited)
    app.register_blueprint(blp)
