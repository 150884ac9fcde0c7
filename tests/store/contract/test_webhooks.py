"""``uow.webhooks``: a portal's endpoints and the outbox: due deliveries claimed oldest first, held
for a lease, settled by an attempt's outcome; an endpoint removed with its deliveries and their log."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy.exc import IntegrityError

from api.store.webhooks import DELIVERED, FAILED, PENDING, AttemptRecord, NewDelivery, WebhookRecord

NOW = datetime(2030, 1, 1, tzinfo=UTC)
LEASE = NOW + timedelta(seconds=60)
PORTAL, HOOK = "p" * 32, "w" * 32
WEBHOOK = WebhookRecord(HOOK, PORTAL, "https://93.184.216.34/x", ("match.ended",), "whsec_x", NOW)


def outbox(store, count: int) -> list[str]:
    with store.unit_of_work() as uow:
        uow.portals.add(PORTAL, "acme", NOW)
        uow.webhooks.add(WEBHOOK)
        ids = [f"{n:032x}" for n in range(count)]
        for n, delivery_id in enumerate(ids):
            row = NewDelivery(delivery_id, HOOK, "match.ended", "m" * 32, n + 1, "{}")
            uow.webhooks.add_deliveries([row], NOW - timedelta(seconds=count - n))
        uow.commit()
    return ids


def test_endpoints_are_a_portals_own(store):
    outbox(store, 0)
    later = WebhookRecord("v" * 32, PORTAL, "https://93.184.216.34/y", ("match.started", "match.ended"), "s2", LEASE)
    with store.unit_of_work() as uow:
        uow.webhooks.add(later)
        assert uow.webhooks.for_portal(PORTAL) == [WEBHOOK, later]
        assert uow.webhooks.get(PORTAL, HOOK) == WEBHOOK
        assert uow.webhooks.get("q" * 32, HOOK) is None  # another portal asks
        assert uow.webhooks.set_secret(PORTAL, HOOK, "whsec_new")
        assert not uow.webhooks.set_secret("q" * 32, HOOK, "whsec_theirs")
        uow.commit()
    with store.unit_of_work(readonly=True) as uow:
        assert uow.webhooks.get(PORTAL, HOOK).secret == "whsec_new"
        assert uow.webhooks.for_portal("q" * 32) == []


def test_a_claim_holds_due_deliveries_for_its_lease_and_an_attempt_ends_it(store):
    ids = outbox(store, 3)
    with store.unit_of_work() as uow:
        claimed = uow.webhooks.claim_due(NOW, LEASE, 2)
        assert [d.id for d in claimed] == ids[:2]
        assert claimed[0].url == "https://93.184.216.34/x" and claimed[0].webhook.secrets_at(NOW) == ("whsec_x",)
        uow.commit()
    with store.unit_of_work() as uow:  # another worker: only what is not claimed
        assert [d.id for d in uow.webhooks.claim_due(NOW, LEASE, 10)] == [ids[2]]
        uow.commit()
    with store.unit_of_work(readonly=True) as uow:
        assert not uow.webhooks.any_due(NOW)
    with store.unit_of_work() as uow:
        assert uow.webhooks.lock_delivery(ids[0]) == (0, 0)
        attempt = AttemptRecord(1, NOW, 12, 204, None)
        uow.webhooks.record_attempt(ids[0], attempt, round_attempts=1, status=DELIVERED, next_attempt_at=None)
        attempt = AttemptRecord(1, NOW, 5000, None, "timed out")
        later = NOW + timedelta(seconds=10)
        uow.webhooks.record_attempt(ids[1], attempt, round_attempts=1, status=PENDING, next_attempt_at=later)
        uow.commit()
    with store.unit_of_work(readonly=True) as uow:
        assert uow.webhooks.any_due(later) and not uow.webhooks.any_due(NOW)
    with store.unit_of_work() as uow:  # the lease of the retried one ended with its attempt; the third's holds
        assert [d.id for d in uow.webhooks.claim_due(later, LEASE, 10)] == [ids[1]]
        assert uow.webhooks.lock_delivery(ids[1]) == (1, 1)
        uow.commit()
    with store.unit_of_work(readonly=True) as uow:
        delivered = uow.webhooks.delivery(HOOK, ids[0])
        assert (delivered.status, delivered.delivered_at, delivered.attempts, delivered.next_attempt_at) == (
            DELIVERED,
            NOW,
            1,
            None,
        )
        assert delivered.log == (AttemptRecord(1, NOW, 12, 204, None),)
        assert uow.webhooks.delivery("v" * 32, ids[0]) is None  # not that endpoint's
        page = uow.webhooks.deliveries(HOOK, 2)
        assert [d.id for d in page] == [ids[2], ids[1]]
        assert [d.id for d in uow.webhooks.deliveries(HOOK, 2, (page[-1].created_at, page[-1].id))] == [ids[0]]
    with store.unit_of_work() as uow:
        assert not uow.webhooks.remove("q" * 32, HOOK)  # another portal's: untouched
        assert uow.webhooks.remove(PORTAL, HOOK)
        uow.commit()
    with store.unit_of_work() as uow:  # lock_delivery locks (FOR UPDATE): a writing transaction
        assert uow.webhooks.for_portal(PORTAL) == [] and uow.webhooks.lock_delivery(ids[0]) is None
        assert uow.webhooks.deliveries(HOOK, 10) == []


def test_the_log_is_newest_first_and_a_replay_starts_a_new_round(store):
    [delivery_id] = outbox(store, 1)
    with store.unit_of_work() as uow:
        for number in (1, 2):
            attempt = AttemptRecord(number, NOW + timedelta(seconds=number), 3, 500, None)
            status = FAILED if number == 2 else PENDING
            uow.webhooks.record_attempt(
                delivery_id, attempt, round_attempts=number, status=status, next_attempt_at=None
            )
        uow.commit()
    with store.unit_of_work() as uow:
        assert [a.number for a in uow.webhooks.delivery(HOOK, delivery_id).log] == [2, 1]
        assert not uow.webhooks.any_due(LEASE)
        assert uow.webhooks.requeue(HOOK, delivery_id, LEASE)
        assert not uow.webhooks.requeue("v" * 32, delivery_id, LEASE)
        uow.commit()
    with store.unit_of_work() as uow:
        again = uow.webhooks.delivery(HOOK, delivery_id)
        assert (again.status, again.attempts, again.round_attempts, again.next_attempt_at) == (PENDING, 2, 0, LEASE)
        assert [d.id for d in uow.webhooks.claim_due(LEASE, LEASE + timedelta(minutes=1), 10)] == [delivery_id]


def test_an_attempt_is_logged_once_with_a_status_the_schema_knows(store):
    [delivery_id] = outbox(store, 1)
    with store.unit_of_work() as uow:
        uow.webhooks.record_attempt(
            delivery_id, AttemptRecord(1, NOW, 3, 500, None), round_attempts=1, status=PENDING, next_attempt_at=LEASE
        )
        uow.commit()
    with store.unit_of_work() as uow, pytest.raises(IntegrityError):
        uow.webhooks.record_attempt(
            delivery_id, AttemptRecord(1, NOW, 3, 500, None), round_attempts=1, status=PENDING, next_attempt_at=LEASE
        )
    with store.unit_of_work() as uow, pytest.raises(IntegrityError):
        uow.webhooks.record_attempt(
            delivery_id, AttemptRecord(2, NOW, 3, 500, None), round_attempts=2, status="lost", next_attempt_at=None
        )
    with store.unit_of_work() as uow, pytest.raises(IntegrityError):
        uow.webhooks.record_attempt(
            "0" * 32, AttemptRecord(1, NOW, 3, 500, None), round_attempts=1, status=PENDING, next_attempt_at=None
        )


def test_an_endpoint_is_of_a_portal_and_a_delivery_of_an_endpoint(store):
    outbox(store, 1)
    with store.unit_of_work() as uow, pytest.raises(IntegrityError):
        uow.webhooks.add(WebhookRecord("v" * 32, "q" * 32, "https://93.184.216.34/y", (), "s", NOW))
    with store.unit_of_work() as uow, pytest.raises(IntegrityError):
        uow.webhooks.add(WEBHOOK)  # its id is taken
    with store.unit_of_work() as uow, pytest.raises(IntegrityError):
        uow.webhooks.add_deliveries([NewDelivery("d" * 32, "v" * 32, "match.ended", "m" * 32, 1, "{}")], NOW)
    with store.unit_of_work() as uow, pytest.raises(IntegrityError):
        uow.webhooks.add_deliveries([NewDelivery(f"{0:032x}", HOOK, "match.ended", "m" * 32, 1, "{}")], NOW)


def test_a_rotation_keeps_the_replaced_secret_for_its_overlap_then_drops_it(store):
    ids = outbox(store, 1)
    until = NOW + timedelta(seconds=30)  # ends within the claim's lease
    with store.unit_of_work() as uow:
        assert uow.webhooks.set_secret(PORTAL, HOOK, "whsec_new", until)
        uow.commit()
    with store.unit_of_work() as uow:
        hook = uow.webhooks.get(PORTAL, HOOK)
        assert (hook.secret, hook.previous_secret, hook.previous_secret_until) == ("whsec_new", "whsec_x", until)
        assert not uow.webhooks.any_ended_secret(until - timedelta(microseconds=1))
        (claimed,) = uow.webhooks.claim_due(NOW, LEASE, 10)
        assert claimed.id == ids[0] and claimed.webhook.secrets_at(NOW) == ("whsec_new", "whsec_x")  # current first
        assert claimed.webhook.secrets_at(until) == ("whsec_new",)  # the overlap's end, even mid-claim
        uow.commit()
    with store.unit_of_work() as uow:  # the overlap has ended: the replaced secret is dropped
        assert uow.webhooks.any_ended_secret(until)
        assert uow.webhooks.drop_ended_secrets(until) == 1
        assert not uow.webhooks.any_ended_secret(until)
        hook = uow.webhooks.get(PORTAL, HOOK)
        assert (hook.previous_secret, hook.previous_secret_until) == (None, None)
        uow.commit()


def test_a_rotation_without_an_overlap_or_a_second_one_drops_the_older_secret_at_once(store):
    outbox(store, 0)
    with store.unit_of_work() as uow:
        uow.webhooks.set_secret(PORTAL, HOOK, "whsec_2", NOW + timedelta(hours=1))
        uow.webhooks.set_secret(PORTAL, HOOK, "whsec_3", NOW + timedelta(hours=2))  # only whsec_2 stays
        assert uow.webhooks.get(PORTAL, HOOK).secrets_at(NOW) == ("whsec_3", "whsec_2")
        uow.webhooks.set_secret(PORTAL, HOOK, "whsec_4")
        hook = uow.webhooks.get(PORTAL, HOOK)
        assert (hook.secret, hook.previous_secret, hook.previous_secret_until) == ("whsec_4", None, None)
        uow.commit()
