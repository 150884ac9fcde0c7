"""Asking every computer player again: each bot move in a log must be the one that bot makes.

A bot is a pure function of what its seat is shown (its view and its redacted log of the hand)
and of a seed derived from the match's server seed (:func:`~api.bots.actions.bot_seed`), which
the match reveals when it ends. So whoever holds an ended match's log and seed can put each
bot's question to it again and compare. The rules' audit (``api.rules.audit.verify_log``)
proves every move legal; this proves every bot move was the bot's own. A log rewritten with
another legal move for a bot, the rest regenerated and the hash chain recomputed, passes the
first and the chain check, and fails here.

The services ask the bots the same question at the same point (``MatchFlow.advance``): the
seat :meth:`~api.rules.state.MatchState.next_to_act` names among the bot seats, its view, the
events since the hand began redacted for it, and ``bot_seed(seed, seq, seat)`` with ``seq`` the
last event's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from api.rules import BOT_SEAT, PLAYING, RulesError, decide, event_from_dict, parse_action, redact_event, view
from api.rules.engine import initial_state, mutate
from api.rules.events import HandStarted, Knocked, MatchCreated, PointsScored, TileDrawn, TilePlayed
from api.rules.vocabulary import ScoredBy

from . import DEFAULT_LEVEL, choose_action
from .actions import bot_seed


@dataclass
class BotRecheck:
    """How many bot decisions were asked again, and the first that came out otherwise."""

    decisions_checked: int = 0
    problems: list[str] = field(default_factory=list)


def recheck_bot_moves(log: list[dict[str, Any]], server_seed: str) -> BotRecheck:
    """Ask each bot of a whole log (event dicts in seq order, without ``seq``) again.

    Stops at the first decision that differs (what follows was built on it). A log the rules
    refuse is the rules' audit's to report: here it ends the check without a problem."""
    report = BotRecheck()
    opening = event_from_dict(log[0]) if log else None
    if not isinstance(opening, MatchCreated):
        return report
    state = initial_state(opening)
    hand: list[dict[str, Any]] = []  # the events since the hand began, as the bots are shown them
    i = 1
    while i < len(log):
        block = 1  # the events taken as one step: a decision's whole answer, else one event
        # the seats played by computers now (a seat handed over to one mid-match among them)
        levels = {seat: s.get("level") for seat, s in enumerate(state.seats) if s.get("type") == BOT_SEAT}
        seat = state.next_to_act(levels) if state.status == PLAYING else None
        actor = log[i].get("seat")
        if actor in levels and actor != seat and opens_a_decision(log[i]):
            # a computer moves only when the server asks it, and it asks only the seat to act
            report.problems.append(
                f"seq {i + 1}: the computer at seat {actor} {describe(log[i])}s, but it was not asked to move"
            )
            return report
        if seat is not None and actor == seat and opens_a_decision(log[i]):
            level = levels[seat] or DEFAULT_LEVEL
            shown = [redact_event(event, seat) for event in hand]
            try:
                action = choose_action(level, view(state, seat), shown, bot_seed(server_seed, i, seat))
                produced = [e.to_dict() for e in decide(state, parse_action(seat, action), server_seed)]
            except (RulesError, ValueError):
                return report
            report.decisions_checked += 1
            if produced != log[i : i + len(produced)]:
                report.problems.append(
                    f"seq {i + 1}: the {level} computer at seat {seat} chooses to {describe(action)}; "
                    f"the log holds {describe(log[i])}"
                )
                return report
            block = len(produced)
        for row in log[i : i + block]:
            try:
                event = event_from_dict(row)
            except (RulesError, ValueError):
                return report
            mutate(state, event)  # the state is this check's own: folded in place, no copy per event
            if isinstance(event, HandStarted):
                hand = []
            hand.append(row)
        i += block
    return report


def opens_a_decision(event: dict[str, Any]) -> bool:
    """The first event a seat's own choice produces: a play, a draw, a knock or a muggins call.
    Not what the engine does by itself (``auto``): a forced lead as a hand starts, the draws and
    knocks of ``auto_draw``/``auto_knock`` (made for a stuck seat after someone else's move)."""
    kind = event.get("type")
    if kind in (TilePlayed.type, TileDrawn.type, Knocked.type):
        return not event.get("auto")
    return kind == PointsScored.type and event.get("how") == ScoredBy.MUGGINS


def describe(action: dict[str, Any]) -> str:
    """An action or an event, in a few words: ``play 6-4 on the left``, ``draw``, ``knock``."""
    kind = str(action.get("type", "?"))
    tile = action.get("tile")
    if kind in ("play", "tile_played") and tile:
        return f"play {tile[0]}-{tile[1]} on the {action.get('end') or 'only end'}"
    return kind.replace("tile_drawn", "draw").replace("knocked", "knock")
