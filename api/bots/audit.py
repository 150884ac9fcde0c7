"""Asking every computer player again: each bot move in a log must be the one that bot makes.

A bot is a pure function of what its seat is shown (its view and its redacted log of the hand)
and of a seed derived from the match's server seed (:func:`~api.bots.actions.bot_seed`), which
the match reveals when it ends. So whoever holds an ended match's log and seed can put each
bot's question to it again and compare. The rules' audit (``api.rules.audit.verify_log``)
proves every move legal; this proves every bot move was the bot's own. A log rewritten with
another legal move for a bot, the rest regenerated and the hash chain recomputed, passes the
first and the chain check, and fails here.

The question is :func:`api.bots.turns.bot_turn`'s, the very function the services ask the bots
with (``MatchFlow.advance``), at the same point: after each event, for the bot seat that acts.
A log is folded as it stands, so a rewritten one may hold an event its state cannot take (a
tile played that the rewritten deal never gave): that is a finding here too, at its seq.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from api.rules import ImpossibleEvent, ReplayError, RulesError, event_from_dict
from api.rules.engine import initial_state, mutate
from api.rules.events import (
    DEAL_TYPES,
    Knocked,
    MatchCreated,
    Passed,
    PointsScored,
    TileDrawn,
    TilePlaced,
    TilePlayed,
)
from api.rules.vocabulary import ScoredBy

from . import LEVELS
from .turns import bot_levels, bot_to_act, question_for


@dataclass
class BotRecheck:
    """How many bot decisions were asked again (per level), and the first that came out otherwise."""

    checked_by_level: dict[str, int] = field(default_factory=lambda: dict.fromkeys(LEVELS, 0))
    problems: list[str] = field(default_factory=list)

    @property
    def decisions_checked(self) -> int:
        return sum(self.checked_by_level.values())


def recheck_bot_moves(log: list[dict[str, Any]], server_seed: str) -> BotRecheck:
    """Ask each bot of a whole log (event dicts in seq order, without ``seq``) again.

    Stops at the first decision that differs (what follows was built on it), and at an event
    the log's own state cannot take (``ImpossibleEvent``) or cannot read, reported at its seq.
    A move the rules refuse is the rules' audit's to report: here it ends the check quietly."""
    report = BotRecheck()
    try:
        opening = event_from_dict(log[0]) if log else None
        if not isinstance(opening, MatchCreated):
            return report  # the rules' audit says the log does not open with match_created
        state = initial_state(opening)
    except RulesError:
        return report  # nor with rules that can be played: the rules' audit says so
    hand: list[dict[str, Any]] = []  # the events since the hand began, as logged
    i = 1
    while i < len(log):
        block = 1  # the events taken as one step: a decision's whole answer, else one event
        seat = bot_to_act(state)
        actor = log[i].get("seat")
        if not isinstance(actor, int):
            actor = None  # no seat's own (a deal…), or no seat at all: the fold below says which
        if actor != seat and actor in bot_levels(state) and opens_a_decision(log[i]):
            # a computer moves only when the server asks it, and it asks only the seat to act
            report.problems.append(
                f"seq {i + 1}: the computer at seat {actor} {describe(log[i])}s, but it was not asked to move"
            )
            return report
        if seat is not None and actor == seat and opens_a_decision(log[i]):
            turn = question_for(state, seat, hand, server_seed, i)  # bot_turn's, the seat known
            if turn.level not in LEVELS:  # not this version's bot: its moves cannot be asked again
                report.problems.append(
                    f"seq {i + 1}: the computer at seat {seat} plays at level {turn.level!r}, "
                    f"which this version does not know ({', '.join(LEVELS)}): its moves cannot be asked again"
                )
                return report
            try:
                action = turn.choose()
                produced = [e.to_dict() for e in turn.events(state, action, server_seed)]
            except (RulesError, ValueError):
                return report
            report.checked_by_level[turn.level] += 1
            logged = log[i : i + len(produced)]
            if produced != logged:
                k = next((k for k, (made, held) in enumerate(zip(produced, logged)) if made != held), len(logged))
                if k == 0:
                    report.problems.append(
                        f"seq {i + 1}: the {turn.level} computer at seat {seat} chooses to {describe(action)}; "
                        f"the log holds {describe(log[i])}"
                    )
                else:  # its move is the bot's; what the log holds after it is not what follows from it
                    held = describe(log[i + k]) if i + k < len(log) else "nothing more"
                    report.problems.append(
                        f"seq {i + k + 1}: after the {turn.level} computer's move at seq {i + 1}, "
                        f"the engine gives {describe(produced[k])}; the log holds {held}"
                    )
                return report
            block = len(produced)
        for seq, row in enumerate(log[i : i + block], start=i + 1):
            try:
                event = event_from_dict(row)
                mutate(state, event)  # the state is this check's own: folded in place, no copy per event
            except ImpossibleEvent as exc:
                report.problems.append(str(exc.at(seq)))
                return report
            except (RulesError, ReplayError, TypeError) as exc:  # no such event type, tile; a field of another type
                report.problems.append(f"seq {seq}: unreadable event: {exc}")
                return report
            if event.type in DEAL_TYPES:
                hand = []
            hand.append(row)
        i += block
    return report


def opens_a_decision(event: dict[str, Any]) -> bool:
    """The first event a seat's own choice produces: a play, a draw, a knock or a muggins call
    (the trains games: a tile placed, a draw, a pass). Not what the engine does by itself
    (``auto``): a forced lead as a hand starts, the draws and knocks of ``auto_draw``/``auto_knock``
    (made for a stuck seat after someone else's move), a timed-out turn's moves. A ``passed``
    right after its seat's own ``tile_drawn`` is that draw's answer (the tile fits nowhere), not
    a decision of its own: one event cannot tell, so a walk over a log takes a decision's whole
    answer at once, as ``recheck_bot_moves`` does."""
    kind = event.get("type")
    if kind in (TilePlayed.type, TileDrawn.type, Knocked.type, TilePlaced.type, Passed.type):
        return not event.get("auto")
    return kind == PointsScored.type and event.get("how") == ScoredBy.MUGGINS


def describe(action: dict[str, Any]) -> str:
    """An action or an event, in a few words: ``play 6-4 on the left``, ``play 12-5 on train 2``,
    ``draw``, ``knock``, ``pass``."""
    kind = str(action.get("type", "?"))
    tile = action.get("tile")
    if kind in ("play", "tile_played", "tile_placed") and tile:
        # a rewritten log may hold anything here: shown as it is, not read as two numbers
        face = f"{tile[0]}-{tile[1]}" if isinstance(tile, list) and len(tile) == 2 else json.dumps(tile)
        if "train" in action:  # the trains games: a seat's number, "mexican" or a toe's id
            return f"play {face} on train {action['train']}"
        return f"play {face} on the {action.get('end') or 'only end'}"
    return kind.replace("tile_drawn", "draw").replace("knocked", "knock").replace("passed", "pass")
