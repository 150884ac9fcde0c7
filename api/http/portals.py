"""``/v1/portal``: the calling portal (by its ``X-API-Key``) and its keys.

A portal rotates its keys here without the operator: make a new key, move its servers to
it, revoke the old one. The portal itself is made by the operator
(``flask --app wsgi boneyard portal create NAME``, ``api.portal_cli``).
"""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from flask import Response
from flask.views import MethodView
from flask_smorest import Blueprint
from marshmallow import fields, validate

from api.http.callers import bus, caller_portal
from api.http.problem_codes import (
    INVALID_API_KEY,
    INVALID_REQUEST,
    LAST_PORTAL_KEY,
    PORTAL_KEY_REQUIRED,
    UNKNOWN_PORTAL_KEY,
)
from api.http.problem_codes import problem_responses as problems
from api.http.schema_fields import ALWAYS
from api.services.commands import AddPortalKey, GetPortal, RevokePortalKey
from api.services.errors import PortalKeyRequired
from api.store.records import PortalRecord

blp = Blueprint("portal", __name__, url_prefix="/v1/portal", description="The calling portal and its keys")

PORTAL_KEY: list[dict[str, list[str]]] = [{"portalKey": []}]
KEY_ID = validate.Regexp(r"^[0-9a-f]{12}$")


class PortalKeyInfoSchema(ma.Schema):
    key_id = fields.String(**ALWAYS, metadata={"description": "The key's public part (bypk_<key_id>_…)"})
    created_at = fields.String(**ALWAYS)
    revoked_at = fields.String(allow_none=True, **ALWAYS, metadata={"description": "null while the key works"})


class PortalSchema(ma.Schema):
    id = fields.String(**ALWAYS)
    name = fields.String(**ALWAYS)
    created_at = fields.String(**ALWAYS)
    create_limit = fields.String(
        allow_none=True,
        **ALWAYS,
        metadata={"description": "Its own match-creation rate; null: the server's RATE_LIMIT_PORTAL_CREATE"},
    )
    keys = fields.List(fields.Nested(PortalKeyInfoSchema), **ALWAYS)


class NewPortalKeySchema(ma.Schema):
    portal = fields.String(**ALWAYS, metadata={"description": "The portal's name"})
    key_id = fields.String(**ALWAYS)
    key = fields.String(**ALWAYS, metadata={"description": "The new key: shown this once, only its hash is kept"})


class KeyIdPathSchema(ma.Schema):
    key_id = fields.String(required=True, validate=KEY_ID)


def the_portal() -> PortalRecord:
    portal = caller_portal()
    if portal is None:
        raise PortalKeyRequired("this is a portal's own resource: send its key (X-API-Key)")
    return portal


@blp.route("")
class Portal(MethodView):
    @blp.doc(security=PORTAL_KEY)
    @blp.response(200, PortalSchema)
    @problems(blp, INVALID_API_KEY, PORTAL_KEY_REQUIRED)
    def get(self) -> dict[str, Any]:
        """The portal whose key this is, with its keys' ids and dates (never a key)."""
        return bus().handle(GetPortal(the_portal().id))


@blp.route("/keys")
class PortalKeys(MethodView):
    @blp.doc(security=PORTAL_KEY)
    @blp.response(201, NewPortalKeySchema)
    @problems(blp, INVALID_API_KEY, PORTAL_KEY_REQUIRED)
    def post(self) -> dict[str, Any]:
        """Make another key for this portal (shown once); the others keep working until revoked."""
        return bus().handle(AddPortalKey(the_portal().id))


@blp.route("/keys/<string:key_id>")
class PortalKey(MethodView):
    @blp.doc(security=PORTAL_KEY)
    @blp.arguments(KeyIdPathSchema, location="path", as_kwargs=True)
    @blp.response(204)
    @problems(blp, INVALID_API_KEY, PORTAL_KEY_REQUIRED, UNKNOWN_PORTAL_KEY, LAST_PORTAL_KEY, INVALID_REQUEST)
    def delete(self, key_id: str) -> Response:
        """Revoke one of this portal's keys at once (the key sending this request included; the
        last live key cannot go)."""
        bus().handle(RevokePortalKey(the_portal().id, key_id))
        return Response(status=204)
