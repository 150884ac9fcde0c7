"""Reading ratings: a portal's leaderboard per family, a player's ratings and rating history,
and the computer players' fixed ratings. What is rated and how: ``api.services.ratings``.

Every read but the bots' is the calling portal's: a keyless caller has no players (403
``player_ref_needs_portal``), and a portal sees only its own players, so another portal's
player_ref is simply one with no ratings (an empty list, an empty history), never a leak.
"""

from __future__ import annotations

from api.bots import LEVELS
from api.bots.ratings import bot_rating
from api.rules.vocabulary import Family
from api.store.ratings import BOARD_CURSOR_PATTERN, MAX_RATING_PAGE, RatingChange, RatingRecord
from api.store.records import InvalidCursor as StoreInvalidCursor

from . import errors
from .commands import Answer, Caller, GetBotRatings, GetLeaderboard, GetPlayerRatings, GetRatingHistory
from .flow import MatchFlow
from .ratings import Skill

__all__ = [
    "BOARD_CURSOR_PATTERN",
    "MAX_RATING_PAGE",
    "bot_ratings_handler",
    "history_handler",
    "leaderboard_handler",
    "player_ratings_handler",
]


def portal_of(caller: Caller, what: str) -> str:
    if caller.portal_id is None:
        raise errors.PlayerRefNeedsPortal(f"{what} are the portal's: send its key (X-API-Key)")
    return caller.portal_id


def leaderboard_handler(command: GetLeaderboard, flow: MatchFlow) -> Answer:
    """One page of the family's players, highest ordinal first (ties by player_ref)."""
    portal_id = portal_of(command.caller, "leaderboards")
    with flow.store.unit_of_work(readonly=True) as uow:
        try:
            page = uow.ratings.leaderboard(portal_id, command.family, command.limit, command.cursor)
        except StoreInvalidCursor:
            raise errors.InvalidCursor("a leaderboard cursor is a page's next_cursor, as it was given") from None
    return {"family": command.family, "items": [show_rating(r) for r in page.items], "next_cursor": page.next_cursor}


def player_ratings_handler(command: GetPlayerRatings, flow: MatchFlow) -> Answer:
    """The player's rating in each family it has played rated matches in (none: an empty list)."""
    portal_id = portal_of(command.caller, "ratings")
    with flow.store.unit_of_work(readonly=True) as uow:
        found = uow.ratings.of_player(portal_id, command.player_ref)
    return {"player_ref": command.player_ref, "ratings": [show_rating(r) for r in found]}


def history_handler(command: GetRatingHistory, flow: MatchFlow) -> Answer:
    """One page of the player's rated matches in the family, newest first."""
    portal_id = portal_of(command.caller, "rating histories")
    with flow.store.unit_of_work(readonly=True) as uow:
        try:
            page = uow.ratings.history(portal_id, command.player_ref, command.family, command.limit, command.cursor)
        except StoreInvalidCursor:
            raise errors.InvalidCursor(
                "a history cursor is written <microseconds since 1970>-<match id>, as next_cursor is"
            ) from None
    return {
        "player_ref": command.player_ref,
        "family": command.family,
        "items": [show_change(c) for c in page.items],
        "next_cursor": page.next_cursor,
    }


def bot_ratings_handler(command: GetBotRatings, flow: MatchFlow) -> Answer:
    """Every level's fixed rating in every family (the same for every portal)."""
    items = []
    for family in Family:
        for level in LEVELS:
            fixed = bot_rating(family, level)
            skill = Skill(fixed.mu, fixed.sigma)
            items.append(
                {"family": family.value, "level": level, "mu": skill.mu, "sigma": skill.sigma, "ordinal": skill.ordinal}
            )
    return {"items": items}


def show_rating(rating: RatingRecord) -> Answer:
    return {
        "player_ref": rating.player_ref,
        "family": rating.family,
        "mu": rating.mu,
        "sigma": rating.sigma,
        "ordinal": rating.ordinal,
        "matches": rating.matches,
    }


def show_change(change: RatingChange) -> Answer:
    return {
        "match_id": change.match_id,
        "at": change.at.isoformat(),
        "outcome": change.outcome,
        "mu_before": change.mu_before,
        "sigma_before": change.sigma_before,
        "ordinal_before": Skill(change.mu_before, change.sigma_before).ordinal,
        "mu_after": change.mu_after,
        "sigma_after": change.sigma_after,
        "ordinal_after": Skill(change.mu_after, change.sigma_after).ordinal,
    }
