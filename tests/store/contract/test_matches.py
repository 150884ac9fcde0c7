"""``uow.matches`` and ``uow.seats``: the rows of a match and its seats, their listing, the turn
clocks' sweep and the autoplay queue."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy.exc import IntegrityError

from api.store import InvalidCursor, MatchFilter, MatchNotFound, SeatNotFound
from api.store.records import RematchExists, Space

NOW = datetime(2030, 1, 1, tzinfo=UTC)
LEASE = NOW + timedelta(seconds=30)
PORTAL = "p" * 32
MINIMAL = {"preset": "draw", "players": 2, "seed": "s", "seed_commitment": "c"}


def add_portal(store, portal_id: str = PORTAL, name: str = "acme") -> str:
    with store.unit_of_work() as uow:
        uow.portals.add(portal_id, name, NOW)
        uow.commit()
    return portal_id


def test_an_added_match_reads_back_with_utc_timestamps_and_no_events(store, make_match):
    match = make_match(preset="all_fives", players=4, summary={"hand": 1})
    assert len(match.id) == 32 and int(match.id, 16) >= 0
    assert (match.status, match.last_seq, match.rematch_of, match.portal_id, match.rated) == (
        "waiting",
        0,
        None,
        None,
        False,
    )
    with store.unit_of_work() as uow:
        loaded = uow.matches.get(match.id)
        assert uow.events.load(match.id) == []
    assert loaded == match
    assert loaded.created_at.tzinfo is UTC and loaded.updated_at == loaded.created_at
    assert loaded.summary == {"hand": 1}


def test_the_seed_is_not_in_the_match_repr(make_match):
    match = make_match(seed="very-secret")
    assert "very-secret" not in repr(match)


def test_get_of_an_unknown_match_is_none(store):
    with store.unit_of_work() as uow:
        assert uow.matches.get("f" * 32) is None
        assert uow.matches.get_for_update("f" * 32) is None


def test_add_refuses_unknown_and_missing_fields(store):
    with store.unit_of_work() as uow:
        with pytest.raises(TypeError, match="unknown match fields"):
            uow.matches.add({**MINIMAL, "last_seq": 3})
        with pytest.raises(TypeError, match=r"missing match fields: \['seed'\]"):
            uow.matches.add({k: v for k, v in MINIMAL.items() if k != "seed"})


@pytest.mark.parametrize(
    "fields",
    [{"status": "paused"}, {"players": 0}, {"seed": None}, {"portal_id": "q" * 32}],
    ids=["status", "players", "not-null", "portal"],
)
def test_add_refuses_what_the_schema_does(store, fields):
    with store.unit_of_work() as uow, pytest.raises(IntegrityError):
        uow.matches.add({**MINIMAL, **fields})


def test_an_id_is_taken_once(store, make_match):
    match = make_match()
    with store.unit_of_work() as uow, pytest.raises(IntegrityError):
        uow.matches.add({**MINIMAL, "id": match.id})


def test_a_match_has_one_rematch(store, make_match):
    match = make_match(status="ended")
    rematch = make_match(rematch_of=match.id)
    with store.unit_of_work() as uow, pytest.raises(RematchExists) as caught:
        uow.matches.add({**MINIMAL, "rematch_of": match.id})
    assert caught.value.match_id == match.id
    with store.unit_of_work(readonly=True) as uow:
        assert uow.matches.get_rematch(match.id) == rematch
        assert uow.matches.get_rematch(rematch.id) is None


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


@pytest.mark.parametrize("fields", [{"status": "paused"}, {"players": -1}], ids=["status", "players"])
def test_update_refuses_what_the_schema_does(store, make_match, fields):
    match = make_match()
    with store.unit_of_work() as uow, pytest.raises(IntegrityError):
        uow.matches.update(match.id, **fields)
    with store.unit_of_work(readonly=True) as uow:
        assert uow.matches.get(match.id) == match


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


def test_matches_created_in_the_same_instant_page_by_id(store, make_match, rows):
    made = [make_match() for _ in range(5)]
    rows.set_created_at([m.id for m in made], NOW)
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
        for bad in ("nonsense", "", "eyJ4IjoxfQ", "1-" + "g" * 32):
            with pytest.raises(InvalidCursor):
                uow.matches.list(cursor=bad)


def test_listing_filters_by_status_preset_open_seat_player_and_space(store, make_match):
    add_portal(store)
    waiting = make_match()
    playing = make_match(status="playing", preset="block")
    reserved = make_match()
    mine = make_match(portal_id=PORTAL, status="playing")
    with store.unit_of_work() as uow:
        uow.seats.add({"match_id": waiting.id, "seat": 0, "name": "open", "type": "open"})
        uow.seats.add({"match_id": reserved.id, "seat": 0, "name": "kept", "type": "open", "reserved_for": "ab" * 32})
        uow.seats.add({"match_id": mine.id, "seat": 1, "name": "Ana", "type": "remote", "player_ref": "ana"})
        uow.commit()

    def ids(where):
        with store.unit_of_work(readonly=True) as uow:
            return {m.id for m in uow.matches.list(where).items}

    assert ids(MatchFilter(status="playing")) == {playing.id, mine.id}
    assert ids(MatchFilter(status="ended")) == set()
    assert ids(MatchFilter(preset="block")) == {playing.id}
    assert ids(MatchFilter(has_open_seat=True)) == {waiting.id}  # a seat kept for a rematch is not open
    assert ids(MatchFilter(has_open_seat=False)) == {playing.id, reserved.id, mine.id}
    assert ids(MatchFilter(player_ref="ana")) == {mine.id}
    assert ids(MatchFilter(space=Space(PORTAL))) == {mine.id}
    assert ids(MatchFilter(space=Space(None))) == {waiting.id, playing.id, reserved.id}
    assert ids(MatchFilter(status="playing", space=Space(None))) == {playing.id}


def test_stale_clocks_are_the_playing_matches_past_their_deadline_most_overdue_first(store, make_match):
    late = make_match(status="playing", deadline_at=NOW - timedelta(seconds=5))
    later = make_match(status="playing", deadline_at=NOW - timedelta(seconds=50))
    make_match(status="playing", deadline_at=NOW + timedelta(seconds=5))  # not yet
    make_match(status="ended", deadline_at=NOW - timedelta(seconds=5))  # no clock runs
    make_match(status="playing")  # no clock
    with store.unit_of_work(readonly=True) as uow:
        assert uow.matches.list_stale_clocks(NOW) == [later.id, late.id]
        assert uow.matches.list_stale_clocks(NOW, limit=1) == [later.id]


def test_running_all_bot_matches_are_counted_per_creator(store, make_match):
    make_match(creator_key="a" * 64, all_bots=True)
    make_match(creator_key="a" * 64, all_bots=True, status="playing")
    make_match(creator_key="a" * 64, all_bots=True, status="ended")
    make_match(creator_key="a" * 64)  # a human plays
    make_match(creator_key="b" * 64, all_bots=True)
    with store.unit_of_work() as uow:
        uow.matches.lock_creator("a" * 64)
        assert uow.matches.count_running_all_bots("a" * 64) == 2
        assert uow.matches.count_running_all_bots("c" * 64) == 0


def test_stalled_matches_of_a_player_are_found_once_per_seat(store, make_match):
    add_portal(store)
    both = make_match(portal_id=PORTAL, status="playing")
    ended = make_match(portal_id=PORTAL, status="ended")
    public = make_match(status="playing")
    with store.unit_of_work() as uow:
        for match in (both, ended, public):
            uow.seats.add({"match_id": match.id, "seat": 0, "name": "Ana", "type": "remote", "player_ref": "ana"})
        uow.seats.add({"match_id": both.id, "seat": 1, "name": "Ana", "type": "remote", "player_ref": "ana"})
        uow.commit()
    with store.unit_of_work(readonly=True) as uow:
        stalled = uow.matches.stalled_for_player(PORTAL, "ana", NOW + timedelta(days=365 * 100))
        assert [(m.id, seat) for m, seat in stalled] == [(both.id, 0), (both.id, 1)]
        assert uow.matches.stalled_for_player(PORTAL, "ana", datetime(2000, 1, 1, tzinfo=UTC)) == []
        assert uow.matches.stalled_for_player(PORTAL, "ben", NOW + timedelta(days=365 * 100)) == []


def test_result_events_are_a_matchs_rules_hands_and_end_in_order(store, make_match):
    match, quiet = make_match(), make_match()
    events = [
        {"type": "match_created", "rules": {"target": 100}},
        {"type": "tile_played", "seat": 0},
        {"type": "hand_ended", "hand": 1},
        {"type": "match_ended", "winner": 0},
    ]
    with store.unit_of_work() as uow:
        uow.events.append(match.id, 0, events)
        uow.commit()
    with store.unit_of_work(readonly=True) as uow:
        found = uow.matches.result_events([match.id, quiet.id, "0" * 32])
    assert found == {match.id: [events[0], events[2], events[3]], quiet.id: [], "0" * 32: []}


# --- the autoplay queue ---------------------------------------------------------------------------------
def due_matches(make_match, store, count: int) -> list[str]:
    ids = [make_match(status="playing").id for _ in range(count)]
    with store.unit_of_work() as uow:
        for n, match_id in enumerate(ids):
            uow.matches.set_bots_due(match_id, NOW - timedelta(seconds=count - n))
        uow.commit()
    return ids


def test_a_claim_takes_due_matches_oldest_first_and_holds_them_for_its_lease(make_match, store):
    ids = due_matches(make_match, store, 3)
    with store.unit_of_work() as uow:
        uow.matches.set_bots_due(ids[2], NOW + timedelta(seconds=5))  # not due yet
        assert uow.matches.bots_due_at(ids[2]) == NOW + timedelta(seconds=5)
        assert uow.matches.claim_due_bots(NOW, LEASE, 10) == ids[:2]
        uow.commit()
    with store.unit_of_work() as uow:
        assert uow.matches.claim_due_bots(NOW + timedelta(seconds=10), LEASE, 10) == [ids[2]]
        uow.commit()
    with store.unit_of_work() as uow:  # the leases lapse: claimable again
        assert uow.matches.claim_due_bots(LEASE + timedelta(seconds=1), LEASE + timedelta(minutes=1), 10) == ids
        uow.commit()
    with store.unit_of_work() as uow:  # a drop ends the claim
        uow.matches.set_bots_due(ids[0], None)
        uow.commit()
    with store.unit_of_work() as uow:
        assert ids[0] not in uow.matches.claim_due_bots(NOW + timedelta(days=1), LEASE, 10)


def test_only_playing_matches_owe_a_computer_move(make_match, store):
    ids = due_matches(make_match, store, 2)
    with store.unit_of_work() as uow:
        uow.matches.update(ids[0], status="ended")
        uow.commit()
    with store.unit_of_work(readonly=True) as uow:
        assert uow.matches.bots_backlog(NOW)[0] == 1
        assert uow.matches.bots_backlog(NOW - timedelta(seconds=5))[0] == 0
    with store.unit_of_work() as uow:
        assert uow.matches.claim_due_bots(NOW, LEASE, 10) == [ids[1]]


def test_the_bots_backlog_counts_the_playing_matches_owed_a_move_and_the_oldest_due_time(make_match, store):
    ids = due_matches(make_match, store, 3)  # due 3, 2 and 1 s before NOW
    with store.unit_of_work() as uow:
        uow.matches.update(ids[0], status="ended")  # its due time no longer counts
        uow.commit()
    with store.unit_of_work(readonly=True) as uow:
        assert uow.matches.bots_backlog(NOW) == (2, NOW - timedelta(seconds=2))
        assert uow.matches.bots_backlog(NOW - timedelta(seconds=1, microseconds=1)) == (1, NOW - timedelta(seconds=2))
        assert uow.matches.bots_backlog(NOW - timedelta(seconds=5)) == (0, None)


def test_an_append_with_match_fields_ends_the_claim_and_one_without_keeps_it(make_match, store):
    ids = due_matches(make_match, store, 2)
    with store.unit_of_work() as uow:
        assert uow.matches.claim_due_bots(NOW, LEASE, 10) == ids
        uow.commit()
    fields = {"status": "playing", "summary": {}, "deadline_at": None, "bots_due_at": NOW}
    with store.unit_of_work() as uow:
        uow.events.append(ids[0], 0, [{"type": "tile_played"}], match_fields=fields)
        uow.events.append(ids[1], 0, [{"type": "tile_played"}])
        uow.commit()
    with store.unit_of_work() as uow:
        assert uow.matches.claim_due_bots(NOW, LEASE, 10) == [ids[0]]


# --- seats ----------------------------------------------------------------------------------------------
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
        assert uow.seats.token_hash_exists("ab" * 32) and not uow.seats.token_hash_exists("cd" * 32)
        assert "ab" * 32 not in repr(seats[0])
        uow.seats.update(match.id, 1, name="Robo", player_ref="bot:hard")
        with pytest.raises(SeatNotFound):
            uow.seats.update(match.id, 3, name="Nobody")
        with pytest.raises(TypeError):
            uow.seats.update(match.id, 1, seat=4)
        uow.commit()
    with store.unit_of_work() as uow:
        assert uow.seats.list_for_match(match.id)[1].name == "Robo"
        assert uow.seats.refs_for([match.id, "0" * 32]) == {match.id: {1: "bot:hard"}}
        assert uow.seats.refs_for([]) == {}


def test_a_seat_needs_an_existing_match_and_a_free_number(store, make_match):
    match = make_match()
    with store.unit_of_work() as uow, pytest.raises(IntegrityError):
        uow.seats.add({"match_id": "0" * 32, "seat": 0, "name": "x", "type": "open"})
    with store.unit_of_work() as uow:
        uow.seats.add({"match_id": match.id, "seat": 0, "name": "x", "type": "open"})
        uow.commit()
    with store.unit_of_work() as uow, pytest.raises(IntegrityError):
        uow.seats.add({"match_id": match.id, "seat": 0, "name": "y", "type": "open"})
    with store.unit_of_work(readonly=True) as uow:
        assert [s.name for s in uow.seats.list_for_match(match.id)] == ["x"]


@pytest.mark.parametrize(
    "fields",
    [{"type": "ghost"}, {"seat": -1}, {"name": None}, {"nickname": "x"}],
    ids=["type", "seat", "name", "field"],
)
def test_a_seat_the_schema_refuses_is_not_added(store, make_match, fields):
    match = make_match()
    row = {"match_id": match.id, "seat": 0, "name": "x", "type": "open", **fields}
    with store.unit_of_work() as uow, pytest.raises(TypeError if "nickname" in fields else IntegrityError):
        uow.seats.add(row)


def test_a_seat_cannot_be_updated_to_an_unknown_type(store, make_match):
    match = make_match()
    with store.unit_of_work() as uow:
        uow.seats.add({"match_id": match.id, "seat": 0, "name": "x", "type": "open"})
        uow.commit()
    with store.unit_of_work() as uow, pytest.raises(IntegrityError):
        uow.seats.update(match.id, 0, type="ghost")


def test_a_match_and_its_seats_read_together_as_each_alone_reads_them(store, make_match):
    """``get_with_seats`` (one statement where it is SQL): the record ``get`` reads, the seats
    ``list_for_match`` lists, in seat order; a match without seats has none; no match, None.
    ``for_update`` reads the same (and locks the match, as ``get_for_update`` does)."""
    match, bare = make_match(), make_match()
    with store.unit_of_work() as uow:
        uow.seats.add({"match_id": match.id, "seat": 1, "name": "Bot", "type": "bot", "level": "hard"})
        uow.seats.add({"match_id": match.id, "seat": 0, "name": "Ana", "type": "remote", "token_hash": "ab" * 32})
        uow.commit()
    with store.unit_of_work(readonly=True) as uow:
        record, seats = uow.matches.get_with_seats(match.id)
        assert record == uow.matches.get(match.id)
        assert seats == uow.seats.list_for_match(match.id) and [s.seat for s in seats] == [0, 1]
        assert seats[0].token_hash == "ab" * 32 and seats[1].level == "hard"
        assert uow.matches.get_with_seats(bare.id) == (uow.matches.get(bare.id), [])
        assert uow.matches.get_with_seats("0" * 32) is None
    with store.unit_of_work() as uow:
        assert uow.matches.get_with_seats(match.id, for_update=True) == (record, seats)
