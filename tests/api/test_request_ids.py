"""X-Request-ID: a sane one offered is echoed, any other is replaced by a new one, every answer
(problem documents and a middleware's refusal included) says it, and a log line written while
the request is served carries it with the route template, match id and seat."""

from __future__ import annotations

import json
import logging
import re

import pytest

from api import logs
from api.serving import problem_response, protocol_error

NEW_ID = re.compile(r"[0-9a-f]{32}")


@pytest.mark.parametrize(
    "offered",
    ["abc-123", "0f8fad5b-d9cb-469f-a165-70867728950e", "trace:span/1+2=3@edge_7.x", "x" * 128],
)
def test_a_sane_request_id_is_echoed(client, offered):
    response = client.get("/livez", headers={"X-Request-ID": offered})
    assert response.status_code == 200
    assert response.headers["X-Request-ID"] == offered


@pytest.mark.parametrize("offered", ["", "x" * 129, "two words", 'quote"d', "semi;colon", "é-accent", "new\\nline"])
def test_an_insane_request_id_is_replaced_by_a_new_one(client, offered):
    response = client.get("/livez", headers={"X-Request-ID": offered})
    assert NEW_ID.fullmatch(response.headers["X-Request-ID"])


def test_each_request_without_an_id_gets_its_own(client):
    first, second = client.get("/livez"), client.get("/livez")
    assert NEW_ID.fullmatch(first.headers["X-Request-ID"]) and NEW_ID.fullmatch(second.headers["X-Request-ID"])
    assert first.headers["X-Request-ID"] != second.headers["X-Request-ID"]


def test_a_problem_answer_echoes_the_request_id_once(client):
    response = client.get("/no/such/thing", headers={"X-Request-ID": "lost-1"})
    assert response.status_code == 404 and response.mimetype == "application/problem+json"
    assert response.headers.getlist("X-Request-ID") == ["lost-1"]


def test_a_middlewares_refusal_echoes_the_request_id(client, app):
    too_long = b" " * (app.config["MAX_CONTENT_LENGTH"] + 1)
    response = client.post(
        "/v1/matches", data=too_long, headers={"X-Request-ID": "big-1", "Content-Type": "application/json"}
    )
    assert response.status_code == 413
    assert response.headers["X-Request-ID"] == "big-1"


def test_gunicorns_own_refusal_echoes_the_request_id_or_makes_one():
    refusal = protocol_error(RuntimeError("boom"))
    head = problem_response(*refusal, request_id="edge-9").partition(b"\r\n\r\n")[0].decode()
    assert "\r\nX-Request-ID: edge-9" in head
    head = problem_response(*refusal, request_id="bad id").partition(b"\r\n\r\n")[0].decode()
    assert NEW_ID.fullmatch(head.split("X-Request-ID: ")[1].split("\r\n")[0])


def test_a_line_logged_while_serving_carries_the_request_its_route_and_match(client, app):
    lines: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(logs.JsonFormatter().format(record))

    def log_an_answer(response):  # the app logs something while the request is served
        logging.getLogger("api.test").warning("answered %s", response.status_code)
        return response

    app.after_request(log_an_answer)
    handler = Collect()
    logging.getLogger("api.test").addHandler(handler)
    try:
        response = client.post("/v1/matches/m-404/seats/2/claim", json={}, headers={"X-Request-ID": "claim-1"})
    finally:
        logging.getLogger("api.test").removeHandler(handler)
    assert response.headers["X-Request-ID"] == "claim-1"
    line = json.loads(lines[0])
    assert line["event"] == f"answered {response.status_code}" and line["level"] == "warning"
    assert line["request_id"] == "claim-1"
    assert line["route"] == "/v1/matches/<string:match_id>/seats/<int:seat>/claim"
    assert (line["match_id"], line["seat"]) == ("m-404", 2)
