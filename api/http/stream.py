"""``GET /v1/matches/{id}/stream``: the caller's view, then every event as it is appended.

Server-sent events: first an ``event: view`` with the caller's view (no id), then one
message per event with ``id: <seq>`` and ``event: <type>``, redacted for the caller.
A client reconnecting with ``Last-Event-ID`` gets everything after that seq, nothing
twice. A comment line keeps idle connections alive; the stream ends after
``match_ended`` (and after ``STREAM_MAX_SECONDS``; clients simply reconnect).

Browsers' ``EventSource`` cannot send headers, so the seat token may also come as
``?token=`` here (only here: URLs end up in logs, prefer the header where possible).
"""

from __future__ import annotations

import json
import time

from flask import Response, current_app, request, stream_with_context
from flask.views import MethodView
from flask_smorest import Blueprint

from api.http.errors import PROBLEM_CONTENT_TYPE, ProblemSchema
from api.http.matches import bearer_token, service

blp = Blueprint("stream", __name__, url_prefix="/v1/matches", description="Live updates (server-sent events)")

HEARTBEAT_SECONDS = 15


def _message(data: dict, event: str, seq: int | None = None) -> str:
    lines = [f"id: {seq}"] if seq is not None else []
    lines += [f"event: {event}", f"data: {json.dumps(data, separators=(',', ':'))}"]
    return "\n".join(lines) + "\n\n"


def _last_event_id() -> int | None:
    raw = request.headers.get("Last-Event-ID") or request.args.get("last_event_id")
    return int(raw) if raw is not None and raw.strip().isdigit() else None


@blp.route("/<string:match_id>/stream")
class Stream(MethodView):
    @blp.doc(security=[{"seatToken": []}, {}], parameters=[
        {"in": "header", "name": "Last-Event-ID", "required": False, "schema": {"type": "string"},
         "description": "Resume after this seq"},
        {"in": "query", "name": "token", "required": False, "schema": {"type": "string"},
         "description": "The seat token, for EventSource clients that cannot send headers"}],
        responses={"200": {"description": "A text/event-stream of the view then the events",
                           "content": {"text/event-stream": {"schema": {
                               "type": "object", "properties": {
                                   "event": {"type": "string"}, "data": {"type": "string"},
                                   "id": {"type": "string"}, "retry": {"type": "string"}}}}}}})
    @blp.alt_response(401, schema=ProblemSchema, content_type=PROBLEM_CONTENT_TYPE, description="Bad token")
    @blp.alt_response(403, schema=ProblemSchema, content_type=PROBLEM_CONTENT_TYPE, description="Token of another match")
    @blp.alt_response(404, schema=ProblemSchema, content_type=PROBLEM_CONTENT_TYPE, description="No such match")
    def get(self, match_id):
        """Stream the caller's view, then every event as it is appended (server-sent events)."""
        token = bearer_token() or request.args.get("token") or None
        matches = service()
        first = matches.view(match_id, token)            # authenticates before streaming starts
        resume = _last_event_id()
        max_seconds = current_app.config["STREAM_MAX_SECONDS"]

        def generate():
            yield "retry: 2000\n\n"
            yield _message(first, "view")
            after = first["seq"] if resume is None else min(resume, first["seq"])
            ended = first["status"] == "ended" and resume is None
            started = time.monotonic()
            wait = 0                        # first catch up on the backlog, then wait for more
            while not ended and (wait == 0 or time.monotonic() - started < max_seconds):
                page = matches.events(match_id, token, after, 200, wait=wait)
                if not page["events"]:
                    if wait:
                        yield ": heartbeat\n\n"
                    wait = HEARTBEAT_SECONDS
                    continue
                for event in page["events"]:
                    yield _message(event, event["type"], event["seq"])
                    after = event["seq"]
                    ended = ended or event["type"] == "match_ended"

        return Response(stream_with_context(generate()), mimetype="text/event-stream",
                        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
