"""/v1/players: what the lobby knows about a portal's player (by its ``player_ref``)."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from flask_smorest import Blueprint

from api.http import schemas
from api.http.callers import bus, caller
from api.http.problem_codes import INVALID_API_KEY, INVALID_REQUEST, PLAYER_REF_NEEDS_PORTAL, problem_responses
from api.services.commands import GetPlayerStats

blp = Blueprint(
    "players",
    __name__,
    url_prefix="/v1/players",
    description="Players as the portal names them (player_ref): statistics",
)

PORTAL_KEY: list[dict[str, list[str]]] = [{"portalKey": []}]


@blp.route("/<string:player_ref>/stats")
class PlayerStats(MethodView):
    @blp.doc(security=PORTAL_KEY)
    @blp.arguments(schemas.PlayerRefPathSchema, location="path", as_kwargs=True)
    @blp.response(200, schemas.PlayerStatsSchema)
    @problem_responses(blp, INVALID_API_KEY, PLAYER_REF_NEEDS_PORTAL, INVALID_REQUEST)
    def get(self, player_ref: str) -> dict[str, Any]:
        """The portal's player: matches played, won and forfeited, hands won, best winning margin
        and win streaks, over the portal's own matches where a seat carries this ``player_ref``
        (zeros for an unknown one). Needs the portal's key: a player is a portal's."""
        return bus().handle(GetPlayerStats(player_ref, caller()))
