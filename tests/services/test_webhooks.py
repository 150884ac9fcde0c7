"""Webhooks as use cases, on the memory store: the outbox is written in the append's own
transaction, per endpoint and the events it chose, with public data only."""

from __future__ import annotations

import base64
import json
import re
from datetime import UTC, datetime
from typing import Any

import pytest
from standardwebhooks import Webhook

from api.services import effects, errors, webhooks
from api.services.bus import MessageBus
from api.services.commands import (
    Act,
    AddWebhook,
    Caller,
    CreatePortal,
    GetView,
    GetWebhook,
    ListDeliveries,
    ListWebhooks,
    RemoveWebhook,
    ReplayDelivery,
    RotateWebhookSecret,
    SweepClocks,
)
from api.store.memory import MemoryStore, MemoryWebhooks

from .support import ANA, BO, GREEDY, create, play_to_end, tokens_of

PUBLIC_ADDRESS = ["93.184.216.34"]
HOOK_URL = "https://hooks.example.com/boneyard"
SECRET_KEYS = {"hand", "hands", "boneyard", "seed", "secret", "token", "client_seed"}


def public_dns(host: str, port: int) -> list[str]:
    return PUBLIC_ADDRESS


def portal(bus: MessageBus, name: str = "acme") -> str:
    return bus.handle(CreatePortal(name))["id"]


def add_hook(bus: MessageBus, portal_id: str, events: tuple[str, ...] | None = None, url: str = HOOK_URL) -> dict:
    return bus.handle(AddWebhook(portal_id, url, events, resolve=public_dns))


def outbox(store: MemoryStore, webhook_id: str | None = None) -> list[dict[str, Any]]:
    """The payloads in the outbox (of one endpoint), oldest first."""
    rows = sorted(
        (d for d, _ in store.tables.webhook_deliveries.values() if webhook_id in (None, d.webhook_id)),
        key=lambda d: (d.seq, d.event_type),
    )
    return [json.loads(d.body) for d in rows]


def keys_in(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in keys_in(v)}
    if isinstance(value, list):
        return {k for v in value for k in keys_in(v)}
    return set()


def test_a_portal_match_writes_one_row_per_endpoint_and_wanted_event(bus, store):
    acme = portal(bus)
    every = add_hook(bus, acme)
    endings = add_hook(bus, acme, ("match.ended", "hand.ended"))
    assert every["secret"].startswith("whsec_") and every["events"] == list(webhooks.EVENT_TYPES)
    created = create(bus, ANA, GREEDY, rules={"target": 20}, caller=Caller(acme))
    first = outbox(store, every["id"])
    assert [p["type"] for p in first][:2] == ["match.created", "match.started"]
    assert first[0]["seq"] == 1 and first[0]["match_id"] == created["id"]
    assert first[0]["data"]["seats"] == [
        {"seat": 0, "name": "Ana", "type": "remote", "level": None, "player_ref": "ana"},
        {"seat": 1, "name": "Greedy", "type": "bot", "level": "greedy", "player_ref": None},
    ]
    turn = [p for p in first if p["type"] == "turn.started"]
    assert [(t["data"]["seat"], t["data"]["player_ref"]) for t in turn] == [(0, "ana")]
    assert outbox(store, endings["id"]) == []

    play_to_end(bus, created["id"], tokens_of(created))
    ended = outbox(store, endings["id"])
    assert {p["type"] for p in ended} == {"hand.ended", "match.ended"}
    assert sum(p["type"] == "match.ended" for p in ended) == 1
    last = ended[-1]
    assert last["type"] == "match.ended" and set(last["data"]) == {"winner", "scores"}
    # every delivery of the same event carries the same data, under its own id
    mine = {(p["seq"], p["type"]): p["data"] for p in outbox(store, every["id"])}
    assert all(mine[(p["seq"], p["type"])] == p["data"] for p in ended)
    assert len({p["id"] for p in outbox(store)}) == len(outbox(store))


def test_payloads_hold_no_hand_boneyard_or_seed(bus, store):
    acme = portal(bus)
    add_hook(bus, acme)
    created = create(bus, ANA, BO, GREEDY, rules={"target": 30}, caller=Caller(acme))
    play_to_end(bus, created["id"], tokens_of(created))
    sent = outbox(store)
    assert {p["type"] for p in sent} >= {"match.created", "match.started", "hand.ended", "match.ended", "turn.started"}
    for payload in sent:
        assert set(payload) == {"id", "type", "created_at", "match_id", "seq", "data"}
        assert not keys_in(payload) & SECRET_KEYS, payload
    started = next(p for p in sent if p["type"] == "match.started")["data"]
    assert started["boneyard_count"] == 28 - sum(started["hand_counts"])


def test_turn_started_only_when_the_turn_passes_to_a_remote_seat(bus, store):
    acme = portal(bus)
    hook = add_hook(bus, acme, ("turn.started",))
    created = create(bus, ANA, BO, caller=Caller(acme))
    tokens = tokens_of(created)
    seen = outbox(store, hook["id"])
    view = bus.handle(GetView(created["id"], tokens[0]))
    assert [p["data"]["seat"] for p in seen] == [view["turn"]]
    for _ in range(60):  # until someone has to draw: a draw keeps the turn, so no new turn.started
        seat = view["turn"]
        action = bus.handle(GetView(created["id"], tokens[seat]))["legal_actions"][0]
        before = len(outbox(store, hook["id"]))
        bus.handle(Act(created["id"], tokens[seat], action))
        after = outbox(store, hook["id"])
        view = bus.handle(GetView(created["id"], tokens[seat]))
        if action["type"] == "draw" and view["turn"] == seat:
            assert len(after) == before
            return
        assert view["status"] == "playing" and view["turn"] != seat
        assert len(after) == before + 1
        assert after[-1]["data"]["seat"] == view["turn"] and after[-1]["seq"] == view["seq"]
    pytest.skip("no draw in this deal")  # pragma: no cover - the fixed seed has one


def test_a_rolled_back_append_leaves_no_outbox_row(bus, store, monkeypatch):
    acme = portal(bus)
    add_hook(bus, acme)
    created = create(bus, ANA, BO, caller=Caller(acme))
    tokens = tokens_of(created)
    written = len(outbox(store))
    real = effects.record_webhooks

    def then_fail(*args: Any) -> int:
        assert real(*args) > 0  # the rows were written, in the append's transaction ...
        raise RuntimeError("the transaction fails after the append")

    monkeypatch.setattr(effects, "record_webhooks", then_fail)
    view = bus.handle(GetView(created["id"], tokens[0]))
    seat = view["turn"]
    action = bus.handle(GetView(created["id"], tokens[seat]))["legal_actions"][0]
    with pytest.raises(RuntimeError):
        bus.handle(Act(created["id"], tokens[seat], action))
    assert len(outbox(store)) == written  # ... and rolled back with it
    monkeypatch.setattr(effects, "record_webhooks", real)
    bus.handle(Act(created["id"], tokens[seat], action))
    assert len(outbox(store)) > written


def test_the_public_space_and_a_portal_without_endpoints(bus, store, monkeypatch):
    asked: list[str] = []
    real = MemoryWebhooks.for_portal

    def counted(self: MemoryWebhooks, portal_id: str) -> list:
        asked.append(portal_id)
        return real(self, portal_id)

    monkeypatch.setattr(MemoryWebhooks, "for_portal", counted)
    public = create(bus, BO, GREEDY)
    play_to_end(bus, public["id"], tokens_of(public))
    assert asked == []  # a public match never asks
    acme = portal(bus)
    create(bus, ANA, GREEDY, caller=Caller(acme))
    assert asked and set(asked) == {acme}  # a portal match asks for the portal's endpoints
    assert outbox(store) == []


def test_registration_is_checked(bus, store):
    acme = portal(bus)
    for url, reason in [
        ("ftp://hooks.example.com/x", "scheme"),
        ("https://user:pw@hooks.example.com/x", "credentials"),
        ("https:///x", "malformed"),
        ("https://hooks.example.com:99999/x", "malformed"),
        ("http://127.0.0.1:9000/x", "private_address"),
        ("http://10.1.2.3/x", "private_address"),
        ("http://169.254.169.254/latest/meta-data", "private_address"),
        ("http://[::1]/x", "private_address"),
        ("http://[::ffff:192.168.0.1]/x", "private_address"),
    ]:
        with pytest.raises(errors.InvalidWebhookUrl) as refused:
            add_hook(bus, acme, url=url)
        assert refused.value.extra["reason"] == reason, url
    with pytest.raises(errors.InvalidWebhookUrl) as refused:
        bus.handle(AddWebhook(acme, "https://intranet.example/x", resolve=lambda h, p: ["192.168.1.5"]))
    assert refused.value.extra["reason"] == "private_address"
    allowed = bus.handle(AddWebhook(acme, "http://127.0.0.1:9000/x", allow_private_addresses=True))
    assert allowed["url"] == "http://127.0.0.1:9000/x"
    with pytest.raises(errors.InvalidWebhookEvents) as refused:
        add_hook(bus, acme, ("match.ended", "match.exploded"))
    assert refused.value.extra["unknown"] == ["match.exploded"]
    with pytest.raises(errors.InvalidWebhookEvents):
        add_hook(bus, acme, ())
    assert add_hook(bus, acme, ("match.ended", "match.created", "match.ended"))["events"] == [
        "match.created",
        "match.ended",
    ]
    listed = bus.handle(ListWebhooks(acme))["items"]
    assert len(listed) == 2 and all("secret" not in h for h in listed)


def test_a_portal_sees_and_replays_only_its_own(bus, store):
    acme, rival = portal(bus, "acme"), portal(bus, "rival")
    hook = add_hook(bus, acme)
    create(bus, ANA, GREEDY, caller=Caller(acme))
    delivery = bus.handle(ListDeliveries(acme, hook["id"]))["items"][0]
    for command in (
        GetWebhook(rival, hook["id"]),
        ListDeliveries(rival, hook["id"]),
        ReplayDelivery(rival, hook["id"], delivery["id"]),
        RotateWebhookSecret(rival, hook["id"]),
        RemoveWebhook(rival, hook["id"]),
    ):
        with pytest.raises(errors.UnknownWebhook):
            bus.handle(command)
    other = add_hook(bus, rival)
    with pytest.raises(errors.UnknownDelivery):
        bus.handle(ReplayDelivery(rival, other["id"], delivery["id"]))
    assert bus.handle(ListWebhooks(rival))["items"] == [{k: v for k, v in other.items() if k != "secret"}]
    rotated = bus.handle(RotateWebhookSecret(acme, hook["id"]))["secret"]
    assert rotated.startswith("whsec_") and rotated != hook["secret"]
    assert store.tables.webhooks[hook["id"]].secret == rotated
    bus.handle(RemoveWebhook(acme, hook["id"]))
    assert outbox(store, hook["id"]) == []


def test_the_delivery_log_pages_newest_first(bus, store):
    acme = portal(bus)
    hook = add_hook(bus, acme)
    created = create(bus, ANA, GREEDY, rules={"target": 20}, caller=Caller(acme))
    play_to_end(bus, created["id"], tokens_of(created))
    everything = outbox(store, hook["id"])
    pages, cursor = [], None
    while True:
        page = bus.handle(ListDeliveries(acme, hook["id"], limit=3, cursor=cursor))
        pages += page["items"]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert len(pages) == len(everything) and len({d["id"] for d in pages}) == len(pages)
    stamps = [d["created_at"] for d in pages]
    assert stamps == sorted(stamps, reverse=True)
    with pytest.raises(errors.InvalidCursor):
        bus.handle(ListDeliveries(acme, hook["id"], cursor="yesterday"))


def test_a_seat_that_times_out_and_is_replaced(bus, store, clock):
    acme = portal(bus)
    hook = add_hook(bus, acme, ("seat.timed_out", "turn.started"))
    created = create(bus, ANA, BO, rules={"turn_seconds": 30, "timeout_limit": 1}, caller=Caller(acme))
    (first_turn,) = outbox(store, hook["id"])
    seat = first_turn["data"]["seat"]
    clock.advance(31)
    assert bus.handle(SweepClocks()) == 1
    timed_out = [p for p in outbox(store, hook["id"]) if p["type"] == "seat.timed_out"]
    ref = "ana" if seat == 0 else None
    assert [p["data"] for p in timed_out] == [
        {"seat": seat, "event": "turn_timed_out", "consecutive": 1, "player_ref": ref},
        {"seat": seat, "event": "seat_replaced", "level": timed_out[1]["data"]["level"], "player_ref": ref},
    ]
    assert timed_out[0]["seq"] < timed_out[1]["seq"] and timed_out[0]["match_id"] == created["id"]


def test_a_new_secret_is_a_standard_webhooks_secret_as_it_is():
    secret = webhooks.new_secret()
    assert re.fullmatch(r"whsec_[A-Za-z0-9+/]{43}=", secret)
    assert webhooks.standard_key(secret) == base64.b64decode(secret.removeprefix("whsec_"))
    assert len(webhooks.standard_key(secret)) == webhooks.SECRET_BYTES


def test_a_secret_made_before_in_url_safe_base64_keys_the_bytes_it_encodes():
    """Secrets were ``whsec_`` + ``secrets.token_urlsafe(32)``: their key is the bytes they
    encode, which the official library takes once ``-_`` after the prefix are written ``+/``
    (docs/webhooks.md)."""
    key = bytes(range(200, 232))  # encodes with both "-" and "_" in the URL-safe alphabet
    old = "whsec_" + base64.urlsafe_b64encode(key).decode().rstrip("=")
    assert "-" in old and "_" in old
    assert webhooks.standard_key(old) == key
    signed = webhooks.standard_signature([old], "msg_1", 1_900_000_000, b'{"a":1}')
    converted = "whsec_" + old.removeprefix("whsec_").replace("-", "+").replace("_", "/")
    at = datetime.fromtimestamp(1_900_000_000, UTC)
    assert signed == Webhook(converted).sign("msg_1", at, '{"a":1}')
    with pytest.raises(ValueError):
        webhooks.standard_key("whsec_not base64!")
