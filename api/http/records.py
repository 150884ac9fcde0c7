"""``GET /v1/matches/{id}/record``: the match as a record, plain text (docs/records.md).

After the end the whole match, for anyone; during play the caller's seat's own record (its
token), written from the log as that seat is shown it. The text is the service's
(``GetGameRecord``); this module only gives it its media type and its ETag.
"""

from __future__ import annotations

from flask import Response, request
from flask.views import MethodView
from flask_smorest import Blueprint

from api.http.callers import bearer_token, bus, check_match_scope
from api.http.conditional import ETAG_HEADER, IF_NONE_MATCH_PARAMETER, NOT_MODIFIED_RESPONSE, etag, not_modified
from api.http.limits import limit_audit_reads
from api.http.problem_codes import (
    INVALID_TOKEN,
    MATCH_NOT_OVER,
    TOO_MANY_REQUESTS,
    UNKNOWN_MATCH,
    WRONG_MATCH,
    problem_responses,
)
from api.records.model import FORMAT
from api.services.commands import GetGameRecord

blp = Blueprint("records", __name__, url_prefix="/v1/matches", description="Match records (docs/records.md)")
blp.before_request(check_match_scope)  # a portal key does not see another portal's matches

#: A record's media type: plain text (any browser or tool shows it), in UTF-8.
RECORD_CONTENT_TYPE = "text/plain; charset=utf-8"


@blp.route("/<string:match_id>/record", parameters=[IF_NONE_MATCH_PARAMETER])
class GameRecord(MethodView):
    @limit_audit_reads
    @blp.doc(
        security=[{"seatToken": []}, {}],
        responses={
            "200": {
                "description": f"The match's record, `{FORMAT}` (docs/records.md): header tags, then the "
                "moves hand by hand. After the end the whole match (with the seed); during play the "
                "token's seat's own record: the other seats' tiles and the boneyard as `?`, no seed",
                "headers": {"ETag": ETAG_HEADER},
                "content": {"text/plain": {"schema": {"type": "string"}}},
            },
            "304": NOT_MODIFIED_RESPONSE,
        },
    )
    @problem_responses(blp, INVALID_TOKEN, WRONG_MATCH, UNKNOWN_MATCH, MATCH_NOT_OVER, TOO_MANY_REQUESTS)
    def get(self, match_id: str) -> Response:
        """The match as a record: after the end the whole of it; during play, with a seat's token,
        that seat's own (redacted as its view is)."""
        answer = bus().handle(GetGameRecord(match_id, bearer_token(), site=request.host_url.rstrip("/")))
        seat = answer["seat"]
        tag = etag(answer["seq"], "record", "all" if seat is None else seat, answer["chain_head"]["hash"])
        headers = {"ETag": tag, "Vary": "Authorization"}
        cached = not_modified(tag)
        if cached is not None:
            cached.headers["Vary"] = "Authorization"
            return cached
        return Response(answer["text"], status=200, content_type=RECORD_CONTENT_TYPE, headers=headers)
