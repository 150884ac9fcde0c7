"""The one place that wires the use cases: ``bootstrap(store, config, ...) -> MessageBus``.

Every process that runs use cases starts here — the web app (``create_app``), the autoplay
runner and the turn-clock sweep (``flask boneyard autoplay`` / ``sweep``), the webhook worker
(``flask boneyard webhooks deliver``), the operator's CLI commands, the benches and the tests
(on the memory store, with a fake clock). The configuration (``api.config``) is turned into
dependencies here and nowhere else: the snapshot cache, the waiters, the work limits, the
bots' reply floors, the webhook delivery policy; then each handler of ``api.services.bus`` is
given the dependencies it names. ``tests/test_layering.py`` checks that the wired classes are
constructed in this module only.

It knows the store and the services, and nothing of HTTP.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from datetime import datetime
from functools import partial
from typing import Any

from api.commit_notice import commit_notice
from api.services.bus import HANDLERS, MessageBus
from api.services.deadlines import utcnow
from api.services.flow import MatchFlow
from api.services.limits import WorkLimits
from api.services.pacing import NO_FLOOR, ReplyFloor
from api.services.ports import Store as StorePort
from api.services.snapshots import SnapshotCache
from api.services.waiting import WaitClock, Waiter
from api.services.webhook_delivery import Courier, Sender, WebhookSettings
from api.services.webhooks import Resolver, resolve_host
from api.serving import cpu_offload
from api.store import Store, make_engine
from api.store.migrate import upgrade

#: Each bound on work one client can cause (``WorkLimits``) and the setting it is read from.
LIMIT_SETTINGS = {
    "inline_bot_moves": "INLINE_BOT_MOVES",
    "max_events_per_match": "MAX_EVENTS_PER_MATCH",
    "bot_matches_per_creator": "BOT_MATCHES_PER_ADDRESS",
    "autoplay_pace": "AUTOPLAY_PACE_SECONDS",
    "stats_abandoned_after_hours": "STATS_ABANDONED_AFTER_HOURS",
    "rated_turn_seconds": "RATED_TURN_SECONDS",
    "rated_timeout_limit": "RATED_TIMEOUT_LIMIT",
}

#: Each part of the webhook delivery policy (``WebhookSettings``) and the setting it is read from.
WEBHOOK_SETTINGS = {
    "timeout": "WEBHOOK_TIMEOUT_SECONDS",
    "max_attempts": "WEBHOOK_MAX_ATTEMPTS",
    "first_retry": "WEBHOOK_RETRY_SECONDS",
    "allow_private_addresses": "WEBHOOK_ALLOW_PRIVATE_ADDRESSES",
    "secret_overlap": "WEBHOOK_SECRET_OVERLAP_SECONDS",
}


def bootstrap(
    store: StorePort,
    config: Mapping[str, Any] | None = None,
    *,
    clock: Callable[[], datetime] = utcnow,
    wait_clock: WaitClock | None = None,
    offload: Callable[..., Any] | None = None,
    reply_floor: ReplyFloor | None = None,
    resolve: Resolver = resolve_host,
    send: Sender | None = None,
) -> MessageBus:
    """The message bus of one process, every handler given its dependencies.

    ``config`` is the app's configuration (:func:`api.config.from_environ`); a setting it does
    not hold leaves the service's own default (the tests pass only what they mean to change,
    and get no reply floor, so no pause). ``clock`` is the time of turn clocks, waiter slots and
    webhook retries; ``wait_clock`` the one waits are measured and slept on; ``offload`` runs
    CPU-heavy pure work (default: a gevent worker's native threads, else in place);
    ``reply_floor`` replaces ``BOT_REPLY_FLOOR_MS``'s; ``resolve`` and ``send`` are the webhook
    sender's name lookup and POST (default: the system's, and httpx over checked connections).
    """
    config = config or {}
    flow = MatchFlow(
        store,
        SnapshotCache(**given(config, {"max_entries": "SNAPSHOT_CACHE_SIZE"})),
        waiter=Waiter(store, now=clock, clock=wait_clock, **given(config, {"per_address": "WAITERS_PER_ADDRESS"})),
        now=clock,
        limits=WorkLimits(**given(config, LIMIT_SETTINGS)),
        offload=offload or cpu_offload(),
        reply_floor=reply_floor or reply_floor_of(config),
        **given(config, {"allow_client_seed": "ALLOW_CLIENT_SEED"}),
    )
    courier = Courier(store, WebhookSettings(**given(config, WEBHOOK_SETTINGS)), now=clock, resolve=resolve, send=send)
    dependencies = {"flow": flow, "courier": courier}
    return MessageBus({command: inject(handler, dependencies) for command, handler in HANDLERS.items()}, flow)


def given(config: Mapping[str, Any], settings: Mapping[str, str]) -> dict[str, Any]:
    """The keyword arguments ``settings`` (argument -> setting) names that ``config`` holds."""
    return {argument: config[setting] for argument, setting in settings.items() if setting in config}


def reply_floor_of(config: Mapping[str, Any]) -> ReplyFloor:
    """The bots' reply floors from ``BOT_REPLY_FLOOR_MS`` (absent: none)."""
    millis = config.get("BOT_REPLY_FLOOR_MS")
    return NO_FLOOR if millis is None else ReplyFloor.from_millis(millis)


def inject(handler: Callable[..., Any], dependencies: Mapping[str, Any]) -> Callable[[Any], Any]:
    """``handler(command, **its dependencies)`` as a function of the command alone: a handler's
    parameters after the command name what it needs (``flow``, ``courier``)."""
    wanted = list(inspect.signature(handler).parameters)[1:]
    unknown = [name for name in wanted if name not in dependencies]
    if unknown:
        raise TypeError(f"{handler.__qualname__} needs {', '.join(unknown)}: no such dependency")
    return partial(handler, **{name: dependencies[name] for name in wanted})


def open_store(config: Mapping[str, Any]) -> Store:
    """The SQL store ``DATABASE_URL`` names, migrated first where ``AUTO_MIGRATE`` says so."""
    store = Store(
        make_engine(config["DATABASE_URL"], pool_size=config["DB_POOL_SIZE"]),
        on_commit=commit_notice(config["COMMIT_NOTICE_FD"]),
    )
    if config["AUTO_MIGRATE"]:
        upgrade(store.engine, script_location=config["MIGRATIONS_DIR"])
    return store
