"""Wake-ups across processes, over real HTTP: two separate gunicorn servers on one database.

A client long-polls server A while another client acts through server B; A must be woken by
it (PostgreSQL: LISTEN/NOTIFY; SQLite: each process's one poller of ``PRAGMA data_version``),
not answer when its wait runs out. The action is sent once the long-poll is waiting: its
waiter slot is in the database (looked at after each commit of the servers, not on a clock).
How soon after the action the long-poll answers depends on the machine: ``bench/http_wakeup.py``
measures it; here the long-poll's wait (60 s) outlasts the client's patience (30 s), so only a
wake-up can answer it in time.
"""

from __future__ import annotations

import threading

import pytest
import requests

from api.store import Store, make_engine
from tests.servers import running_gunicorn, watching_changes


@pytest.fixture
def two_servers(database_url, tmp_path):
    settings = {"WEB_CONCURRENCY": "1", "AUTO_MIGRATE": "0", "RATELIMIT_ENABLED": "false"}
    with (
        watching_changes() as changes,
        running_gunicorn(database_url, tmp_path / "a.log", changes=changes, **settings) as (base_a, _),
        running_gunicorn(database_url, tmp_path / "b.log", changes=changes, **settings) as (base_b, _),
    ):
        yield base_a, base_b, changes


def waiting_long_polls(store: Store) -> int:
    """How many waits hold a slot of the per-address cap now: a long-poll holds one only while it waits."""
    with store.unit_of_work(readonly=True) as uow:
        return uow.connection.exec_driver_sql("SELECT count(*) FROM waiter_slots").scalar()


def test_a_long_poll_on_one_server_is_woken_by_an_action_on_another(two_servers, database_url):
    base_a, base_b, changes = two_servers
    created = requests.post(
        f"{base_a}/v1/matches",
        json={"seats": [{"name": "Ana", "type": "remote"}, {"name": "Ben", "type": "remote"}]},
        timeout=10,
    ).json()
    match_id, seq = created["id"], created["seq"]
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    turn = created["turn"]
    headers = {"Authorization": f"Bearer {tokens[turn]}"}
    action = requests.get(f"{base_b}/v1/matches/{match_id}/view", headers=headers, timeout=10).json()["legal_actions"][
        0
    ]

    acted = {}
    store = Store(make_engine(database_url, pool_size=1))

    def act():
        changes.until(lambda: waiting_long_polls(store) > 0, 30, "the long-poll on server A is waiting")
        response = requests.post(f"{base_b}/v1/matches/{match_id}/actions", json=action, headers=headers, timeout=10)
        acted["status"] = response.status_code

    thread = threading.Thread(target=act)
    thread.start()
    try:
        page = requests.get(f"{base_a}/v1/matches/{match_id}/events", params={"after": seq, "wait": 60}, timeout=30)
    except requests.Timeout:
        pytest.fail("the long-poll on server A was not woken by the action on server B (its 60 s wait ran on)")
    finally:
        thread.join()
        store.dispose()
    assert acted["status"] == 200
    assert page.status_code == 200 and page.json()["events"][0]["seq"] == seq + 1
