"""``uow.idempotency``: the first answer to a request sent with an Idempotency-Key, kept per token."""

from __future__ import annotations

from datetime import UTC, timedelta


def test_the_first_answer_to_a_key_is_kept(store):
    with store.unit_of_work() as uow:
        assert uow.idempotency.get("t" * 64, "k1") is None
        assert uow.idempotency.remember("t" * 64, "k1", "m" * 32, "r" * 64, 200, {"seq": 3, "ok": [1, None]})
        assert not uow.idempotency.remember("t" * 64, "k1", "m" * 32, "x" * 64, 409, {"other": True})
        assert uow.idempotency.remember("u" * 64, "k1", "m" * 32, "x" * 64, 201, None)  # another token's key
        uow.commit()
    with store.unit_of_work(readonly=True) as uow:
        kept = uow.idempotency.get("t" * 64, "k1")
        other = uow.idempotency.get("u" * 64, "k1")
    assert (kept.token_hash, kept.key, kept.match_id, kept.request_hash, kept.state) == (
        "t" * 64,
        "k1",
        "m" * 32,
        "r" * 64,
        "done",
    )
    assert (kept.response_status, kept.response_body) == (200, {"seq": 3, "ok": [1, None]})
    assert kept.created_at.tzinfo is UTC
    assert (other.response_status, other.response_body) == (201, None)


def test_a_key_lost_to_a_race_leaves_the_transaction_usable(store):
    with store.unit_of_work() as uow:
        uow.idempotency.remember("t" * 64, "k", "m" * 32, "r" * 64, 200, {})
        uow.commit()
    with store.unit_of_work() as uow:
        assert not uow.idempotency.remember("t" * 64, "k", "m" * 32, "r" * 64, 200, {})
        assert uow.idempotency.remember("t" * 64, "k2", "m" * 32, "r" * 64, 200, {})
        uow.commit()
    with store.unit_of_work() as uow:
        assert uow.idempotency.get("t" * 64, "k2") is not None
        uow.idempotency.forget("t" * 64, "k2")
        uow.idempotency.forget("t" * 64, "never")
        uow.commit()
    with store.unit_of_work(readonly=True) as uow:
        assert uow.idempotency.get("t" * 64, "k2") is None and uow.idempotency.get("t" * 64, "k") is not None


def test_purge_drops_the_keys_older_than_asked(store):
    with store.unit_of_work() as uow:
        uow.idempotency.remember("t" * 64, "a", "m" * 32, "r" * 64, 200, {})
        uow.idempotency.remember("t" * 64, "b", "m" * 32, "r" * 64, 200, {})
        uow.commit()
    with store.unit_of_work() as uow:
        assert uow.idempotency.purge(timedelta(days=1)) == 0  # made just now
        assert uow.idempotency.purge(timedelta(days=-1)) == 2  # "older than a day from now": every one
        uow.commit()
    with store.unit_of_work(readonly=True) as uow:
        assert uow.idempotency.get("t" * 64, "a") is None
