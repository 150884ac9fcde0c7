"""The webhook outbox in SQL: due deliveries claimed oldest first, held for a lease, given up
by an attempt's outcome; an endpoint removed with its deliveries and their log."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from api.store.webhooks import DELIVERED, PENDING, AttemptRecord, NewDelivery, WebhookRecord

NOW = datetime(2030, 1, 1, tzinfo=UTC)
LEASE = NOW + timedelta(seconds=60)


def outbox(uow_factory, count: int) -> list[str]:
    with uow_factory() as uow:
        uow.portals.add("p" * 32, "acme", NOW)
        uow.webhooks.add(WebhookRecord("w" * 32, "p" * 32, "https://93.184.216.34/x", ("match.ended",), "whsec_x", NOW))
        ids = [f"{n:032x}" for n in range(count)]
        for n, delivery_id in enumerate(ids):
            row = NewDelivery(delivery_id, "w" * 32, "match.ended", "m" * 32, n + 1, "{}")
            uow.webhooks.add_deliveries([row], NOW - timedelta(seconds=count - n))
        uow.commit()
    return ids


def test_a_claim_holds_due_deliveries_for_its_lease_and_an_attempt_ends_it(uow_factory):
    ids = outbox(uow_factory, 3)
    with uow_factory() as uow:
        claimed = uow.webhooks.claim_due(NOW, LEASE, 2)
        assert [d.id for d in claimed] == ids[:2]
        assert claimed[0].url == "https://93.184.216.34/x" and claimed[0].secret == "whsec_x"
        uow.commit()
    with uow_factory() as uow:  # another worker: only what is not claimed
        assert [d.id for d in uow.webhooks.claim_due(NOW, LEASE, 10)] == [ids[2]]
        uow.commit()
    with uow_factory(readonly=True) as uow:
        assert not uow.webhooks.any_due(NOW)
    with uow_factory() as uow:
        assert uow.webhooks.lock_delivery(ids[0]) == (0, 0)
        attempt = AttemptRecord(1, NOW, 12, 204, None)
        uow.webhooks.record_attempt(ids[0], attempt, round_attempts=1, status=DELIVERED, next_attempt_at=None)
        attempt = AttemptRecord(1, NOW, 5000, None, "timed out")
        later = NOW + timedelta(seconds=10)
        uow.webhooks.record_attempt(ids[1], attempt, round_attempts=1, status=PENDING, next_attempt_at=later)
        uow.commit()
    with uow_factory() as uow:  # the lease of the retried one ended with its attempt; the third's holds
        assert [d.id for d in uow.webhooks.claim_due(later, LEASE, 10)] == [ids[1]]
        uow.commit()
    with uow_factory(readonly=True) as uow:
        delivered = uow.webhooks.delivery("w" * 32, ids[0])
        assert (
            delivered.status == DELIVERED
            and delivered.delivered_at == NOW
            and delivered.log == (AttemptRecord(1, NOW, 12, 204, None),)
        )
        page = uow.webhooks.deliveries("w" * 32, 2)
        assert [d.id for d in page] == [ids[2], ids[1]]
        assert [d.id for d in uow.webhooks.deliveries("w" * 32, 2, (page[-1].created_at, page[-1].id))] == [ids[0]]
    with uow_factory() as uow:
        assert not uow.webhooks.remove("q" * 32, "w" * 32)  # another portal's: untouched
        assert uow.webhooks.remove("p" * 32, "w" * 32)
        uow.commit()
    with uow_factory() as uow:  # lock_delivery locks (FOR UPDATE): a writing transaction
        assert uow.webhooks.for_portal("p" * 32) == [] and uow.webhooks.lock_delivery(ids[0]) is None
