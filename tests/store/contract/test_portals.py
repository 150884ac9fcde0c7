"""``uow.portals`` (the tenants and their keys) and ``uow.player_stats`` (a portal player's figures)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy.exc import IntegrityError

from api.store.records import PlayerFigures, PortalKeyRecord, PortalNameTaken, PortalRecord

NOW = datetime(2030, 1, 1, tzinfo=UTC)
LATER = NOW + timedelta(hours=1)
ACME, GLOBEX = "a" * 32, "g" * 32


def two_portals(store) -> None:
    with store.unit_of_work() as uow:
        uow.portals.add(GLOBEX, "globex", NOW)
        uow.portals.add(ACME, "acme", NOW, create_limit="600/minute")
        uow.commit()


def test_portals_are_found_by_id_and_name_and_listed_by_name(store):
    two_portals(store)
    acme = PortalRecord(ACME, "acme", NOW, "600/minute")
    with store.unit_of_work() as uow:
        assert uow.portals.get(ACME) == acme and uow.portals.by_name("acme") == acme
        assert uow.portals.get("x" * 32) is None and uow.portals.by_name("initech") is None
        assert [p.name for p in uow.portals.all()] == ["acme", "globex"]
        uow.portals.set_create_limit(ACME, None)
        uow.portals.set_create_limit("x" * 32, "1/second")  # no such portal: nothing
        uow.commit()
    with store.unit_of_work(readonly=True) as uow:
        assert uow.portals.get(ACME).create_limit is None
        assert len(uow.portals.all()) == 2


def test_a_name_is_one_portals_and_the_transaction_goes_on(store):
    two_portals(store)
    with store.unit_of_work() as uow:
        with pytest.raises(PortalNameTaken) as caught:
            uow.portals.add("x" * 32, "acme", NOW)
        assert caught.value.name == "acme"
        uow.portals.add("i" * 32, "initech", NOW)
        uow.commit()
    with store.unit_of_work(readonly=True) as uow:
        assert [p.name for p in uow.portals.all()] == ["acme", "globex", "initech"]


def test_keys_are_listed_found_by_their_hash_until_revoked(store):
    two_portals(store)
    with store.unit_of_work() as uow:
        first = uow.portals.add_key("k1", ACME, "1" * 64, NOW)
        uow.portals.add_key("k2", ACME, "2" * 64, LATER)
        uow.portals.add_key("k3", GLOBEX, "3" * 64, NOW)
        uow.commit()
    assert first == PortalKeyRecord("k1", ACME, NOW)
    with store.unit_of_work() as uow:
        assert [k.id for k in uow.portals.keys(ACME)] == ["k1", "k2"]
        found = uow.portals.by_key_hash("1" * 64)
        assert (found[0].name, found[1]) == ("acme", "k1")
        assert uow.portals.by_key_hash("9" * 64) is None
        assert not uow.portals.revoke_key(GLOBEX, "k1", LATER)  # another portal's key
        assert uow.portals.revoke_key(ACME, "k1", LATER)
        assert not uow.portals.revoke_key(ACME, "k1", LATER)  # revoked already
        assert not uow.portals.revoke_key(ACME, "nope", LATER)
        uow.commit()
    with store.unit_of_work(readonly=True) as uow:
        assert uow.portals.by_key_hash("1" * 64) is None
        assert uow.portals.keys(ACME) == [PortalKeyRecord("k1", ACME, NOW, LATER), PortalKeyRecord("k2", ACME, LATER)]


@pytest.mark.parametrize(
    ("key_id", "portal_id", "key_hash"),
    [("k1", ACME, "9" * 64), ("k9", ACME, "1" * 64), ("k9", "x" * 32, "9" * 64)],
    ids=["id", "hash", "portal"],
)
def test_a_key_is_unique_and_of_a_portal(store, key_id, portal_id, key_hash):
    two_portals(store)
    with store.unit_of_work() as uow:
        uow.portals.add_key("k1", ACME, "1" * 64, NOW)
        uow.commit()
    with store.unit_of_work() as uow, pytest.raises(IntegrityError):
        uow.portals.add_key(key_id, portal_id, key_hash, NOW)


def test_player_figures_are_made_by_lock_and_changed_by_save(store):
    two_portals(store)
    with store.unit_of_work() as uow:
        assert uow.player_stats.get(ACME, "ana") is None
        assert uow.player_stats.lock(ACME, ["ben", "ana", "ben"], NOW) == {
            "ana": PlayerFigures(),
            "ben": PlayerFigures(),
        }
        assert uow.player_stats.lock(ACME, [], NOW) == {}
        uow.player_stats.save(ACME, "ana", PlayerFigures(played=3, won=2, best_margin=40, current_streak=2), NOW)
        uow.player_stats.save(ACME, "cy", PlayerFigures(played=1), NOW)  # no row (never locked): nothing
        uow.commit()
    with store.unit_of_work() as uow:
        assert uow.player_stats.get(ACME, "ana") == PlayerFigures(played=3, won=2, best_margin=40, current_streak=2)
        assert uow.player_stats.get(GLOBEX, "ana") is None
        assert uow.player_stats.get(ACME, "cy") is None
        assert uow.player_stats.lock(ACME, ["ana"], LATER)["ana"].played == 3


def test_player_figures_are_of_a_portal(store):
    with store.unit_of_work() as uow, pytest.raises(IntegrityError):
        uow.player_stats.lock("x" * 32, ["ana"], NOW)
