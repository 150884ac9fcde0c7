"""LOG_FORMAT=json over real processes: gunicorn (two workers) and the autoplay runner serve a
whole scripted match, an all-bot match and webhook deliveries, with a portal key, a webhook
secret, seat tokens and a ``/stream?token=`` request; every line either process writes is one
JSON object, and none holds any secret the test was given."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
import requests

from tests.e2e.test_portals_http import operator_portal
from tests.servers import running_autoplay, running_gunicorn, watching_changes
from tests.webhook_receiver import running_receiver

SETTINGS = {
    "LOG_FORMAT": "json",
    "LOG_LEVEL": "info",
    "WEBHOOK_ALLOW_PRIVATE_ADDRESSES": "true",
    "WEBHOOK_RETRY_SECONDS": "0.2",
    "AUTOPLAY_PACE_SECONDS": "0",  # the all-bot match is played flat out
}
MOVES = 400  # a bound on the scripted seat's requests: a one-hand match needs far fewer


def json_lines(*paths: Path) -> list[dict]:
    """Every line of the files, each parsed (a line that is not a JSON object fails here)."""
    parsed = []
    for path in paths:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            value = json.loads(line)  # raises, naming the line, if it is not JSON
            assert isinstance(value, dict), f"{path.name}:{number} is not an object: {line}"
            assert {"time", "level", "logger", "event"} <= value.keys(), f"{path.name}:{number}: {line}"
            parsed.append(value)
    return parsed


def refused_by_gunicorn(base: str, request_id: str) -> bytes:
    """A request with a Content-Length that is not a number (answered before the app runs): the answer."""
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as connection:
        connection.sendall(
            f"POST /livez HTTP/1.1\r\nHost: x\r\nX-Request-ID: {request_id}\r\nContent-Length: x1\r\n\r\n".encode()
        )
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    return answer


@pytest.mark.serving
def test_every_line_is_json_and_no_secret_reaches_the_logs(database_url, tmp_path):
    key = operator_portal(database_url, "logged-json")
    secrets = [key]
    server_log, runner_log = tmp_path / "gunicorn.log", tmp_path / "runner.log"
    with (
        running_receiver(200, 200, 200, 200) as receiver,
        watching_changes() as changes,
        running_gunicorn(database_url, server_log, changes=changes, **SETTINGS) as (base, _),
        running_autoplay(database_url, runner_log, changes=changes, **SETTINGS),
    ):
        portal = {"X-API-Key": key}
        hook = requests.post(
            f"{base}/v1/portal/webhooks",
            json={"url": receiver.url, "events": ["match.created", "match.ended"]},
            headers=portal,
            timeout=10,
        )
        assert hook.status_code == 201, hook.text
        secrets.append(hook.json()["secret"])
        seats = [{"name": "Sam", "type": "remote", "player_ref": "sam"}, {"name": "Bo", "type": "bot"}]
        made = requests.post(
            f"{base}/v1/matches",
            json={"seats": seats, "rules": {"target": 1}},
            headers={**portal, "X-Request-ID": "made-by-test"},
            timeout=10,
        )
        assert made.status_code == 201, made.text
        assert made.headers["X-Request-ID"] == "made-by-test"
        match_id, token = made.json()["id"], made.json()["seats"][0]["token"]
        secrets.append(token)
        seat = {"Authorization": f"Bearer {token}"}

        with requests.get(f"{base}/v1/matches/{match_id}/stream?token={token}", stream=True, timeout=10) as stream:
            assert stream.status_code == 200
            assert next(stream.iter_lines())  # the first event arrived: the request was served

        for _ in range(MOVES):
            view = requests.get(f"{base}/v1/matches/{match_id}/view", headers=seat, timeout=10).json()
            if view["status"] == "ended":
                break
            if view["legal_actions"]:
                acted = requests.post(
                    f"{base}/v1/matches/{match_id}/actions", json=view["legal_actions"][0], headers=seat, timeout=10
                )
                assert acted.status_code in (200, 201), acted.text
            else:  # the bot's turn: wait for it
                requests.get(
                    f"{base}/v1/matches/{match_id}/events",
                    params={"after": view["seq"], "wait": 5},
                    headers=seat,
                    timeout=10,
                )
        else:
            pytest.fail(f"the match did not end within {MOVES} requests")

        bots = [{"name": "A", "type": "bot"}, {"name": "B", "type": "bot"}]
        all_bots = requests.post(
            f"{base}/v1/matches", json={"seats": bots, "rules": {"target": 1}}, headers=portal, timeout=10
        )
        assert all_bots.status_code == 201, all_bots.text

        def ended() -> bool:
            answer = requests.get(f"{base}/v1/matches/{all_bots.json()['id']}", timeout=10)
            return answer.json()["status"] == "ended"

        changes.until(ended, within=60, what="the runner played the all-bot match to its end")

        def delivered() -> bool:
            page = requests.get(
                f"{base}/v1/portal/webhooks/{hook.json()['id']}/deliveries", headers=portal, timeout=10
            ).json()
            return len(page["items"]) == 4 and all(item["status"] == "delivered" for item in page["items"])

        changes.until(delivered, within=30, what="the four deliveries were delivered")

        refusal = refused_by_gunicorn(base, "refused-by-gunicorn")
        assert refusal.startswith(b"HTTP/1.1 400 ") and b"\r\nX-Request-ID: refused-by-gunicorn\r\n" in refusal

    text = server_log.read_text(encoding="utf-8") + runner_log.read_text(encoding="utf-8")
    for secret in secrets:
        assert secret not in text
    lines = json_lines(server_log, runner_log)
    requests_logged = [line for line in lines if line["event"] == "request"]
    created = next(line for line in requests_logged if line.get("request_id") == "made-by-test")
    assert (created["method"], created["path"], created["status"]) == ("POST", "/v1/matches", 201)
    assert created["route"] == "/v1/matches" and created["duration"] > 0
    actions = [line for line in requests_logged if line.get("route") == "/v1/matches/<string:match_id>/actions"]
    assert actions and all(line["match_id"] == match_id and line["status"] in (200, 201) for line in actions)
    assert all(line["seat"] == 0 for line in actions)  # the seat the token acted for
    streamed = next(line for line in requests_logged if line["path"].endswith("/stream"))
    assert streamed["path"] == f"/v1/matches/{match_id}/stream" and streamed["status"] == 200
    refused = next(line for line in requests_logged if line.get("request_id") == "refused-by-gunicorn")
    assert (refused["status"], refused["path"]) == (400, "/livez")
    assert any(line["event"].startswith("webhook delivery") for line in json_lines(runner_log))
