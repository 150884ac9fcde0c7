"""/v1/matches: thin views that turn requests into use cases and errors into problems."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from functools import wraps
from typing import Any, ParamSpec, TypeVar
from urllib.parse import urlencode

from flask import Response, current_app, request
from flask.views import MethodView
from flask_smorest import Blueprint

from api.http import problem_codes as codes
from api.http import schemas
from api.http.arguments import JSON_BODY_PARSER
from api.http.callers import bearer_token, bus, caller, check_match_scope, space_caller
from api.http.conditional import (
    ETAG_HEADER,
    IF_MATCH_PATTERN,
    IF_NONE_MATCH_PARAMETER,
    NOT_MODIFIED_RESPONSE,
    etag,
    head_part,
    if_match_seq,
    not_modified,
    seat_part,
)
from api.http.errors import PROBLEM_CONTENT_TYPE
from api.http.limits import limit_audit_reads, limit_creation, rate_limited_actions
from api.http.waiting import waiting_client
from api.services import commands
from api.services.idempotency import KEY_PATTERN, Keyed, Replay, StoredAnswer, parse_key
from api.services.match_ids import is_match_id

blp = Blueprint(
    "matches", __name__, url_prefix="/v1/matches", description="Matches, seats, views, actions and the event log"
)
blp.ARGUMENTS_PARSER = JSON_BODY_PARSER  # a body sent as anything but JSON: 415, not "Missing data"
blp.before_request(check_match_scope)  # a portal key does not see another portal's matches

#: An answer with its status and headers, as flask-smorest takes a view's return value.
Headed = tuple[commands.Answer, int, dict[str, str]]
P = ParamSpec("P")
R = TypeVar("R")
# OpenAPI security requirements: scheme name -> scopes; {} lets a request go without.
SEAT_TOKEN: list[dict[str, list[str]]] = [{"seatToken": []}]
SEAT_TOKEN_OR_SPECTATOR: list[dict[str, list[str]]] = [{"seatToken": []}, {}]
PORTAL_KEY: list[dict[str, list[str]]] = [{"portalKey": []}, {}]


def idempotency_of(match_id: str) -> Keyed | None:
    """The request's ``Idempotency-Key``, with a fingerprint of what it asks, or None."""
    header = request.headers.get("Idempotency-Key")
    if header is None or not is_match_id(match_id):
        return None  # no key, or no such match: nothing to remember
    fingerprint = hashlib.sha256(
        json.dumps(
            [request.method, request.path, request.headers.get("If-Match"), request.get_json(silent=True)],
            sort_keys=True,
        ).encode()
    ).hexdigest()
    return Keyed(parse_key(header), fingerprint, _render_refusal, render_action_result)


def _render_refusal(error: Exception) -> tuple[int, str]:
    """A refusal as this API answers it (status and problem document), to be stored."""
    response = current_app.make_response(current_app.handle_user_exception(error))
    return response.status_code, response.get_data(as_text=True)


def render_action_result(result: dict) -> str:
    """The body of an action's answer: one rendering for the first answer and every replay."""
    return json.dumps(schemas.ActionResultSchema().dump(result), separators=(",", ":"))


def _action_answer(result: dict, text: str, status: int = 200, **headers: str) -> Response:
    response = Response(text, status=status, mimetype="application/json")
    response.headers["ETag"] = etag(result["seq"], seat_part(result["seat"]), head_part(result["view"]))
    response.headers.update(headers)
    return response


def _replayed(stored: StoredAnswer) -> Response:
    """The first answer to an Idempotency-Key again, byte for byte (plus Idempotent-Replayed)."""
    if stored.problem:
        response = Response(stored.text, status=stored.status, mimetype=PROBLEM_CONTENT_TYPE)
        response.headers["Idempotent-Replayed"] = "true"
        return response
    return _action_answer(json.loads(stored.text), stored.text, stored.status, **{"Idempotent-Replayed": "true"})


def seat_token_required(view: Callable[P, R]) -> Callable[P, R]:
    """An operation only a seat may call: without its token the request is refused (401
    ``invalid_token``) before anything else it sends (its body, its headers) is read."""

    @wraps(view)
    def gated(*args: P.args, **kwargs: P.kwargs) -> R:
        if bearer_token() is None:
            raise codes.INVALID_TOKEN.error(
                "This operation needs the seat's token: Authorization: Bearer <token>.", headers=codes.BEARER_CHALLENGE
            )
        return view(*args, **kwargs)

    return gated


LOCATION_HEADER = {
    "description": "The match's address, `/v1/matches/{id}`",
    "required": True,
    "schema": {"type": "string"},
}
LINK_HEADER = {
    "description": 'RFC 8288: the next page, `<...>; rel="next"` (absent on the last page)',
    "schema": {"type": "string"},
}
REPLAYED_HEADER = {
    "description": "`true` on the stored first answer to a repeated `Idempotency-Key` (absent on a first answer)",
    "schema": {"type": "string", "enum": ["true"]},
}


def conditional_read(view: codes.ViewFunction) -> codes.ViewFunction:
    """A read that answers 304 to an ``If-None-Match`` still current (documented here; its
    route declares the header, ``parameters=CONDITIONAL``: an operation's own ``parameters``
    would replace those its query schema documents)."""
    return blp.alt_response(304, **NOT_MODIFIED_RESPONSE)(view)


CONDITIONAL = [IF_NONE_MATCH_PARAMETER]


def problems(*declared: codes.ProblemCode) -> Callable[[codes.ViewFunction], codes.ViewFunction]:
    """Document the problems a view may answer, besides what any request may be (the catalogue's
    ``ANY_REQUEST``): each status with its codes (tests/api/test_problem_codes.py proves the
    lists complete)."""
    return codes.problem_responses(blp, *declared)


@blp.route("")
class Matches(MethodView):
    @blp.doc(security=PORTAL_KEY)
    @blp.arguments(schemas.ListQuerySchema, location="query")
    @blp.response(200, schemas.MatchListSchema, headers={"Link": LINK_HEADER})
    @problems(
        codes.INVALID_API_KEY,
        codes.PORTAL_KEY_REQUIRED,
        codes.PLAYER_REF_NEEDS_PORTAL,
        codes.INVALID_REQUEST,
        codes.INVALID_CURSOR,
    )
    def get(self, query: dict[str, Any]) -> Headed:
        """List matches, newest first, filtered (paged with ``cursor``; the next page is also in ``Link``)."""
        page = bus().handle(
            commands.ListMatches(
                query.get("status"),
                query["limit"],
                query.get("cursor"),
                **{k: query[k] for k in ("preset", "has_open_seat", "player_ref") if k in query},
                caller=space_caller(),
            )
        )
        return page, 200, next_link(page["next_cursor"])

    @limit_creation
    @blp.doc(security=PORTAL_KEY)
    @blp.arguments(schemas.MatchCreateSchema)
    @blp.response(201, schemas.CreatedMatchSchema, headers={"ETag": ETAG_HEADER, "Location": LOCATION_HEADER})
    @problems(
        codes.INVALID_API_KEY,
        codes.PORTAL_KEY_REQUIRED,
        codes.PLAYER_REF_NEEDS_PORTAL,
        codes.RATED_NEEDS_PORTAL,
        codes.CLIENT_SEED_NOT_ALLOWED,
        codes.TOO_MANY_BOT_MATCHES,
        codes.EVENT_LIMIT_REACHED,
        codes.UNSUPPORTED_MEDIA_TYPE,
        codes.INVALID_REQUEST,
        codes.INVALID_RULES,
        codes.INVALID_RATED_SEATS,
        codes.TOO_MANY_REQUESTS,
    )
    def post(self, body: dict[str, Any]) -> Headed:
        """Create a match; remote seats get their secret token in this answer only."""
        seats = tuple(
            commands.SeatSpec(s["name"], s["type"], s.get("level"), s.get("client_seed"), s.get("player_ref"))
            for s in body["seats"]
        )
        created = bus().handle(
            commands.CreateMatch(
                body["preset"],
                body["rules"],
                seats,
                body.get("seed"),
                creator=request.remote_addr,
                caller=space_caller(),
                rated=body["rated"],
            )
        )
        return created, 201, {"ETag": etag(created["seq"]), "Location": f"/v1/matches/{created['id']}"}


@blp.route("/<string:match_id>", parameters=CONDITIONAL)
class Match(MethodView):
    @conditional_read
    @blp.response(200, schemas.MatchSummarySchema, headers={"ETag": ETAG_HEADER})
    @problems(codes.UNKNOWN_MATCH)
    def get(self, match_id: str) -> Response | Headed:
        """The public summary of a match: rules, seats, status, scores, seq."""
        summary = bus().handle(commands.GetSummary(match_id, caller()))
        tag = etag(summary["seq"])
        return not_modified(tag) or (summary, 200, {"ETag": tag})


@blp.route("/<string:match_id>/view", parameters=CONDITIONAL)
class View(MethodView):
    @blp.doc(security=SEAT_TOKEN_OR_SPECTATOR)
    @conditional_read
    @blp.response(200, schemas.ViewSchema, headers={"ETag": ETAG_HEADER})
    @problems(codes.INVALID_TOKEN, codes.WRONG_MATCH, codes.UNKNOWN_MATCH)
    def get(self, match_id: str) -> Response | Headed:
        """What one seat may see (with its token), or the spectator's view (without)."""
        seat_view = bus().handle(commands.GetView(match_id, bearer_token()))
        tag = etag(seat_view["seq"], seat_part(seat_view["seat"]), head_part(seat_view))
        return not_modified(tag) or (seat_view, 200, {"ETag": tag, "Vary": "Authorization"})


@blp.route("/<string:match_id>/actions")
class Actions(MethodView):
    @rate_limited_actions
    @seat_token_required
    @blp.doc(
        security=SEAT_TOKEN,
        parameters=[
            {
                "in": "header",
                "name": "If-Match",
                "required": False,
                "schema": {"type": "string", "pattern": IF_MATCH_PATTERN},
                "description": "An ETag of this match: refused with 412 unless the match is still at its seq",
            },
            {
                "in": "header",
                "name": "Idempotency-Key",
                "required": False,
                "schema": {"type": "string", "pattern": KEY_PATTERN},
                "description": "A retry with the same key and body gets the first response again, byte for byte, "
                "with the header `Idempotent-Replayed: true`, and changes nothing. The answer is stored "
                "with the action, atomically; the same key with another body is 422 "
                "`idempotency_key_reused`. Keys are kept 24 hours, per seat token.",
            },
        ],
    )
    @blp.arguments(schemas.ActionSchema)
    @blp.response(
        200, schemas.ActionResultSchema, headers={"ETag": ETAG_HEADER, "Idempotent-Replayed": REPLAYED_HEADER}
    )
    @problems(
        codes.INVALID_IF_MATCH,
        codes.INVALID_TOKEN,
        codes.WRONG_MATCH,
        codes.UNKNOWN_MATCH,
        *codes.RULE_REFUSALS,
        codes.STALE_SEQ,
        codes.EVENT_LIMIT_REACHED,
        codes.PRECONDITION_FAILED,
        codes.UNSUPPORTED_MEDIA_TYPE,
        codes.INVALID_ACTION,
        codes.INVALID_TILE,
        codes.INVALID_IDEMPOTENCY_KEY,
        codes.IDEMPOTENCY_KEY_REUSED,
        codes.TOO_MANY_REQUESTS,
    )
    def post(self, body: dict[str, Any], match_id: str) -> Response:
        """Play, draw, knock (or call muggins); answers the events appended and the new view."""
        expected_seq = body.pop("expected_seq", None)
        token, keyed = bearer_token(), idempotency_of(match_id)
        try:
            result = bus().handle(
                commands.Act(match_id, token, body, expected_seq, if_match_seq=if_match_seq(), keyed=keyed)
            )
        except Replay as replay:
            return _replayed(replay.stored)
        return _action_answer(result, render_action_result(result))


@blp.route("/<string:match_id>/events", parameters=CONDITIONAL)
class Events(MethodView):
    @blp.doc(security=SEAT_TOKEN_OR_SPECTATOR)
    @blp.arguments(schemas.EventsQuerySchema, location="query")
    @conditional_read
    @blp.response(200, schemas.EventsPageSchema, headers={"ETag": ETAG_HEADER})
    @problems(
        codes.INVALID_TOKEN, codes.WRONG_MATCH, codes.UNKNOWN_MATCH, codes.INVALID_REQUEST, codes.TOO_MANY_WAITERS
    )
    def get(self, query: dict[str, Any], match_id: str) -> Response | Headed:
        """The log as the caller may see it, in seq order, after ``after``."""
        wait = min(query["wait"], current_app.config["LONG_POLL_MAX_SECONDS"])
        page = bus().handle(
            commands.GetEvents(
                match_id,
                bearer_token(),
                query["after"],
                query["limit"],
                wait,
                client=waiting_client() if wait > 0 else None,
            )
        )
        tag = etag(page["seq"], seat_part(page["seat"]), query["after"], query["limit"], head_part(page))
        return not_modified(tag) or (page, 200, {"ETag": tag, "Vary": "Authorization"})


@blp.route("/<string:match_id>/audit", parameters=CONDITIONAL)
class Audit(MethodView):
    @limit_audit_reads
    @blp.arguments(schemas.AuditQuerySchema, location="query")
    @conditional_read
    @blp.response(200, schemas.AuditSchema, headers={"ETag": ETAG_HEADER})
    @problems(codes.UNKNOWN_MATCH, codes.MATCH_NOT_OVER, codes.INVALID_REQUEST, codes.TOO_MANY_REQUESTS)
    def get(self, query: dict[str, Any], match_id: str) -> Response | Headed:
        """Once the match has ended: the unredacted log with its hash chain, page by page (follow
        `next_after` until it is null), and the seed, its commitment and the shuffle on every page."""
        page = bus().handle(commands.GetAudit(match_id, query["after"], query["limit"]))
        # An ended log never changes; if its rows were rewritten, the head's hash names that.
        tag = etag(page["seq"], "audit", query["after"], query["limit"], head_part(page))
        return not_modified(tag) or (page, 200, {"ETag": tag})


@blp.route("/<string:match_id>/seats/<int:seat>/claim")
class Claim(MethodView):
    @blp.doc(security=SEAT_TOKEN_OR_SPECTATOR)
    @blp.arguments(schemas.ClaimSchema)
    @blp.response(200, schemas.ClaimResultSchema)
    @problems(
        codes.INVALID_TOKEN,
        codes.SEAT_RESERVED,
        codes.PLAYER_REF_NEEDS_PORTAL,
        codes.UNKNOWN_MATCH,
        codes.UNKNOWN_SEAT,
        codes.SEAT_TAKEN,
        codes.STALE_SEQ,
        codes.EVENT_LIMIT_REACHED,
        codes.UNSUPPORTED_MEDIA_TYPE,
        codes.INVALID_REQUEST,
    )
    def post(self, body: dict[str, Any], match_id: str, seat: int) -> commands.Answer:
        """Take an open seat; answers its secret token (shown this once). A rematch seat is
        claimed with the token of the player's seat in the previous match."""
        return bus().handle(
            commands.ClaimSeat(
                match_id,
                seat,
                body["name"],
                body.get("client_seed"),
                player_ref=body.get("player_ref"),
                token=bearer_token(),
                caller=caller(),
            )
        )


# --- lobby: rematches and list paging ---------------------------------------------------
@blp.route("/<string:match_id>/rematch")
class Rematch(MethodView):
    @limit_creation
    @seat_token_required
    @blp.doc(security=[{"seatToken": [], "portalKey": []}, {"seatToken": []}])
    @blp.response(201, schemas.MatchSummarySchema, headers={"Location": LOCATION_HEADER})
    @blp.alt_response(
        200,
        schema=schemas.MatchSummarySchema,
        headers={"Location": LOCATION_HEADER},
        description="The rematch was made before: the same match again",
    )
    @problems(
        codes.INVALID_TOKEN,
        codes.INVALID_API_KEY,
        codes.WRONG_MATCH,
        codes.UNKNOWN_MATCH,
        codes.MATCH_NOT_OVER,
        codes.TOO_MANY_REQUESTS,
    )
    def post(self, match_id: str) -> Headed:
        """After the end: a new match with the same rules and seat types, its seats kept for
        this match's players (each claims its seat with its old token, for a new one). Like
        creating a match: needs the portal key when the server has API keys, and spends the
        same per-address budget."""
        summary, made = bus().handle(commands.Rematch(match_id, bearer_token(), caller()))
        return summary, 201 if made else 200, {"Location": f"/v1/matches/{summary['id']}"}


def next_link(cursor: str | None) -> dict[str, str]:
    """RFC 8288 ``Link: <...>; rel="next"``: this request's filters, the next cursor."""
    if cursor is None:
        return {}
    args = request.args.to_dict(flat=False)
    args["cursor"] = [cursor]
    return {"Link": f'<{request.path}?{urlencode(args, doseq=True)}>; rel="next"'}


@blp.route("/<string:match_id>/fairness")
class Fairness(MethodView):
    @limit_audit_reads
    @blp.response(200, schemas.FairnessSchema)
    @problems(codes.UNKNOWN_MATCH, codes.MATCH_NOT_OVER, codes.TOO_MANY_REQUESTS)
    def get(self, match_id: str) -> commands.Answer:
        """Once the match has ended: re-derive every deal from the revealed seeds, re-check every
        move and score, ask every computer player again (each bot move must be the one that bot
        makes from what its seat was shown and its seed), and verify the hash chain of the stored
        log (checked once, then stored)."""
        return bus().handle(commands.GetFairness(match_id))
