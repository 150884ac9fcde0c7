"""The one entry to the use cases: each command goes to its one handler, with the match flow.

>>> bus = MessageBus(MatchFlow(store))                       # doctest: +SKIP
>>> summary = bus.handle(CreateMatch("standard-draw", None, seats))

A handler is a function ``(command, flow) -> answer`` in the module of its use case; this
table is where a new use case is registered (a test checks that every command has one).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

from . import acting, claiming, clocks, creating, fairness, feed, lobby, portals, reading, stats, webhooks
from .commands import (
    Act,
    AddPortalKey,
    AddWebhook,
    ClaimSeat,
    Command,
    CreateMatch,
    CreatePortal,
    GetAudit,
    GetEvents,
    GetFairness,
    GetMatchPortal,
    GetPlayerStats,
    GetPortal,
    GetSummary,
    GetView,
    GetWebhook,
    IdentifyPortal,
    ListDeliveries,
    ListMatches,
    ListPortals,
    ListWebhooks,
    PlayBots,
    Rematch,
    RemoveWebhook,
    ReplayDelivery,
    RevokePortalKey,
    RotateWebhookSecret,
    SetPortalLimit,
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
    GetMatchPortal: reading.match_portal_handler,
    IdentifyPortal: portals.identify_handler,
    CreatePortal: portals.create_portal_handler,
    AddPortalKey: portals.add_key_handler,
    RevokePortalKey: portals.revoke_key_handler,
    SetPortalLimit: portals.set_limit_handler,
    ListPortals: portals.list_handler,
    GetPortal: portals.get_portal_handler,
    AddWebhook: webhooks.add_handler,
    ListWebhooks: webhooks.list_handler,
    GetWebhook: webhooks.get_handler,
    RemoveWebhook: webhooks.remove_handler,
    RotateWebhookSecret: webhooks.rotate_handler,
    ListDeliveries: webhooks.deliveries_handler,
    ReplayDelivery: webhooks.replay_handler,
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
