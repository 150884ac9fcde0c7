"""/v1/players: what the lobby knows about a portal's player (by its ``player_ref``)."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from flask.views import MethodView
from flask_smorest import Blueprint
from marshmallow import fields

from api.http.callers import bus, caller
from api.http.problem_codes import INVALID_API_KEY, INVALID_REQUEST, PLAYER_REF_NEEDS_PORTAL, problem_responses
from api.http.schema_fields import ALWAYS, PlayerRefPathSchema
from api.services.commands import GetPlayerStats

blp = Blueprint(
    "players",
    __name__,
    url_prefix="/v1/players",
    description="Players as the portal names them (player_ref): statistics",
)

PORTAL_KEY: list[dict[str, list[str]]] = [{"portalKey": []}]


class PlayerStatsSchema(ma.Schema):
    player_ref = fields.String(**ALWAYS)
    matches_played = fields.Integer(
        **ALWAYS,
        metadata={
            "description": "The portal's matches with a seat of this player that ended, or that the player "
            "forfeited (matches_forfeited)"
        },
    )
    matches_won = fields.Integer(
        **ALWAYS, metadata={"description": "With partners, a side's win counts for both partners"}
    )
    matches_forfeited = fields.Integer(
        **ALWAYS,
        metadata={
            "description": "Counted as played and lost: the player's seat was handed to a bot after timing out "
            "(timeout_limit), or the match waits on the player's move for longer than the server's "
            "STATS_ABANDONED_AFTER_HOURS"
        },
    )
    hands_won = fields.Integer(
        **ALWAYS, metadata={"description": "Hands won by the player's side; in a trains game, rounds gone out of"}
    )
    best_margin = fields.Integer(
        allow_none=True,
        **ALWAYS,
        metadata={
            "description": "The largest lead over the best other side at the end of a won match (in a trains "
            "game, lower totals win: the best other total less the player's); null before a win"
        },
    )
    current_streak = fields.Integer(**ALWAYS, metadata={"description": "Matches won in a row, up to the latest"})
    longest_streak = fields.Integer(**ALWAYS, metadata={"description": "The most matches won in a row"})


@blp.route("/<string:player_ref>/stats")
class PlayerStats(MethodView):
    @blp.doc(security=PORTAL_KEY)
    @blp.arguments(PlayerRefPathSchema, location="path", as_kwargs=True)
    @blp.response(200, PlayerStatsSchema)
    @problem_responses(blp, INVALID_API_KEY, PLAYER_REF_NEEDS_PORTAL, INVALID_REQUEST)
    def get(self, player_ref: str) -> dict[str, Any]:
        """The portal's player: matches played, won and forfeited, hands won, best winning margin
        and win streaks, over the portal's own matches where a seat carries this ``player_ref``
        (zeros for an unknown one). Needs the portal's key: a player is a portal's."""
        return bus().handle(GetPlayerStats(player_ref, caller()))
