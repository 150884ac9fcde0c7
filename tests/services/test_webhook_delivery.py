"""The delivery worker against a real receiver on loopback, on the SQL store: signed as
documented, retried with backoff on an injected clock (no sleeps), every attempt logged,
replayed on demand, given up after the attempts allowed."""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from datetime import UTC, datetime, timedelta

import pytest
from prometheus_client import REGISTRY
from standardwebhooks import Webhook

from api.services.bus import MessageBus
from api.services.commands import (
    AddWebhook,
    Caller,
    CreatePortal,
    GetWebhook,
    ListDeliveries,
    ReplayDelivery,
    RotateWebhookSecret,
)
from api.services.webhook_delivery import LEASE_MARGIN
from api.services.webhook_worker import WebhookWorker
from api.services.webhooks import MAX_SECRET_OVERLAP
from api.store import Store
from tests.webhook_receiver import HANG, SignatureError, running_receiver, verify

from .support import ANA, GREEDY, create, wired

TIMEOUT = 0.3  # the worker's, in seconds: what a hanging receiver costs the test


@pytest.fixture
def sql_store(database_url):
    store = Store.from_url(database_url)
    yield store
    store.dispose()


@pytest.fixture
def sql_bus(sql_store, clock) -> MessageBus:
    return wired(sql_store, clock)


def worker(store, clock, resolve=None, **settings) -> WebhookWorker:
    """A delivery worker over a bus of its own on ``store``, its policy from these settings."""
    config = {
        "WEBHOOK_TIMEOUT_SECONDS": TIMEOUT,
        "WEBHOOK_MAX_ATTEMPTS": 5,
        "WEBHOOK_ALLOW_PRIVATE_ADDRESSES": True,
        **settings,
    }
    return WebhookWorker(wired(store, clock, config, **({"resolve": resolve} if resolve else {})))


def one_delivery(bus: MessageBus, url: str, resolve=None) -> tuple[str, dict, dict]:
    """A portal with one endpoint for match.created, and a match: (portal id, hook, created)."""
    acme = bus.handle(CreatePortal("acme"))["id"]
    hook = bus.handle(AddWebhook(acme, url, ("match.created",), allow_private_addresses=True, resolve=resolve))
    return acme, hook, create(bus, ANA, GREEDY, caller=Caller(acme))


def log_of(bus: MessageBus, portal_id: str, hook: dict) -> dict:
    (delivery,) = bus.handle(ListDeliveries(portal_id, hook["id"]))["items"]
    return delivery


def test_fails_times_out_and_comes_back_retried_with_backoff(sql_bus, sql_store, clock):
    with running_receiver(500, HANG, 200) as receiver:
        acme, hook, created = one_delivery(sql_bus, receiver.url)
        sender = worker(sql_store, clock)

        assert sender.run_once() == 1  # 500
        delivery = log_of(sql_bus, acme, hook)
        assert delivery["status"] == "pending" and delivery["attempts"] == 1
        assert delivery["log"][0]["status_code"] == 500 and delivery["log"][0]["error"] == "answered 500"
        assert delivery["next_attempt_at"] == (clock() + timedelta(seconds=10)).isoformat()
        clock.advance(9.9)
        assert sender.run_once() == 0  # not due yet
        clock.advance(0.1)

        assert sender.run_once() == 1  # the receiver holds the request: the worker times out
        receiver.release.set()
        delivery = log_of(sql_bus, acme, hook)
        assert delivery["log"][0]["status_code"] is None and delivery["log"][0]["error"].startswith("timed out")
        assert delivery["log"][0]["duration_ms"] >= TIMEOUT * 1000 * 0.9
        assert delivery["next_attempt_at"] == (clock() + timedelta(seconds=20)).isoformat()  # doubled
        clock.advance(19.9)
        assert sender.run_once() == 0
        clock.advance(0.1)

        assert sender.run_once() == 1  # back: 200
        delivery = log_of(sql_bus, acme, hook)
        assert delivery["status"] == "delivered" and delivery["next_attempt_at"] is None
        assert delivery["delivered_at"] == clock().isoformat()
        assert [(a["attempt"], a["status_code"]) for a in delivery["log"]] == [(3, 200), (2, None), (1, 500)]
        assert [a["error"] is None for a in delivery["log"]] == [True, False, False]

        # what arrived, three times the same delivery, each signed afresh and verifiable
        assert len(receiver.received) == 3
        for got in receiver.received:
            assert got.headers["Content-Type"] == "application/json"
            assert got.headers["Boneyard-Event"] == "match.created"
            assert got.headers["Boneyard-Delivery"] == delivery["id"]
            payload = verify(hook["secret"], got.headers["Boneyard-Signature"], got.body, clock().timestamp())
            assert payload == delivery["payload"]
            assert payload["id"] == delivery["id"] and payload["match_id"] == created["id"]
        last = receiver.received[-1]
        with pytest.raises(SignatureError, match="mismatch"):
            verify(hook["secret"], last.headers["Boneyard-Signature"], last.body + b" ", clock().timestamp())
        with pytest.raises(SignatureError, match="mismatch"):
            verify("whsec_" + "x" * 43, last.headers["Boneyard-Signature"], last.body, clock().timestamp())
        with pytest.raises(SignatureError, match="too old"):
            verify(hook["secret"], last.headers["Boneyard-Signature"], last.body, clock().timestamp() + 301)

        # a replay sends it again: same id and body, a new attempt in the log
        assert sender.run_once() == 0
        replayed = sql_bus.handle(ReplayDelivery(acme, hook["id"], delivery["id"]))
        assert replayed["status"] == "pending" and replayed["next_attempt_at"] == clock().isoformat()
        assert sender.run_once() == 1
        assert len(receiver.received) == 4
        assert receiver.received[3].headers["Boneyard-Delivery"] == delivery["id"]
        assert receiver.received[3].body == receiver.received[0].body
        again = log_of(sql_bus, acme, hook)
        assert again["status"] == "delivered" and [a["attempt"] for a in again["log"]] == [4, 3, 2, 1]


def deliveries_counted() -> dict[tuple[str, str], float]:
    """``boneyard_webhook_deliveries_total`` by (outcome, attempt), as this process counted them."""
    return {
        (sample.labels["outcome"], sample.labels["attempt"]): sample.value
        for family in REGISTRY.collect()
        if family.name == "boneyard_webhook_deliveries"
        for sample in family.samples
        if sample.name.endswith("_total")
    }


def test_given_up_after_the_attempts_allowed_then_replayed(sql_bus, sql_store, clock):
    counted = deliveries_counted()
    with running_receiver(500, 502, 503, 500, 200) as receiver:
        acme, hook, _ = one_delivery(sql_bus, receiver.url)
        sender = worker(sql_store, clock, WEBHOOK_MAX_ATTEMPTS=3)
        waits = []
        for _ in range(3):
            assert sender.run_once() == 1
            delivery = log_of(sql_bus, acme, hook)
            if delivery["next_attempt_at"] is not None:
                waits.append(delivery["next_attempt_at"])
                clock.advance(3600)
        assert delivery["status"] == "failed" and delivery["next_attempt_at"] is None
        assert [a["status_code"] for a in delivery["log"]] == [503, 502, 500]
        clock.advance(7200)
        assert sender.run_once() == 0  # failed stays failed ...
        sql_bus.handle(ReplayDelivery(acme, hook["id"], delivery["id"]))
        assert sender.run_once() == 1  # ... until replayed: a new round of attempts
        assert log_of(sql_bus, acme, hook)["status"] == "pending"
        clock.advance(10)
        assert sender.run_once() == 1
        delivery = log_of(sql_bus, acme, hook)
        assert delivery["status"] == "delivered" and delivery["attempts"] == 5
        assert len(receiver.received) == 5
    now = deliveries_counted()  # each attempt by its outcome and its number in its round
    added = {key: now[key] - counted.get(key, 0) for key in now if now[key] != counted.get(key, 0)}
    assert added == {("retrying", "1"): 2, ("retrying", "2"): 1, ("failed", "3"): 1, ("delivered", "2"): 1}


def test_a_private_destination_is_refused_at_delivery_time(sql_bus, sql_store, clock):
    with running_receiver() as receiver:
        acme, hook, _ = one_delivery(sql_bus, receiver.url)  # registered where private addresses were allowed
        assert worker(sql_store, clock, WEBHOOK_ALLOW_PRIVATE_ADDRESSES=False).run_once() == 1
        delivery = log_of(sql_bus, acme, hook)
        assert delivery["log"][0]["error"].startswith("refused destination") and delivery["status"] == "pending"
        assert receiver.received == []  # nothing was sent


def test_a_closed_port_is_a_failed_attempt(sql_bus, sql_store, clock):
    with running_receiver() as receiver:
        closed = receiver.url
    acme, hook, _ = one_delivery(sql_bus, closed)
    assert worker(sql_store, clock).run_once() == 1
    delivery = log_of(sql_bus, acme, hook)
    assert delivery["log"][0]["status_code"] is None and "ConnectError" in delivery["log"][0]["error"]


def test_the_connection_goes_to_the_address_checked_and_nowhere_else(sql_bus, sql_store, clock):
    """The worker resolves a name once, checks the answer, and connects to it: here a name no
    DNS knows reaches the receiver only through the worker's resolver, and is refused when that
    resolver's answer is a loopback address and private addresses are not allowed."""
    asked: list[tuple[str, int]] = []

    def rebinding_dns(host: str, port: int) -> list[str]:
        asked.append((host, port))
        return ["127.0.0.1"]

    with running_receiver() as receiver:
        port = int(receiver.url.split(":")[2].split("/")[0])
        acme, hook, _ = one_delivery(sql_bus, f"http://hooks.invalid:{port}/hooks/boneyard", rebinding_dns)
        asked.clear()
        strict = worker(sql_store, clock, rebinding_dns, WEBHOOK_ALLOW_PRIVATE_ADDRESSES=False)
        assert strict.run_once() == 1
        delivery = log_of(sql_bus, acme, hook)
        assert delivery["log"][0]["error"].startswith("refused destination") and delivery["status"] == "pending"
        assert receiver.received == [] and asked == [("hooks.invalid", port)]

        clock.advance(10)
        assert worker(sql_store, clock, resolve=rebinding_dns).run_once() == 1
        assert log_of(sql_bus, acme, hook)["status"] == "delivered"
        (got,) = receiver.received
        assert got.headers["Host"] == f"hooks.invalid:{port}"


def spec_signature(whsec: str, msg_id: str, timestamp: str, body: bytes) -> str:
    """Standard Webhooks' signature, written from its specification (not from the server's
    code): the key is what follows ``whsec_``, base64-decoded; the HMAC-SHA256 is over
    ``"{id}.{timestamp}.{body}"``; the header is ``v1,`` and the MAC in base64."""
    key = base64.b64decode(whsec.removeprefix("whsec_"))
    mac = hmac.new(key, f"{msg_id}.{timestamp}.".encode() + body, hashlib.sha256).digest()
    return "v1," + base64.b64encode(mac).decode()


def test_a_delivery_carries_standard_webhooks_headers_beside_its_own(sql_bus, sql_store, clock):
    with running_receiver(200) as receiver:
        acme, hook, _ = one_delivery(sql_bus, receiver.url)
        assert worker(sql_store, clock).run_once() == 1
    (got,) = receiver.received
    delivery = log_of(sql_bus, acme, hook)
    timestamp = str(int(clock().timestamp()))
    assert got.headers["webhook-id"] == delivery["id"] == got.headers["Boneyard-Delivery"]
    assert got.headers["webhook-timestamp"] == timestamp
    assert got.headers["webhook-signature"] == spec_signature(hook["secret"], delivery["id"], timestamp, got.body)
    # The official library signs the same (its verify() reads the wall clock: sign() does not).
    sent_at = datetime.fromtimestamp(int(timestamp), UTC)
    library = Webhook(hook["secret"]).sign(delivery["id"], sent_at, got.body.decode())
    assert got.headers["webhook-signature"] == library
    # Boneyard-Signature as before: one timestamp, one v1 for one secret, the documented recipe verifies it.
    assert re.fullmatch(rf"t={timestamp},v1=[0-9a-f]{{64}}", got.headers["Boneyard-Signature"])
    verified = verify(hook["secret"], got.headers["Boneyard-Signature"], got.body, clock().timestamp())
    assert verified["id"] == delivery["id"]


def test_a_rotated_secret_signs_beside_the_new_one_for_the_overlap_then_is_dropped(sql_bus, sql_store, clock):
    with running_receiver(200, 200, 200) as receiver:
        acme, hook, _ = one_delivery(sql_bus, receiver.url)
        sql_bus = wired(sql_store, clock, {"WEBHOOK_SECRET_OVERLAP_SECONDS": 600})
        rotated = sql_bus.handle(RotateWebhookSecret(acme, hook["id"]))
        old, new = hook["secret"], rotated["secret"]
        assert rotated["previous_secret_until"] == (clock() + timedelta(seconds=600)).isoformat()
        sender = worker(sql_store, clock)
        assert sender.run_once() == 1
        delivery = log_of(sql_bus, acme, hook)

        clock.advance(599)  # still in the overlap: a replay is signed with both
        sql_bus.handle(ReplayDelivery(acme, hook["id"], delivery["id"]))
        assert sender.run_once() == 1
        clock.advance(1)  # the overlap has ended: the new secret alone, and the old one forgotten
        sql_bus.handle(ReplayDelivery(acme, hook["id"], delivery["id"]))
        assert sender.run_once() == 1
        assert sql_bus.handle(GetWebhook(acme, hook["id"]))["previous_secret_until"] is None

    _, during, after = receiver.received  # the first attempt, just after the rotation, is signed with both too
    for got, secrets_used in ((during, (new, old)), (after, (new,))):
        timestamp = got.headers["webhook-timestamp"]
        assert got.headers["webhook-signature"] == " ".join(
            spec_signature(secret, delivery["id"], timestamp, got.body) for secret in secrets_used
        )
        assert got.headers["Boneyard-Signature"].count(",v1=") == len(secrets_used)
        for secret in secrets_used:  # a receiver holding either secret verifies it
            verify(secret, got.headers["Boneyard-Signature"], got.body, int(timestamp))
            sent_at = datetime.fromtimestamp(int(timestamp), UTC)
            assert Webhook(secret).sign(delivery["id"], sent_at, got.body.decode()) in got.headers["webhook-signature"]
    with pytest.raises(SignatureError, match="mismatch"):
        verify(old, after.headers["Boneyard-Signature"], after.body, int(after.headers["webhook-timestamp"]))


def test_the_overlap_is_bounded(store):
    for fine in (0, MAX_SECRET_OVERLAP):
        wired(store, config={"WEBHOOK_SECRET_OVERLAP_SECONDS": fine})
    assert MAX_SECRET_OVERLAP == 7 * 24 * 3600
    for wrong in (-1, MAX_SECRET_OVERLAP + 1):
        with pytest.raises(ValueError, match="WEBHOOK_SECRET_OVERLAP_SECONDS is 0 to 604800 seconds"):
            wired(store, config={"WEBHOOK_SECRET_OVERLAP_SECONDS": wrong})


def test_without_an_overlap_a_rotation_stops_the_old_secret_at_once(sql_store, clock):
    bus = wired(sql_store, clock, {"WEBHOOK_SECRET_OVERLAP_SECONDS": 0})
    acme = bus.handle(CreatePortal("acme"))["id"]
    hook = bus.handle(AddWebhook(acme, "http://127.0.0.1:9/x", allow_private_addresses=True))
    assert hook["previous_secret_until"] is None
    assert bus.handle(RotateWebhookSecret(acme, hook["id"]))["previous_secret_until"] is None
    # A rotation may name its own overlap, within the same bound.
    chosen = bus.handle(RotateWebhookSecret(acme, hook["id"], overlap_seconds=30))
    assert chosen["previous_secret_until"] == (clock() + timedelta(seconds=30)).isoformat()
    with pytest.raises(ValueError, match="overlap_seconds is 0 to 604800 seconds"):
        bus.handle(RotateWebhookSecret(acme, hook["id"], overlap_seconds=MAX_SECRET_OVERLAP + 1))


class Killed(BaseException):
    """The sender's process dying mid-send (nothing of it runs after)."""


def killed_mid_send(url: str, body: bytes, headers: dict[str, str], timeout: float) -> int:
    raise Killed


@pytest.mark.parametrize(
    ("timeout", "lease"),
    [(None, 20.0), (TIMEOUT, 3 * TIMEOUT + LEASE_MARGIN)],
    ids=["default timeout: 20 s", "short timeout"],
)
def test_a_sender_killed_holding_a_claim_leaves_it_to_another_after_the_lease(
    sql_bus, sql_store, clock, timeout, lease
):
    """The lease is one attempt at its longest (connect, send, answer: 3 timeouts) and the margin."""
    config = {"WEBHOOK_ALLOW_PRIVATE_ADDRESSES": True}
    if timeout is not None:
        config["WEBHOOK_TIMEOUT_SECONDS"] = timeout
    with running_receiver(200) as receiver:
        acme, hook, _ = one_delivery(sql_bus, receiver.url)
        doomed = WebhookWorker(wired(sql_store, clock, config, send=killed_mid_send))
        with pytest.raises(Killed):
            doomed.run_once()  # it claimed the delivery, then died with the claim held
        survivor = WebhookWorker(wired(sql_store, clock, config))
        clock.advance(lease)
        assert survivor.run_once() == 0  # the lease still holds at its very end
        clock.advance(0.001)
        assert survivor.run_once() == 1
    assert log_of(sql_bus, acme, hook)["status"] == "delivered" and len(receiver.received) == 1
