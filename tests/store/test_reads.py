"""What a read costs cut without changing what it reads (issue 36): the records of a match and
its seats kept by the very rows they were made from, a unit of work's repositories made when
first used, and one rollback per read instead of two. On each database of the run."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import event

from api.store import repositories
from api.store.repositories import PREPARED_MATCH_AND_SEATS, RecordsRead

NOW = datetime(2030, 1, 2, 3, 4, 5, tzinfo=UTC)


def seated(store, make_match, **fields):
    match = make_match(summary={"scores": [0, 12]}, deadline_at=NOW, **fields)
    with store.unit_of_work() as uow:
        uow.seats.add({"match_id": match.id, "seat": 0, "name": "Zoë", "type": "remote", "token_hash": "a" * 64})
        uow.seats.add({"match_id": match.id, "seat": 1, "name": "bot", "type": "bot", "level": "greedy"})
        uow.commit()
    return match


def records(store, kept: RecordsRead, match_id: str):
    """``kept``'s records of the match's rows, read in a read-only unit of work."""
    with store.unit_of_work(readonly=True) as uow:
        found, description = PREPARED_MATCH_AND_SEATS.fetched(uow.connection, {"match_id": match_id})
        return kept.of(uow.connection, PREPARED_MATCH_AND_SEATS, found, description)


def keeps_rows(store) -> bool:
    """SQLite's driver gives a row's values as keys can hold them; psycopg decodes JSON itself
    (a dict), so on PostgreSQL the records are made afresh on every read, as before."""
    return store.engine.dialect.name == "sqlite"


def test_rows_seen_before_answer_the_records_made_from_them_and_a_moved_match_is_read_afresh(store, make_match):
    match = seated(store, make_match)
    kept = RecordsRead()
    record, seats = records(store, kept, match.id)
    assert (record.id, record.last_seq, record.deadline_at, dict(record.summary)) == (
        match.id,
        0,
        NOW,
        {"scores": [0, 12]},
    )
    assert [(seat.seat, seat.name, seat.token_hash) for seat in seats] == [(0, "Zoë", "a" * 64), (1, "bot", None)]
    again = records(store, kept, match.id)
    assert again == (record, seats)
    assert (again[0] is record) is keeps_rows(store)
    with store.unit_of_work() as uow:
        moved_to = {"status": "playing", "summary": {"scores": [1]}, "deadline_at": None, "bots_due_at": None}
        uow.events.append(match.id, 0, [{"type": "hand_started", "hand": 1}], match_fields=moved_to)
        uow.commit()
    moved, _ = records(store, kept, match.id)
    assert (moved.last_seq, dict(moved.summary)) == (1, {"scores": [1]})
    assert moved.last_hash != record.last_hash


def test_a_kept_records_summary_cannot_be_changed_by_its_reader(store, make_match):
    match = seated(store, make_match)
    record, _ = records(store, RecordsRead(), match.id)
    with pytest.raises(TypeError):
        record.summary["scores"] = []  # type: ignore[index]
    with store.unit_of_work(readonly=True) as uow:
        found = uow.matches.get_with_seats(match.id)
    assert found is not None
    with pytest.raises(TypeError):
        found[0].summary["scores"] = []  # type: ignore[index]
    assert dict(found[0].summary) == {"scores": [0, 12]}


def test_at_most_max_entries_rows_are_kept_the_least_recently_read_going_first(store, make_match):
    first, second, third = (seated(store, make_match) for _ in range(3))
    kept = RecordsRead(max_entries=2)
    made_first = records(store, kept, first.id)[0]
    records(store, kept, second.id)
    assert records(store, kept, first.id)[0] is made_first or not keeps_rows(store)  # read again: now the newest
    records(store, kept, third.id)  # the second goes
    assert (records(store, kept, first.id)[0] is made_first) is keeps_rows(store)
    made_second = records(store, kept, second.id)[0]
    assert made_second.id == second.id
    assert (records(store, kept, second.id)[0] is made_second) is keeps_rows(store)


def test_the_store_reads_through_the_one_kept_records_and_a_writer_finds_them_but_keeps_none(store, make_match):
    """An action's locked read finds the records of the view its client read just before (on
    SQLite both are one SQL); what a writer reads itself is not kept: its row is about to change."""
    match, other = seated(store, make_match), seated(store, make_match)
    with store.unit_of_work(readonly=True) as uow:
        record, _ = uow.matches.get_with_seats(match.id)
    with store.unit_of_work() as uow:  # a writer's locked read of a row a reader read: its records
        locked, seats = uow.matches.get_with_seats(match.id, for_update=True)
        first, _ = uow.matches.get_with_seats(other.id, for_update=True)  # a row nobody read
    assert locked == record and (locked is record) is keeps_rows(store) and [seat.seat for seat in seats] == [0, 1]
    with pytest.raises(TypeError):
        locked.summary["scores"] = []  # type: ignore[index]
    assert (records(store, repositories.RECORDS_READ, match.id)[0] is record) is keeps_rows(store)
    with store.unit_of_work() as uow:  # the writer's own read was not kept: made afresh again
        again, _ = uow.matches.get_with_seats(other.id, for_update=True)
    assert again == first and again is not first


def test_repositories_are_made_when_first_used_and_end_with_their_unit_of_work(store, make_match):
    match = make_match()
    uow = store.unit_of_work(readonly=True)
    with uow:
        assert uow.matches is uow.matches  # made once in the transaction
        assert uow.matches.get(match.id) == match
    with pytest.raises(RuntimeError, match="not entered"):
        uow.matches.get(match.id)
    with uow:  # entered again: a new transaction, new repositories
        assert uow.seats.list_for_match(match.id) == []


def test_a_read_goes_back_to_the_pool_rolled_back_once(store, make_match):
    match = make_match()
    resets: list[bool] = []

    def reset(dbapi_connection, record, state):
        resets.append(state.transaction_was_reset)

    event.listen(store.engine, "reset", reset)
    try:
        with store.unit_of_work(readonly=True) as uow:
            uow.matches.get(match.id)
        with pytest.raises(RuntimeError), store.unit_of_work() as uow:
            uow.matches.update(match.id, status="playing")
            raise RuntimeError("boom")
        with store.unit_of_work() as uow:
            uow.matches.update(match.id, status="playing")
            uow.commit()
    finally:
        event.remove(store.engine, "reset", reset)
    # The read and the failed write roll back as they close, so the pool does not roll back
    # again; after a commit with nothing new there is no transaction, and the pool's reset is the
    # one rollback.
    assert resets == [True, True, False]
    with store.unit_of_work(readonly=True) as uow:
        assert uow.matches.get(match.id).status == "playing"
