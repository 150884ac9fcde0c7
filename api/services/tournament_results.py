"""A tournament match's result, recorded in the transaction that appends its deciding events.

``api.services.effects`` calls :func:`record_tournament_result` after every append of a portal's
match. For a match a tournament's round is played in (``uow.tournaments.match``), the table's
result is appended to the tournament's log, under the tournament's lock, in the same unit of
work: it commits or rolls back with the match's end. What decides the table:

* a seat of a person handed to a computer player after its turns timed out (``seat_replaced``:
  a no-show, or a player who left) forfeits the table for that side, at once; the match plays on,
  its end no longer counting;
* otherwise the match's end (``match_ended``): the winning side wins (a trains game's shared
  lowest total is a draw), each side's final score kept. A trains game counts lower totals as
  better, so there each side's *points for* are the other side's total and its *points against*
  its own: the win margin is still positive for the winner.

A result for a table already decided (a withdrawal, an earlier forfeit) changes nothing. When the
round's last table is decided the tournament's row is due for the sweep, which pairs the next;
its players hear of the round's end (and the tournament's) on their own streams.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime

from api import tournaments as core
from api.rules.events import MatchEnded, SeatReplaced

from . import tournament_log
from .ports import UnitOfWork
from .snapshots import Row
from .standings import standing

log = logging.getLogger(__name__)


def table_result(
    appended: Sequence[Row], person_seats: dict[int, int]
) -> tuple[int | None, tuple[int, int], bool] | None:
    """``(winner, scores, forfeit)`` of the table, from the match's events just appended;
    ``person_seats``: each seat held by a person, to its table side. None: nothing decided."""
    for row in appended:
        if row["type"] == SeatReplaced.type and row["seat"] in person_seats:
            loser = person_seats[row["seat"]]
            return 1 - loser, (0, 0), True
    final = next((row for row in appended if row["type"] == MatchEnded.type), None)
    if final is None:
        return None
    result = standing(final)
    scores = final["scores"]
    lower_wins = "winners" in final
    if lower_wins:  # a trains game: each seat its own side, seat 0 is table side 0
        first, second = scores[1], scores[0]
    else:
        first, second = scores[0], scores[1]
    winner = None if len(result.winners) != 1 else min(result.winners)
    return winner, (first, second), False


def record_tournament_result(uow: UnitOfWork, match_id: str, appended: Sequence[Row], now: datetime) -> None:
    if not any(row["type"] in (MatchEnded.type, SeatReplaced.type) for row in appended):
        return
    played = uow.tournaments.match(match_id)
    if played is None:
        return
    person_seats = {s["seat"]: s["side"] for s in played.seats if s.get("player_ref") is not None}
    decided = table_result(appended, person_seats)
    if decided is None:
        return
    winner, scores, forfeit = decided
    record, state = tournament_log.load(uow, played.tournament_id, None, for_update=True, any_portal=True)
    try:
        events = core.record_result(state, played.round, played.table_number, winner, scores, forfeit)
    except core.TournamentError as refused:  # decided already, or the tournament is over
        log.info("match %s's result not recorded in tournament %s: %s", match_id, record.id, refused.message)
        return
    # The players' streams are written here too; their waiters are not announced to (the match's
    # flow announces the match alone): another process hears of them by NOTIFY or its poller, and
    # a long-poll re-reads every few seconds anyway.
    tournament_log.append(uow, record, state, events, now)
