"""Rate limits and body size limits (a portal's own: tests/api/test_portals.py)."""

from __future__ import annotations

from sqlalchemy import select

from api.store import tables

from .helpers import assert_problem, auth, play_to_end, tokens_of
from .stored_matches import SHORT, store_ended_match

SEATS = [{"name": "A", "type": "remote"}, {"name": "B", "type": "remote"}]


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
    statuses = [
        client.post(f"/v1/matches/{match_id}/actions", json={"type": "muggins"}, headers=auth(tokens[0])).status_code
        for _ in range(4)
    ]
    assert statuses[:3] == [409, 409, 409] and statuses[3] == 429
    other_seat = client.post(f"/v1/matches/{match_id}/actions", json={"type": "muggins"}, headers=auth(tokens[1]))
    assert other_seat.status_code == 409


def test_limits_can_be_switched_off(make_client):
    client = make_client(RATELIMIT_ENABLED=False, RATE_LIMIT_CREATE="1 per minute")
    answers = [client.post("/v1/matches", json={"seats": SEATS}) for _ in range(3)]
    assert [a.status_code for a in answers] == [201] * 3
    assert not {"RateLimit", "RateLimit-Policy"} & set(answers[0].headers.keys())


def test_a_body_over_the_size_limit_is_413(make_client):
    client = make_client(RATELIMIT_ENABLED=False)
    response = client.post("/v1/matches", data="x" * 70_000, content_type="application/json")
    assert_problem(response, 413, "payload_too_large")


def test_names_are_stored_as_given_never_interpreted(make_client):
    client = make_client(RATELIMIT_ENABLED=False)
    name = "<script>alert(1)</script>"
    created = client.post(
        "/v1/matches", json={"seats": [{"name": name, "type": "remote"}, {"name": "Ünïcødé ✓", "type": "remote"}]}
    ).get_json()
    summary = client.get(f"/v1/matches/{created['id']}").get_json()
    assert [s["name"] for s in summary["seats"]] == [name, "Ünïcødé ✓"]


def _counters(client) -> dict[str, int]:
    with client.application.extensions["boneyard.store"].engine.connect() as conn:
        rows = conn.execute(select(tables.rate_limit_counters.c.key, tables.rate_limit_counters.c["count"]))
        return {key: count for key, count in rows}


def test_two_app_servers_on_one_database_share_one_budget(make_client, tmp_path):
    first, second = (make_client(RATE_LIMIT_CREATE="3 per minute") for _ in range(2))
    assert [c.post("/v1/matches", json={"seats": SEATS}).status_code for c in (first, second, first)] == [201] * 3
    assert_problem(second.post("/v1/matches", json={"seats": SEATS}), 429, "too_many_requests")
    assert_problem(first.post("/v1/matches", json={"seats": SEATS}), 429, "too_many_requests")
    assert list(_counters(first).values()) == [5]  # one row: both servers counted there
    # The counters are in the database, not in this process: a server on another database
    # (in this same process, with the same limiter) has a budget of its own.
    elsewhere = make_client(RATE_LIMIT_CREATE="3 per minute", DATABASE_URL=f"sqlite:///{tmp_path / 'other.db'}")
    assert elsewhere.post("/v1/matches", json={"seats": SEATS}).status_code == 201


def test_memory_storage_still_counts_in_the_process(make_client):
    client = make_client(RATELIMIT_STORAGE_URI="memory://", RATE_LIMIT_CREATE="1 per minute")
    assert client.post("/v1/matches", json={"seats": SEATS}).status_code == 201
    assert_problem(client.post("/v1/matches", json={"seats": SEATS}), 429, "too_many_requests")
    assert _counters(client) == {}


def test_the_audit_and_the_fairness_check_are_limited_per_address_each_on_its_own(make_client):
    client = make_client(RATE_LIMIT_AUDIT="2 per minute")
    match_id, _ = store_ended_match(client.application.extensions["boneyard.store"], SHORT)
    for path in (f"/v1/matches/{match_id}/audit?limit=5", f"/v1/matches/{match_id}/fairness"):
        assert [client.get(path).status_code for _ in range(2)] == [200, 200]
        refused = client.get(path)
        assert_problem(refused, 429, "too_many_requests")
        assert 0 < int(refused.headers["Retry-After"]) <= 60
        assert client.get(path, environ_base={"REMOTE_ADDR": "127.0.0.9"}).status_code == 200


def _ended_match_with_a_player(client, headers=None) -> tuple[str, str]:
    created = client.post(
        "/v1/matches",
        headers=headers or {},
        json={"seats": [{"name": "Ana", "type": "remote"}, {"name": "Bot", "type": "bot"}], "rules": {"target": 1}},
    )
    assert created.status_code == 201, created.get_json()
    match_id, token = created.get_json()["id"], tokens_of(created.get_json())[0]
    play_to_end(client, match_id, {0: token})
    return match_id, token


def test_a_rematch_spends_the_match_creation_budget(make_client):
    client = make_client(RATE_LIMIT_CREATE="2 per minute")
    match_id, token = _ended_match_with_a_player(client)  # 1 of 2
    assert client.post(f"/v1/matches/{match_id}/rematch", headers=auth(token)).status_code == 201  # 2 of 2
    assert_problem(client.post("/v1/matches", json={"seats": SEATS}), 429, "too_many_requests")
    assert_problem(client.post(f"/v1/matches/{match_id}/rematch", headers=auth(token)), 429, "too_many_requests")


def test_retry_after_is_only_on_refusals_and_never_zero():
    """flask-limiter writes Retry-After on every limited response, 0 in a window's last
    second; a client obeying a 0 on a 429 would spin."""
    from flask import Flask

    from api.http.limits import settle_retry_after

    app = Flask(__name__)
    with app.test_request_context():

        def answered(status, retry_after):
            headers = {} if retry_after is None else {"Retry-After": retry_after}
            response = app.response_class("{}", status=status, headers=headers)
            return settle_retry_after(response).headers.get("Retry-After")

        assert answered(429, "0") == "1" and answered(429, "-3") == "1" and answered(429, "17") == "17"
        assert answered(503, "0") == "1"
        assert answered(503, None) == "1" and answered(429, None) == "1"  # always there, as documented
        assert answered(200, None) is None
        assert answered(200, "17") is None and answered(201, "0") is None and answered(409, "5") is None
        assert answered(429, "Wed, 21 Oct 2026 07:28:00 GMT") == "Wed, 21 Oct 2026 07:28:00 GMT"


def test_a_successful_limited_answer_carries_no_retry_after(make_client):
    client = make_client(RATE_LIMIT_CREATE="5 per minute")
    created = client.post("/v1/matches", json={"seats": SEATS})
    assert created.status_code == 201 and "Retry-After" not in created.headers
    assert created.headers["X-RateLimit-Remaining"] == "4"


class CountersClock:
    """The rate-limit counters' clock (epoch seconds), moved by the test."""

    def __init__(self, now: float = 2_000_000_000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


def _clocked(client) -> CountersClock:
    """The app's database counters, on a clock the test moves."""
    from api.http.rate_limit_storage import COUNTERS_KEY
    from api.services.rate_limits import RateLimitCounters

    clock = CountersClock()
    app = client.application
    app.extensions[COUNTERS_KEY] = RateLimitCounters(app.extensions["boneyard.store"], clock=clock)
    return clock


def test_every_limited_answer_says_its_policy_and_what_is_left_of_it(make_client):
    client = make_client(RATE_LIMIT_CREATE="3 per minute")
    clock = _clocked(client)
    answers = []
    for elapsed in (0, 10, 25.5, 40):
        clock.now = 2_000_000_000.0 + elapsed
        answers.append(client.post("/v1/matches", json={"seats": SEATS}))
    assert [a.status_code for a in answers] == [201, 201, 201, 429]
    assert {a.headers["RateLimit-Policy"] for a in answers} == {'"create";q=3;w=60'}
    # The window started with the first request: 60 s, then 50, 34.5 (rounded up), 20.
    assert [a.headers["RateLimit"] for a in answers] == [
        '"create";r=2;t=60',
        '"create";r=1;t=50',
        '"create";r=0;t=35',
        '"create";r=0;t=20',
    ]
    assert answers[3].headers["Retry-After"] == "20"  # the same fact as t
    assert "Retry-After" not in answers[2].headers
    clock.now = 2_000_000_000.0 + 60  # the window has ended: a new one starts
    renewed = client.post("/v1/matches", json={"seats": SEATS})
    assert renewed.status_code == 201 and renewed.headers["RateLimit"] == '"create";r=2;t=60'


def test_an_action_shows_both_of_its_budgets_and_a_refused_one_the_spent_budget(make_client):
    client = make_client(
        RATE_LIMIT_ACTIONS_PER_TOKEN="2 per minute", RATE_LIMIT_ACTIONS_PER_ADDRESS="100 per 2 minutes"
    )
    _clocked(client)
    created = client.post("/v1/matches", json={"seats": SEATS}).get_json()
    token, match_id = tokens_of(created)[0], created["id"]
    answers = [
        client.post(f"/v1/matches/{match_id}/actions", json={"type": "muggins"}, headers=auth(token)) for _ in range(3)
    ]
    assert [a.status_code for a in answers] == [409, 409, 429]
    policy = '"actions-per-token";q=2;w=60, "actions-per-address";q=100;w=120'
    # The spent budget refuses first: the address's is not counted, so not shown.
    assert [a.headers["RateLimit-Policy"] for a in answers] == [policy, policy, '"actions-per-token";q=2;w=60']
    assert [a.headers["RateLimit"] for a in answers] == [
        '"actions-per-token";r=1;t=60, "actions-per-address";r=99;t=120',
        '"actions-per-token";r=0;t=60, "actions-per-address";r=98;t=120',
        '"actions-per-token";r=0;t=60',
    ]
    assert answers[2].headers["Retry-After"] == "60"


def test_an_operation_without_limits_carries_no_rate_limit_fields(make_client):
    client = make_client()
    listed = client.get("/v1/matches")
    assert listed.status_code == 200
    assert not {"RateLimit", "RateLimit-Policy", "X-RateLimit-Limit", "Retry-After"} & set(listed.headers.keys())


def test_the_document_names_the_fields_on_each_limited_operation_only(client):
    document = client.get("/v1/openapi.json").get_json()
    limited = {
        (method, path)
        for path, operations in document["paths"].items()
        for method, operation in operations.items()
        if "responses" in operation and "RateLimit" in operation["responses"].get("429", {}).get("headers", {})
    }
    assert limited == {
        ("post", "/v1/matches"),
        ("post", "/v1/matches/{match_id}/actions"),
        ("post", "/v1/matches/{match_id}/rematch"),
        ("get", "/v1/matches/{match_id}/audit"),
        ("get", "/v1/matches/{match_id}/record"),
        ("get", "/v1/matches/{match_id}/fairness"),
        ("get", "/v1/matches/{match_id}/analysis"),
        ("get", "/v1/matches/{match_id}/hint"),
        ("post", "/v1/seeks"),
        ("post", "/v1/challenges"),
    }
    created = document["paths"]["/v1/matches"]["post"]["responses"]["201"]["headers"]
    assert created["RateLimit-Policy"] == {"$ref": "#/components/headers/RateLimitPolicy"}
    assert "RateLimit" not in document["paths"]["/v1/matches"]["get"]["responses"]["200"].get("headers", {})
