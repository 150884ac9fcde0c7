"""/v1/matches: thin views that turn requests into use cases and errors into problems."""

from __future__ import annotations

from flask import current_app, request
from flask.views import MethodView
from flask_smorest import Blueprint

from api.http import schemas
from api.http.errors import PROBLEM_CONTENT_TYPE, ProblemError, ProblemSchema
from api.services.matches import MatchService, SeatSpec

blp = Blueprint("matches", __name__, url_prefix="/v1/matches",
                description="Matches, seats, views, actions and the event log")

SERVICE_KEY = "boneyard.matches"
SEAT_TOKEN = [{"seatToken": []}]
SEAT_TOKEN_OR_SPECTATOR = [{"seatToken": []}, {}]


def service() -> MatchService:
    return current_app.extensions[SERVICE_KEY]


def bearer_token() -> str | None:
    """The seat token from ``Authorization: Bearer <token>``, or None when absent."""
    header = request.headers.get("Authorization")
    if header is None:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ProblemError(401, "invalid_token", "Invalid token",
                           "Send the seat token as 'Authorization: Bearer <token>'.")
    return token.strip()


def problems(*statuses: int):
    """Document the problem responses a view may answer."""
    def decorate(func):
        for status in statuses:
            func = blp.alt_response(status, schema=ProblemSchema, content_type=PROBLEM_CONTENT_TYPE,
                                    description=_DESCRIPTIONS[status])(func)
        return func
    return decorate


_DESCRIPTIONS = {
    401: "Missing or unknown seat token (`invalid_token`)",
    403: "A token of another match (`wrong_match`)",
    404: "No such match (`unknown_match`) or seat",
    409: "Refused by the rules or the match's state (`not_your_turn`, `illegal_play`, `must_draw`, "
         "`must_play`, `boneyard_reserved`, `match_over`, `stale_seq`, `match_not_over`, `seat_taken`…)",
    422: "Malformed request (`invalid_request`, `invalid_action`, `invalid_tile`, `invalid_rules` with `field`)",
}


@blp.route("")
class Matches(MethodView):
    @blp.arguments(schemas.ListQuerySchema, location="query")
    @blp.response(200, schemas.MatchListSchema)
    @problems(422)
    def get(self, query):
        """List matches, newest first (paged with ``cursor``)."""
        return service().list(query.get("status"), query["limit"], query.get("cursor"))

    @blp.arguments(schemas.MatchCreateSchema)
    @blp.response(201, schemas.CreatedMatchSchema)
    @problems(422)
    def post(self, body):
        """Create a match; remote seats get their secret token in this answer only."""
        seats = [SeatSpec(s["name"], s["type"], s.get("level")) for s in body["seats"]]
        return service().create(body["preset"], body["rules"], seats)


@blp.route("/<string:match_id>")
class Match(MethodView):
    @blp.response(200, schemas.MatchSummarySchema)
    @problems(404)
    def get(self, match_id):
        """The public summary of a match: rules, seats, status, scores, seq."""
        return service().summary(match_id)


@blp.route("/<string:match_id>/view")
class View(MethodView):
    @blp.doc(security=SEAT_TOKEN_OR_SPECTATOR)
    @blp.response(200, schemas.ViewSchema)
    @problems(401, 403, 404)
    def get(self, match_id):
        """What one seat may see (with its token), or the spectator's view (without)."""
        return service().view(match_id, bearer_token())


@blp.route("/<string:match_id>/actions")
class Actions(MethodView):
    @blp.doc(security=SEAT_TOKEN)
    @blp.arguments(schemas.ActionSchema)
    @blp.response(200, schemas.ActionResultSchema)
    @problems(401, 403, 404, 409, 422)
    def post(self, body, match_id):
        """Play, draw, knock (or call muggins); answers the events appended and the new view."""
        expected_seq = body.pop("expected_seq", None)
        return service().act(match_id, bearer_token(), body, expected_seq)


@blp.route("/<string:match_id>/events")
class Events(MethodView):
    @blp.doc(security=SEAT_TOKEN_OR_SPECTATOR)
    @blp.arguments(schemas.EventsQuerySchema, location="query")
    @blp.response(200, schemas.EventsPageSchema)
    @problems(401, 403, 404, 422)
    def get(self, query, match_id):
        """The log as the caller may see it, in seq order, after ``after``."""
        return service().events(match_id, bearer_token(), query["after"], query["limit"])


@blp.route("/<string:match_id>/audit")
class Audit(MethodView):
    @blp.response(200, schemas.AuditSchema)
    @problems(404, 409)
    def get(self, match_id):
        """Once the match has ended: the whole unredacted log and the seed."""
        return service().audit(match_id)


@blp.route("/<string:match_id>/seats/<int:seat>/claim")
class Claim(MethodView):
    @blp.arguments(schemas.ClaimSchema)
    @blp.response(200, schemas.ClaimResultSchema)
    @problems(404, 409, 422)
    def post(self, body, match_id, seat):
        """Take an open seat; answers its secret token (shown this once)."""
        return service().claim(match_id, seat, body["name"])
