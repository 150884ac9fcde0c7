"""``uow.matchmaking``: player tokens, seeks (their pools, pairing, expiry and cancelling),
challenges and the players' event streams."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy.exc import IntegrityError

from api.store.matchmaking import PlayerEventRecord, PlayerTokenRecord, player_key

NOW = datetime(2030, 1, 1, tzinfo=UTC)
PORTAL, OTHER = "p" * 32, "o" * 32
POOL = "f" * 64


@pytest.fixture
def portals(store) -> None:
    with store.unit_of_work() as uow:
        uow.portals.add(PORTAL, "acme", NOW)
        uow.portals.add(OTHER, "globex", NOW)
        uow.commit()


# --- player tokens ------------------------------------------------------------------------------------
def test_a_player_token_finds_its_player_until_revoked(store, portals):
    with store.unit_of_work() as uow:
        made = uow.matchmaking.add_player_token("t1", PORTAL, "ana", "1" * 64, "ana's bot", NOW)
        uow.matchmaking.add_player_token("t2", PORTAL, "ana", "2" * 64, None, NOW + timedelta(seconds=1))
        uow.matchmaking.add_player_token("t3", PORTAL, "ben", "3" * 64, None, NOW)
        uow.commit()
    assert made == PlayerTokenRecord("t1", PORTAL, "ana", "ana's bot", NOW)
    with store.unit_of_work() as uow:
        assert [t.id for t in uow.matchmaking.player_tokens(PORTAL, "ana")] == ["t1", "t2"]
        assert uow.matchmaking.player_tokens(OTHER, "ana") == []
        assert uow.matchmaking.player_by_token_hash("1" * 64) == (PORTAL, "ana")
        assert uow.matchmaking.player_by_token_hash("9" * 64) is None
        assert not uow.matchmaking.revoke_player_token(PORTAL, "ben", "t1", NOW)  # another player's
        assert not uow.matchmaking.revoke_player_token(OTHER, "ana", "t1", NOW)
        assert uow.matchmaking.revoke_player_token(PORTAL, "ana", "t1", NOW)
        assert not uow.matchmaking.revoke_player_token(PORTAL, "ana", "t1", NOW)  # revoked already
        uow.commit()
    with store.unit_of_work(readonly=True) as uow:
        assert uow.matchmaking.player_by_token_hash("1" * 64) is None
        assert uow.matchmaking.player_tokens(PORTAL, "ana")[0].revoked_at == NOW


@pytest.mark.parametrize(
    ("token_id", "portal_id", "token_hash"),
    [("t1", PORTAL, "9" * 64), ("t9", PORTAL, "1" * 64), ("t9", "x" * 32, "9" * 64)],
    ids=["id", "hash", "portal"],
)
def test_a_player_token_is_unique_and_of_a_portal(store, portals, token_id, portal_id, token_hash):
    with store.unit_of_work() as uow:
        uow.matchmaking.add_player_token("t1", PORTAL, "ana", "1" * 64, None, NOW)
        uow.commit()
    with store.unit_of_work() as uow, pytest.raises(IntegrityError):
        uow.matchmaking.add_player_token(token_id, portal_id, "ana", token_hash, None, NOW)


# --- seeks --------------------------------------------------------------------------------------------
def seek_row(seek_id: str, **fields):
    return {
        "id": seek_id,
        "portal_id": PORTAL,
        "player_ref": seek_id,
        "secret_hash": None,
        "pool": POOL,
        "preset": "draw",
        "rules": {"target": 50, "nested": {"list": [1, None]}},
        "players": 2,
        "rated": False,
        "rating_min": None,
        "rating_max": None,
        "fill_at": None,
        "fill_level": None,
        "status": "waiting",
        "created_at": NOW,
        "expires_at": NOW + timedelta(minutes=5),
        **fields,
    }


def add_seeks(store, *rows) -> None:
    with store.unit_of_work() as uow:
        uow.matchmaking.lock_pool(POOL)
        for row in rows:
            uow.matchmaking.add_seek(row)
        uow.commit()


def test_a_seek_reads_back_as_written_not_yet_paired(store, portals):
    row = seek_row("ana", rated=True, rating_min=1.5, fill_at=NOW + timedelta(seconds=30), fill_level="hard")
    with store.unit_of_work() as uow:
        made = uow.matchmaking.add_seek(row)
        uow.commit()
    with store.unit_of_work(readonly=True) as uow:
        assert uow.matchmaking.get_seek("ana") == made
        assert uow.matchmaking.get_seek("nobody") is None
    assert {k: getattr(made, k) for k in row} == row
    assert (made.match_id, made.seat, made.seat_token) == (None, None, None)


def test_an_anonymous_seek_needs_no_portal(store):
    with store.unit_of_work() as uow:
        uow.matchmaking.add_seek(seek_row("anon", portal_id=None, player_ref=None, secret_hash="5" * 64))
        uow.commit()
    with store.unit_of_work(readonly=True) as uow:
        assert uow.matchmaking.get_seek("anon").secret_hash == "5" * 64


def test_the_pool_is_its_live_waiting_seeks_oldest_first(store, portals):
    add_seeks(
        store,
        seek_row("late", created_at=NOW + timedelta(seconds=2)),
        seek_row("early", created_at=NOW - timedelta(seconds=2)),
        seek_row("expired", expires_at=NOW),
        seek_row("elsewhere", pool="e" * 64),
        seek_row("paired", status="paired"),
    )
    with store.unit_of_work() as uow:
        assert [s.id for s in uow.matchmaking.waiting_in_pool(POOL, NOW, 10)] == ["early", "late"]
        assert [s.id for s in uow.matchmaking.waiting_in_pool(POOL, NOW, 1)] == ["early"]
        assert [s.id for s in uow.matchmaking.waiting_in_pool(POOL, NOW - timedelta(seconds=1), 10)] == [
            "early",
            "expired",
            "late",
        ]


def test_pairing_a_seek_is_a_compare_and_set_from_waiting(store, portals, make_match):
    match = make_match()
    add_seeks(store, seek_row("ana"), seek_row("ben"))
    with store.unit_of_work() as uow:
        assert uow.matchmaking.get_seek("ana", for_update=True).status == "waiting"
        assert uow.matchmaking.finish_seek("ana", "paired", match_id=match.id, seat=1, seat_token="tok_a")
        assert not uow.matchmaking.finish_seek("ana", "canceled")  # no longer waiting
        assert not uow.matchmaking.finish_seek("nobody", "canceled")
        assert uow.matchmaking.finish_seek("ben", "canceled")
        uow.commit()
    with store.unit_of_work() as uow:
        ana, ben = uow.matchmaking.get_seek("ana"), uow.matchmaking.get_seek("ben")
        assert (ana.status, ana.match_id, ana.seat, ana.seat_token) == ("paired", match.id, 1, "tok_a")
        assert (ben.status, ben.match_id) == ("canceled", None)
        assert uow.matchmaking.waiting_in_pool(POOL, NOW, 10) == []
        uow.matchmaking.forget_seat_tokens(match.id)
        uow.commit()
    with store.unit_of_work(readonly=True) as uow:
        assert uow.matchmaking.get_seek("ana").seat_token is None


def test_due_seeks_are_the_waiting_ones_past_their_expiry_or_fill_time(store, portals):
    add_seeks(
        store,
        seek_row("expires", expires_at=NOW, created_at=NOW - timedelta(seconds=3)),
        seek_row("fills", fill_at=NOW, fill_level="easy", created_at=NOW - timedelta(seconds=2)),
        seek_row("later", fill_at=NOW + timedelta(seconds=1), fill_level="easy"),
        seek_row("done", expires_at=NOW, status="expired"),
        seek_row("waits"),
    )
    with store.unit_of_work(readonly=True) as uow:
        assert [s.id for s in uow.matchmaking.due_seeks(NOW, 10)] == ["expires", "fills"]
        assert [s.id for s in uow.matchmaking.due_seeks(NOW, 1)] == ["expires"]
        assert uow.matchmaking.due_seeks(NOW - timedelta(days=1), 10) == []
    with store.unit_of_work() as uow:
        assert uow.matchmaking.finish_seek("expires", "expired")
        uow.commit()
    with store.unit_of_work(readonly=True) as uow:
        assert [s.id for s in uow.matchmaking.due_seeks(NOW, 10)] == ["fills"]


@pytest.mark.parametrize(
    "fields", [{"status": "lost"}, {"pool": None}, {"portal_id": "x" * 32}], ids=["status", "not-null", "portal"]
)
def test_a_seek_the_schema_refuses_is_not_added(store, portals, fields):
    with store.unit_of_work() as uow, pytest.raises(IntegrityError):
        uow.matchmaking.add_seek(seek_row("ana", **fields))


def test_a_seek_id_is_taken_once_and_finished_to_a_known_status(store, portals):
    add_seeks(store, seek_row("ana"))
    with store.unit_of_work() as uow, pytest.raises(IntegrityError):
        uow.matchmaking.add_seek(seek_row("ana", player_ref="ben"))
    with store.unit_of_work() as uow, pytest.raises(IntegrityError):
        uow.matchmaking.finish_seek("ana", "lost")
    with store.unit_of_work(readonly=True) as uow:
        assert uow.matchmaking.get_seek("ana").status == "waiting"


# --- challenges ---------------------------------------------------------------------------------------
def challenge_row(challenge_id: str, **fields):
    return {
        "id": challenge_id,
        "portal_id": PORTAL,
        "challenger_ref": "ana",
        "preset": "draw",
        "rules": {"target": 100},
        "rated": True,
        "seats": [
            {"player_ref": "ana", "type": "remote", "level": None, "answer": "accepted", "token": None},
            {"player_ref": "ben", "type": "remote", "level": None, "answer": None, "token": None},
        ],
        "status": "pending",
        "created_at": NOW,
        "expires_at": NOW + timedelta(minutes=10),
        "match_id": None,
        **fields,
    }


def test_a_challenge_reads_back_and_changes_by_compare_and_set(store, portals, make_match):
    match = make_match()
    row = challenge_row("c1")
    with store.unit_of_work() as uow:
        made = uow.matchmaking.add_challenge(row)
        uow.commit()
    assert {k: getattr(made, k) for k in row} == row
    seats = [dict(s) for s in row["seats"]]
    seats[1]["answer"] = "accepted"
    with store.unit_of_work() as uow:
        assert uow.matchmaking.get_challenge("c1", for_update=True) == made
        assert uow.matchmaking.update_challenge("c1", "pending", seats=seats, status="started", match_id=match.id)
        assert not uow.matchmaking.update_challenge("c1", "pending", status="canceled")  # it changed meanwhile
        assert not uow.matchmaking.update_challenge("nope", "pending", status="canceled")
        uow.commit()
    with store.unit_of_work(readonly=True) as uow:
        found = uow.matchmaking.get_challenge("c1")
        assert (found.status, found.match_id, found.seats) == ("started", match.id, seats)
        assert uow.matchmaking.get_challenge("nope") is None


def test_expired_challenges_are_the_pending_ones_past_their_time_soonest_first(store, portals):
    with store.unit_of_work() as uow:
        uow.matchmaking.add_challenge(challenge_row("late", expires_at=NOW))
        uow.matchmaking.add_challenge(challenge_row("later", expires_at=NOW - timedelta(seconds=5)))
        uow.matchmaking.add_challenge(challenge_row("live", expires_at=NOW + timedelta(seconds=1)))
        uow.matchmaking.add_challenge(challenge_row("answered", expires_at=NOW, status="declined"))
        uow.commit()
    with store.unit_of_work(readonly=True) as uow:
        assert [c.id for c in uow.matchmaking.expired_challenges(NOW, 10)] == ["later", "late"]
        assert [c.id for c in uow.matchmaking.expired_challenges(NOW, 1)] == ["later"]


@pytest.mark.parametrize(
    "fields",
    [{"status": "lost"}, {"challenger_ref": None}, {"portal_id": "x" * 32}],
    ids=["status", "not-null", "portal"],
)
def test_a_challenge_the_schema_refuses_is_not_added(store, portals, fields):
    with store.unit_of_work() as uow, pytest.raises(IntegrityError):
        uow.matchmaking.add_challenge(challenge_row("c1", **fields))


def test_a_challenge_changes_only_to_a_known_status(store, portals):
    with store.unit_of_work() as uow:
        uow.matchmaking.add_challenge(challenge_row("c1"))
        uow.commit()
    with store.unit_of_work() as uow, pytest.raises(IntegrityError):
        uow.matchmaking.update_challenge("c1", "pending", status="lost")
    with store.unit_of_work(readonly=True) as uow:
        assert uow.matchmaking.get_challenge("c1").status == "pending"


# --- the players' event streams -----------------------------------------------------------------------
def test_a_players_events_are_numbered_per_player_and_paged(store, portals):
    with store.unit_of_work() as uow:
        assert uow.matchmaking.player_last_seq(PORTAL, "ana") == 0
        assert uow.matchmaking.add_player_event(PORTAL, "ana", "challenge", {"id": "c1"}, NOW) == (
            player_key(PORTAL, "ana"),
            1,
        )
        assert uow.matchmaking.add_player_event(PORTAL, "ben", "challenge", {"id": "c1"}, NOW)[1] == 1
        assert uow.matchmaking.add_player_event(OTHER, "ana", "challenge", {"id": "c9"}, NOW)[1] == 1
        data = {"match_id": "m" * 32, "seat": 0, "seek_id": None, "list": [1, [2]]}
        assert uow.matchmaking.add_player_event(PORTAL, "ana", "match_started", data, NOW) == (
            player_key(PORTAL, "ana"),
            2,
        )
        uow.commit()
    with store.unit_of_work(readonly=True) as uow:
        assert uow.matchmaking.player_last_seq(PORTAL, "ana") == 2
        assert uow.matchmaking.player_events(PORTAL, "ana", 0, 10) == [
            PlayerEventRecord(1, "challenge", {"id": "c1"}, NOW),
            PlayerEventRecord(2, "match_started", data, NOW),
        ]
        assert [e.seq for e in uow.matchmaking.player_events(PORTAL, "ana", 1, 10)] == [2]
        assert [e.seq for e in uow.matchmaking.player_events(PORTAL, "ana", 0, 1)] == [1]
        assert uow.matchmaking.player_events(PORTAL, "cy", 0, 10) == []
    assert player_key(PORTAL, "ana") != player_key(OTHER, "ana")


def test_a_players_events_are_not_kept_unless_committed(store, portals):
    with store.unit_of_work() as uow:
        uow.matchmaking.add_player_event(PORTAL, "ana", "challenge", {}, NOW)
    with store.unit_of_work() as uow:
        assert uow.matchmaking.player_last_seq(PORTAL, "ana") == 0
        assert uow.matchmaking.add_player_event(PORTAL, "ana", "challenge", {}, NOW)[1] == 1


def test_a_players_events_are_of_a_portal(store):
    with store.unit_of_work() as uow, pytest.raises(IntegrityError):
        uow.matchmaking.add_player_event("x" * 32, "ana", "challenge", {}, NOW)
