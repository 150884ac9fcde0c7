"""``uow.waiters``: the open long-polls and streams of an address, up to a cap, shared by every server."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy.exc import IntegrityError

NOW = datetime(2030, 1, 1, tzinfo=UTC)
SOON, LATER = NOW + timedelta(seconds=30), NOW + timedelta(seconds=90)
ADDRESS, OTHER = "a" * 64, "b" * 64


def test_an_address_takes_slots_up_to_its_cap_and_a_release_frees_one(store):
    with store.unit_of_work() as uow:
        assert uow.waiters.take("s1", ADDRESS, 2, NOW, LATER)
        assert uow.waiters.take("s2", ADDRESS, 2, NOW, LATER)
        assert not uow.waiters.take("s3", ADDRESS, 2, NOW, LATER)
        assert uow.waiters.take("s4", OTHER, 2, NOW, LATER)  # a cap per address
        uow.commit()
    with store.unit_of_work() as uow:
        assert uow.waiters.count(ADDRESS, NOW) == 2
        uow.waiters.release("s1")
        uow.waiters.release("never-taken")
        assert uow.waiters.take("s3", ADDRESS, 2, NOW, LATER)
        uow.commit()
    with store.unit_of_work(readonly=True) as uow:
        assert uow.waiters.count(ADDRESS, NOW) == 2 and uow.waiters.count(OTHER, NOW) == 1


def test_expired_slots_stop_counting_and_are_purged(store):
    with store.unit_of_work() as uow:
        uow.waiters.take("s1", ADDRESS, 2, NOW, SOON)
        uow.waiters.take("s2", ADDRESS, 2, NOW, LATER)
        uow.waiters.take("s3", OTHER, 2, NOW, SOON)
        uow.commit()
    with store.unit_of_work() as uow:
        assert uow.waiters.count(ADDRESS, SOON) == 1  # expires_at is not after SOON: gone
        assert uow.waiters.take("s4", ADDRESS, 2, SOON, LATER)
        assert uow.waiters.purge_expired(SOON) == 1  # s3 (s1 went with the take of its address)
        assert uow.waiters.purge_expired(SOON) == 0
        uow.commit()
    with store.unit_of_work(readonly=True) as uow:
        assert uow.waiters.count(ADDRESS, NOW) == 2 and uow.waiters.count(OTHER, NOW) == 0


def test_a_slot_id_is_taken_once(store):
    with store.unit_of_work() as uow:
        uow.waiters.take("s1", ADDRESS, 5, NOW, LATER)
        uow.commit()
    with store.unit_of_work() as uow, pytest.raises(IntegrityError):
        uow.waiters.take("s1", OTHER, 5, NOW, LATER)
