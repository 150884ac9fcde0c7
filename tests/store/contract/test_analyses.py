"""``uow.analyses``: the analysis after an ended match, claimed by one runner at a time and kept."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy.exc import IntegrityError

NOW = datetime(2030, 1, 1, tzinfo=UTC)
LEASE = NOW + timedelta(minutes=10)


def test_only_ended_matches_without_an_analysis_are_claimed_and_each_once(store, make_match):
    ended, other = make_match(status="ended"), make_match(status="ended")
    make_match(status="playing")
    with store.unit_of_work() as uow:
        assert sorted(uow.analyses.claim_due(NOW, LEASE, 10)) == sorted([ended.id, other.id])
        assert uow.analyses.claim_due(NOW, LEASE, 10) == []  # leased
        uow.commit()
    with store.unit_of_work() as uow:
        uow.analyses.store(ended.id, {"version": 1, "decisions": []}, NOW)
        uow.commit()
    after = LEASE + timedelta(seconds=1)
    with store.unit_of_work() as uow:
        assert uow.analyses.claim_due(after, after + timedelta(minutes=10), 10) == [other.id]  # its lease ran out
        uow.commit()


def test_a_claim_takes_at_most_its_limit(store, make_match):
    for _ in range(3):
        make_match(status="ended")
    with store.unit_of_work() as uow:
        assert len(uow.analyses.claim_due(NOW, LEASE, 2)) == 2
        assert len(uow.analyses.claim_due(NOW, LEASE, 2)) == 1


def test_an_analysis_is_stored_once_and_read_back(store, make_match):
    match = make_match(status="ended")
    with store.unit_of_work() as uow:
        assert uow.analyses.get(match.id) is None
        uow.analyses.store(match.id, {"version": 1, "seats": [{"seat": 0}]}, NOW)
        uow.analyses.store(match.id, {"version": 2}, NOW)
        uow.commit()
    with store.unit_of_work(readonly=True) as uow:
        assert uow.analyses.get(match.id) == {"version": 1, "seats": [{"seat": 0}]}


def test_an_analysis_is_of_a_match(store):
    with store.unit_of_work() as uow, pytest.raises(IntegrityError):
        uow.analyses.store("0" * 32, {"version": 1}, NOW)
