"""Wake-ups across processes, over real HTTP: two separate gunicorn servers on one database.

A client long-polls server A while another client acts through server B; A must answer
within a fraction of a second (PostgreSQL: LISTEN/NOTIFY; SQLite: a 0.2 s poll).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import requests

ROOT = Path(__file__).resolve().parents[2]
GUNICORN = Path(sys.executable).with_name("gunicorn")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(database_url: str) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    env = {**os.environ, "DATABASE_URL": database_url, "PORT": str(port), "WEB_CONCURRENCY": "1",
           "GUNICORN_THREADS": "8", "AUTO_MIGRATE": "0", "RATELIMIT_ENABLED": "false", "LOG_LEVEL": "warning"}
    proc = subprocess.Popen([str(GUNICORN), "-c", "gunicorn.conf.py", "wsgi:app"], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    try:
        while time.monotonic() < deadline:
            try:
                if requests.get(f"{base}/healthz", timeout=1).status_code == 200:
                    return proc, base
            except requests.RequestException:
                time.sleep(0.1)
        raise RuntimeError("gunicorn did not answer /healthz within 20 s")
    except BaseException:
        proc.kill()          # never leave a server behind, whatever went wrong
        proc.wait(10)
        raise


@pytest.fixture
def two_servers(database_url):
    procs = []
    try:
        a, base_a = _start(database_url)
        procs.append(a)
        b, base_b = _start(database_url)
        procs.append(b)
        yield base_a, base_b
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()


def test_a_long_poll_on_one_server_is_woken_by_an_action_on_another(two_servers, is_postgres):
    base_a, base_b = two_servers
    created = requests.post(f"{base_a}/v1/matches", json={"seats": [
        {"name": "Ana", "type": "remote"}, {"name": "Ben", "type": "remote"}]}, timeout=10).json()
    match_id, seq = created["id"], created["seq"]
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    turn = created["turn"]
    headers = {"Authorization": f"Bearer {tokens[turn]}"}
    action = requests.get(f"{base_b}/v1/matches/{match_id}/view", headers=headers, timeout=10).json()["legal_actions"][0]

    acted_at = {}

    def act():
        time.sleep(0.5)
        acted_at["t"] = time.monotonic()
        response = requests.post(f"{base_b}/v1/matches/{match_id}/actions", json=action, headers=headers, timeout=10)
        acted_at["done"] = time.monotonic()
        acted_at["status"] = response.status_code

    thread = threading.Thread(target=act)
    thread.start()
    page = requests.get(f"{base_a}/v1/matches/{match_id}/events", params={"after": seq, "wait": 20}, timeout=30)
    woken = time.monotonic()
    thread.join()
    assert acted_at["status"] == 200
    assert page.status_code == 200 and page.json()["events"][0]["seq"] == seq + 1
    latency = woken - acted_at["done"]
    # NOTIFY arrives at commit; SQLite's poll interval is 0.2 s.
    assert latency < (0.25 if is_postgres else 0.6), f"woken {latency:.3f}s after the action's answer"
