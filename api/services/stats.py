"""A player's statistics, derived from the logs of the ended matches it sat in.

The figures a home table keeps per player: matches played and won, hands won,
the best winning margin, and the current and longest match-win streaks. A player is
found by ``player_ref`` on its seats; with partners a side's win counts for both
partners. Everything comes from ``hand_ended`` and ``match_ended`` events, so it holds
for every preset (a fives match that ends mid-hand has no ``hand_ended`` for that hand).

The figures are a fold over the player's ended matches in the order they ended, so they
are kept folded (``uow.player_stats``: the figures and the last match folded) and a request
folds only the matches that ended since: its work is bounded by what happened since the
previous request, not by the player's whole history. Matches that ended in the last
``SETTLE`` are counted in the answer but not yet kept, so that one whose transaction
commits a moment after a later-stamped one can never be skipped.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from api.rules import RuleSet
from api.rules.events import HandEnded, MatchCreated, MatchEnded

from .commands import Answer, GetPlayerStats
from .deadlines import utcnow
from .flow import MatchFlow

#: Longer than any write transaction can take (SQLite's lock wait is 5 s at most).
SETTLE = timedelta(seconds=30)

EMPTY = {"played": 0, "won": 0, "hands_won": 0, "current": 0, "longest": 0, "best_margin": None}


def stats_handler(command: GetPlayerStats, flow: MatchFlow) -> Answer:
    """The player's figures over every match of theirs that has ended."""
    return player_stats(flow, command.player_ref)


def player_stats(flow: MatchFlow, player_ref: str, *, now: Callable[[], datetime] = utcnow) -> Answer:
    """``now`` is the store's time (rows are stamped by it), not the turn clocks'."""
    settled_before = now() - SETTLE
    with flow.store.unit_of_work(readonly=True) as uow:
        kept = uow.player_stats.get(player_ref)
        cursor = None if kept is None else (kept[0], kept[1])
        figures = dict(EMPTY) if kept is None else kept[2]
        ended: dict[str, Any] = {}  # match id -> its record, oldest end first
        seats: dict[str, set[int]] = {}
        for record, seat in uow.matches.ended_for_player(player_ref, after=cursor):
            ended.setdefault(record.id, record)
            seats.setdefault(record.id, set()).add(seat)
        logs = uow.matches.result_events(list(ended))
    kept_figures, kept_cursor = figures, cursor
    for match_id, record in ended.items():
        figures = fold_match(figures, logs[match_id], seats[match_id])
        if record.updated_at < settled_before:
            kept_figures, kept_cursor = figures, (record.updated_at, match_id)
    if kept_cursor is not None and kept_cursor != cursor:
        with flow.store.unit_of_work() as uow:
            if uow.player_stats.save(player_ref, kept_cursor, kept_figures, previous=cursor):
                uow.commit()  # else another request kept the same fold first
    return {
        "player_ref": player_ref,
        "matches_played": figures["played"],
        "matches_won": figures["won"],
        "hands_won": figures["hands_won"],
        "best_margin": figures["best_margin"],
        "current_streak": figures["current"],
        "longest_streak": figures["longest"],
    }


def fold_match(figures: dict[str, Any], log: list[dict[str, Any]], seats: set[int]) -> dict[str, Any]:
    """The figures after one more ended match (``log``: its result events) of a player who sat
    in ``seats``."""
    if not log or log[0]["type"] != MatchCreated.type or log[-1]["type"] != MatchEnded.type:
        return figures  # not a finished log: nothing to count
    out = dict(figures)
    rules = RuleSet.from_dict(log[0]["rules"])  # as the engine reads the match (initial_state)
    sides = {rules.side_of(seat) for seat in seats}
    out["hands_won"] += sum(1 for e in log if e["type"] == HandEnded.type and e["side"] in sides)
    ended = log[-1]
    out["played"] += 1
    if ended["winner"] in sides:
        out["won"] += 1
        out["current"] += 1
        out["longest"] = max(out["longest"], out["current"])
        scores = ended["scores"]
        margin = scores[ended["winner"]] - max(s for side, s in enumerate(scores) if side != ended["winner"])
        out["best_margin"] = margin if out["best_margin"] is None else max(out["best_margin"], margin)
    else:
        out["current"] = 0
    return out
