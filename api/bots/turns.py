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

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, overload

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


class ShownLog(Sequence[Json]):
    """The events since the hand began as ``seat`` is shown them (``redact_event``), made when first
    read: a bot that never reads its log (random, greedy) does not pay for redacting the whole
    hand at every move (a sixth of an action's time at a table of three greedy bots, issue 36).

    ``events``: as logged, with or without their ``seq`` (dropped, as the engine reads an event);
    taken as they are now (a list is copied), so what the bot reads later is what it was asked."""

    __slots__ = ("_events", "_seat", "_shown")

    def __init__(self, events: Iterable[Mapping[str, Any]], seat: int):
        self._events = events if isinstance(events, tuple) else tuple(events)
        self._seat = seat
        self._shown: list[Json] | None = None

    @property
    def was_read(self) -> bool:
        """Whether anything read it (so it was redacted)."""
        return self._shown is not None

    def _redacted(self) -> list[Json]:
        shown = self._shown
        if shown is None:
            seat = self._seat
            shown = self._shown = [
                redact_event({k: v for k, v in e.items() if k != "seq"} if "seq" in e else dict(e), seat)
                for e in self._events
            ]
        return shown

    @overload
    def __getitem__(self, index: int) -> Json: ...
    @overload
    def __getitem__(self, index: slice) -> list[Json]: ...
    def __getitem__(self, index: int | slice) -> Json | list[Json]:
        return self._redacted()[index]

    def __len__(self) -> int:
        return len(self._events)

    def __iter__(self) -> Iterator[Json]:
        return iter(self._redacted())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ShownLog):
            return self._redacted() == list(other)
        return isinstance(other, list) and self._redacted() == other

    __hash__ = None  # type: ignore[assignment]  # equal to a list, so unhashable as one

    def __repr__(self) -> str:
        return f"ShownLog({self._redacted()!r})"


@dataclass(frozen=True)
class BotTurn:
    """The question put to the computer player at ``seat``; ``choose`` is its answer."""

    seat: int
    level: str
    view: Json
    log: Sequence[Json]
    rng_seed: str

    def choose(self) -> Action:
        """The bot's action (pure: the same question always gets the same answer)."""
        return choose_action(self.level, self.view, self.log, self.rng_seed)

    def events(self, state: MatchState, action: Action, server_seed: str) -> list[Event]:
        """What ``action`` makes happen in ``state`` (the state the question was asked of)."""
        return decide(state, parse_action(self.seat, action), server_seed)


def bot_turn(state: MatchState, hand_events: Iterable[Mapping[str, Any]], server_seed: str, seq: int) -> BotTurn | None:
    """The question for the bot seat that acts in ``state`` (:func:`bot_to_act`), or None when no
    computer player is to act.

    ``hand_events``: the events since the hand began, as logged (with or without ``seq``); ``seq``:
    the last event's seq, the state being the log folded up to it."""
    seat = bot_to_act(state)
    return None if seat is None else question_for(state, seat, hand_events, server_seed, seq)


def question_for(
    state: MatchState, seat: int, hand_events: Iterable[Mapping[str, Any]], server_seed: str, seq: int
) -> BotTurn:
    """:func:`bot_turn`'s question, for a ``seat`` the caller got from :func:`bot_to_act` already."""
    level = state.seats[seat].get("level") or DEFAULT_LEVEL
    return BotTurn(seat, level, view(state, seat), ShownLog(hand_events, seat), bot_seed(server_seed, seq, seat))
