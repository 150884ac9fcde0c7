"""Matches and seats."""

from __future__ import annotations

from datetime import UTC

import pytest
from sqlalchemy.exc import IntegrityError

from api.store import InvalidCursor, MatchFilter, MatchNotFound, SeatNotFound


def test_an_added_match_reads_back_with_utc_timestamps_and_no_events(store, make_match):
    match = make_match(preset="all_fives", players=4, summary={"hand": 1})
    assert len(match.id) == 32 and int(match.id, 16) >= 0
    assert match.status == "waiting"
    with store.unit_of_work() as uow:
        loaded = uow.matches.get(match.id)
    assert loaded == match
    assert loaded.created_at.tzinfo is UTC
    assert loaded.last_seq == 0
    assert loaded.summary == {"hand": 1}


def test_the_seed_is_not_in_the_match_repr(make_match):
    match = make_match(seed="very-secret")
    assert "very-secret" not in repr(match)


def test_get_of_an_unknown_match_is_none(store):
    with store.unit_of_work() as uow:
        assert uow.matches.get("f" * 32) is None
        assert uow.matches.get_for_update("f" * 32) is None


def test_update_changes_fields_and_moves_updated_at(store, make_match):
    match = make_match()
    with store.unit_of_work() as uow:
        uow.matches.update(match.id, status="playing", summary={"scores": [0, 15], "hand": 2})
        uow.commit()
    with store.unit_of_work() as uow:
        loaded = uow.matches.get(match.id)
    assert loaded.status == "playing"
    assert loaded.summary == {"scores": [0, 15], "hand": 2}
    assert loaded.updated_at >= match.updated_at
    assert loaded.created_at == match.created_at


def test_update_refuses_unknown_fields_and_unknown_matches(store, make_match):
    match = make_match()
    with store.unit_of_work() as uow:
        with pytest.raises(TypeError):
            uow.matches.update(match.id, last_seq=9)
        with pytest.raises(MatchNotFound):
            uow.matches.update("0" * 32, status="ended")


def test_the_database_refuses_an_unknown_status(store, make_match):
    match = make_match()
    with store.unit_of_work() as uow, pytest.raises(IntegrityError):
        uow.matches.update(match.id, status="paused")


def test_matches_are_listed_newest_first_in_cursor_pages(store, make_match):
    made = [make_match() for _ in range(7)]
    newest_first = [m.id for m in sorted(made, key=lambda m: (m.created_at, m.id), reverse=True)]
    seen, cursor = [], None
    with store.unit_of_work(readonly=True) as uow:
        while True:
            page = uow.matches.list(limit=3, cursor=cursor)
            assert len(page.items) <= 3
            seen.extend(m.id for m in page.items)
            if page.next_cursor is None:
                break
            cursor = page.next_cursor
    assert seen == newest_first


def test_listing_filters_by_status(store, make_match):
    waiting = make_match()
    playing = make_match(status="playing")
    with store.unit_of_work() as uow:
        assert [m.id for m in uow.matches.list(MatchFilter(status="playing")).items] == [playing.id]
        assert [m.id for m in uow.matches.list(MatchFilter(status="waiting")).items] == [waiting.id]
        assert uow.matches.list(MatchFilter(status="ended")).items == []


def test_matches_created_in_the_same_instant_page_by_id(store, make_match):
    from sqlalchemy import update

    from api.store import tables

    made = [make_match() for _ in range(5)]
    with store.unit_of_work() as uow:
        uow.connection.execute(update(tables.matches).values(created_at=made[0].created_at))
        uow.commit()
    ids, cursor = [], None
    with store.unit_of_work() as uow:
        while True:
            page = uow.matches.list(limit=2, cursor=cursor)
            ids.extend(m.id for m in page.items)
            if not page.next_cursor:
                break
            cursor = page.next_cursor
    assert ids == sorted((m.id for m in made), reverse=True)


def test_a_forged_cursor_is_refused(store):
    with store.unit_of_work() as uow:
        for bad in ("nonsense", "", "eyJ4IjoxfQ"):
            with pytest.raises(InvalidCursor):
                uow.matches.list(cursor=bad)


def test_seats_are_added_listed_found_by_token_and_updated(store, make_match):
    match = make_match()
    with store.unit_of_work() as uow:
        uow.seats.add({"match_id": match.id, "seat": 1, "name": "Bot", "type": "bot", "level": "hard"})
        uow.seats.add({"match_id": match.id, "seat": 0, "name": "Ana", "type": "remote", "token_hash": "ab" * 32})
        uow.commit()
    with store.unit_of_work() as uow:
        seats = uow.seats.list_for_match(match.id)
        assert [(s.seat, s.name, s.type, s.level) for s in seats] == [
            (0, "Ana", "remote", None),
            (1, "Bot", "bot", "hard"),
        ]
        assert uow.seats.find_by_token_hash(match.id, "ab" * 32).seat == 0
        assert uow.seats.find_by_token_hash(match.id, "cd" * 32) is None
        assert "ab" * 32 not in repr(seats[0])
        uow.seats.update(match.id, 1, name="Robo", player_ref="bot:hard")
        with pytest.raises(SeatNotFound):
            uow.seats.update(match.id, 3, name="Nobody")
        uow.commit()
    with store.unit_of_work() as uow:
        assert uow.seats.list_for_match(match.id)[1].name == "Robo"


def test_a_seat_needs_an_existing_match_and_a_free_number(store, make_match):
    match = make_match()
    with store.unit_of_work() as uow, pytest.raises(IntegrityError):
        uow.seats.add({"match_id": "0" * 32, "seat": 0, "name": "x", "type": "open"})
    with store.unit_of_work() as uow:
        uow.seats.add({"match_id": match.id, "seat": 0, "name": "x", "type": "open"})
        with pytest.raises(IntegrityError):
            uow.seats.add({"match_id": match.id, "seat": 0, "name": "y", "type": "open"})


def test_a_match_is_not_stored_unless_committed(store):
    with store.unit_of_work() as uow:
        record = uow.matches.add({"preset": "draw", "players": 2, "seed": "s", "seed_commitment": "c"})
    with store.unit_of_work() as uow:
        assert uow.matches.get(record.id) is None


def test_a_unit_of_work_can_commit_twice(store):
    with store.unit_of_work() as uow:
        first = uow.matches.add({"preset": "a", "players": 2, "seed": "s", "seed_commitment": "c"})
        uow.commit()
        second = uow.matches.add({"preset": "b", "players": 2, "seed": "s", "seed_commitment": "c"})
        uow.commit()
        third = uow.matches.add({"preset": "c", "players": 2, "seed": "s", "seed_commitment": "c"})
    with store.unit_of_work() as uow:
        assert uow.matches.get(first.id) and uow.matches.get(second.id)
        assert uow.matches.get(third.id) is None
