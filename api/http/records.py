"""``GET /v1/matches/{id}/record``: the match as a record, plain text (docs/records.md); and
``GET /v1/matches/{id}/analysis``: the analysis after the match (issue 38, docs/analysis.md).

After the end the whole match, for anyone; during play the caller's seat's own record (its
token), written from the log as that seat is shown it. The text is the service's
(``GetGameRecord``); this module only gives it its media type and its ETag.
"""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from flask import Response, request
from flask.views import MethodView
from flask_smorest import Blueprint
from marshmallow import fields, validate

from api.http.callers import bearer_token, bus, check_match_scope
from api.http.conditional import ETAG_HEADER, IF_NONE_MATCH_PARAMETER, NOT_MODIFIED_RESPONSE, etag, not_modified
from api.http.limits import limit_audit_reads
from api.http.openapi_shapes import component
from api.http.problem_codes import (
    ANALYSIS_FAILED,
    ANALYSIS_NOT_READY,
    HINT_NOT_OFFERED,
    INVALID_REQUEST,
    INVALID_TOKEN,
    MATCH_NOT_OVER,
    MATCH_OVER,
    NOT_YOUR_TURN,
    TOO_MANY_REQUESTS,
    UNKNOWN_MATCH,
    WRONG_MATCH,
    problem_responses,
)
from api.http.schema_fields import ALWAYS
from api.records.model import FORMAT
from api.services.commands import GetAnalysis, GetGameRecord, GetHint

blp = Blueprint("records", __name__, url_prefix="/v1/matches", description="Match records (docs/records.md)")
blp.before_request(check_match_scope)  # a portal key does not see another portal's matches

#: A record's media type: plain text (any browser or tool shows it), in UTF-8.
RECORD_CONTENT_TYPE = "text/plain; charset=utf-8"


#: ``?annotate=analysis``: the record with the analysis after the match as annotations.
ANNOTATE_ANALYSIS = "analysis"


class RecordQuerySchema(ma.Schema):
    annotate = fields.String(
        validate=validate.OneOf([ANNOTATE_ANALYSIS]),
        metadata={
            "description": "`analysis`: after the end, the record with the analysis as annotations "
            "(`{%analysis …}` after each analysed move, `{%seat …}` per seat at the end; docs/records.md)"
        },
    )


@blp.route("/<string:match_id>/record", parameters=[IF_NONE_MATCH_PARAMETER])
class GameRecord(MethodView):
    @limit_audit_reads
    @blp.arguments(RecordQuerySchema, location="query")
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
    @problem_responses(
        blp,
        INVALID_REQUEST,
        INVALID_TOKEN,
        WRONG_MATCH,
        UNKNOWN_MATCH,
        MATCH_NOT_OVER,
        ANALYSIS_NOT_READY,
        ANALYSIS_FAILED,
        TOO_MANY_REQUESTS,
    )
    def get(self, query: dict[str, Any], match_id: str) -> Response:
        """The match as a record: after the end the whole of it; during play, with a seat's token,
        that seat's own (redacted as its view is). With `annotate=analysis`, after the end, the
        analysis after the match as annotations."""
        annotated = query.get("annotate") == ANNOTATE_ANALYSIS
        site = request.host_url.rstrip("/")
        answer = bus().handle(GetGameRecord(match_id, bearer_token(), site=site, annotate=annotated))
        seat = answer["seat"]
        whose = "all" if seat is None else seat
        tag = etag(answer["seq"], "record", whose, *(["analysis"] if annotated else []), answer["chain_head"]["hash"])
        headers = {"ETag": tag, "Vary": "Authorization"}
        cached = not_modified(tag)
        if cached is not None:
            cached.headers["Vary"] = "Authorization"
            return cached
        return Response(answer["text"], status=200, content_type=RECORD_CONTENT_TYPE, headers=headers)


# --- the analysis after the match -----------------------------------------------------------------
class AnalysisChoiceSchema(ma.Schema):
    choice = fields.String(
        **ALWAYS, metadata={"description": "As a record's move without its seat: `6-4R`, `12-5/0`, `D`"}
    )
    known = fields.Float(
        **ALWAYS,
        metadata={"description": "Its value from what the seat knew then (the expert's evaluation), in points"},
    )
    shown = fields.Float(
        **ALWAYS,
        allow_none=True,
        metadata={
            "description": "Its value with every hand shown, in points (exact or playouts: docs/analysis.md); "
            "null where not valued"
        },
    )


class AnalysisDecisionSchema(ma.Schema):
    seq = fields.Integer(**ALWAYS, metadata={"description": "The event the seat's choice made (its first)"})
    hand = fields.Integer(**ALWAYS, metadata={"description": "The hand (a trains game: the round)"})
    seat = fields.Integer(**ALWAYS)
    chosen = fields.String(**ALWAYS, metadata={"description": "The choice made"})
    best = fields.String(
        **ALWAYS, metadata={"description": "The best choice (the one made when it was among the best)"}
    )
    lost = fields.Float(
        **ALWAYS,
        metadata={"description": "Points given away: the best value less the chosen one's (by `shown` when valued)"},
    )
    exact = fields.Boolean(**ALWAYS, metadata={"description": "`shown` is the rest of the hand solved exactly"})
    tiles_left = fields.Integer(**ALWAYS, metadata={"description": "In every hand, before the choice"})
    choices = fields.List(fields.Nested(AnalysisChoiceSchema), **ALWAYS)


class AnalysisSeatSchema(ma.Schema):
    seat = fields.Integer(**ALWAYS)
    decisions = fields.Integer(**ALWAYS, metadata={"description": "Its decisions with two or more choices"})
    points_lost = fields.Float(**ALWAYS)
    mean_lost = fields.Float(**ALWAYS, metadata={"description": "Points lost per decision"})
    worst = fields.List(
        fields.Integer(), **ALWAYS, metadata={"description": "The seqs of its (up to) three costliest decisions"}
    )


class AnalysisSchema(ma.Schema):
    match_id = fields.String(**ALWAYS)
    version = fields.Integer(**ALWAYS, metadata={"description": "The analysis' format (docs/analysis.md)"})
    family = fields.String(**ALWAYS, validate=validate.OneOf(["line", "trains"]))
    seats = fields.List(fields.Nested(AnalysisSeatSchema), **ALWAYS)
    decisions = fields.List(fields.Nested(AnalysisDecisionSchema), **ALWAYS)
    unvalued = fields.Integer(**ALWAYS, metadata={"description": "Decisions past the per-match budget, not valued"})
    seq = fields.Integer(**ALWAYS, metadata={"description": "The match's last seq"})


@blp.route("/<string:match_id>/analysis", parameters=[IF_NONE_MATCH_PARAMETER])
class Analysis(MethodView):
    @limit_audit_reads
    @blp.doc(responses={"304": NOT_MODIFIED_RESPONSE})
    @blp.response(200, AnalysisSchema, headers={"ETag": ETAG_HEADER})
    @problem_responses(blp, UNKNOWN_MATCH, MATCH_NOT_OVER, ANALYSIS_NOT_READY, ANALYSIS_FAILED, TOO_MANY_REQUESTS)
    def get(self, match_id: str) -> Response | tuple[dict[str, Any], int, dict[str, str]]:
        """Once the match has ended and the runner has made it: every decision of every seat, each
        choice valued from what the seat knew and with every hand shown, the points given away,
        and per seat the mean and its worst three moments (docs/analysis.md)."""
        answer = bus().handle(GetAnalysis(match_id))
        tag = etag(answer["seq"], "analysis", answer["chain_head"]["hash"])
        return not_modified(tag) or (answer, 200, {"ETag": tag})


# --- a hint during play -----------------------------------------------------------------------------
class HintChoiceSchema(ma.Schema):
    choice = fields.String(**ALWAYS, metadata={"description": "As a record's move without its seat: `6-4R`, `D`"})
    action = component(
        "LegalAction",
        **ALWAYS,
        metadata={"description": "The choice as the view's `legal_actions` lists it: send it as it is"},
    )
    value = fields.Float(
        **ALWAYS, metadata={"description": "The expert's value of it from what the seat knows, in points"}
    )


class HintSchema(ma.Schema):
    match_id = fields.String(**ALWAYS)
    seq = fields.Integer(**ALWAYS, metadata={"description": "The match's seq the hint is for"})
    seat = fields.Integer(**ALWAYS)
    choices = fields.List(
        fields.Nested(HintChoiceSchema),
        **ALWAYS,
        metadata={"description": "Best first; empty when the seat has one choice or none to weigh"},
    )


@blp.route("/<string:match_id>/hint")
class Hint(MethodView):
    @limit_audit_reads
    @blp.doc(security=[{"seatToken": []}])
    @blp.response(200, HintSchema)
    @problem_responses(
        blp, INVALID_TOKEN, WRONG_MATCH, UNKNOWN_MATCH, HINT_NOT_OFFERED, NOT_YOUR_TURN, MATCH_OVER, TOO_MANY_REQUESTS
    )
    def get(self, match_id: str) -> dict[str, Any]:
        """With the seat's token, in an unrated match against the computer, on the seat's turn: its
        choices, best first, each valued by the expert from what the seat knows (docs/analysis.md)."""
        return bus().handle(GetHint(match_id, bearer_token()))
