"""Folding a decided match into its players' kept figures (``player_stats``), inside the
transaction that appends the deciding events (``api.services.effects``). What counts and why:
``api.services.stats``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from api.rules import BOT_SEAT, RuleSet
from api.rules.events import HandEnded, MatchCreated, MatchEnded, RoundEnded, SeatReplaced
from api.store.records import PlayerFigures

from .ports import UnitOfWork
from .snapshots import Row, Snapshot
from .standings import standing


def lost(figures: PlayerFigures, *, forfeit: bool = False, hands_won: int = 0) -> PlayerFigures:
    return replace(
        figures,
        played=figures.played + 1,
        forfeited=figures.forfeited + forfeit,
        hands_won=figures.hands_won + hands_won,
        current_streak=0,
    )


def won(figures: PlayerFigures, margin: int, hands_won: int) -> PlayerFigures:
    streak = figures.current_streak + 1
    best = margin if figures.best_margin is None else max(figures.best_margin, margin)
    return replace(
        figures,
        played=figures.played + 1,
        won=figures.won + 1,
        hands_won=figures.hands_won + hands_won,
        best_margin=best,
        current_streak=streak,
        longest_streak=max(figures.longest_streak, streak),
    )


def record_results(
    uow: UnitOfWork, portal_id: str, match_id: str, appended: Sequence[Row], snap: Snapshot, now: datetime
) -> None:
    """Count what ``appended`` (just stored in ``uow``) decided for the portal's players."""
    replaced = {row["seat"] for row in appended if row["type"] == SeatReplaced.type}
    ended = any(row["type"] == MatchEnded.type for row in appended)
    if not replaced and not ended:
        return
    seats = {s.seat: s for s in uow.seats.list_for_match(match_id) if s.player_ref}
    if not seats:
        return
    log = uow.matches.result_events([match_id])[match_id]
    rules = RuleSet.from_dict(log[0]["rules"]) if log and log[0]["type"] == MatchCreated.type else None
    if rules is None:
        return
    state_seats = snap.state.seats
    forfeits: dict[str, set[int]] = {}
    finishers: dict[str, set[int]] = {}
    for number, seat in seats.items():
        ref = seat.player_ref
        assert ref is not None
        if number in replaced:
            forfeits.setdefault(ref, set()).add(number)
        # A seat a bot took over earlier was counted as forfeited then; its end is not its player's.
        elif ended and not (seat.token_hash is not None and state_seats[number].get("type") == BOT_SEAT):
            finishers.setdefault(ref, set()).add(number)
    for ref in forfeits:
        finishers.pop(ref, None)  # one match counts once for a player: its forfeit
    kept = uow.player_stats.lock(portal_id, [*forfeits, *finishers], now)
    for ref, numbers in forfeits.items():
        kept[ref] = lost(kept[ref], forfeit=True, hands_won=hands_of(log, rules, numbers))
    result = standing(log[-1]) if ended and log[-1]["type"] == MatchEnded.type else None
    for ref, numbers in finishers.items():
        if result is None:
            break
        sides = {rules.side_of(n) for n in numbers}
        hands = hands_of(log, rules, numbers)
        if sides & result.winners:
            kept[ref] = won(kept[ref], result.margin, hands)
        else:
            kept[ref] = lost(kept[ref], hands_won=hands)
    for ref in {*forfeits, *finishers}:
        uow.player_stats.save(portal_id, ref, kept[ref], now)


def hands_of(log: list[dict[str, Any]], rules: RuleSet, seats: set[int]) -> int:
    """Hands won so far by the sides of ``seats``: a line game's hands (``hand_ended.side``), a
    trains game's rounds gone out of (``round_ended.winner``; a blocked round has none)."""
    sides = {rules.side_of(n) for n in seats}
    return sum(
        1
        for e in log
        if (e["type"] == HandEnded.type and e["side"] in sides)
        or (e["type"] == RoundEnded.type and e["winner"] is not None and rules.side_of(e["winner"]) in sides)
    )
