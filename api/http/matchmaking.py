"""Matchmaking over HTTP: player tokens, seeks, challenges and a player's event stream.

Who acts (:func:`acting`), worked out once per request: a **player token**
(``Authorization: Bearer bypl_…``) acts as its portal's player; the portal's key
(``X-API-Key``) with ``player_ref`` (in the body, or the query) acts as that player, and
without one as the portal itself; with neither, a keyless client of the public space (where
``PUBLIC_MATCHES`` is on). An anonymous seek is then read and cancelled with the secret its
creation answered, as ``Authorization: Bearer bysk_…``. docs/matchmaking.md tells it all.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import marshmallow as ma
from flask import Response, current_app, g
from flask.views import MethodView
from flask_smorest import Blueprint
from marshmallow import fields, validate

from api.http import problem_codes as codes
from api.http.arguments import JSON_BODY_PARSER
from api.http.callers import bearer_token, bus, caller_player, caller_portal
from api.http.limits import limit_player_creation
from api.http.openapi_shapes import component
from api.http.problem_codes import problem_responses
from api.http.schema_fields import (
    ALWAYS,
    MAX_SEQ,
    MAX_WAIT_SECONDS,
    PLAYER_REF,
    AsciiFloat,
    AsciiInteger,
    RuleOverrides,
)
from api.http.stream import HEARTBEAT_SECONDS, last_event_id, sse_message, sse_response
from api.http.waiting import waiting_client
from api.rules import BOT_SEAT, DEFAULT_PRESET, PRESETS, REMOTE_SEAT
from api.rules.ruleset import MAX_PLAYERS, MIN_PLAYERS
from api.rules.vocabulary import BotLevel, values
from api.services import commands
from api.services.errors import PlayerRefNeedsPortal, PortalKeyRequired
from api.services.matchmaking import (
    ANSWERS,
    CHALLENGE_STATUSES,
    SEEK_STATUSES,
    sleep_for,
    stream_key,
)

tokens_blp = Blueprint(
    "player_tokens",
    __name__,
    url_prefix="/v1/portal/players",
    description="Player tokens: a portal lets its player's bot act as that player",
)
seeks_blp = Blueprint("seeks", __name__, url_prefix="/v1/seeks", description="Seeks: the matchmaking queue")
challenges_blp = Blueprint(
    "challenges", __name__, url_prefix="/v1/challenges", description="Challenges between a portal's players"
)
me_blp = Blueprint("me", __name__, url_prefix="/v1/me", description="The acting player's own event stream")
for _blueprint in (tokens_blp, seeks_blp, challenges_blp, me_blp):
    _blueprint.ARGUMENTS_PARSER = JSON_BODY_PARSER  # a body sent as anything but JSON: 415, not "Missing data"

PORTAL_KEY: list[dict[str, list[str]]] = [{"portalKey": []}]
#: A player token, or the portal's key with player_ref (or, for seeks, none: the public space).
PLAYER: list[dict[str, list[str]]] = [{"playerToken": []}, {"portalKey": []}]
SEEKER: list[dict[str, list[str]]] = [{"playerToken": []}, {"portalKey": []}, {}]
ID = validate.Regexp(r"^[0-9a-f]{32}$", error="must be 32 lowercase hex digits")
TTL = validate.Range(min=1, max=3600)
WAIT_DESCRIPTION = "Long-poll: hold the request up to this many seconds for a change (answered as soon as there is one)"


def acting(player_ref: str | None) -> commands.Seeker:
    """Who this request acts as (worked out once per request)."""
    if "boneyard_seeker" in g:
        found: commands.Seeker = g.boneyard_seeker
        return found
    player = caller_player()
    if player is not None:
        seeker = player.seeker
        if player_ref is not None and player_ref != seeker.player_ref:
            raise PlayerRefNeedsPortal("a player token acts as its own player: send no other player_ref")
    else:
        token = bearer_token()
        portal = caller_portal()
        if portal is None:
            if player_ref is not None:
                raise PlayerRefNeedsPortal("player_ref is the portal's id for its player: send the portal's key")
            if not current_app.config["PUBLIC_MATCHES"]:
                raise PortalKeyRequired(
                    "this server has no public space: send a player token, or a portal key (X-API-Key)"
                )
        seeker = commands.Seeker(None if portal is None else portal.id, player_ref, secret=token)
    g.boneyard_seeker = seeker
    return seeker


# --- player tokens -------------------------------------------------------------------------------
class PlayerPathSchema(ma.Schema):
    player_ref = fields.String(required=True, validate=PLAYER_REF)


class TokenPathSchema(PlayerPathSchema):
    token_id = fields.String(required=True, validate=validate.Regexp(r"^[0-9a-f]{12}$"))


class PlayerTokenInfoSchema(ma.Schema):
    token_id = fields.String(**ALWAYS, metadata={"description": "The token's public part (bypl_<token_id>_…)"})
    label = fields.String(allow_none=True, **ALWAYS)
    created_at = fields.String(**ALWAYS)
    revoked_at = fields.String(allow_none=True, **ALWAYS, metadata={"description": "null while the token works"})


class NewPlayerTokenSchema(PlayerTokenInfoSchema):
    token = fields.String(**ALWAYS, metadata={"description": "The token: shown this once, only its hash is kept"})


class PlayerTokensSchema(ma.Schema):
    player_ref = fields.String(**ALWAYS)
    tokens = fields.List(fields.Nested(PlayerTokenInfoSchema), **ALWAYS)


def the_portal_id() -> str:
    portal = caller_portal()
    if portal is None:
        raise PortalKeyRequired("player tokens are issued by the player's portal: send its key (X-API-Key)")
    return portal.id


@tokens_blp.route("/<string:player_ref>/tokens")
class PlayerTokens(MethodView):
    @tokens_blp.doc(security=PORTAL_KEY)
    @tokens_blp.arguments(PlayerPathSchema, location="path", as_kwargs=True)
    @tokens_blp.response(201, NewPlayerTokenSchema)
    @problem_responses(tokens_blp, codes.PORTAL_KEY_REQUIRED, codes.INVALID_REQUEST)
    def post(self, player_ref: str) -> dict[str, Any]:
        """Issue a token for the portal's player (shown once): its bot then acts as that player on
        the seek, challenge and event-stream endpoints (``Authorization: Bearer bypl_…``)."""
        return bus().handle(commands.IssuePlayerToken(the_portal_id(), player_ref))

    @tokens_blp.doc(security=PORTAL_KEY)
    @tokens_blp.arguments(PlayerPathSchema, location="path", as_kwargs=True)
    @tokens_blp.response(200, PlayerTokensSchema)
    @problem_responses(tokens_blp, codes.PORTAL_KEY_REQUIRED, codes.INVALID_REQUEST)
    def get(self, player_ref: str) -> dict[str, Any]:
        """The player's tokens: ids, labels and dates (never a token)."""
        return bus().handle(commands.ListPlayerTokens(the_portal_id(), player_ref))


@tokens_blp.route("/<string:player_ref>/tokens/<string:token_id>")
class PlayerToken(MethodView):
    @tokens_blp.doc(security=PORTAL_KEY)
    @tokens_blp.arguments(TokenPathSchema, location="path", as_kwargs=True)
    @tokens_blp.response(204)
    @problem_responses(tokens_blp, codes.PORTAL_KEY_REQUIRED, codes.UNKNOWN_PLAYER_TOKEN, codes.INVALID_REQUEST)
    def delete(self, player_ref: str, token_id: str) -> tuple[str, int]:
        """Revoke one of the player's tokens at once."""
        bus().handle(commands.RevokePlayerToken(the_portal_id(), player_ref, token_id))
        return "", 204


# --- seeks -------------------------------------------------------------------------------------------------
class SeekCreateSchema(ma.Schema):
    preset = fields.String(load_default=DEFAULT_PRESET, validate=validate.OneOf(tuple(PRESETS)))
    rules = RuleOverrides()
    players = AsciiInteger(load_default=MIN_PLAYERS, validate=validate.Range(min=MIN_PLAYERS, max=MAX_PLAYERS))
    rated = fields.Boolean(
        load_default=False,
        metadata={"description": "Rated: a portal player's seeks only (else 403 `rated_needs_player`)"},
    )
    rating_min = AsciiFloat(validate=validate.Range(min=-100000, max=100000))
    rating_max = AsciiFloat(validate=validate.Range(min=-100000, max=100000))
    fill_after_seconds = AsciiInteger(
        validate=validate.Range(min=1, max=3600),
        metadata={"description": "Not paired after this long: completed with computer players of fill_level"},
    )
    fill_level = fields.String(validate=validate.OneOf(values(BotLevel)))
    ttl_seconds = AsciiInteger(load_default=300, validate=TTL, metadata={"description": "Expires after this long"})
    player_ref = fields.String(validate=PLAYER_REF, metadata={"description": "With the portal's key: its player"})


class SeekSchema(ma.Schema):
    id = fields.String(**ALWAYS)
    status = fields.String(validate=validate.OneOf(SEEK_STATUSES), **ALWAYS)
    preset = fields.String(**ALWAYS)
    rules = component("RuleOverrides", **ALWAYS, metadata={"description": "The overrides asked for"})
    players = fields.Integer(**ALWAYS)
    rated = fields.Boolean(**ALWAYS)
    player_ref = fields.String(allow_none=True, **ALWAYS)
    rating_min = fields.Float(allow_none=True, **ALWAYS)
    rating_max = fields.Float(allow_none=True, **ALWAYS)
    fill_at = fields.String(allow_none=True, **ALWAYS)
    fill_level = fields.String(allow_none=True, **ALWAYS)
    created_at = fields.String(**ALWAYS)
    expires_at = fields.String(**ALWAYS)
    match_id = fields.String(allow_none=True, **ALWAYS, metadata={"description": "Once paired: the match"})
    seat = fields.Integer(allow_none=True, **ALWAYS, metadata={"description": "Once paired: your seat"})
    token = fields.String(
        allow_none=True,
        **ALWAYS,
        metadata={"description": "Once paired: your seat's token (shown to the seek's owner)"},
    )


class NewSeekSchema(SeekSchema):
    secret = fields.String(
        allow_none=True,
        **ALWAYS,
        metadata={"description": "An anonymous seek's secret (shown once): send it as Authorization: Bearer"},
    )


class SeekPathSchema(ma.Schema):
    seek_id = fields.String(required=True, validate=ID)


class SeekQuerySchema(ma.Schema):
    wait = AsciiFloat(
        load_default=0, validate=validate.Range(min=0, max=MAX_WAIT_SECONDS), metadata={"description": WAIT_DESCRIPTION}
    )
    player_ref = fields.String(validate=PLAYER_REF)


class SeekOwnerQuerySchema(ma.Schema):
    player_ref = fields.String(validate=PLAYER_REF)


SEEKER_CODES = (codes.PORTAL_KEY_REQUIRED, codes.PLAYER_REF_NEEDS_PORTAL, codes.INVALID_REQUEST)


@seeks_blp.route("")
class Seeks(MethodView):
    @limit_player_creation  # a seek may make a match: the creation budget, as POST /v1/matches
    @seeks_blp.doc(security=SEEKER)
    @seeks_blp.arguments(SeekCreateSchema, required=False)  # every member has a default: {} or no body
    @seeks_blp.response(201, NewSeekSchema)
    @problem_responses(
        seeks_blp,
        *SEEKER_CODES,
        codes.RATED_NEEDS_PLAYER,
        codes.INVALID_SEEK,
        codes.ALREADY_SEEKING,
        codes.INVALID_RULES,
        codes.TOO_MANY_REQUESTS,
    )
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Join the queue: paired at once when enough compatible seeks wait (then `match_id`, `seat`
        and `token` are in this answer), else `waiting` until paired, cancelled or expired."""
        seeker = acting(body.get("player_ref"))
        return bus().handle(
            commands.CreateSeek(
                seeker,
                body["preset"],
                body["rules"],
                body["players"],
                body["ttl_seconds"],
                rated=body["rated"],
                rating_min=body.get("rating_min"),
                rating_max=body.get("rating_max"),
                fill_after_seconds=body.get("fill_after_seconds"),
                fill_level=body.get("fill_level"),
            )
        )


@seeks_blp.route("/<string:seek_id>")
class Seek(MethodView):
    @seeks_blp.doc(security=SEEKER)
    @seeks_blp.arguments(SeekPathSchema, location="path", as_kwargs=True)
    @seeks_blp.arguments(SeekQuerySchema, location="query", as_kwargs=True)
    @seeks_blp.response(200, SeekSchema)
    @problem_responses(seeks_blp, *SEEKER_CODES, codes.UNKNOWN_SEEK)
    def get(self, seek_id: str, wait: float, player_ref: str | None = None) -> dict[str, Any]:
        """Your seek (its seat and token once paired); `wait`: long-poll until it is paired,
        expired or cancelled."""
        seeker = acting(player_ref)
        return bus().handle(commands.GetSeek(seek_id, seeker, wait, client=waiting_client() if wait > 0 else None))

    @seeks_blp.doc(security=SEEKER)
    @seeks_blp.arguments(SeekPathSchema, location="path", as_kwargs=True)
    @seeks_blp.arguments(SeekOwnerQuerySchema, location="query", as_kwargs=True)
    @seeks_blp.response(200, SeekSchema)
    @problem_responses(seeks_blp, *SEEKER_CODES, codes.UNKNOWN_SEEK, codes.SEEK_PAIRED)
    def delete(self, seek_id: str, player_ref: str | None = None) -> dict[str, Any]:
        """Cancel your waiting seek (409 `seek_paired` once paired)."""
        return bus().handle(commands.CancelSeek(seek_id, acting(player_ref)))


# --- challenges ----------------------------------------------------------------------------------------------
class ChallengeCreateSchema(ma.Schema):
    preset = fields.String(load_default=DEFAULT_PRESET, validate=validate.OneOf(tuple(PRESETS)))
    rules = RuleOverrides()
    rated = fields.Boolean(load_default=False)
    opponents = fields.List(
        fields.String(validate=PLAYER_REF),
        required=True,
        validate=validate.Length(min=1, max=MAX_PLAYERS - 1),  # the challenger's seat is the first
        metadata={"description": "The challenged players of the portal (player_refs)"},
    )
    bots = fields.List(
        fields.String(validate=validate.OneOf(values(BotLevel))),
        load_default=list,
        validate=validate.Length(max=MAX_PLAYERS - MIN_PLAYERS),  # one opponent at least
        metadata={"description": "Computer players' levels for the remaining seats"},
    )
    ttl_seconds = AsciiInteger(load_default=300, validate=TTL, metadata={"description": "Expires unanswered after"})
    player_ref = fields.String(validate=PLAYER_REF, metadata={"description": "With the portal's key: the challenger"})


class ChallengeSeatSchema(ma.Schema):
    seat = fields.Integer(**ALWAYS)
    player_ref = fields.String(allow_none=True, **ALWAYS)
    type = fields.String(validate=validate.OneOf((REMOTE_SEAT, BOT_SEAT)), **ALWAYS)
    level = fields.String(allow_none=True, **ALWAYS)
    answer = fields.String(allow_none=True, validate=validate.OneOf(ANSWERS), **ALWAYS)


class ChallengeSchema(ma.Schema):
    id = fields.String(**ALWAYS)
    status = fields.String(validate=validate.OneOf(CHALLENGE_STATUSES), **ALWAYS)
    challenger = fields.String(**ALWAYS)
    preset = fields.String(**ALWAYS)
    rules = component("RuleOverrides", **ALWAYS, metadata={"description": "The overrides asked for"})
    rated = fields.Boolean(**ALWAYS)
    seats = fields.List(fields.Nested(ChallengeSeatSchema), **ALWAYS)
    created_at = fields.String(**ALWAYS)
    expires_at = fields.String(**ALWAYS)
    match_id = fields.String(allow_none=True, **ALWAYS)
    seat = fields.Integer(allow_none=True, **ALWAYS, metadata={"description": "Your seat"})
    token = fields.String(allow_none=True, **ALWAYS, metadata={"description": "Once started: your seat's token"})


class ChallengePathSchema(ma.Schema):
    challenge_id = fields.String(required=True, validate=ID)


PLAYER_CODES = (codes.PORTAL_KEY_REQUIRED, codes.PLAYER_REF_NEEDS_PORTAL, codes.PLAYER_REQUIRED, codes.INVALID_REQUEST)


@challenges_blp.route("")
class Challenges(MethodView):
    @limit_player_creation  # a challenge makes a match once accepted: the creation budget, as POST /v1/matches
    @challenges_blp.doc(security=PLAYER)
    @challenges_blp.arguments(ChallengeCreateSchema)
    @challenges_blp.response(201, ChallengeSchema)
    @problem_responses(
        challenges_blp,
        *PLAYER_CODES,
        codes.INVALID_CHALLENGE,
        codes.INVALID_RULES,
        codes.TOO_MANY_REQUESTS,
    )
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Challenge players of your portal; each gets a `challenge` event, and the match starts
        when all have accepted."""
        return bus().handle(
            commands.CreateChallenge(
                acting(body.get("player_ref")),
                body["preset"],
                body["rules"],
                tuple(body["opponents"]),
                body["ttl_seconds"],
                bots=tuple(body["bots"]),
                rated=body["rated"],
            )
        )


@challenges_blp.route("/<string:challenge_id>")
class Challenge(MethodView):
    @challenges_blp.doc(security=PLAYER)
    @challenges_blp.arguments(ChallengePathSchema, location="path", as_kwargs=True)
    @challenges_blp.arguments(SeekOwnerQuerySchema, location="query", as_kwargs=True)
    @challenges_blp.response(200, ChallengeSchema)
    @problem_responses(challenges_blp, *PLAYER_CODES, codes.UNKNOWN_CHALLENGE)
    def get(self, challenge_id: str, player_ref: str | None = None) -> dict[str, Any]:
        """A challenge that names you (your seat's token once it started)."""
        return bus().handle(commands.GetChallenge(challenge_id, acting(player_ref)))


def answer_route(path: str, summary: str, accept: bool | None) -> None:
    """``accept`` / ``decline`` (an answer), or ``cancel`` (``accept`` None)."""

    class Answer(MethodView):
        @challenges_blp.doc(security=PLAYER, summary=summary)
        @challenges_blp.arguments(ChallengePathSchema, location="path", as_kwargs=True)
        @challenges_blp.arguments(SeekOwnerQuerySchema, location="query", as_kwargs=True)
        @challenges_blp.response(200, ChallengeSchema)
        @problem_responses(
            challenges_blp, *PLAYER_CODES, codes.UNKNOWN_CHALLENGE, codes.NOT_YOUR_CHALLENGE, codes.CHALLENGE_CLOSED
        )
        def post(self, challenge_id: str, player_ref: str | None = None) -> dict[str, Any]:
            player = acting(player_ref)
            if accept is None:
                return bus().handle(commands.CancelChallenge(challenge_id, player))
            return bus().handle(commands.AnswerChallenge(challenge_id, player, accept))

    Answer.__name__ = f"Challenge{path.capitalize()}"
    challenges_blp.route(f"/<string:challenge_id>/{path}")(Answer)


answer_route("accept", "Accept a challenge that names you (the last acceptance starts the match)", True)
answer_route("decline", "Decline a challenge that names you (it closes for everyone)", False)
answer_route("cancel", "Cancel your own pending challenge", None)


# --- the player's event stream ------------------------------------------------------------------------------
class PlayerEventsQuerySchema(ma.Schema):
    after = AsciiInteger(load_default=0, validate=validate.Range(min=0, max=MAX_SEQ))
    limit = AsciiInteger(load_default=100, validate=validate.Range(min=1, max=100))
    wait = AsciiFloat(
        load_default=0, validate=validate.Range(min=0, max=MAX_WAIT_SECONDS), metadata={"description": WAIT_DESCRIPTION}
    )
    player_ref = fields.String(validate=PLAYER_REF, metadata={"description": "With the portal's key: its player"})


class PlayerEventSchema(ma.Schema):
    """One event of the stream; the members its ``type`` has no use for are null."""

    seq = fields.Integer(**ALWAYS)
    type = fields.String(
        validate=validate.OneOf(
            (
                "challenge",
                "challenge_declined",
                "challenge_canceled",
                "match_started",
                "tournament_started",
                "round_paired",
                "round_ended",
                "tournament_ended",
            )
        ),
        **ALWAYS,
    )
    at = fields.String(**ALWAYS)
    challenge_id = fields.String(allow_none=True, **ALWAYS, metadata={"description": "The challenge it is about"})
    challenge = component(
        "Challenge", allow_none=True, **ALWAYS, metadata={"description": "challenge: the incoming challenge"}
    )
    by = fields.String(allow_none=True, **ALWAYS, metadata={"description": "challenge_declined: who declined"})
    reason = fields.String(
        allow_none=True, **ALWAYS, metadata={"description": "challenge_canceled: `canceled` or `expired`"}
    )
    match_id = fields.String(
        allow_none=True, **ALWAYS, metadata={"description": "match_started, round_paired: the match (null: a bye)"}
    )
    seat = fields.Integer(allow_none=True, **ALWAYS, metadata={"description": "match_started, round_paired: your seat"})
    seek_id = fields.String(allow_none=True, **ALWAYS, metadata={"description": "match_started: the seek paired"})
    tournament_id = fields.String(
        allow_none=True,
        **ALWAYS,
        metadata={"description": "tournament_started, round_paired, round_ended, tournament_ended"},
    )
    round = fields.Integer(
        allow_none=True,
        **ALWAYS,
        metadata={"description": "round_paired, round_ended: the round; tournament_ended: the rounds played"},
    )


class PlayerEventsSchema(ma.Schema):
    player_ref = fields.String(**ALWAYS)
    seq = fields.Integer(**ALWAYS, metadata={"description": "The stream's last seq"})
    events = fields.List(fields.Nested(PlayerEventSchema), **ALWAYS)
    next_after = fields.Integer(allow_none=True, **ALWAYS, metadata={"description": "More after this; null: none"})


@me_blp.route("/events")
class PlayerEvents(MethodView):
    @me_blp.doc(security=PLAYER)
    @me_blp.arguments(PlayerEventsQuerySchema, location="query")
    @me_blp.response(200, PlayerEventsSchema)
    @problem_responses(me_blp, *PLAYER_CODES)
    def get(self, query: dict[str, Any]) -> dict[str, Any]:
        """Your events after `after` (`challenge`, `challenge_declined`, `challenge_canceled`,
        `match_started`), kept: resume with the last `seq` you saw; `wait` long-polls."""
        wait = query["wait"]
        return bus().handle(
            commands.GetPlayerEvents(
                acting(query.get("player_ref")),
                query["after"],
                query["limit"],
                wait,
                client=waiting_client() if wait > 0 else None,
            )
        )


BLUEPRINTS = (tokens_blp, seeks_blp, challenges_blp, me_blp)


STREAM_DOC = {
    "parameters": [
        {
            "in": "header",
            "name": "Last-Event-ID",
            "required": False,
            "schema": {"type": "string", "pattern": "^[0-9]{0,10}$"},
            "description": "Resume after this seq (else 400 `invalid_last_event_id`)",
        }
    ],
    "responses": {
        "200": {
            "description": "A text/event-stream of the player's events (`id`: seq, `event`: type, `data`: "
            "the event as /v1/me/events shows it)",
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
}


@me_blp.route("/stream")
class PlayerStream(MethodView):
    @me_blp.doc(security=PLAYER, **STREAM_DOC)
    @me_blp.arguments(SeekOwnerQuerySchema, location="query", as_kwargs=True)
    @problem_responses(me_blp, *PLAYER_CODES, codes.INVALID_LAST_EVENT_ID, codes.TOO_MANY_WAITERS)
    def get(self, player_ref: str | None = None) -> Response:
        """Your events as server-sent events (the Lichess bot API's event stream): every event after
        `Last-Event-ID`, then each as it comes; closes after `STREAM_MAX_SECONDS` (reconnect)."""
        player = acting(player_ref)
        entry = bus()
        flow, max_seconds = entry.flow, current_app.config["STREAM_MAX_SECONDS"]
        # Subscribed before the first read, so an event written right after it still wakes the
        # stream; counted against the address's waiter cap for the stream's whole life.
        sub = flow.waiter.subscribe(stream_key(player), waiting_client())
        try:
            resume = last_event_id() or 0
            first = entry.handle(commands.GetPlayerEvents(player, resume, 100))
            sub.saw(first["seq"])
            sub.hold(max_seconds)
        except BaseException:
            sub.close()
            raise

        def generate() -> Iterator[str]:
            try:
                yield "retry: 2000\n\n"
                page, after, started = first, resume, time.monotonic()
                while True:
                    for event in page["events"]:
                        yield sse_message(event, event["type"], event["seq"])
                        after = event["seq"]
                    if page["next_after"] is None:
                        left = max_seconds - (time.monotonic() - started)
                        if left <= 0:
                            return  # STREAM_MAX_SECONDS: the client reconnects with Last-Event-ID
                        seq = sleep_for(flow, sub, max(after, page["seq"]), min(HEARTBEAT_SECONDS, left))
                        if sub.left:
                            return  # the client went away: free its greenlet and its slot
                        if seq <= max(after, page["seq"]):
                            yield ": heartbeat\n\n"
                            continue
                    page = entry.handle(commands.GetPlayerEvents(player, after, 100))
            finally:
                sub.close()

        return sse_response(generate(), sub.close)
