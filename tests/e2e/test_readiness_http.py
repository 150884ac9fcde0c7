"""/readyz over a real gunicorn: 503 while the database refuses connections and 200 once it is
back (PostgreSQL), and 503 ``draining`` after SIGTERM while the worker finishes a long-poll it
holds, which still gets its answer (graceful shutdown keeps working)."""

from __future__ import annotations

import os
import signal
import threading

import psycopg
import pytest
import requests
from sqlalchemy.engine import make_url

from api.store import Store, make_engine
from tests.e2e.test_waiting_http import waiting_long_polls
from tests.servers import running_gunicorn, watching_changes


@pytest.mark.postgres
def test_readyz_is_503_while_the_database_refuses_connections_and_200_once_it_is_back(database_url, tmp_path):
    url = make_url(database_url)
    admin = {"host": url.host, "port": url.port, "user": url.username, "password": url.password}
    # HEALTH_CHECK_INTERVAL=0: every /readyz probes the database (no outcome is reused).
    with (
        running_gunicorn(database_url, tmp_path / "gunicorn.log", WEB_CONCURRENCY="1", HEALTH_CHECK_INTERVAL="0") as (
            base,
            _,
        ),
        psycopg.connect(**admin, dbname="postgres", autocommit=True) as maintenance,
    ):
        assert requests.get(f"{base}/readyz", timeout=10).status_code == 200
        # The database taken away: no new connection is let in, and the server's are cut.
        maintenance.execute(f'ALTER DATABASE "{url.database}" ALLOW_CONNECTIONS false')
        try:
            maintenance.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
                (url.database,),
            )
            away = requests.get(f"{base}/readyz", timeout=10)
            assert away.status_code == 503 and away.headers["Content-Type"] == "application/problem+json"
            assert away.json()["code"] == "database_unavailable" and away.headers["Retry-After"] == "1"
            assert requests.get(f"{base}/livez", timeout=10).status_code == 200  # alive all along
        finally:
            maintenance.execute(f'ALTER DATABASE "{url.database}" ALLOW_CONNECTIONS true')
        back = requests.get(f"{base}/readyz", timeout=10)
        assert back.status_code == 200 and back.json() == {"status": "ok"}


# serving: how gunicorn's worker drains is the same on every database.
@pytest.mark.serving
def test_after_sigterm_readyz_is_503_while_the_worker_finishes_a_long_poll(database_url, tmp_path):
    pid_file = tmp_path / "gunicorn.pid"
    settings = {
        "WEB_CONCURRENCY": "1",
        "RATELIMIT_ENABLED": "false",
        "LOG_LEVEL": "info",  # the worker says when it starts draining
        # Kept-alive connections outlast the test's steps: the requests sent while draining go
        # on connections opened before (the listener is closed by then).
        "GUNICORN_CMD_ARGS": f"--keep-alive 60 --pid {pid_file}",
    }
    store = Store(make_engine(database_url, pool_size=1))
    with (
        watching_changes() as changes,
        running_gunicorn(database_url, tmp_path / "gunicorn.log", changes=changes, **settings) as (base, log),
    ):
        seats = [{"name": "Ana", "type": "remote"}, {"name": "Ben", "type": "remote"}]
        created = requests.post(f"{base}/v1/matches", json={"seats": seats}, timeout=10).json()
        match_id, seq = created["id"], created["seq"]
        player = {"Authorization": f"Bearer {created['seats'][created['turn']]['token']}"}
        prober, mover = requests.Session(), requests.Session()
        assert prober.get(f"{base}/readyz", timeout=10).status_code == 200
        action = mover.get(f"{base}/v1/matches/{match_id}/view", headers=player, timeout=10).json()["legal_actions"][0]

        answer: dict[str, requests.Response] = {}

        def long_poll() -> None:  # its connection closed after the answer: the worker then holds none
            answer["page"] = requests.get(
                f"{base}/v1/matches/{match_id}/events",
                params={"after": seq, "wait": 60},
                headers={"Connection": "close"},
                timeout=30,
            )

        poll = threading.Thread(target=long_poll)
        poll.start()
        try:
            changes.until(lambda: waiting_long_polls(store) > 0, 30, "the long-poll is waiting")
            os.kill(int(pid_file.read_text()), signal.SIGTERM)
            changes.until(lambda: "draining" in log.read_text(), 30, "the worker says it is draining")

            draining = prober.get(f"{base}/readyz", timeout=10)
            assert draining.status_code == 503 and draining.json()["code"] == "draining"
            assert draining.headers["Retry-After"] and draining.headers["Connection"] == "close"

            acted = mover.post(f"{base}/v1/matches/{match_id}/actions", json=action, headers=player, timeout=10)
            assert acted.status_code == 200, acted.text
        finally:
            poll.join()
            prober.close()
            mover.close()
            store.dispose()
        page = answer["page"]
        assert page.status_code == 200 and page.json()["events"][0]["seq"] == seq + 1
