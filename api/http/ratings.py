"""Ratings over HTTP: a portal's leaderboards, its players' ratings and rating histories, and the
computer players' fixed ratings (``api.services.leaderboards``; what is rated: docs/ratings.md)."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from flask.views import MethodView
from flask_smorest import Blueprint
from marshmallow import fields, validate

from api.http import problem_codes as codes
from api.http.callers import bus, caller
from api.http.matches import LINK_HEADER, next_link
from api.http.schema_fields import ALWAYS, AsciiInteger, PlayerRefPathSchema
from api.rules.vocabulary import BotLevel, Family, values
from api.services import commands
from api.services.leaderboards import BOARD_CURSOR_PATTERN, MAX_RATING_PAGE
from api.services.ratings import FORFEITED, LOST, WON
from api.services.reading import CURSOR_PATTERN

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


FAMILY = fields.String(
    required=True,
    validate=validate.OneOf(values(Family)),
    metadata={
        "description": "A rules family, as a rule set's `family` names it (docs/rules.md, section 14): the Draw "
        "and the Block game, the scoring games by how the count scores (`fives`: All Fives and Muggins; "
        "`fives_and_threes`), the double-nine line games (`double_nine`), and each trains game (`mexican_train`, "
        "`chicken_foot`)"
    },
)


class FamilyPathSchema(ma.Schema):
    family = FAMILY


class LeaderboardQuerySchema(ma.Schema):
    limit = AsciiInteger(load_default=20, validate=validate.Range(min=1, max=MAX_RATING_PAGE))
    cursor = fields.String(
        metadata={
            "pattern": BOARD_CURSOR_PATTERN,
            "description": "next_cursor of the previous page (also in its Link header), as given "
            "(else 422 `invalid_cursor`)",
        }
    )


class HistoryQuerySchema(ma.Schema):
    family = FAMILY
    limit = AsciiInteger(load_default=20, validate=validate.Range(min=1, max=MAX_RATING_PAGE))
    cursor = fields.String(
        metadata={
            "pattern": CURSOR_PATTERN,
            "description": "next_cursor of the previous page (also in its Link header): "
            "`<microseconds since 1970, UTC>-<match id>`, the page after that match (else 422 `invalid_cursor`)",
        }
    )


_MU = {"description": "The rating model's mean skill (openskill Plackett-Luce; a newcomer has 25)"}
_SIGMA = {"description": "The model's uncertainty about mu (a newcomer has 25/3); it shrinks as matches are rated"}
_ORDINAL = {"description": "The conservative rating, mu - 3 sigma: what leaderboards order by"}


class RatingSchema(ma.Schema):
    player_ref = fields.String(**ALWAYS)
    family = fields.String(validate=validate.OneOf(values(Family)), **ALWAYS)
    mu = fields.Float(**ALWAYS, metadata=_MU)
    sigma = fields.Float(**ALWAYS, metadata=_SIGMA)
    ordinal = fields.Float(**ALWAYS, metadata=_ORDINAL)
    matches = fields.Integer(**ALWAYS, metadata={"description": "Rated matches counted (forfeits included)"})


class LeaderboardSchema(ma.Schema):
    family = fields.String(validate=validate.OneOf(values(Family)), **ALWAYS)
    items = fields.List(
        fields.Nested(RatingSchema), **ALWAYS, metadata={"description": "Highest ordinal first, then by player_ref"}
    )
    next_cursor = fields.String(
        allow_none=True, **ALWAYS, metadata={"description": "Pass as ?cursor= for the next page; null on the last"}
    )


class PlayerRatingsSchema(ma.Schema):
    player_ref = fields.String(**ALWAYS)
    ratings = fields.List(
        fields.Nested(RatingSchema),
        **ALWAYS,
        metadata={"description": "One per family the player has rated matches in (none yet: empty)"},
    )


class RatingChangeSchema(ma.Schema):
    match_id = fields.String(**ALWAYS)
    at = fields.String(**ALWAYS, metadata={"description": "ISO 8601: when the match (or the forfeit) was rated"})
    outcome = fields.String(
        validate=validate.OneOf((WON, LOST, FORFEITED)),
        **ALWAYS,
        metadata={
            "description": "`won` (the player's side won; in a trains game, the player's total was the lowest, "
            "alone or shared), `lost`, `forfeited` (the seat was handed to a bot after timing out: a loss at once)"
        },
    )
    mu_before = fields.Float(**ALWAYS)
    sigma_before = fields.Float(**ALWAYS)
    ordinal_before = fields.Float(**ALWAYS)
    mu_after = fields.Float(**ALWAYS)
    sigma_after = fields.Float(**ALWAYS)
    ordinal_after = fields.Float(**ALWAYS)


class RatingHistorySchema(ma.Schema):
    player_ref = fields.String(**ALWAYS)
    family = fields.String(validate=validate.OneOf(values(Family)), **ALWAYS)
    items = fields.List(fields.Nested(RatingChangeSchema), **ALWAYS, metadata={"description": "Newest first"})
    next_cursor = fields.String(
        allow_none=True, **ALWAYS, metadata={"description": "Pass as ?cursor= for the next page; null on the last"}
    )


class BotRatingSchema(ma.Schema):
    family = fields.String(validate=validate.OneOf(values(Family)), **ALWAYS)
    level = fields.String(validate=validate.OneOf(values(BotLevel)), **ALWAYS)
    mu = fields.Float(**ALWAYS, metadata=_MU)
    sigma = fields.Float(**ALWAYS, metadata=_SIGMA)
    ordinal = fields.Float(**ALWAYS, metadata=_ORDINAL)


class BotRatingsSchema(ma.Schema):
    items = fields.List(
        fields.Nested(BotRatingSchema),
        **ALWAYS,
        metadata={
            "description": "Each level's fixed rating in each family: computer players in rated matches play at "
            "these and are never updated (fitted by bench/calibrate_ratings.py)"
        },
    )


@blp.route("/leaderboards/<string:family>")
class Leaderboard(MethodView):
    @blp.doc(security=PORTAL_KEY)
    @blp.arguments(FamilyPathSchema, location="path", as_kwargs=True)
    @blp.arguments(LeaderboardQuerySchema, location="query", as_kwargs=True)
    @blp.response(200, LeaderboardSchema, headers={"Link": LINK_HEADER})
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
    @blp.arguments(PlayerRefPathSchema, location="path", as_kwargs=True)
    @blp.response(200, PlayerRatingsSchema)
    @codes.problem_responses(blp, codes.INVALID_API_KEY, codes.PLAYER_REF_NEEDS_PORTAL, codes.INVALID_REQUEST)
    def get(self, player_ref: str) -> dict[str, Any]:
        """The portal's player's rating in each family it has played rated matches in (an empty
        list for a player with none, and for another portal's). Needs the portal's key."""
        return bus().handle(commands.GetPlayerRatings(player_ref, caller()))


@blp.route("/players/<string:player_ref>/history")
class RatingHistory(MethodView):
    @blp.doc(security=PORTAL_KEY)
    @blp.arguments(PlayerRefPathSchema, location="path", as_kwargs=True)
    @blp.arguments(HistoryQuerySchema, location="query", as_kwargs=True)
    @blp.response(200, RatingHistorySchema, headers={"Link": LINK_HEADER})
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
    @blp.response(200, BotRatingsSchema)
    def get(self) -> dict[str, Any]:
        """The computer players' fixed public ratings, per family and level: in a rated match a
        bot plays at its level's rating and is never updated (the same on every portal)."""
        return bus().handle(commands.GetBotRatings())
