"""``GET /v1/matches/{id}/stream``: the caller's view, then every event as it is appended.

Server-sent events: first an ``event: view`` with the caller's view (no id), then one
message per event with ``id: <seq>`` and ``event: <type>``, redacted for the caller.
A client reconnecting with ``Last-Event-ID`` gets everything after that seq, nothing
twice. A comment line keeps idle connections alive; the stream ends after
``match_ended`` (and after ``STREAM_MAX_SECONDS``; clients simply reconnect), and
within about a second of its client going away.

While idle a stream costs no query: it stays subscribed to its match for its whole life
(``api.services.waiting``) and reads the log only when the match moved. It counts
against its address's waiter cap (``WAITERS_PER_ADDRESS``) from the view to the end.

Browsers' ``EventSource`` cannot send headers, so the seat token may also come as
``?token=`` here (only here: URLs end up in logs, prefer the header where possible; the
access log redacts it).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator

from flask import Response, current_app, request, stream_with_context
from flask.views import MethodView
from flask_smorest import Blueprint

from api.http.callers import bearer_token, bus, check_match_scope
from api.http.input_guard import TEXT_PATTERN
from api.http.problem_codes import (
    INVALID_LAST_EVENT_ID,
    INVALID_TOKEN,
    TOO_MANY_WAITERS,
    UNKNOWN_MATCH,
    WRONG_MATCH,
    problem_responses,
)
from api.http.waiting import waiting_client
from api.rules import ENDED
from api.rules.events import MatchEnded
from api.services.commands import GetEvents, GetView
from api.services.feed import wait_for_event

blp = Blueprint("stream", __name__, url_prefix="/v1/matches", description="Live updates (server-sent events)")
blp.before_request(check_match_scope)  # a portal key does not see another portal's matches

HEARTBEAT_SECONDS = 15


def sse_message(data: dict, event: str, seq: int | None = None) -> str:
    lines = [f"id: {seq}"] if seq is not None else []
    lines += [f"event: {event}", f"data: {json.dumps(data, separators=(',', ':'))}"]
    return "\n".join(lines) + "\n\n"


def sse_response(body: Iterator[str], close: Callable[[], None]) -> Response:
    """A server-sent-events answer of ``body``; ``close`` frees what the stream holds (its waiter
    slot) when the connection ends, also when the body is never iterated."""
    response = Response(
        stream_with_context(body),
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
    response.call_on_close(close)
    return response


def last_event_id() -> int | None:
    """The seq to resume after (``Last-Event-ID``, or ``?last_event_id=``), None without one.

    Only what we send as ``id:`` is accepted: up to 10 ASCII digits (``str.isdigit`` also
    takes '²', which int() refuses: that was a 500).
    """
    raw = request.headers.get("Last-Event-ID") or request.args.get("last_event_id")
    if raw is None or not raw.strip():
        return None
    if _LAST_EVENT_ID.fullmatch(raw.strip()) is None:
        raise INVALID_LAST_EVENT_ID.error(
            "Last-Event-ID takes the id of an event this stream sent: a seq, up to 10 digits."
        )
    return int(raw)


_LAST_EVENT_ID = re.compile(r"[0-9]{1,10}")


@blp.route("/<string:match_id>/stream")
class Stream(MethodView):
    @blp.doc(
        security=[{"seatToken": []}, {}],
        parameters=[
            {
                "in": "header",
                "name": "Last-Event-ID",
                "required": False,
                "schema": {"type": "string", "pattern": "^[0-9]{0,10}$"},
                "description": "Resume after this seq (else 400 `invalid_last_event_id`)",
            },
            {
                "in": "query",
                "name": "token",
                "required": False,
                "schema": {"type": "string", "pattern": TEXT_PATTERN},
                "description": "The seat token, for EventSource clients that cannot send headers",
            },
        ],
        responses={
            "200": {
                "description": "A text/event-stream of the view then the events",
                "content": {
                    "text/event-stream": {
                        "schema": {
                            "type": "object",
                            "properties": {
                                "event": {"type": "string"},
                                "data": {"type": "string"},
                                "id": {"type": "string"},
                                "retry": {"type": "string"},
                            },
                        }
                    }
                },
            }
        },
    )
    @problem_responses(blp, INVALID_LAST_EVENT_ID, INVALID_TOKEN, WRONG_MATCH, UNKNOWN_MATCH, TOO_MANY_WAITERS)
    def get(self, match_id: str) -> Response:
        """Stream the caller's view, then every event as it is appended (server-sent events)."""
        token = bearer_token() or request.args.get("token") or None
        entry = bus()
        flow = entry.flow
        max_seconds = current_app.config["STREAM_MAX_SECONDS"]
        # Subscribed before the view is read, so an append right after that read still wakes the
        # stream; then counted against the address's waiter cap for the stream's whole life.
        sub = flow.waiter.subscribe(match_id, waiting_client())
        try:
            first = entry.handle(GetView(match_id, token))  # authenticates before streaming starts
            resume = last_event_id()
            sub.saw(first["seq"])
            sub.hold(max_seconds)
        except BaseException:
            sub.close()
            raise

        def generate() -> Iterator[str]:
            try:
                yield "retry: 2000\n\n"
                yield sse_message(first, "view")
                after = first["seq"] if resume is None else min(resume, first["seq"])
                ended = first["status"] == ENDED and resume is None
                started = time.monotonic()
                while not ended:
                    # The log is read only when there is something new (or a backlog to catch up).
                    page = entry.handle(GetEvents(match_id, token, after, 200))
                    for event in page["events"]:
                        yield sse_message(event, event["type"], event["seq"])
                        after = event["seq"]
                        ended = ended or event["type"] == MatchEnded.type
                    if ended or page["next_after"] is not None:
                        continue  # the end, or more backlog to send
                    left = max_seconds - (time.monotonic() - started)
                    if left <= 0:
                        return  # STREAM_MAX_SECONDS: the client reconnects with Last-Event-ID
                    # Wait past what the slot already knows when the read found nothing (a log
                    # emptied under us), so as never to spin.
                    known = after if page["events"] else max(after, sub.seq)
                    seq = wait_for_event(flow, match_id, known, min(HEARTBEAT_SECONDS, left), sub)
                    if sub.left:
                        return  # the client went away: free its greenlet and its slot
                    if seq <= known:
                        yield ": heartbeat\n\n"
            finally:
                sub.close()

        return sse_response(generate(), sub.close)
