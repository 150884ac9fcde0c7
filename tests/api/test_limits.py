"""Rate limits, portal API keys and body size limits."""

from __future__ import annotations

import pytest

from api import create_app

from .helpers import assert_problem, auth, tokens_of

SEATS = [{"name": "A", "type": "remote"}, {"name": "B", "type": "remote"}]


@pytest.fixture
def make_client(database_url):
    apps = []

    def make(**config):
        app = create_app({"TESTING": True, "DATABASE_URL": database_url, **config})
        apps.append(app)
        return app.test_client()

    yield make
    for app in apps:
        app.extensions["boneyard.store"].dispose()


def test_match_creation_is_rate_limited_per_address_with_retry_after(make_client):
    client = make_client(RATE_LIMIT_CREATE="2 per minute")
    for _ in range(2):
        assert client.post("/v1/matches", json={"seats": SEATS}).status_code == 201
    refused = client.post("/v1/matches", json={"seats": SEATS})
    assert_problem(refused, 429, "too_many_requests")
    assert 0 < int(refused.headers["Retry-After"]) <= 60
    other_address = client.post("/v1/matches", json={"seats": SEATS}, environ_base={"REMOTE_ADDR": "127.0.0.9"})
    assert other_address.status_code == 201


def test_actions_are_rate_limited_per_token(make_client):
    client = make_client(RATE_LIMIT_ACTIONS_PER_TOKEN="3 per minute")
    tokens = tokens_of(client.post("/v1/matches", json={"seats": SEATS}).get_json())
    match_id = client.get("/v1/matches").get_json()["items"][0]["id"]
    statuses = [client.post(f"/v1/matches/{match_id}/actions", json={"type": "muggins"},
                            headers=auth(tokens[0])).status_code for _ in range(4)]
    assert statuses[:3] == [409, 409, 409] and statuses[3] == 429
    other_seat = client.post(f"/v1/matches/{match_id}/actions", json={"type": "muggins"}, headers=auth(tokens[1]))
    assert other_seat.status_code == 409


def test_limits_can_be_switched_off(make_client):
    client = make_client(RATELIMIT_ENABLED=False, RATE_LIMIT_CREATE="1 per minute")
    assert [client.post("/v1/matches", json={"seats": SEATS}).status_code for _ in range(3)] == [201] * 3


def test_with_api_keys_creating_and_listing_need_one_but_seat_tokens_still_act(make_client):
    client = make_client(API_KEYS=["portal-key-1", "portal-key-2"], RATELIMIT_ENABLED=False)
    assert_problem(client.post("/v1/matches", json={"seats": SEATS}), 401, "invalid_api_key")
    assert_problem(client.get("/v1/matches", headers={"X-API-Key": "wrong"}), 401, "invalid_api_key")
    created = client.post("/v1/matches", json={"seats": SEATS}, headers={"X-API-Key": "portal-key-2"})
    assert created.status_code == 201
    assert client.get("/v1/matches", headers={"X-API-Key": "portal-key-1"}).status_code == 200
    match_id, token = created.get_json()["id"], tokens_of(created.get_json())[0]
    assert client.get(f"/v1/matches/{match_id}/view", headers=auth(token)).status_code == 200


def test_a_body_over_the_size_limit_is_413(make_client):
    client = make_client(RATELIMIT_ENABLED=False)
    response = client.post("/v1/matches", data="x" * 70_000, content_type="application/json")
    assert_problem(response, 413, "payload_too_large")


def test_names_are_stored_as_given_never_interpreted(make_client):
    client = make_client(RATELIMIT_ENABLED=False)
    name = "<script>alert(1)</script>"
    created = client.post("/v1/matches", json={"seats": [{"name": name, "type": "remote"},
                                                          {"name": "Ünïcødé ✓", "type": "remote"}]}).get_json()
    summary = client.get(f"/v1/matches/{created['id']}").get_json()
    assert [s["name"] for s in summary["seats"]] == [name, "Ünïcødé ✓"]
