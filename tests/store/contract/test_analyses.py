"""``uow.analyses``: the analysis after an ended match, claimed by one runner at a time and kept;
a match claimed ``max_attempts`` times is not claimed again."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy.exc import IntegrityError

from api.store.analyses import Claim

NOW = datetime(2030, 1, 1, tzinfo=UTC)
LEASE = NOW + timedelta(minutes=10)
CAP = 3


def test_only_ended_matches_without_an_analysis_are_claimed_and_each_once(store, make_match):
    ended, other = make_match(status="ended"), make_match(status="ended")
    make_match(status="playing")
    with store.unit_of_work() as uow:
        assert sorted(uow.analyses.claim_due(NOW, LEASE, 10, CAP)) == sorted([ended.id, other.id])
        assert uow.analyses.claim_due(NOW, LEASE, 10, CAP) == []  # leased
        uow.commit()
    with store.unit_of_work() as uow:
        uow.analyses.store(ended.id, {"version": 1, "decisions": []}, NOW)
        uow.commit()
    after = LEASE + timedelta(seconds=1)
    with store.unit_of_work() as uow:
        assert uow.analyses.claim_due(after, after + timedelta(minutes=10), 10, CAP) == [other.id]  # its lease ran out
        uow.commit()


def test_a_claim_takes_at_most_its_limit(store, make_match):
    for _ in range(3):
        make_match(status="ended")
    with store.unit_of_work() as uow:
        assert len(uow.analyses.claim_due(NOW, LEASE, 2, CAP)) == 2
        assert len(uow.analyses.claim_due(NOW, LEASE, 2, CAP)) == 1


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


def test_each_claim_counts_an_attempt_and_past_the_cap_the_match_is_claimed_no_more(store, make_match):
    match = make_match(status="ended")
    with store.unit_of_work(readonly=True) as uow:
        assert uow.analyses.claim_of(match.id) == Claim(0, None)
    now = NOW
    for attempt in (1, 2, 3):
        with store.unit_of_work() as uow:
            assert uow.analyses.claim_due(now, now + timedelta(minutes=10), 10, CAP) == [match.id]
            uow.commit()
        with store.unit_of_work(readonly=True) as uow:
            assert uow.analyses.claim_of(match.id) == Claim(attempt, now + timedelta(minutes=10))
        now += timedelta(minutes=11)  # the claim lapsed (a runner died, or the analysis failed)
    with store.unit_of_work() as uow:
        assert uow.analyses.claim_due(now, now + timedelta(minutes=10), 10, CAP) == []
        # a higher cap would claim it again: the cap is the caller's, the count the store's
        assert uow.analyses.claim_due(now, now + timedelta(minutes=10), 10, CAP + 1) == [match.id]
        uow.commit()
    with store.unit_of_work(readonly=True) as uow:
        assert uow.analyses.claim_of(match.id).attempts == CAP + 1


def test_a_released_claim_is_claimed_again_at_once_its_attempt_still_counted(store, make_match):
    match = make_match(status="ended")
    with store.unit_of_work() as uow:
        assert uow.analyses.claim_due(NOW, LEASE, 10, CAP) == [match.id]
        uow.analyses.release(match.id)
        uow.commit()
    with store.unit_of_work(readonly=True) as uow:
        claim = uow.analyses.claim_of(match.id)
    assert claim == Claim(1, None)
    assert not claim.given_up(NOW, CAP) and claim.given_up(NOW, 1)
    with store.unit_of_work() as uow:
        assert uow.analyses.claim_due(NOW, LEASE, 10, CAP) == [match.id]  # well before LEASE
        uow.commit()
    with store.unit_of_work(readonly=True) as uow:
        assert uow.analyses.claim_of(match.id) == Claim(2, LEASE)


def test_a_stored_analysis_is_not_released_nor_claimed_past_any_cap(store, make_match):
    match = make_match(status="ended")
    with store.unit_of_work() as uow:
        uow.analyses.claim_due(NOW, LEASE, 10, CAP)
        uow.analyses.store(match.id, {"version": 1}, NOW)
        uow.analyses.release(match.id)
        assert uow.analyses.claim_due(LEASE + timedelta(days=1), LEASE + timedelta(days=2), 10, 100) == []
        uow.commit()
    with store.unit_of_work(readonly=True) as uow:
        assert uow.analyses.get(match.id) == {"version": 1}
        assert uow.analyses.claim_of(match.id).attempts == 1


def test_a_claim_holds_until_its_lease_runs_out_even_at_the_cap(store, make_match):
    match = make_match(status="ended")
    with store.unit_of_work() as uow:
        uow.analyses.claim_due(NOW, LEASE, 10, 1)
        uow.commit()
    with store.unit_of_work(readonly=True) as uow:
        claim = uow.analyses.claim_of(match.id)
    assert claim.attempts == 1
    assert not claim.given_up(NOW, 1)  # the last attempt is still being made
    assert claim.given_up(LEASE + timedelta(seconds=1), 1)
