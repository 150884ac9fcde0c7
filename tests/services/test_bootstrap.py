"""api.bootstrap turns the configuration into the use cases' dependencies, once: what each
setting becomes, what an absent one leaves, and how each handler is given what it names."""

from __future__ import annotations

from dataclasses import asdict, fields
from typing import Any

import pytest

from api.bootstrap import bootstrap, inject
from api.config import DEFAULT_BOT_REPLY_FLOOR_MS, from_environ, parse_level_millis
from api.services.commands import DeliverWebhooks, GetSummary, SweepClocks
from api.services.limits import WorkLimits
from api.services.pacing import NO_FLOOR
from api.services.webhook_delivery import WebhookSettings
from api.store.memory import MemoryStore

CONFIG = {
    "ALLOW_CLIENT_SEED": True,
    "SNAPSHOT_CACHE_SIZE": 7,
    "WAITERS_PER_ADDRESS": 3,
    "INLINE_BOT_MOVES": 2,
    "MAX_EVENTS_PER_MATCH": 500,
    "BOT_MATCHES_PER_ADDRESS": 4,
    "AUTOPLAY_PACE_SECONDS": 0.5,
    "STATS_ABANDONED_AFTER_HOURS": 6.0,
    "RATED_TURN_SECONDS": 60,
    "RATED_TIMEOUT_LIMIT": 2,
    "BOT_REPLY_FLOOR_MS": {"expert": 80.0, "greedy": 4.0},
    "WEBHOOK_TIMEOUT_SECONDS": 1.5,
    "WEBHOOK_MAX_ATTEMPTS": 4,
    "WEBHOOK_RETRY_SECONDS": 2.0,
    "WEBHOOK_ALLOW_PRIVATE_ADDRESSES": True,
}


def defaults_of(record: Any) -> dict[str, Any]:
    """A settings record's fields with their defaults (each has one)."""
    return {field.name: field.default for field in fields(record)}


def test_each_setting_becomes_the_dependency_it_configures(clock):
    store = MemoryStore(now=clock)
    bus = bootstrap(store, CONFIG, clock=clock, wait_clock=clock)
    flow = bus.flow
    assert flow.store is store and flow.allow_client_seed is True
    assert flow.cache.max_entries == 7
    assert (flow.waiter.per_address, flow.waiter.now, flow.waiter.clock) == (3, clock, clock)
    assert flow.now is clock
    assert asdict(flow.limits) == {
        "inline_bot_moves": 2,
        "max_events_per_match": 500,
        "bot_matches_per_creator": 4,
        "autoplay_pace": 0.5,
        "stats_abandoned_after_hours": 6.0,
        "rated_turn_seconds": 60,
        "rated_timeout_limit": 2,
    }
    assert flow.reply_floor.seconds == {"expert": 0.08, "greedy": 0.004}
    courier = bus.handlers[DeliverWebhooks].keywords["courier"]
    assert (courier.store, courier.now) == (store, clock)
    policy = {"timeout": 1.5, "max_attempts": 4, "first_retry": 2.0, "allow_private_addresses": True}
    assert asdict(courier.settings) == {**defaults_of(WebhookSettings), **policy}


def test_the_app_configurations_defaults_are_the_services_own():
    """``create_app`` hands bootstrap the whole configuration; its defaults (no environment) make
    the same dependencies as a bootstrap given none, but for the bots' reply floors."""
    defaults = bootstrap(MemoryStore(), from_environ({}))
    bare = bootstrap(MemoryStore())
    assert asdict(defaults.flow.limits) == asdict(bare.flow.limits) == defaults_of(WorkLimits)
    assert defaults.flow.cache.max_entries == bare.flow.cache.max_entries == 2048
    assert defaults.flow.waiter.per_address == bare.flow.waiter.per_address == 64
    assert defaults.flow.allow_client_seed is bare.flow.allow_client_seed is False
    webhook_settings = [asdict(bus.handlers[DeliverWebhooks].keywords["courier"].settings) for bus in (defaults, bare)]
    assert webhook_settings == [defaults_of(WebhookSettings)] * 2
    assert bare.flow.reply_floor is NO_FLOOR  # no pause in a test that does not ask for one
    shipped = parse_level_millis(DEFAULT_BOT_REPLY_FLOOR_MS)
    assert defaults.flow.reply_floor.seconds == {level: ms / 1000 for level, ms in shipped.items()}
    assert defaults.flow.reply_floor.seconds["expert"] > 0  # a floor, not none


def test_every_handler_gets_the_dependencies_it_names_and_one_naming_another_is_refused(bus, flow):
    assert bus.handlers[SweepClocks].keywords == {"flow": flow}
    assert set(bus.handlers[DeliverWebhooks].keywords) == {"courier"}

    def needs_a_printer(command: GetSummary, printer: object) -> None: ...

    with pytest.raises(TypeError, match="needs_a_printer needs printer: no such dependency"):
        inject(needs_a_printer, {"flow": flow})
