"""``GET /v1/presets``: the tables a client may create and the computer players it may seat.

A client (the web table among them) reads its menus from here instead of keeping its own
copy: each preset of ``api.rules`` with its title, description, the player counts it allows
and the rule set a match created with it (and no overrides) gets, and each bot level of
``api.bots``. A new preset or level appears here without a change to this module.

The answer depends only on the code the server runs, so it is built once per process and
named by a hash of its bytes: ``If-None-Match`` answers 304 until a deploy changes it, and
``Cache-Control`` lets a browser skip even that for a few minutes. It is as cheap to answer
as ``/livez`` and, like the other reads of public data, spends no rate-limit counter (a
counter would cost a database write per request, more than the answer itself).
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from typing import Any

import marshmallow as ma
from flask import Response
from flask.views import MethodView
from flask_smorest import Blueprint
from marshmallow import fields, validate

from api.bots import BOT_LEVELS, DEFAULT_LEVEL
from api.http.conditional import IF_NONE_MATCH_PARAMETER, not_modified
from api.http.openapi_shapes import component
from api.rules import DEFAULT_PRESET, PRESETS, resolve_rules
from api.rules.game_family import Preset
from api.rules.games import family_of
from api.rules.ruleset import MAX_PLAYERS, MIN_PLAYERS

blp = Blueprint("presets", __name__, url_prefix="/v1/presets", description="The presets and computer levels on offer")

# Long enough that a page loaded again soon asks nothing, short enough that a deploy's new
# preset reaches an open browser within minutes (after that the ETag revalidates it).
MAX_AGE_SECONDS = 300
CACHE_CONTROL = f"public, max-age={MAX_AGE_SECONDS}"

# --- what the OpenAPI document says of the answer's headers -----------------------------------
ETAG_HEADER = {
    "description": "Names this list (a hash of it): send it back as `If-None-Match` for a 304 while the server "
    "offers the same presets and levels",
    "schema": {"type": "string", "pattern": r'^"presets:[0-9a-f]{16}"$'},
    "required": True,
}
CACHE_CONTROL_HEADER = {
    "description": f"`{CACHE_CONTROL}`: the list changes only when the server is upgraded",
    "schema": {"type": "string"},
    "required": True,
}
NOT_MODIFIED_RESPONSE = {
    "description": "Not Modified: the `If-None-Match` ETag is still current; no body",
    "headers": {"ETag": ETAG_HEADER, "Cache-Control": CACHE_CONTROL_HEADER},
}


class PresetSchema(ma.Schema):
    name = fields.String(
        validate=validate.OneOf(tuple(PRESETS)),
        required=True,
        metadata={"description": "What `POST /v1/matches` takes as `preset`"},
    )
    title = fields.String(required=True, metadata={"description": "A short label for a menu"})
    description = fields.String(
        required=True, metadata={"description": "One sentence: what makes this table different"}
    )
    players = fields.List(
        fields.Integer(validate=validate.Range(MIN_PLAYERS, MAX_PLAYERS)),
        required=True,
        metadata={"description": "The player counts it allows, ascending"},
    )
    rules = fields.List(
        component("GameRuleSet"),
        required=True,
        metadata={
            "description": "The resolved rule set for each player count of `players`, in that order (hand size and "
            "target may differ by player count): what a match created with this preset and no "
            "overrides plays"
        },
    )
    partner_rules = component(
        "RuleSet",  # (the line games': the trains games have no partners)
        required=True,
        allow_none=True,
        metadata={
            "description": "The resolved rule set for four players as two partnerships (seats 0 & 2 against "
            '1 & 3): what `rules: {"partners": true}` plays (its target may differ); null where the preset '
            "allows no four-player table"
        },
    )


class BotLevelDetailsSchema(ma.Schema):
    name = component("BotLevel", required=True, metadata={"description": "What a bot seat takes as `level`"})
    title = fields.String(required=True, metadata={"description": "A short label for a menu"})
    description = fields.String(required=True, metadata={"description": "One sentence: how it plays"})


class PresetsSchema(ma.Schema):
    presets = fields.List(fields.Nested(PresetSchema), required=True, metadata={"description": "In the server's order"})
    default_preset = fields.String(
        validate=validate.OneOf(tuple(PRESETS)),
        required=True,
        metadata={"description": "The preset of a match created without one"},
    )
    bot_levels = fields.List(
        fields.Nested(BotLevelDetailsSchema), required=True, metadata={"description": "Weakest first"}
    )
    default_bot_level = component(
        "BotLevel", required=True, metadata={"description": "The level of a bot seat created without one"}
    )


def offered() -> dict[str, Any]:
    """The presets (each resolved for every player count it allows) and the bot levels."""
    return {
        "presets": [
            {
                "name": preset.name,
                "title": preset.title,
                "description": preset.description,
                "players": list(preset.players),
                "rules": [resolve_rules(preset.name, {}, players).to_dict() for players in preset.players],
                "partner_rules": (
                    resolve_rules(preset.name, {"partners": True}, 4).to_dict() if _partners_at_four(preset) else None
                ),
            }
            for preset in PRESETS.values()
        ],
        "default_preset": DEFAULT_PRESET,
        "bot_levels": [
            {"name": level.name, "title": level.title, "description": level.description} for level in BOT_LEVELS
        ],
        "default_bot_level": DEFAULT_LEVEL,
    }


def _partners_at_four(preset: Preset) -> bool:
    """Whether the preset's game may be played by four as two partnerships."""
    options = family_of(preset.name).options
    return 4 in preset.players and (options is None or "partners" in options)


@cache
def _rendered() -> tuple[str, str]:
    """The answer's body and its ETag, made once: they change only with the code."""
    body = json.dumps(PresetsSchema().dump(offered()), separators=(",", ":"))
    return body, '"presets:' + hashlib.sha256(body.encode()).hexdigest()[:16] + '"'


@blp.route("", parameters=[IF_NONE_MATCH_PARAMETER])
class Presets(MethodView):
    @blp.alt_response(304, **NOT_MODIFIED_RESPONSE)
    @blp.response(200, PresetsSchema, headers={"ETag": ETAG_HEADER, "Cache-Control": CACHE_CONTROL_HEADER})
    def get(self) -> Response:
        """The presets a match may be created with (each with its resolved rules per player count),
        the computer levels a bot seat may have, and the defaults of both."""
        body, tag = _rendered()
        headers = {"ETag": tag, "Cache-Control": CACHE_CONTROL}
        unchanged = not_modified(tag)
        if unchanged is not None:
            unchanged.headers["Cache-Control"] = CACHE_CONTROL
            return unchanged
        return Response(body, status=200, mimetype="application/json", headers=headers)
