"""A computer player's turn: which bot seat acts, and the exact question it is asked.

One home for both, because the server asks and the fairness check asks again, and the two must
put the same question or an honest match fails its check. The server asks in one place
(``api.services.flow.MatchFlow.advance``: the replies after a person's action or a timed-out
turn, and the autoplay runner's steps, a seat handed to a bot included); the re-check
(``api.bots.audit``) and the golden driver (``api.tools.golden``) ask through the same
:func:`bot_turn`. What the engine does for a seat on its own (forced leads, ``auto_draw`` and
``auto_knock``, a timed-out turn's forced play) is no bot's choice: the rules' audit re-runs it.

The question, for the bot seat :meth:`~api.rules.state.MatchState.next_to_act` names (a muggins
call out of turn first): the level it plays at (``DEFAULT_LEVEL`` when the seat names none), the
seat's view, the events since the hand began redacted for it, and ``bot_seed(seed, seq, seat)``
where ``seq`` is the last event's. Nothing else: no clock, no other randomness, so whoever holds
the log and the revealed seed gets the same answer.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from api.rules import BOT_SEAT, PLAYING, Event, MatchState, decide, parse_action, redact_event, view

from . import DEFAULT_LEVEL, choose_action
from .actions import Action, Json, bot_seed


def bot_levels(state: MatchState) -> dict[int, str | None]:
    """The seats computer players hold now (a seat handed to one mid-match among them), by level."""
    return {seat: s.get("level") for seat, s in enumerate(state.seats) if s.get("type") == BOT_SEAT}


def bot_to_act(state: MatchState) -> int | None:
    """The bot seat that acts next (to move, or to call muggins out of turn), or None."""
    if state.status != PLAYING:
        return None
    return state.next_to_act(bot_levels(state))


@dataclass(frozen=True)
class BotTurn:
    """The question put to the computer player at ``seat``; ``choose`` is its answer."""

    seat: int
    level: str
    view: Json
    log: list[Json]
    rng_seed: str

    def choose(self) -> Action:
        """The bot's action (pure: the same question always gets the same answer)."""
        return choose_action(self.level, self.view, self.log, self.rng_seed)

    def events(self, state: MatchState, action: Action, server_seed: str) -> list[Event]:
        """What ``action`` makes happen in ``state`` (the state the question was asked of)."""
        return decide(state, parse_action(self.seat, action), server_seed)


def bot_turn(state: MatchState, hand_events: Iterable[dict[str, Any]], server_seed: str, seq: int) -> BotTurn | None:
    """The question for the bot seat that acts in ``state`` (:func:`bot_to_act`), or None when no
    computer player is to act.

    ``hand_events``: the events since the hand began, as logged (without ``seq``); ``seq``: the
    last event's seq, the state being the log folded up to it."""
    seat = bot_to_act(state)
    return None if seat is None else question_for(state, seat, hand_events, server_seed, seq)


def question_for(
    state: MatchState, seat: int, hand_events: Iterable[dict[str, Any]], server_seed: str, seq: int
) -> BotTurn:
    """:func:`bot_turn`'s question, for a ``seat`` the caller got from :func:`bot_to_act` already."""
    level = state.seats[seat].get("level") or DEFAULT_LEVEL
    shown = [redact_event(event, seat) for event in hand_events]
    return BotTurn(seat, level, view(state, seat), shown, bot_seed(server_seed, seq, seat))
