"""``/v1/portal/webhooks``: the calling portal's webhook endpoints and their delivery logs.

Everything here is the portal's own (its ``X-API-Key``): another portal's webhook or
delivery does not exist for it (404). The use cases are ``api.services.webhooks``; what is
sent, how it is signed and retried: docs/webhooks.md.
"""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from flask import Response, current_app
from flask.views import MethodView
from flask_smorest import Blueprint
from marshmallow import fields, validate

from api.http.arguments import JSON_BODY_PARSER
from api.http.callers import bus
from api.http.input_guard import TEXT_PATTERN
from api.http.openapi_shapes import component
from api.http.portals import PORTAL_KEY, the_portal
from api.http.problem_codes import (
    INVALID_API_KEY,
    INVALID_CURSOR,
    INVALID_REQUEST,
    INVALID_WEBHOOK_EVENTS,
    INVALID_WEBHOOK_URL,
    PORTAL_KEY_REQUIRED,
    TOO_MANY_WEBHOOKS,
    UNKNOWN_DELIVERY,
    UNKNOWN_WEBHOOK,
)
from api.http.problem_codes import problem_responses as problems
from api.http.schema_fields import ALWAYS, AsciiInteger
from api.http.tournaments import PairedTableSchema
from api.services.commands import (
    AddWebhook,
    GetWebhook,
    ListDeliveries,
    ListWebhooks,
    RemoveWebhook,
    ReplayDelivery,
    RotateWebhookSecret,
)
from api.services.reading import CURSOR_PATTERN
from api.services.webhooks import (
    DELIVERIES_PAGE,
    EVENT_TYPES,
    ID_PATTERN,
    MAX_DELIVERIES_PAGE,
    MAX_SECRET_OVERLAP,
    MAX_URL_LENGTH,
)

blp = Blueprint(
    "webhooks", __name__, url_prefix="/v1/portal/webhooks", description="The calling portal's webhooks and deliveries"
)

blp.ARGUMENTS_PARSER = JSON_BODY_PARSER  # a body sent as anything but JSON: 415, not "Missing data"

WEBHOOK_ID = validate.Regexp(ID_PATTERN)
EVENT_LIST = "One or more of " + ", ".join(f"`{e}`" for e in EVENT_TYPES)


class NewWebhookSchema(ma.Schema):
    url = fields.String(
        required=True,
        validate=[validate.Length(min=1, max=MAX_URL_LENGTH), validate.Regexp(TEXT_PATTERN)],
        metadata={"description": "http:// or https://; a public address unless the server allows private ones"},
    )
    events = fields.List(
        fields.String(metadata={"enum": list(EVENT_TYPES)}),
        metadata={"description": f"{EVENT_LIST} (else 422 `invalid_webhook_events`); default: every type"},
    )


class WebhookSchema(ma.Schema):
    id = fields.String(**ALWAYS)
    url = fields.String(**ALWAYS)
    events = fields.List(fields.String(metadata={"enum": list(EVENT_TYPES)}), **ALWAYS)
    created_at = fields.String(**ALWAYS)
    previous_secret_until = fields.String(
        **ALWAYS,
        allow_none=True,
        metadata={
            "description": "After a rotation: until when the replaced secret still signs each delivery beside "
            "the new one (WEBHOOK_SECRET_OVERLAP_SECONDS); null when none does"
        },
    )


class WebhookWithSecretSchema(WebhookSchema):
    secret = fields.String(
        **ALWAYS,
        metadata={
            "description": "The signing secret (whsec_ and base64: a Standard Webhooks secret as it is): shown "
            "when made or rotated, never listed"
        },
    )


class WebhookListSchema(ma.Schema):
    items = fields.List(fields.Nested(WebhookSchema), **ALWAYS)


class AttemptSchema(ma.Schema):
    attempt = fields.Integer(**ALWAYS, metadata={"description": "1 for the first attempt, counting replays' too"})
    attempted_at = fields.String(**ALWAYS)
    duration_ms = fields.Integer(**ALWAYS)
    status_code = fields.Integer(allow_none=True, **ALWAYS, metadata={"description": "null: no answer"})
    error = fields.String(allow_none=True, **ALWAYS, metadata={"description": "null: delivered (a 2xx)"})


class WebhookSeatSchema(ma.Schema):
    seat = fields.Integer(**ALWAYS)
    name = fields.String(allow_none=True, **ALWAYS)
    type = fields.String(**ALWAYS)
    level = fields.String(allow_none=True, **ALWAYS)
    player_ref = fields.String(allow_none=True, **ALWAYS, metadata={"description": "The portal's id for the player"})


class WebhookDataSchema(ma.Schema):
    """The event's public data; which fields each type carries: docs/webhooks.md."""

    rules = component("GameRuleSet", metadata={"description": "match.created"})
    seats = fields.List(fields.Nested(WebhookSeatSchema), metadata={"description": "match.created"})
    hand_number = fields.Integer(
        metadata={"description": "match.started, hand.ended, turn.started (the trains games: the round)"}
    )
    leader = fields.Integer(metadata={"description": "match.started: the seat that leads"})
    hand_counts = fields.List(fields.Integer(), metadata={"description": "match.started: tiles dealt per seat"})
    boneyard_count = fields.Integer(metadata={"description": "match.started: tiles left to draw"})
    reason = fields.String(metadata={"description": "hand.ended"})
    winner = fields.Integer(allow_none=True, metadata={"description": "hand.ended (a seat), match.ended (a side)"})
    side = fields.Integer(allow_none=True, metadata={"description": "hand.ended: the scoring side"})
    points = fields.Integer(metadata={"description": "hand.ended (the line games)"})
    pips = fields.List(fields.Integer(), metadata={"description": "hand.ended: pips left per seat"})
    scores = fields.List(
        fields.Integer(),
        metadata={
            "description": "per side: hand.ended, match.ended, turn.started (the trains games: every seat's total, "
            "lowest wins)"
        },
    )
    winners = fields.List(
        fields.Integer(), metadata={"description": "match.ended, the trains games: every seat sharing the win"}
    )
    seat = fields.Integer(metadata={"description": "turn.started, seat.timed_out"})
    player_ref = fields.String(allow_none=True, metadata={"description": "turn.started, seat.timed_out"})
    event = fields.String(
        metadata={"enum": ["turn_timed_out", "seat_replaced"], "description": "seat.timed_out: which log event"}
    )
    consecutive = fields.Integer(metadata={"description": "seat.timed_out (turn_timed_out): timeouts in a row"})
    level = fields.String(metadata={"description": "seat.timed_out (seat_replaced): the bot level now playing"})
    rounds = fields.Integer(metadata={"description": "tournament.started: the rounds it will play"})
    order = fields.List(fields.String(), metadata={"description": "tournament.started: the seeding order"})
    round = fields.Integer(metadata={"description": "tournament.round_paired, tournament.round_ended"})
    tables = fields.List(
        fields.Nested(PairedTableSchema), metadata={"description": "tournament.round_paired: its tables"}
    )
    bye = fields.String(allow_none=True, metadata={"description": "tournament.round_paired: who has the bye"})
    rounds_played = fields.Integer(metadata={"description": "tournament.ended"})


class WebhookPayloadSchema(ma.Schema):
    id = fields.String(**ALWAYS, metadata={"description": "The delivery's id (also Boneyard-Delivery)"})
    type = fields.String(**ALWAYS, metadata={"enum": list(EVENT_TYPES)})
    created_at = fields.String(**ALWAYS)
    match_id = fields.String(metadata={"description": "A match's event (every type but tournament.*): the match"})
    tournament_id = fields.String(metadata={"description": "A tournament.* event: the tournament"})
    seq = fields.Integer(**ALWAYS, metadata={"description": "The log's seq the event happened at"})
    data = fields.Nested(WebhookDataSchema, **ALWAYS)


class DeliverySchema(ma.Schema):
    id = fields.String(**ALWAYS, metadata={"description": "Sent as Boneyard-Delivery (and the payload's id)"})
    webhook_id = fields.String(**ALWAYS)
    type = fields.String(**ALWAYS, metadata={"enum": list(EVENT_TYPES)})
    match_id = fields.String(**ALWAYS, metadata={"description": "The match (a tournament.* delivery: the tournament)"})
    seq = fields.Integer(**ALWAYS)
    status = fields.String(**ALWAYS, metadata={"enum": ["pending", "delivered", "failed"]})
    attempts = fields.Integer(**ALWAYS)
    created_at = fields.String(**ALWAYS)
    next_attempt_at = fields.String(allow_none=True, **ALWAYS, metadata={"description": "null unless pending"})
    delivered_at = fields.String(allow_none=True, **ALWAYS)
    payload = fields.Nested(WebhookPayloadSchema, **ALWAYS, metadata={"description": "The JSON body sent"})
    log = fields.List(fields.Nested(AttemptSchema), **ALWAYS, metadata={"description": "Attempts, newest first"})


class DeliveryListSchema(ma.Schema):
    items = fields.List(fields.Nested(DeliverySchema), **ALWAYS)
    next_cursor = fields.String(
        allow_none=True, **ALWAYS, metadata={"description": "Pass as ?cursor= for the next page; null on the last"}
    )


class RotateSecretSchema(ma.Schema):
    overlap_seconds = AsciiInteger(
        validate=validate.Range(min=0, max=int(MAX_SECRET_OVERLAP)),
        metadata={
            "description": "How long the replaced secret still signs beside the new one; default: the server's "
            "WEBHOOK_SECRET_OVERLAP_SECONDS; 0 after a leak: it stops at once"
        },
    )


class DeliveriesQuerySchema(ma.Schema):
    limit = AsciiInteger(load_default=DELIVERIES_PAGE, validate=validate.Range(min=1, max=MAX_DELIVERIES_PAGE))
    cursor = fields.String(
        metadata={"pattern": CURSOR_PATTERN, "description": "next_cursor of the previous page (else 422)"}
    )


class WebhookPathSchema(ma.Schema):
    webhook_id = fields.String(required=True, validate=WEBHOOK_ID)


class DeliveryPathSchema(WebhookPathSchema):
    delivery_id = fields.String(required=True, validate=WEBHOOK_ID)


@blp.route("")
class Webhooks(MethodView):
    @blp.doc(security=PORTAL_KEY)
    @blp.arguments(NewWebhookSchema)
    @blp.response(201, WebhookWithSecretSchema)
    @problems(
        blp,
        INVALID_API_KEY,
        PORTAL_KEY_REQUIRED,
        INVALID_WEBHOOK_URL,
        INVALID_WEBHOOK_EVENTS,
        TOO_MANY_WEBHOOKS,
        INVALID_REQUEST,
    )
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Register an endpoint for some event types (default: all); answers its signing secret, this once."""
        events = body.get("events")
        return bus().handle(
            AddWebhook(
                the_portal().id,
                body["url"],
                None if events is None else tuple(events),
                allow_private_addresses=current_app.config["WEBHOOK_ALLOW_PRIVATE_ADDRESSES"],
            )
        )

    @blp.doc(security=PORTAL_KEY)
    @blp.response(200, WebhookListSchema)
    @problems(blp, INVALID_API_KEY, PORTAL_KEY_REQUIRED)
    def get(self) -> dict[str, Any]:
        """This portal's endpoints (never their secrets)."""
        return bus().handle(ListWebhooks(the_portal().id))


@blp.route("/<string:webhook_id>")
class Webhook(MethodView):
    @blp.doc(security=PORTAL_KEY)
    @blp.arguments(WebhookPathSchema, location="path", as_kwargs=True)
    @blp.response(200, WebhookSchema)
    @problems(blp, INVALID_API_KEY, PORTAL_KEY_REQUIRED, UNKNOWN_WEBHOOK, INVALID_REQUEST)
    def get(self, webhook_id: str) -> dict[str, Any]:
        """One of this portal's endpoints."""
        return bus().handle(GetWebhook(the_portal().id, webhook_id))

    @blp.doc(security=PORTAL_KEY)
    @blp.arguments(WebhookPathSchema, location="path", as_kwargs=True)
    @blp.response(204)
    @problems(blp, INVALID_API_KEY, PORTAL_KEY_REQUIRED, UNKNOWN_WEBHOOK, INVALID_REQUEST)
    def delete(self, webhook_id: str) -> Response:
        """Remove the endpoint with its deliveries and their log: nothing more is sent to it."""
        bus().handle(RemoveWebhook(the_portal().id, webhook_id))
        return Response(status=204)


@blp.route("/<string:webhook_id>/secret")
class WebhookSecret(MethodView):
    @blp.doc(security=PORTAL_KEY)
    @blp.arguments(WebhookPathSchema, location="path", as_kwargs=True)
    @blp.arguments(RotateSecretSchema, required=False)  # no body: the server's overlap
    @blp.response(200, WebhookWithSecretSchema)
    @problems(blp, INVALID_API_KEY, PORTAL_KEY_REQUIRED, UNKNOWN_WEBHOOK, INVALID_REQUEST)
    def post(self, body: dict[str, Any], webhook_id: str) -> dict[str, Any]:
        """Rotate the signing secret: the next attempt is signed with the new one (shown this once) and, for
        the overlap (`previous_secret_until`), with the replaced one too."""
        return bus().handle(RotateWebhookSecret(the_portal().id, webhook_id, body.get("overlap_seconds")))


@blp.route("/<string:webhook_id>/deliveries")
class Deliveries(MethodView):
    @blp.doc(security=PORTAL_KEY)
    @blp.arguments(WebhookPathSchema, location="path", as_kwargs=True)
    @blp.arguments(DeliveriesQuerySchema, location="query", as_kwargs=True)
    @blp.response(200, DeliveryListSchema)
    @problems(blp, INVALID_API_KEY, PORTAL_KEY_REQUIRED, UNKNOWN_WEBHOOK, INVALID_CURSOR, INVALID_REQUEST)
    def get(self, webhook_id: str, limit: int, cursor: str | None = None) -> dict[str, Any]:
        """The endpoint's delivery log, newest first, each delivery with its attempts (paged with ``cursor``)."""
        return bus().handle(ListDeliveries(the_portal().id, webhook_id, limit, cursor))


@blp.route("/<string:webhook_id>/deliveries/<string:delivery_id>/replay")
class Replay(MethodView):
    @blp.doc(security=PORTAL_KEY)
    @blp.arguments(DeliveryPathSchema, location="path", as_kwargs=True)
    @blp.response(202, DeliverySchema)
    @problems(blp, INVALID_API_KEY, PORTAL_KEY_REQUIRED, UNKNOWN_WEBHOOK, UNKNOWN_DELIVERY, INVALID_REQUEST)
    def post(self, webhook_id: str, delivery_id: str) -> dict[str, Any]:
        """Send the delivery again (same id and body, a fresh signature), as soon as the worker runs."""
        return bus().handle(ReplayDelivery(the_portal().id, webhook_id, delivery_id))
