"""``uow.ratings``: a portal player's rating per rules family, the leaderboard and the history."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy.exc import IntegrityError

from api.store.ratings import RatingChange, RatingRecord
from api.store.records import InvalidCursor

NOW = datetime(2030, 1, 1, tzinfo=UTC)
PORTAL = "p" * 32
NEWCOMER = RatingRecord("", "", 25.0, 8.0, 1.0, 7)


@pytest.fixture
def portal(store) -> str:
    with store.unit_of_work() as uow:
        uow.portals.add(PORTAL, "acme", NOW)
        uow.commit()
    return PORTAL


def rate(store, ratings: dict[str, float], family: str = "draw") -> None:
    with store.unit_of_work() as uow:
        locked = uow.ratings.lock(PORTAL, family, ratings, NEWCOMER, NOW)
        for ref, ordinal in ratings.items():
            uow.ratings.save(PORTAL, RatingRecord(ref, family, 30.0, 5.0, ordinal, locked[ref].matches + 1), NOW)
        uow.commit()


def test_lock_makes_newcomers_and_save_changes_them(store, portal):
    with store.unit_of_work() as uow:
        locked = uow.ratings.lock(PORTAL, "draw", ["ben", "ana", "ana"], NEWCOMER, NOW)
        assert locked == {
            "ana": RatingRecord("ana", "draw", 25.0, 8.0, 1.0, 0),
            "ben": RatingRecord("ben", "draw", 25.0, 8.0, 1.0, 0),
        }
        assert uow.ratings.lock(PORTAL, "draw", [], NEWCOMER, NOW) == {}
        uow.ratings.save(PORTAL, RatingRecord("ana", "draw", 27.5, 7.0, 6.5, 1), NOW)
        uow.ratings.save(PORTAL, RatingRecord("cy", "draw", 27.5, 7.0, 6.5, 1), NOW)  # no row: nothing
        uow.commit()
    with store.unit_of_work(readonly=True) as uow:
        assert uow.ratings.current(PORTAL, "draw", ["ana", "ben", "cy"]) == {
            "ana": RatingRecord("ana", "draw", 27.5, 7.0, 6.5, 1),
            "ben": RatingRecord("ben", "draw", 25.0, 8.0, 1.0, 0),
        }
        assert uow.ratings.current(PORTAL, "block", ["ana"]) == {}
    with store.unit_of_work() as uow:  # a kept rating is not reset by the next lock
        assert uow.ratings.lock(PORTAL, "draw", ["ana"], NEWCOMER, NOW)["ana"].matches == 1


def test_a_players_ratings_are_one_per_family(store, portal):
    rate(store, {"ana": 3.0}, "draw")
    rate(store, {"ana": 5.0}, "block")
    with store.unit_of_work(readonly=True) as uow:
        assert [(r.family, r.ordinal) for r in uow.ratings.of_player(PORTAL, "ana")] == [("block", 5.0), ("draw", 3.0)]
        assert uow.ratings.of_player(PORTAL, "ben") == []


def test_the_leaderboard_is_highest_first_then_by_player_in_cursor_pages(store, portal):
    rate(store, {"a": 3.0, "b": 9.0, "c": 3.0, "d": -1.0, "e": 3.0})
    rate(store, {"z": 99.0}, "block")
    pages, cursor = [], None
    with store.unit_of_work(readonly=True) as uow:
        while True:
            page = uow.ratings.leaderboard(PORTAL, "draw", 2, cursor)
            pages.append([r.player_ref for r in page.items])
            if (cursor := page.next_cursor) is None:
                break
        with pytest.raises(InvalidCursor):
            uow.ratings.leaderboard(PORTAL, "draw", 2, "bm90LWpzb24")
    assert pages == [["b", "a"], ["c", "e"], ["d"]]


def change(ref: str, match_id: str, at: datetime, outcome: str = "won") -> RatingChange:
    return RatingChange(ref, "draw", match_id, at, outcome, 25.0, 8.0, 27.0, 7.5)


def test_the_history_is_newest_first_then_by_match_in_cursor_pages(store, portal):
    ids = [f"{n:032x}" for n in range(5)]
    with store.unit_of_work() as uow:
        for n, match_id in enumerate(ids):
            uow.ratings.add_change(PORTAL, change("ana", match_id, NOW + timedelta(seconds=n % 2)))
        uow.ratings.add_change(PORTAL, change("ben", ids[0], NOW))
        uow.commit()
    with store.unit_of_work(readonly=True) as uow:
        first = uow.ratings.history(PORTAL, "ana", "draw", 2)
        second = uow.ratings.history(PORTAL, "ana", "draw", 2, first.next_cursor)
        third = uow.ratings.history(PORTAL, "ana", "draw", 2, second.next_cursor)
        assert first.items[0] == change("ana", ids[3], NOW + timedelta(seconds=1))
        assert uow.ratings.history(PORTAL, "ana", "block", 2).items == []
        with pytest.raises(InvalidCursor):
            uow.ratings.history(PORTAL, "ana", "draw", 2, "x")
    # at NOW + 1 s: matches 3 and 1 (by id, descending); at NOW: 4, 2, 0
    assert [[c.match_id for c in page.items] for page in (first, second, third)] == [
        [ids[3], ids[1]],
        [ids[4], ids[2]],
        [ids[0]],
    ]
    assert third.next_cursor is None


def test_a_match_is_in_a_players_history_once(store, portal):
    with store.unit_of_work() as uow:
        uow.ratings.add_change(PORTAL, change("ana", "m" * 32, NOW))
        uow.commit()
    with store.unit_of_work() as uow, pytest.raises(IntegrityError):
        uow.ratings.add_change(PORTAL, change("ana", "m" * 32, NOW, "lost"))


def test_ratings_are_of_a_portal(store):
    with store.unit_of_work() as uow, pytest.raises(IntegrityError):
        uow.ratings.lock("x" * 32, "draw", ["ana"], NEWCOMER, NOW)
    with store.unit_of_work() as uow, pytest.raises(IntegrityError):
        uow.ratings.add_change("x" * 32, change("ana", "m" * 32, NOW))
