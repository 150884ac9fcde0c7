"""A portal player's statistics: kept per portal, written by the transaction that decides them.

The figures a home table keeps per player: matches played, won and forfeited, hands won, the
best winning margin, and the current and longest match-win streaks. Only matches a portal
vouched for count: the portal's own (created with its key), at a seat the portal named
(``player_ref``, accepted only with that portal's key). With partners a side's win counts
for both partners.

What counts, and when (``api.services.results.record_results``, called by ``MatchFlow.append``
inside the transaction that appends the deciding events, so a figure is never missing or
counted twice):

* ``match_ended``: played, and won or lost, for each named seat still its player's;
* ``seat_replaced`` (the seat timed out ``timeout_limit`` times in a row and a bot took it
  over): played, lost and forfeited at once, whatever the bot does afterwards;
* a match left without a move for ``STATS_ABANDONED_AFTER_HOURS``: played, lost and
  forfeited for the player whose turn it is, in every answer while it stays so (a match
  that moves again counts when it ends). Seeing a deal and walking away from it is a loss.

A read is one row, plus the player's stalled matches (an indexed query).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from api.store.records import PlayerFigures

from . import errors
from .commands import Answer, GetPlayerStats
from .deadlines import utcnow
from .flow import MatchFlow
from .results import lost


def stats_handler(command: GetPlayerStats, flow: MatchFlow) -> Answer:
    """The player's figures in the calling portal (a keyless caller has no players)."""
    portal_id = command.caller.portal_id
    if portal_id is None:
        raise errors.PlayerRefNeedsPortal("player statistics are the portal's: send its key (X-API-Key)")
    return player_stats(flow, portal_id, command.player_ref)


def player_stats(flow: MatchFlow, portal_id: str, player_ref: str, *, now: Callable[[], datetime] = utcnow) -> Answer:
    """``now`` is the store's time (a match's last move is stamped by it), not the turn clocks'."""
    idle_since = now() - timedelta(hours=flow.limits.stats_abandoned_after_hours)
    with flow.store.unit_of_work(readonly=True) as uow:
        figures = uow.player_stats.get(portal_id, player_ref) or PlayerFigures()
        stalled = uow.matches.stalled_for_player(portal_id, player_ref, idle_since)
    walked_out = {record.id for record, seat in stalled if record.summary.get("turn") == seat}
    for _ in walked_out:
        figures = lost(figures, forfeit=True)
    return show(player_ref, figures)


def show(player_ref: str, figures: PlayerFigures) -> Answer:
    return {
        "player_ref": player_ref,
        "matches_played": figures.played,
        "matches_won": figures.won,
        "matches_forfeited": figures.forfeited,
        "hands_won": figures.hands_won,
        "best_margin": figures.best_margin,
        "current_streak": figures.current_streak,
        "longest_streak": figures.longest_streak,
    }
