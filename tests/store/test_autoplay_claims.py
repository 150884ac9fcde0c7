"""Claims of the autoplay queue with two real connections: a match is never claimed by two
runners at once (the queue's behaviour on every store is in tests/store/contract/test_matches.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

NOW = datetime(2030, 1, 1, tzinfo=UTC)
LEASE = NOW + timedelta(seconds=30)


def due_matches(make_match, uow_factory, count: int) -> list[str]:
    ids = [make_match(status="playing").id for _ in range(count)]
    with uow_factory() as uow:
        for n, match_id in enumerate(ids):
            uow.matches.set_bots_due(match_id, NOW - timedelta(seconds=count - n))
        uow.commit()
    return ids


@pytest.mark.postgres
def test_two_runners_claiming_at_once_on_postgresql_skip_each_others_rows(make_match, uow_factory, is_postgres):
    if not is_postgres:
        pytest.skip("FOR UPDATE SKIP LOCKED is PostgreSQL's; SQLite's write lock serialises claims")
    ids = due_matches(make_match, uow_factory, 4)
    with uow_factory() as first, uow_factory() as second:
        mine = first.matches.claim_due_bots(NOW, LEASE, 2)  # rows locked until `first` commits
        theirs = second.matches.claim_due_bots(NOW, LEASE, 10)  # does not wait: skips them
        assert mine == ids[:2] and theirs == ids[2:]
        second.commit()
        first.commit()
    with uow_factory() as uow:
        assert uow.matches.claim_due_bots(NOW, LEASE, 10) == []
