"""Per-request work skipped only where it cannot apply: the limiter's wrapper in an app whose
limits are off, and Flask's coroutine check of a plain function it has checked before."""

from __future__ import annotations

import functools
from typing import Any

import flask.app
import pytest

from api.http.limits import limiter

from .helpers import auth, tokens_of

SEATS = [{"name": "Ana", "type": "remote"}, {"name": "Bo", "type": "remote"}]


def test_the_limiter_is_asked_in_an_app_with_limits_and_never_in_one_without(make_client, monkeypatch):
    off = make_client(RATELIMIT_ENABLED=False)
    on = make_client(RATE_LIMIT_ACTIONS_PER_TOKEN="1 per minute")
    asked: list[str | None] = []
    real = limiter._check_request_limit

    def counted(callable_name: str | None = None, in_middleware: bool = True) -> None:
        if callable_name is not None:  # the view's wrapper (not the app's before_request hook)
            asked.append(callable_name)
        real(callable_name=callable_name, in_middleware=in_middleware)

    monkeypatch.setattr(limiter, "_check_request_limit", counted)
    statuses = {}
    for name, client in (("off", off), ("on", on)):
        created = client.post("/v1/matches", json={"seats": SEATS}).get_json()
        path, token = f"/v1/matches/{created['id']}/actions", tokens_of(created)[0]
        statuses[name] = [
            client.post(path, json={"type": "muggins"}, headers=auth(token)).status_code for _ in range(2)
        ]
        if name == "off":
            assert asked == []  # a match made, two actions: the limiter never asked
    assert statuses == {"off": [409, 409], "on": [409, 429]}
    views = [name.rsplit(".", 2)[-2:] for name in asked]
    assert views == [["Matches", "post"], ["Actions", "post"], ["Actions", "post"]]


def test_a_plain_function_is_checked_for_a_coroutine_once_anything_else_every_time(make_client, monkeypatch):
    app = make_client().application
    checks: list[Any] = []
    real = flask.app.iscoroutinefunction

    def counted(func: Any) -> bool:
        checks.append(func)
        return real(func)

    monkeypatch.setattr(flask.app, "iscoroutinefunction", counted)
    monkeypatch.setattr(app, "async_to_sync", lambda func: ("made synchronous", func))

    def plain() -> str:
        return "plain"

    async def coroutine() -> str:
        return "coroutine"

    wrapped = functools.partial(plain)
    assert app.ensure_sync(plain) is plain and app.ensure_sync(plain) is plain
    assert checks == [plain]  # asked once
    assert app.ensure_sync(coroutine) == ("made synchronous", coroutine) == app.ensure_sync(coroutine)
    assert app.ensure_sync(wrapped) is wrapped and app.ensure_sync(wrapped) is wrapped
    assert checks == [plain, coroutine, coroutine, wrapped, wrapped]


@pytest.mark.parametrize("limits", [True, False])
def test_an_action_is_answered_alike_with_limits_on_and_off(make_client, limits):
    client = make_client(RATELIMIT_ENABLED=limits)
    created = client.post("/v1/matches", json={"seats": SEATS}).get_json()
    tokens = tokens_of(created)
    path = f"/v1/matches/{created['id']}"
    turn = client.get(f"{path}/view", headers=auth(tokens[0])).get_json()["turn"]
    view = client.get(f"{path}/view", headers=auth(tokens[turn])).get_json()
    done = client.post(f"{path}/actions", json=view["legal_actions"][0], headers=auth(tokens[turn]))
    assert done.status_code == 200 and done.get_json()["seq"] == view["seq"] + 1
    assert ("RateLimit" in done.headers) is limits
