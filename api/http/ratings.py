"""Ratings over HTTP: a portal's leaderboards, its players' ratings and rating histories, and the
computer players' fixed ratings (``api.services.leaderboards``; what is rated: docs/ratings.md)."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from flask_smorest import Blueprint

from api.http import problem_codes as codes
from api.http import schemas
from api.http.callers import bus, caller
from api.http.matches import LINK_HEADER, next_link
from api.services import commands

blp = Blueprint(
    "ratings",
    __name__,
    url_prefix="/v1",
    description="Ratings of rated matches: leaderboards per rules family, players' ratings and histories, "
    "the computer players' fixed ratings",
)

PORTAL_KEY: list[dict[str, list[str]]] = [{"portalKey": []}]
#: An answer with its status and headers, as flask-smorest takes a view's return value.
Headed = tuple[commands.Answer, int, dict[str, str]]


@blp.route("/leaderboards/<string:family>")
class Leaderboard(MethodView):
    @blp.doc(security=PORTAL_KEY)
    @blp.arguments(schemas.FamilyPathSchema, location="path", as_kwargs=True)
    @blp.arguments(schemas.LeaderboardQuerySchema, location="query", as_kwargs=True)
    @blp.response(200, schemas.LeaderboardSchema, headers={"Link": LINK_HEADER})
    @codes.problem_responses(
        blp, codes.INVALID_API_KEY, codes.PLAYER_REF_NEEDS_PORTAL, codes.INVALID_REQUEST, codes.INVALID_CURSOR
    )
    def get(self, family: str, limit: int, cursor: str | None = None) -> Headed:
        """The portal's players rated in this family, highest ordinal (mu - 3 sigma) first, in pages
        (``cursor``; the next page is also in ``Link``). Needs the portal's key."""
        page = bus().handle(commands.GetLeaderboard(family, caller(), limit, cursor))
        return page, 200, next_link(page["next_cursor"])


@blp.route("/players/<string:player_ref>/ratings")
class PlayerRatings(MethodView):
    @blp.doc(security=PORTAL_KEY)
    @blp.arguments(schemas.PlayerRefPathSchema, location="path", as_kwargs=True)
    @blp.response(200, schemas.PlayerRatingsSchema)
    @codes.problem_responses(blp, codes.INVALID_API_KEY, codes.PLAYER_REF_NEEDS_PORTAL, codes.INVALID_REQUEST)
    def get(self, player_ref: str) -> dict[str, Any]:
        """The portal's player's rating in each family it has played rated matches in (an empty
        list for a player with none, and for another portal's). Needs the portal's key."""
        return bus().handle(commands.GetPlayerRatings(player_ref, caller()))


@blp.route("/players/<string:player_ref>/history")
class RatingHistory(MethodView):
    @blp.doc(security=PORTAL_KEY)
    @blp.arguments(schemas.PlayerRefPathSchema, location="path", as_kwargs=True)
    @blp.arguments(schemas.HistoryQuerySchema, location="query", as_kwargs=True)
    @blp.response(200, schemas.RatingHistorySchema, headers={"Link": LINK_HEADER})
    @codes.problem_responses(
        blp, codes.INVALID_API_KEY, codes.PLAYER_REF_NEEDS_PORTAL, codes.INVALID_REQUEST, codes.INVALID_CURSOR
    )
    def get(self, player_ref: str, family: str, limit: int, cursor: str | None = None) -> Headed:
        """The player's rated matches in ``family``, newest first, each with the match id, how it
        went and the rating before and after; in pages (``cursor``; also in ``Link``). The
        player's recent matches of every kind: ``GET /v1/matches?player_ref=``. Needs the portal's key."""
        page = bus().handle(commands.GetRatingHistory(player_ref, family, caller(), limit, cursor))
        return page, 200, next_link(page["next_cursor"])


@blp.route("/ratings/bots")
class BotRatings(MethodView):
    @blp.response(200, schemas.BotRatingsSchema)
    def get(self) -> dict[str, Any]:
        """The computer players' fixed public ratings, per family and level: in a rated match a
        bot plays at its level's rating and is never updated (the same on every portal)."""
        return bus().handle(commands.GetBotRatings())
