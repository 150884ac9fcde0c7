"""The hot statements run on the driver's cursor (api.store.prepared) read and write exactly
what SQLAlchemy's own execution of the same statements does, on each database of the run."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from api.store import event_store, repositories, tables

NOW = datetime(2030, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)


def seated_match(store, make_match, **fields):
    match = make_match(summary={"naïve": "café ☕", "scores": [0, 12]}, rated=True, deadline_at=NOW, **fields)
    with store.unit_of_work() as uow:
        uow.seats.add({"match_id": match.id, "seat": 0, "name": "Zoë", "type": "remote", "token_hash": "a" * 64})
        uow.seats.add({"match_id": match.id, "seat": 1, "name": "bot", "type": "bot", "level": "greedy"})
        uow.commit()
    return match


def both_ways(store, prepared, params, readonly=True):
    """(rows by SQLAlchemy, rows by ``prepared``) of one SELECT in one transaction."""
    with store.unit_of_work(readonly=readonly) as uow:
        by_sqlalchemy = [tuple(row) for row in uow.connection.execute(prepared.statement, params).all()]
        prepared = prepared.rows(uow.connection, params)
    return by_sqlalchemy, prepared


@pytest.mark.parametrize("for_update", [False, True], ids=["read", "for-update"])
def test_the_match_and_its_seats_read_the_same_values_and_types(store, make_match, for_update):
    match = seated_match(store, make_match)
    statement = (
        repositories.PREPARED_MATCH_AND_SEATS_FOR_UPDATE if for_update else repositories.PREPARED_MATCH_AND_SEATS
    )
    by_sqlalchemy, prepared = both_ways(store, statement, {"match_id": match.id}, readonly=not for_update)
    assert len(prepared) == 2
    assert tuple(prepared[0]) == by_sqlalchemy[0]
    assert [type(value) for value in prepared[0]] == [type(value) for value in by_sqlalchemy[0]]
    # the match's columns repeat on the seat's row: read from the first row only
    later = dict(zip(statement.statement.selected_columns.keys(), prepared[1], strict=True))
    assert {key: value for key, value in later.items() if key.startswith("seat_")} == {
        key: value for key, value in zip(later, by_sqlalchemy[1], strict=True) if key.startswith("seat_")
    }
    assert all(value is None for key, value in later.items() if not key.startswith("seat_"))
    first = prepared[0]
    assert first.deadline_at == NOW and first.deadline_at.tzinfo is UTC
    assert first.summary == {"naïve": "café ☕", "scores": [0, 12]}
    assert first.rated is True
    assert (first.seat_name, prepared[1].seat_token_hash) == ("Zoë", None)
    with store.unit_of_work(readonly=True) as uow:
        record, seats = uow.matches.get_with_seats(match.id)
        assert uow.matches.get_with_seats("0" * 32) is None
    assert record == match  # as the match was added
    assert [seat.name for seat in seats] == ["Zoë", "bot"]


def test_an_append_stores_what_sqlalchemy_reads_back_and_a_page_reads_it_the_same(store, make_match):
    match = seated_match(store, make_match)
    events = [{"type": "hand_started", "hand": 1}, {"type": "tile_played", "seat": 0, "tile": [6, 6], "end": "left"}]
    with store.unit_of_work() as uow:
        uow.events.append(match.id, 0, events, match_fields=None)
        uow.commit()
    with store.unit_of_work(readonly=True) as uow:
        stored = uow.connection.execute(select(tables.events).order_by(tables.events.c.seq)).all()
        loaded = uow.events.load(match.id, after=0)
        limited = uow.events.load(match.id, after=1, limit=1)
        record = uow.matches.get(match.id)
    assert [row.data for row in stored] == [{"hand": 1}, {"seat": 0, "tile": [6, 6], "end": "left"}]
    assert [(e.seq, e.type, e.data, e.hash, e.prev_hash) for e in loaded] == [
        (row.seq, row.type, row.data, row.hash, row.prev_hash) for row in stored
    ]
    assert all(row.recorded_at.tzinfo is UTC for row in stored)
    assert [e.recorded_at for e in loaded] == [row.recorded_at for row in stored]
    assert [e.seq for e in limited] == [2]
    assert (record.last_seq, record.last_hash) == (2, stored[-1].hash)
    by_sqlalchemy, prepared = both_ways(store, event_store.PREPARED_LOAD, {"match_id": match.id, "after": 0})
    assert [tuple(row) for row in prepared] == by_sqlalchemy


def test_the_compare_and_set_counts_rows_and_writes_the_statements_own_null(store, make_match):
    match = seated_match(store, make_match)
    fields = {"status": "playing", "summary": {"s": 1}, "deadline_at": None, "bots_due_at": NOW}
    with store.unit_of_work() as uow:
        uow.connection.execute(tables.matches.update().values(autoplay_lease_until=NOW))
        params = {"match_id": match.id, "expected_seq": 0, "expected_hash": match.last_hash}
        moved = {**params, "new_seq": 0, "new_hash": match.last_hash, "now": NOW, **fields}
        assert event_store.PREPARED_MOVE_WITH_SUMMARY.execute(uow.connection, {**moved, "expected_seq": 5}) == 0
        assert event_store.PREPARED_MOVE_WITH_SUMMARY.execute(uow.connection, moved) == 1
        uow.commit()
    with store.unit_of_work(readonly=True) as uow:
        row = uow.connection.execute(select(tables.matches)).one()
    assert (row.status, row.summary, row.deadline_at, row.bots_due_at) == ("playing", {"s": 1}, None, NOW)
    assert (row.updated_at, row.autoplay_lease_until) == (NOW, None)


def test_a_driver_error_is_raised_as_sqlalchemy_raises_it(store, make_match):
    match = seated_match(store, make_match)
    row = {
        "match_id": match.id,
        "seq": 1,
        "type": "hand_started",
        "schema_version": 1,
        "data": {},
        "recorded_at": NOW,
        "prev_hash": "0" * 64,
        "hash": "1" * 64,
    }
    with store.unit_of_work() as uow:
        event_store.PREPARED_INSERT.execute_many(uow.connection, [row])
        with pytest.raises(IntegrityError) as raised:
            event_store.PREPARED_INSERT.execute_many(uow.connection, [row])
    assert event_store.is_unique_violation(raised.value)
