"""Computer players out of the request path: bounded steps, the runner, the server's bounds."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from api import create_app
from api.rules.ruleset import MAX_TARGET
from api.services.autoplay import Autoplay

from .helpers import act, assert_problem, create, play_bots, tokens_of, view

BOTS = [{"name": "A", "type": "bot", "level": "random"}, {"name": "B", "type": "bot", "level": "greedy"}]
# One move appends at most: the boneyard drawn (a "draw until playable": 14 tiles between two
# players), the play, and the hand's end with the next deal (hand_ended, hand_started, tiles
# turned up, the forced lead) or the match's end.
EVENTS_PER_MOVE = 14 + 1 + 4


class Clock:
    def __init__(self):
        self.now = datetime(2030, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def paced(database_url):
    """An app whose all-bot tables move every 2 s of a clock the test moves."""
    app = create_app(
        {
            "TESTING": True,
            "DATABASE_URL": database_url,
            "RATELIMIT_ENABLED": False,
            "AUTOPLAY_PACE_SECONDS": 2,
            "BOT_MATCHES_PER_ADDRESS": 2,
        }
    )
    service = app.extensions["boneyard.bus"].flow
    service.now = clock = Clock()
    yield app, service, clock
    app.extensions["boneyard.store"].dispose()


def seq(client, match_id):
    return client.get(f"/v1/matches/{match_id}").get_json()["seq"]


def test_creating_an_all_bot_match_answers_at_once_and_the_runner_plays_it_in_paced_steps(paced):
    app, _flow, clock = paced
    client = app.test_client()
    created = create(client, BOTS, rules={"target": MAX_TARGET})
    assert created["status"] == "playing"
    start = created["seq"]
    assert start <= 4  # created, dealt: not one move played in the request
    runner = Autoplay(app.extensions["boneyard.bus"], step_moves=3)
    assert runner.run_once() == 0  # not due before the pace
    clock.now += timedelta(seconds=2)
    first = runner.run_once()
    assert 1 <= first <= 3 * EVENTS_PER_MOVE + 1  # one bounded step: three moves
    assert seq(client, created["id"]) == start + first
    assert runner.run_once() == 0  # the next step waits for the pace again
    for _ in range(100):  # a match to 1,000 outlasts 100 paced steps
        clock.now += timedelta(seconds=2)
        assert 1 <= runner.run_once() <= 3 * EVENTS_PER_MOVE + 1
    assert client.get(f"/v1/matches/{created['id']}").get_json()["status"] == "playing"


def test_a_match_at_the_event_limit_stops_and_an_action_past_it_is_a_clear_409(paced):
    app, service, clock = paced
    service.limits = replace(service.limits, max_events_per_match=400)
    client = app.test_client()
    created = create(client, BOTS, rules={"target": MAX_TARGET})
    runner = Autoplay(app.extensions["boneyard.bus"], step_moves=1)
    for _ in range(1000):
        clock.now += timedelta(seconds=2)
        if not runner.run_once():
            break
    summary = client.get(f"/v1/matches/{created['id']}").get_json()
    # It stopped at the move that would have passed the limit.
    assert summary["status"] == "playing" and 400 - EVENTS_PER_MOVE < summary["seq"] <= 400
    clock.now += timedelta(days=1)
    assert runner.run_once() == 0  # off the queue: never past the limit
    assert seq(client, created["id"]) == summary["seq"]
    # A person's action that would pass it is refused with the limit named.
    live = create(client, [{"name": "Ana", "type": "remote"}, {"name": "Ben", "type": "remote"}])
    tokens, match_id = tokens_of(live), live["id"]
    service.limits = replace(service.limits, max_events_per_match=seq(client, match_id))
    turn = view(client, match_id)["turn"]
    action = view(client, match_id, tokens[turn])["legal_actions"][0]
    refused = client.post(
        f"/v1/matches/{match_id}/actions", json=action, headers={"Authorization": f"Bearer {tokens[turn]}"}
    )
    assert assert_problem(refused, 409, "event_limit_reached")["limit"] == seq(client, match_id)


def test_one_address_runs_only_so_many_all_bot_matches_at_once(paced):
    app, _flow, clock = paced
    client = app.test_client()
    first = create(client, BOTS, rules={"target": 5})
    create(client, BOTS, rules={"target": 5})
    refused = client.post("/v1/matches", json={"preset": "standard-draw", "seats": BOTS})
    assert assert_problem(refused, 409, "too_many_bot_matches")["limit"] == 2
    other = app.test_client()
    elsewhere = other.post(
        "/v1/matches", json={"preset": "standard-draw", "seats": BOTS}, environ_base={"REMOTE_ADDR": "198.51.100.7"}
    )
    assert elsewhere.status_code == 201  # the cap is per address
    mixed = create(client, [{"name": "Ana", "type": "remote"}, BOTS[0]])
    assert mixed["status"] == "playing"  # a table with a person is not counted
    runner = Autoplay(app.extensions["boneyard.bus"], step_moves=500)
    while client.get(f"/v1/matches/{first['id']}").get_json()["status"] != "ended":
        clock.now += timedelta(seconds=2)
        runner.run_once()
    assert create(client, BOTS)["status"] == "playing"  # one ended: room for another


def test_a_target_over_the_servers_bound_is_a_clear_422(client):
    refused = client.post(
        "/v1/matches", json={"preset": "standard-draw", "seats": BOTS, "rules": {"target": MAX_TARGET + 1}}
    )
    body = assert_problem(refused, 422, "invalid_rules")
    assert body["field"] == "target" and str(MAX_TARGET) in body["detail"]


def test_a_table_with_a_person_gets_the_bots_replies_in_the_answer(client):
    created = create(client, [{"name": "Ana", "type": "remote"}, BOTS[0], BOTS[1]])
    token = tokens_of(created)[0]
    for _ in range(30):
        seat_view = view(client, created["id"], token)
        if seat_view["status"] != "playing":
            break
        assert seat_view["turn"] == 0 or seat_view["hand_live"] is False
        answer = act(client, created["id"], token, seat_view["legal_actions"][0])
        assert answer["view"]["turn"] in (0, None)  # the bots moved in the request itself
    assert play_bots(client) == 0  # nothing left for the runner


def test_a_runner_that_finds_the_match_moved_on_appends_nothing(paced):
    app, service, clock = paced
    client = app.test_client()
    created = create(client, BOTS, rules={"target": 20})
    clock.now += timedelta(seconds=2)
    with service.store.unit_of_work() as uow:
        assert uow.matches.claim_due_bots(clock.now, clock.now + timedelta(seconds=30), 10) == [created["id"]]
        uow.commit()
    # A second runner sees the claim and leaves the match alone until the lease lapses.
    assert Autoplay(app.extensions["boneyard.bus"]).run_once() == 0
    clock.now += timedelta(seconds=31)
    assert Autoplay(app.extensions["boneyard.bus"]).run_once() > 0
