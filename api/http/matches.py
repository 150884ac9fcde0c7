"""/v1/matches: the schemas of what its routes take and answer (they are also the OpenAPI
document), and thin views that turn requests into use cases and errors into problems."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from functools import wraps
from typing import Any, ClassVar, NamedTuple, ParamSpec, TypeVar, cast
from urllib.parse import urlencode

import marshmallow as ma
from flask import Response, current_app, request
from flask.views import MethodView
from flask_smorest import Blueprint
from marshmallow import fields, validate

from api import metrics, traces
from api.bots import DEFAULT_LEVEL
from api.http import problem_codes as codes
from api.http import request_ids
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
from api.http.dumping import AlternativesSchema, CompiledSchema, json_text
from api.http.errors import PROBLEM_CONTENT_TYPE
from api.http.limits import limit_audit_reads, limit_creation, rate_limited_actions
from api.http.openapi_shapes import COMPONENTS, Union, component, shaped
from api.http.schema_fields import (
    ALWAYS,
    MAX_SEQ,
    MAX_WAIT_SECONDS,
    NAME,
    PLAYER_REF,
    SEED,
    AsciiFloat,
    AsciiInteger,
    RuleOverrides,
    Tile,
)
from api.http.waiting import waiting_client
from api.rules import BOT_SEAT, DEFAULT_PRESET, OPEN_SEAT, PRESETS, REMOTE_SEAT, SEAT_TYPES, STATUSES
from api.rules.errors import RulesError
from api.rules.ruleset import LARGEST_OFFERED_TOP, MAX_PLAYERS, MIN_PLAYERS
from api.rules.trains_wire import place_from_wire
from api.rules.vocabulary import ActionType, BotLevel, DrawUntil, End, values
from api.services import commands
from api.services.commands import AUDIT_PAGE, MAX_AUDIT_PAGE, MAX_EVENTS_PAGE
from api.services.idempotency import KEY_PATTERN, Keyed, Replay, StoredAnswer, parse_key
from api.services.match_ids import is_match_id
from api.services.reading import CURSOR_PATTERN, MAX_PAGE_SIZE

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
    dumped = ACTION_RESULT.dump(result)
    return json_text(dumped, sort_keys=False) or json.dumps(dumped, separators=(",", ":"))


def _action_answer(result: dict, text: str, status: int = 200, **headers: str) -> Response:
    request_ids.note_seat(result["seat"])  # for the request's log lines
    traces.annotate(boneyard__event_seq=result["seq"])  # the match's seq after the action
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


# --- schemas: what the routes below take and answer (they are also the OpenAPI document) ---
# Far above any play's points (the open ends of a double-nine line count under 100): every
# integer a client sends has a bound, so none reaches the rules or the store unchecked.
MAX_PLAY_POINTS = 1000


# --- requests ------------------------------------------------------------------------
class _SeatSpecFields(ma.Schema):
    name = fields.String(required=True, validate=NAME, metadata={"description": "Shown to everyone; stored as given"})
    client_seed = fields.String(validate=SEED, metadata={"description": "Mixed into every deal (provable fairness)"})
    player_ref = fields.String(
        validate=PLAYER_REF,
        metadata={
            "description": "The portal's own id for the player (opaque); shown in public seat lists, "
            "used by player statistics and the player_ref filter"
        },
    )


class RemoteSeatSpecSchema(_SeatSpecFields):
    type = fields.String(
        required=True,
        validate=validate.OneOf((REMOTE_SEAT,)),
        metadata={"description": "A client holding the seat's token (answered once, at creation)"},
    )


class BotSeatSpecSchema(_SeatSpecFields):
    type = fields.String(
        required=True,
        validate=validate.OneOf((BOT_SEAT,)),
        metadata={"description": "A computer player: the server plays the seat"},
    )
    level = shaped(
        fields.String(
            load_default=None,
            allow_none=True,
            validate=validate.OneOf(values(BotLevel)),
            metadata={"description": f"Computer level (null or absent: {DEFAULT_LEVEL})"},
        ),
        {"$ref": COMPONENTS + "BotLevel"},
    )


class OpenSeatSpecSchema(_SeatSpecFields):
    type = fields.String(
        required=True,
        validate=validate.OneOf((OPEN_SEAT,)),
        metadata={"description": "Kept free for anyone to claim later (POST .../claim)"},
    )


class SeatSpecSchema(Union):
    """A seat of a new match, by `type`: remote (a client with a token), bot (a computer
    player; only these have a `level`) or open (claimed later)."""

    SHAPES: ClassVar[dict[str, type[ma.Schema]]] = {
        REMOTE_SEAT: RemoteSeatSpecSchema,
        BOT_SEAT: BotSeatSpecSchema,
        OPEN_SEAT: OpenSeatSpecSchema,
    }


class MatchCreateSchema(ma.Schema):
    preset = fields.String(
        load_default=DEFAULT_PRESET,
        validate=validate.OneOf(tuple(PRESETS)),
        metadata={"description": "A named table; docs/rules.md lists what each sets"},
    )
    rules = RuleOverrides()
    seats = fields.List(
        fields.Nested(SeatSpecSchema), required=True, validate=validate.Length(min=MIN_PLAYERS, max=MAX_PLAYERS)
    )
    seed = fields.String(
        validate=SEED,
        metadata={
            "description": "Choose the server seed (reproducible tests, research): only where the server allows "
            "it (ALLOW_CLIENT_SEED), else 403 `client_seed_not_allowed`; such matches show "
            "seeded_by_client everywhere"
        },
    )
    rated = fields.Boolean(
        load_default=False,
        metadata={
            "description": "Its end updates its players' ratings (docs/ratings.md): only with a portal's key "
            "(else 403 `rated_needs_portal`) and when every remote or open seat names a distinct `player_ref` "
            "(else 422 `invalid_rated_seats`); its rematch is rated too"
        },
    )


class ClaimSchema(ma.Schema):
    name = fields.String(required=True, validate=NAME)
    client_seed = fields.String(validate=SEED, metadata={"description": "Mixed into every deal (provable fairness)"})
    player_ref = fields.String(
        validate=PLAYER_REF,
        metadata={"description": "The portal's own id for the player (a rematch seat keeps the old seat's by default)"},
    )


def _number_pattern(top: int) -> str:
    """A regular expression for the numbers 0 to ``top`` (at most 19), as Tile.parse reads them."""
    return f"[0-{top}]" if top <= 9 else f"(?:[0-9]|1[0-{top - 10}])"


# "6-4", as Tile.parse reads one: a number of the offered sets either side (a tile of another
# set than the match's passes this shape and is refused by the rules, 422 invalid_tile).
TILE_TEXT = f"^{_number_pattern(LARGEST_OFFERED_TOP)}-{_number_pattern(LARGEST_OFFERED_TOP)}$"


class _ActionFields(ma.Schema):
    expected_seq = AsciiInteger(
        validate=validate.Range(min=0, max=MAX_SEQ),
        metadata={"description": "Refuse with 409 stale_seq unless the match is at this seq"},
    )


def check_train_name(value: object) -> None:
    """A play's ``train``: a seat (0 to 7), "mexican" or a toe's id (``trains_wire``), else 422."""
    too_high = isinstance(value, int) and not isinstance(value, bool) and value > MAX_PLAYERS - 1
    try:
        place_from_wire(value)
    except RulesError as exc:
        raise ma.ValidationError(str(exc)) from None
    if too_high:
        raise ma.ValidationError(f"no train {value}: seats are 0 to {MAX_PLAYERS - 1}")


class PlayActionSchema(_ActionFields):
    type = fields.String(required=True, validate=validate.OneOf((ActionType.PLAY,)))
    tile = shaped(
        fields.Raw(required=True, metadata={"description": 'The tile, [6, 4] (either order) or "6-4"'}),
        {"oneOf": [{"$ref": COMPONENTS + "Tile"}, {"type": "string", "pattern": TILE_TEXT}]},
    )
    end = fields.String(
        validate=validate.OneOf(values(End)),
        metadata={
            "description": "The line games: the end to place it on; may be left out when the tile fits one end only"
        },
    )
    train = shaped(
        fields.Raw(
            validate=check_train_name,
            metadata={
                "description": "The trains games: the train to place it on, as the view names it (a seat's number, "
                '"mexican", or a Chicken Foot toe such as "toe:9:0"); required there, refused in the line games'
            },
        ),
        {"$ref": COMPONENTS + "TrainName"},
    )
    claim = AsciiInteger(
        validate=validate.Range(min=0, max=MAX_PLAY_POINTS),
        metadata={
            "description": "muggins_calls only: the points this play scores (leave it out to score nothing and "
            "leave the points to a muggins call); elsewhere 409 `claim_not_allowed`"
        },
    )
    scores = AsciiInteger(
        validate=validate.Range(min=0, max=MAX_PLAY_POINTS),
        metadata={"description": "Ignored: the hint a listed legal action carries"},
    )


class DrawActionSchema(_ActionFields):
    type = fields.String(required=True, validate=validate.OneOf((ActionType.DRAW,)))
    until = fields.String(
        validate=validate.OneOf(values(DrawUntil)),
        metadata={"description": "Keep drawing until a tile fits (or the boneyard is spent)"},
    )


class KnockActionSchema(_ActionFields):
    type = fields.String(required=True, validate=validate.OneOf((ActionType.KNOCK,)))


class PassActionSchema(_ActionFields):
    type = fields.String(required=True, validate=validate.OneOf((ActionType.PASS,)))


class MugginsActionSchema(_ActionFields):
    type = fields.String(required=True, validate=validate.OneOf((ActionType.MUGGINS,)))
    scores = AsciiInteger(
        validate=validate.Range(min=0, max=MAX_PLAY_POINTS),
        metadata={"description": "Ignored: the hint a listed legal action carries"},
    )


class ActionSchema(Union):
    """An action, by `type`: play a tile, draw, knock, call muggins (the line games), or pass
    (the trains games). Every item of a view's `legal_actions` is one, to be sent as it is."""

    PROBLEM_CODE = "invalid_action"  # a body that is no action: 422 invalid_action, errors by field
    SHAPES: ClassVar[dict[str, type[ma.Schema]]] = {
        ActionType.PLAY: PlayActionSchema,
        ActionType.DRAW: DrawActionSchema,
        ActionType.KNOCK: KnockActionSchema,
        ActionType.MUGGINS: MugginsActionSchema,
        ActionType.PASS: PassActionSchema,
    }


UNIONS = {"SeatSpec": SeatSpecSchema, "Action": ActionSchema}
# What an action's body is loaded by: one instance, as a class given to ``blp.arguments`` made
# webargs build a schema (its fields deep-copied) on every request.
ACTION_BODY = ActionSchema()
ALTERNATIVES: dict[str, type[ma.Schema]] = {}  # filled in below its schemas (``SeatView``)


class EventsQuerySchema(ma.Schema):
    # Bounded by the database's seq column (a 32-bit integer): a larger ``after`` used to
    # reach the query and fail there (500).
    after = AsciiInteger(load_default=0, validate=validate.Range(min=0, max=MAX_SEQ))
    limit = AsciiInteger(load_default=100, validate=validate.Range(min=1, max=MAX_EVENTS_PAGE))
    wait = AsciiFloat(
        load_default=0,
        validate=validate.Range(min=0, max=MAX_WAIT_SECONDS),
        metadata={
            "description": "Long-poll: with no event after `after` yet, hold the request up to this many "
            "seconds and answer as soon as one is appended (an empty page at the timeout)"
        },
    )


EVENTS_QUERY = EventsQuerySchema()  # one instance, as ACTION_BODY


class AuditQuerySchema(ma.Schema):
    after = AsciiInteger(
        load_default=0,
        validate=validate.Range(min=0, max=MAX_SEQ),
        metadata={"description": "Rows after this seq (`next_after` of the previous page)"},
    )
    limit = AsciiInteger(
        load_default=AUDIT_PAGE,
        validate=validate.Range(min=1, max=MAX_AUDIT_PAGE),
        metadata={"description": "Rows per page"},
    )


class ListQuerySchema(ma.Schema):
    status = fields.String(validate=validate.OneOf(STATUSES))
    preset = fields.String(validate=validate.OneOf(tuple(PRESETS)))
    has_open_seat = fields.Boolean(
        metadata={
            "description": "true: only matches with a seat anyone may claim (not one kept for a rematch); "
            "false: only matches without"
        }
    )
    player_ref = fields.String(
        validate=PLAYER_REF,
        metadata={
            "description": "Only matches with a seat of this player (with the portal's key): the player's recent "
            "matches, newest first; its rated ones with their rating changes: GET /v1/players/{player_ref}/history"
        },
    )
    limit = AsciiInteger(load_default=20, validate=validate.Range(min=1, max=MAX_PAGE_SIZE))
    cursor = fields.String(
        metadata={
            "pattern": CURSOR_PATTERN,
            "description": (
                "next_cursor of the previous page (also in its Link header): "
                "`<microseconds since 1970, UTC>-<match id>`, "
                "the page after that match; any such string is a position (else 422 `invalid_cursor`)"
            ),
        }
    )


class ViewSeatSchema(ma.Schema):
    seat = fields.Integer(**ALWAYS)
    name = fields.String(allow_none=True, **ALWAYS, metadata={"description": "null for an open seat"})
    type = fields.String(validate=validate.OneOf(SEAT_TYPES), **ALWAYS)
    level = component(
        "BotLevel", allow_none=True, **ALWAYS, metadata={"description": "Computer seats only; null otherwise"}
    )
    client_seed = fields.String(
        allow_none=True, **ALWAYS, metadata={"description": "The seat's client seed; null when it gave none"}
    )


class SeatSchema(ViewSeatSchema):
    player_ref = fields.String(
        allow_none=True, **ALWAYS, metadata={"description": "The portal's id for the player; null when none was given"}
    )


class CreatedSeatSchema(SeatSchema):
    token = fields.String(
        metadata={"description": "Remote seats only, shown this once: send it as `Authorization: Bearer <token>`"}
    )


class EndSchema(ma.Schema):
    end = fields.String(validate=validate.OneOf(values(End)), **ALWAYS)
    value = fields.Integer(
        validate=validate.Range(0, LARGEST_OFFERED_TOP),
        **ALWAYS,
        metadata={"description": "The number showing on that end"},
    )


class ChainHeadSchema(ma.Schema):
    class Meta:
        description = (
            "Where the match's hash chain ends as this answer shows it: the last event's seq and hash (seq 0 and "
            "64 zeros before the first event). Pin it: once the match has ended, the row at that seq of "
            "`GET /audit` must have that hash, which proves the log up to that seq was not rewritten since "
            "(every hash covers every earlier row). The hash is over the unredacted rows, so it cannot be "
            "checked before /audit reveals them. What a pinned head proves and what it does not: "
            "openapi/events.md"
        )

    seq = fields.Integer(**ALWAYS, metadata={"description": "The last event's seq (0: none yet)"})
    hash = fields.String(
        validate=validate.Regexp("^[0-9a-f]{64}$"),
        **ALWAYS,
        metadata={"description": "That event's `hash` in the audit log (lowercase hex SHA-256)"},
    )


def ChainHeadField(description: str) -> fields.Nested:
    """A ``chain_head`` field: the one ``ChainHead`` component, described for where it is shown."""
    return fields.Nested(ChainHeadSchema, **ALWAYS, metadata={"description": description})


DEADLINE = fields.String(
    allow_none=True,
    metadata={
        "description": "Only with turn_seconds: when the seat to move times out and the server plays its turn "
        "(ISO 8601, UTC); null while no clock runs (a computer player to move, the match not playing)"
    },
)


class _SummaryFields(CompiledSchema):
    id = fields.String(**ALWAYS)
    seeded_by_client = fields.Boolean(**ALWAYS, metadata={"description": "The server seed was chosen by the creator"})
    preset = fields.String(validate=validate.OneOf(tuple(PRESETS)), **ALWAYS)
    rated = fields.Boolean(**ALWAYS, metadata={"description": "Its end updates its players' ratings (docs/ratings.md)"})
    status = fields.String(validate=validate.OneOf(STATUSES), **ALWAYS)
    seq = fields.Integer(**ALWAYS, metadata={"description": "Number of the last event"})
    hand_number = fields.Integer(
        **ALWAYS, metadata={"description": "The hand being (or last) played; 0 before the first deal"}
    )
    scores = fields.List(fields.Integer(), **ALWAYS, metadata={"description": "Per seat, or per side with partners"})
    turn = fields.Integer(
        allow_none=True, **ALWAYS, metadata={"description": "The seat to move; null when nobody is to move"}
    )
    winner = fields.Integer(
        allow_none=True,
        **ALWAYS,
        metadata={"description": "Once ended: the winning seat, or side with partners; null before"},
    )
    players = fields.Integer(**ALWAYS)
    open_seats = fields.List(fields.Integer(), **ALWAYS, metadata={"description": "Seats still to be claimed"})
    created_at = fields.String(**ALWAYS, metadata={"description": "ISO 8601"})


class FairnessSchema(ma.Schema):
    match_id = fields.String(**ALWAYS)
    verified = fields.Boolean(**ALWAYS, metadata={"description": "Everything below checked out"})
    seed = fields.String(**ALWAYS)
    seed_commitment = fields.String(**ALWAYS)
    commitment_ok = fields.Boolean(**ALWAYS, metadata={"description": "SHA-256(seed) equals the published commitment"})
    chain_ok = fields.Boolean(
        **ALWAYS, metadata={"description": "Every stored event links to the previous one by hash"}
    )
    deals_checked = fields.Integer(**ALWAYS)
    moves_checked = fields.Integer(**ALWAYS)
    events_checked = fields.Integer(**ALWAYS)
    problems = fields.List(fields.String(), **ALWAYS, metadata={"description": "What did not check out, if anything"})


class MatchSummarySchema(_SummaryFields):
    rules = component("GameRuleSet", **ALWAYS)
    seed_commitment = fields.String(
        **ALWAYS, metadata={"description": "SHA-256 of the secret seed, revealed at the end"}
    )
    seats = fields.List(fields.Nested(SeatSchema), **ALWAYS)
    deadline_at = DEADLINE


class CreatedMatchSchema(MatchSummarySchema):
    seats = fields.List(fields.Nested(CreatedSeatSchema), **ALWAYS)


class MatchListItemSchema(_SummaryFields):
    seats = fields.List(fields.Nested(SeatSchema), **ALWAYS)
    updated_at = fields.String(**ALWAYS, metadata={"description": "ISO 8601: the last event's time"})


class MatchListSchema(CompiledSchema):
    items = fields.List(fields.Nested(MatchListItemSchema), **ALWAYS)
    next_cursor = fields.String(
        allow_none=True, **ALWAYS, metadata={"description": "Pass as ?cursor= for the next page; null on the last"}
    )


class ViewSchema(CompiledSchema):
    match_id = fields.String(**ALWAYS)
    seq = fields.Integer(**ALWAYS, metadata={"description": "Number of the last event this view includes"})
    status = fields.String(validate=validate.OneOf(STATUSES), **ALWAYS)
    seat = fields.Integer(
        allow_none=True, **ALWAYS, metadata={"description": "The viewer's seat; null for a spectator"}
    )
    hand_number = fields.Integer(**ALWAYS)
    leader = fields.Integer(allow_none=True, **ALWAYS, metadata={"description": "The seat that led this hand"})
    turn = fields.Integer(
        allow_none=True, **ALWAYS, metadata={"description": "The seat to move; null when nobody is to move"}
    )
    rules = component("RuleSet", **ALWAYS)
    seats = fields.List(fields.Nested(ViewSeatSchema), **ALWAYS)
    sides = fields.List(
        fields.List(fields.Integer()), metadata={"description": "Partners only: the seats of each side"}
    )
    scores = fields.List(fields.Integer(), **ALWAYS, metadata={"description": "Per seat, or per side with partners"})
    hand = fields.List(Tile(), metadata={"description": "A seat's view only: the viewer's own tiles"})
    pips = fields.Integer(metadata={"description": "A seat's view only: the pips in the viewer's hand"})
    hand_counts = fields.List(fields.Integer(), **ALWAYS, metadata={"description": "Tiles held, per seat"})
    drawn = fields.List(fields.Integer(), **ALWAYS, metadata={"description": "Tiles each seat drew this hand"})
    boneyard = fields.Integer(**ALWAYS, metadata={"description": "Tiles left in the boneyard"})
    ends = fields.List(fields.Nested(EndSchema), **ALWAYS, metadata={"description": "Every open end"})
    line = fields.List(
        component("LaidTile"),
        **ALWAYS,
        metadata={
            "description": "The line of play from its left end to its right end, each tile as it lies there: "
            "[its left number, its right number] (not high end first)"
        },
    )
    spinner = Tile(
        allow_none=True,
        metadata={"description": "Rule sets with a spinner only: the spinner, null until a double is played"},
    )
    arms = component("Arms", metadata={"description": "Rule sets with a spinner only"})
    count = fields.Integer(metadata={"description": "Fives games only: the sum of the open ends (the count)"})
    legal_actions = fields.List(
        component("LegalAction"),
        **ALWAYS,
        metadata={
            "description": "Exactly the actions this seat may send now, each to be sent as it is (empty for a "
            "spectator, when it is another seat's turn and there is nothing to call, or when a computer player "
            "has taken the seat over)"
        },
    )
    last_hand = component(
        "HandResult",
        allow_none=True,
        **ALWAYS,
        metadata={"description": "How the previous hand ended; null before the first hand ends"},
    )
    winner = fields.Integer(
        allow_none=True,
        **ALWAYS,
        metadata={"description": "Once ended: the winning seat, or side with partners; null before"},
    )
    hands = fields.List(
        fields.List(Tile()),
        metadata={
            "description": "Once the match has ended: every hand as it was at the end, face up (absent when no "
            "tile was left in any hand)"
        },
    )
    seeded_by_client = fields.Boolean(**ALWAYS, metadata={"description": "The server seed was chosen by the creator"})
    deadline_at = DEADLINE
    chain_head = ChainHeadField("The hash chain's head at this view's seq, to pin")


class TrainsViewSchema(CompiledSchema):
    """A trains game's view (mexican-train, chicken-foot): the rounds and totals, the table's
    trains or arms, the viewer's hand and exactly the actions it may send."""

    match_id = fields.String(**ALWAYS)
    seq = fields.Integer(**ALWAYS, metadata={"description": "Number of the last event this view includes"})
    status = fields.String(validate=validate.OneOf(STATUSES), **ALWAYS)
    seat = fields.Integer(
        allow_none=True, **ALWAYS, metadata={"description": "The viewer's seat; null for a spectator"}
    )
    round = fields.Integer(
        **ALWAYS, metadata={"description": "The round in play (or the last played), from 1; 0 before"}
    )
    rounds = fields.Integer(**ALWAYS, metadata={"description": "Rounds the match plays"})
    leader = fields.Integer(allow_none=True, **ALWAYS, metadata={"description": "The seat that began this round"})
    turn = fields.Integer(
        allow_none=True, **ALWAYS, metadata={"description": "The seat to move; null when nobody is to move"}
    )
    rules = component("TrainsRuleSet", **ALWAYS)
    seats = fields.List(fields.Nested(ViewSeatSchema), **ALWAYS)
    totals = fields.List(
        fields.Integer(),
        **ALWAYS,
        metadata={"description": "Per seat: the pips counted against it so far (lowest wins)"},
    )
    round_pips = fields.List(
        fields.List(fields.Integer()), **ALWAYS, metadata={"description": "Per round ended, per seat: its pips"}
    )
    hand = fields.List(Tile(), metadata={"description": "A seat's view only: the viewer's own tiles"})
    pips = fields.Integer(
        metadata={"description": "A seat's view only: what the viewer's hand would add to its total now"}
    )
    hand_counts = fields.List(fields.Integer(), **ALWAYS, metadata={"description": "Tiles held, per seat"})
    drawn = Tile(
        allow_none=True,
        **ALWAYS,
        metadata={
            "description": "The tile the viewer just drew, the only one it may play now; null otherwise (and for "
            "every other seat and a spectator)"
        },
    )
    boneyard = fields.Integer(**ALWAYS, metadata={"description": "Tiles left in the boneyard"})
    board = component(
        "TrainsBoard", allow_none=True, **ALWAYS, metadata={"description": "The table; null before the first deal"}
    )
    legal_actions = fields.List(
        component("LegalAction"),
        **ALWAYS,
        metadata={
            "description": "Exactly the actions this seat may send now, each to be sent as it is (empty for a "
            "spectator, when it is another seat's turn, or when a computer player has taken the seat over)"
        },
    )
    last_round = component(
        "RoundResult",
        allow_none=True,
        **ALWAYS,
        metadata={"description": "How the previous round ended; null before the first round ends"},
    )
    winner = fields.Integer(
        allow_none=True, **ALWAYS, metadata={"description": "Once ended: the first of the winners; null before"}
    )
    winners = fields.List(
        fields.Integer(),
        allow_none=True,
        **ALWAYS,
        metadata={"description": "Once ended: every seat with the lowest total (a tie shares the win); null before"},
    )
    hands = fields.List(
        fields.List(Tile()),
        metadata={"description": "Once the match has ended: every hand as the last round left it, face up"},
    )
    seeded_by_client = fields.Boolean(**ALWAYS, metadata={"description": "The server seed was chosen by the creator"})
    deadline_at = DEADLINE
    chain_head = ChainHeadField("The hash chain's head at this view's seq, to pin")


class SeatViewSchema(AlternativesSchema):
    """A seat's (or a spectator's) view: a line game's (`View`) or a trains game's (`TrainsView`),
    told apart by the rule set's preset (`rules.preset`; a trains view has `board`)."""

    SHAPES: ClassVar[tuple[type[ma.Schema], ...]] = (ViewSchema, TrainsViewSchema)

    @staticmethod
    def shape_of(obj: Any) -> type[ma.Schema]:
        return TrainsViewSchema if "board" in obj else ViewSchema


ALTERNATIVES["SeatView"] = SeatViewSchema


class ActionResultSchema(CompiledSchema):
    match_id = fields.String(**ALWAYS)
    seat = fields.Integer(**ALWAYS)
    seq = fields.Integer(**ALWAYS)
    events = fields.List(
        component("VisibleEvent"),
        **ALWAYS,
        metadata={
            "description": "The events appended (this action's and the computer players' replies), as this seat "
            "may see them"
        },
    )
    view = fields.Nested(SeatViewSchema, **ALWAYS)


ACTION_RESULT = ActionResultSchema()  # built once: a schema instance deep-copies its fields
SEAT_VIEW = SeatViewSchema()


class RenderedView(NamedTuple):
    """A view's answer as flask-smorest would make it (the schema's dump, Flask's JSON), and its ETag."""

    body: bytes
    mimetype: str
    tag: str


def render_view(seat_view: dict[str, Any]) -> RenderedView:
    """Made once per match, seq, chain head, deadline and seat in a process, then repeated
    (``api.services.rendered``): bytes, which no reader can change."""
    made = cast(Response, current_app.json.response(SEAT_VIEW.dump(seat_view)))
    tag = etag(seat_view["seq"], seat_part(seat_view["seat"]), head_part(seat_view))
    return RenderedView(made.get_data(), str(made.mimetype), tag)


class ClaimResultSchema(CompiledSchema):
    match_id = fields.String(**ALWAYS)
    seat = fields.Integer(**ALWAYS)
    token = fields.String(**ALWAYS, metadata={"description": "The seat's secret token, shown this once"})
    seq = fields.Integer(**ALWAYS)
    view = fields.Nested(SeatViewSchema, **ALWAYS)


class EventsPageSchema(CompiledSchema):
    match_id = fields.String(**ALWAYS)
    seat = fields.Integer(
        allow_none=True, **ALWAYS, metadata={"description": "The viewer's seat; null for a spectator"}
    )
    seq = fields.Integer(**ALWAYS, metadata={"description": "The last seq of the whole log"})
    chain_head = ChainHeadField("The hash chain's head at `seq` (this page's events are at or before it), to pin")
    events = fields.List(
        component("VisibleEvent"),
        **ALWAYS,
        metadata={"description": "This page's events, in seq order, as the viewer may see them"},
    )
    next_after = fields.Integer(
        allow_none=True, **ALWAYS, metadata={"description": "Pass as ?after= for the next page; null on the last"}
    )


class AuditSchema(ma.Schema):
    match_id = fields.String(**ALWAYS)
    seed = fields.String(**ALWAYS, metadata={"description": "The server seed, revealed"})
    seed_commitment = fields.String(**ALWAYS)
    shuffle_algorithm = fields.String(**ALWAYS, metadata={"description": "openapi/shuffle.md"})
    seq = fields.Integer(**ALWAYS, metadata={"description": "The last seq of the whole log"})
    chain_head = ChainHeadField("The hash chain's head: the last row's seq and hash (check pins against the rows)")
    events = fields.List(component("AuditEvent"), **ALWAYS, metadata={"description": "This page's rows, in seq order"})
    next_after = fields.Integer(
        allow_none=True, **ALWAYS, metadata={"description": "Pass as ?after= for the next page; null on the last page"}
    )


@blp.route("")
class Matches(MethodView):
    @blp.doc(security=PORTAL_KEY)
    @blp.arguments(ListQuerySchema, location="query")
    @blp.response(200, MatchListSchema, headers={"Link": LINK_HEADER})
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
    @blp.arguments(MatchCreateSchema)
    @blp.response(201, CreatedMatchSchema, headers={"ETag": ETAG_HEADER, "Location": LOCATION_HEADER})
    @problems(
        codes.INVALID_API_KEY,
        codes.PORTAL_KEY_REQUIRED,
        codes.PLAYER_REF_NEEDS_PORTAL,
        codes.RATED_NEEDS_PORTAL,
        codes.CLIENT_SEED_NOT_ALLOWED,
        codes.TOO_MANY_BOT_MATCHES,
        codes.EVENT_LIMIT_REACHED,
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
    @blp.response(200, MatchSummarySchema, headers={"ETag": ETAG_HEADER})
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
    @blp.response(200, SeatViewSchema, headers={"ETag": ETAG_HEADER})
    @problems(codes.INVALID_TOKEN, codes.WRONG_MATCH, codes.UNKNOWN_MATCH)
    def get(self, match_id: str) -> Response | tuple[Response, int, dict[str, str]]:
        """What one seat may see (with its token), or the spectator's view (without)."""
        answer = bus().handle(commands.GetRenderedView(match_id, bearer_token(), render_view))
        return not_modified(answer.tag) or (
            current_app.response_class(answer.body, mimetype=answer.mimetype),
            200,
            {"ETag": answer.tag, "Vary": "Authorization"},
        )


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
    @blp.arguments(ACTION_BODY)
    @blp.response(200, ActionResultSchema, headers={"ETag": ETAG_HEADER, "Idempotent-Replayed": REPLAYED_HEADER})
    @problems(
        codes.INVALID_IF_MATCH,
        codes.INVALID_TOKEN,
        codes.WRONG_MATCH,
        codes.UNKNOWN_MATCH,
        *codes.RULE_REFUSALS,
        codes.SEAT_PLAYED_BY_COMPUTER,
        codes.STALE_SEQ,
        codes.EVENT_LIMIT_REACHED,
        codes.PRECONDITION_FAILED,
        codes.INVALID_ACTION,
        codes.INVALID_TILE,
        codes.INVALID_IDEMPOTENCY_KEY,
        codes.IDEMPOTENCY_KEY_REUSED,
        codes.TOO_MANY_REQUESTS,
    )
    def post(self, body: dict[str, Any], match_id: str) -> Response:
        """Play, draw, knock, call muggins, or pass; answers the events appended and the new view."""
        expected_seq = body.pop("expected_seq", None)
        token, keyed = bearer_token(), idempotency_of(match_id)
        try:
            result = bus().handle(
                commands.Act(match_id, token, body, expected_seq, if_match_seq=if_match_seq(), keyed=keyed)
            )
        except Replay as replay:
            metrics.IDEMPOTENT_REPLAYS.inc()
            return _replayed(replay.stored)
        return _action_answer(result, render_action_result(result))


@blp.route("/<string:match_id>/events", parameters=CONDITIONAL)
class Events(MethodView):
    @blp.doc(security=SEAT_TOKEN_OR_SPECTATOR)
    @blp.arguments(EVENTS_QUERY, location="query")
    @conditional_read
    @blp.response(200, EventsPageSchema, headers={"ETag": ETAG_HEADER})
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
    @blp.arguments(AuditQuerySchema, location="query")
    @conditional_read
    @blp.response(200, AuditSchema, headers={"ETag": ETAG_HEADER})
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
    @blp.arguments(ClaimSchema)
    @blp.response(200, ClaimResultSchema)
    @problems(
        codes.INVALID_TOKEN,
        codes.SEAT_RESERVED,
        codes.PLAYER_REF_NEEDS_PORTAL,
        codes.UNKNOWN_MATCH,
        codes.UNKNOWN_SEAT,
        codes.SEAT_TAKEN,
        codes.STALE_SEQ,
        codes.EVENT_LIMIT_REACHED,
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
    @blp.response(201, MatchSummarySchema, headers={"Location": LOCATION_HEADER})
    @blp.alt_response(
        200,
        schema=MatchSummarySchema,
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
    @blp.response(200, FairnessSchema)
    @problems(codes.UNKNOWN_MATCH, codes.MATCH_NOT_OVER, codes.TOO_MANY_REQUESTS)
    def get(self, match_id: str) -> commands.Answer:
        """Once the match has ended: re-derive every deal from the revealed seeds, re-check every
        move and score, ask every computer player again (each bot move must be the one that bot
        makes from what its seat was shown and its seed), and verify the hash chain of the stored
        log (checked once, then stored)."""
        return bus().handle(commands.GetFairness(match_id))
