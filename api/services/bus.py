"""The one entry to the use cases: each command goes to its one handler, with the match flow.

>>> bus = MessageBus(MatchFlow(store))                       # doctest: +SKIP
>>> summary = bus.handle(CreateMatch("standard-draw", None, seats))

A handler is a function ``(command, flow) -> answer`` in the module of its use case; this
table is where a new use case is registered (a test checks that every command has one).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

from . import acting, claiming, clocks, creating, fairness, feed, lobby, reading, stats
from .commands import (
    Act,
    ClaimSeat,
    Command,
    CreateMatch,
    GetAudit,
    GetEvents,
    GetFairness,
    GetPlayerStats,
    GetSummary,
    GetView,
    ListMatches,
    PlayBots,
    Rematch,
    SweepClocks,
)
from .flow import MatchFlow

R = TypeVar("R")

HANDLERS: dict[type[Command[Any]], Callable[[Any, MatchFlow], Any]] = {
    CreateMatch: creating.create_match_handler,
    ClaimSeat: claiming.claim_seat_handler,
    Act: acting.act_handler,
    PlayBots: acting.play_bots_handler,
    Rematch: lobby.rematch_handler,
    SweepClocks: clocks.sweep_handler,
    GetSummary: reading.summary_handler,
    GetView: reading.view_handler,
    ListMatches: reading.list_handler,
    GetAudit: reading.audit_handler,
    GetEvents: feed.events_handler,
    GetFairness: fairness.fairness_handler,
    GetPlayerStats: stats.stats_handler,
}


class MessageBus:
    """Runs commands against one process's match flow."""

    def __init__(self, flow: MatchFlow):
        self.flow = flow

    def handle(self, command: Command[R]) -> R:
        handler = HANDLERS.get(type(command))
        if handler is None:
            raise TypeError(f"no handler for {type(command).__name__}")
        return cast(R, handler(command, self.flow))
