"""``uow.tournaments``: a tournament's row and its own log, appended by compare-and-set on its
head and hash-chained as a match's; its matches; what the sweep has due."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy.exc import IntegrityError

from api.store import StaleSeq
from api.store.chain import verify_chain
from api.store.records import ChainHead
from api.store.tables import GENESIS_HASH

NOW = datetime(2030, 1, 1, tzinfo=UTC)
PORTAL = "p" * 32
T1, T2 = "1" * 32, "2" * 32


@pytest.fixture
def tournament(store):
    with store.unit_of_work() as uow:
        uow.portals.add(PORTAL, "acme", NOW)
        record = uow.tournaments.add(T1, PORTAL, NOW)
        uow.commit()
    return record


def test_a_new_tournament_has_an_empty_log_at_the_genesis_head(store, tournament):
    assert tournament.head == ChainHead(0, GENESIS_HASH) and tournament.status == "registering"
    with store.unit_of_work(readonly=True) as uow:
        assert uow.tournaments.get(T1) == tournament
        assert uow.tournaments.get(T2) is None
        assert uow.tournaments.load(T1) == []


def test_appends_chain_and_move_the_head_by_compare_and_set(store, tournament):
    first = [
        {"type": "tournament_created", "tournament_id": T1},
        {"type": "entrant_registered", "entrant": {"id": "e1"}},
    ]
    with store.unit_of_work() as uow:
        head = uow.tournaments.append(T1, tournament.head, first, status="registering", due_at=None)
        uow.commit()
    with store.unit_of_work() as uow:
        with pytest.raises(StaleSeq):
            uow.tournaments.append(T1, tournament.head, first[:1], status="running", due_at=None)
        later = uow.tournaments.append(T1, head, [{"type": "tournament_started"}], status="running", due_at=NOW)
        uow.commit()
    with store.unit_of_work(readonly=True) as uow:
        rows = uow.tournaments.load(T1)
        record = uow.tournaments.get(T1)
        assert [r.to_dict() for r in uow.tournaments.load(T1, after=2)] == [{"type": "tournament_started"}]
    assert [r.seq for r in rows] == [1, 2, 3] and verify_chain(rows) == []
    assert record is not None and record.head == later == ChainHead(3, rows[-1].hash)
    assert (record.status, record.due_at) == ("running", NOW)


def test_the_status_is_one_of_the_schemas(store, tournament):
    with store.unit_of_work() as uow, pytest.raises(IntegrityError):
        uow.tournaments.append(T1, tournament.head, [{"type": "x"}], status="lost", due_at=None)


def test_the_sweep_finds_the_due_tournaments_that_are_not_over(store, tournament):
    with store.unit_of_work() as uow:
        uow.tournaments.add(T2, PORTAL, NOW)
        uow.tournaments.set_due(T1, NOW - timedelta(seconds=1))
        uow.tournaments.set_due(T2, NOW + timedelta(seconds=1))
        uow.commit()
    with store.unit_of_work(readonly=True) as uow:
        assert uow.tournaments.due(NOW, 10) == [T1]
        assert uow.tournaments.due(NOW + timedelta(seconds=1), 10) == [T1, T2]
    with store.unit_of_work() as uow:
        head = uow.tournaments.get(T1).head
        uow.tournaments.append(T1, head, [{"type": "tournament_cancelled"}], status="cancelled", due_at=NOW)
        uow.commit()
    with store.unit_of_work(readonly=True) as uow:
        assert uow.tournaments.due(NOW + timedelta(seconds=1), 10) == [T2]


def test_a_rounds_matches_are_found_by_match_and_listed_in_order(store, tournament, make_match):
    first, second, third = make_match(), make_match(), make_match()
    seats = [{"seat": 0, "side": 0, "entrant_id": "e1", "player_ref": "ana", "token": "t"}]
    with store.unit_of_work() as uow:
        uow.tournaments.add_match(
            {"match_id": second.id, "tournament_id": T1, "round": 2, "table_number": 1, "seats": []}
        )
        uow.tournaments.add_match(
            {"match_id": first.id, "tournament_id": T1, "round": 1, "table_number": 1, "seats": seats}
        )
        uow.commit()
    with store.unit_of_work() as uow:
        found = uow.tournaments.match(first.id)
        assert found is not None and (found.round, found.table_number, found.seats) == (1, 1, seats)
        assert [m.match_id for m in uow.tournaments.matches(T1)] == [first.id, second.id]
        assert uow.tournaments.match("0" * 32) is None
        with pytest.raises(IntegrityError):  # one match per table
            uow.tournaments.add_match(
                {"match_id": third.id, "tournament_id": T1, "round": 1, "table_number": 1, "seats": []}
            )
