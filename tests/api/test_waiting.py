"""Waiting for the other players: long-polls and server-sent events, in-process.

The waiters' clock is injected (``tests/api/fake_clock.py``): a wait that times out passes at
once, and a wait that an append must end is ended by that append, made only once the waiter
is asleep (no sleeps, no windows of real time).
"""

from __future__ import annotations

import pytest

from .fake_clock import ActWhenWaiting, FakeClock, use_clock
from .helpers import TWO_REMOTE, auth, create, play_to_end, tokens_of, view


@pytest.fixture
def clock(app):
    """Time that passes only when a waiter sleeps with nothing to wake it."""
    return use_clock(app, FakeClock())


@pytest.fixture
def wakeable(app):
    """Time that stands still: a waiter sleeps until an append wakes it."""
    return use_clock(app, FakeClock(wakeable=True))


def _live(client):
    created = create(client, TWO_REMOTE)
    return created["id"], tokens_of(created), created["seq"]


def test_a_long_poll_answers_at_once_when_events_exist(client, clock):
    match_id, _, seq = _live(client)
    page = client.get(f"/v1/matches/{match_id}/events?after={seq - 1}&wait=30").get_json()
    assert [e["seq"] for e in page["events"]] == [seq]
    assert clock.naps == [] and clock.monotonic() == 0  # it never slept


def test_a_long_poll_is_woken_by_another_clients_action(app, client, wakeable):
    match_id, tokens, seq = _live(client)
    turn = view(client, match_id)["turn"]
    actor = ActWhenWaiting(app.test_client(), match_id, tokens[turn], wakeable)
    actor.start()
    page = client.get(f"/v1/matches/{match_id}/events?after={seq}&wait=20").get_json()
    assert actor.finish() == 200
    assert page["events"] and page["events"][0]["seq"] == seq + 1
    assert wakeable.naps == [(20, True)]  # one sleep of the whole wait, ended by the append


def test_a_long_poll_times_out_with_an_empty_page(client, clock):
    match_id, _, seq = _live(client)
    page = client.get(f"/v1/matches/{match_id}/events?after={seq}&wait=0.5").get_json()
    assert page["events"] == [] and page["seq"] == seq
    assert clock.naps == [(0.5, False)] and clock.monotonic() == 0.5


def test_wait_is_bounded_to_sixty_seconds(client):
    match_id, _, seq = _live(client)
    response = client.get(f"/v1/matches/{match_id}/events?after={seq}&wait=61")
    assert response.status_code == 422


def _read_stream(response, stop_after_type="match_ended", limit=10_000):
    """Parse server-sent events from a streamed test response."""
    messages, buffer = [], ""
    for chunk in response.response:
        buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
        while "\n\n" in buffer:
            block, buffer = buffer.split("\n\n", 1)
            fields = {}
            for line in block.split("\n"):
                if line.startswith(":") or not line:
                    continue
                name, _, value = line.partition(": ")
                fields[name] = value
            if "event" in fields:
                messages.append(fields)
                if fields["event"] == stop_after_type or len(messages) >= limit:
                    response.close()
                    return messages
    return messages


def test_the_stream_sends_the_view_then_events_with_ids_and_resumes_after_last_event_id(client):
    created = create(client, TWO_REMOTE, rules={"target": 15})
    match_id = created["id"]
    final_seq = play_to_end(client, match_id, tokens_of(created))["seq"]
    response = client.get(f"/v1/matches/{match_id}/stream", headers={"Last-Event-ID": "5"}, buffered=False)
    assert response.mimetype == "text/event-stream"
    messages = _read_stream(response)
    assert messages[0]["event"] == "view" and "id" not in messages[0]
    ids = [int(m["id"]) for m in messages[1:]]
    assert ids == list(range(6, final_seq + 1))
    assert messages[-1]["event"] == "match_ended"


def test_the_live_stream_delivers_an_action_appended_after_it_opened(app, client, wakeable):
    match_id, tokens, seq = _live(client)
    turn = view(client, match_id)["turn"]
    actor = ActWhenWaiting(app.test_client(), match_id, tokens[turn], wakeable)
    actor.start()
    response = client.get(f"/v1/matches/{match_id}/stream", headers=auth(tokens[1 - turn]), buffered=False)
    messages = _read_stream(response, limit=2)
    assert actor.finish() == 200
    assert messages[0]["event"] == "view"
    assert int(messages[1]["id"]) == seq + 1
    assert [woken for _, woken in wakeable.naps] == [True]  # the stream slept once, until the append


def test_the_stream_refuses_a_bad_token_before_streaming(client):
    match_id, _, _ = _live(client)
    response = client.get(f"/v1/matches/{match_id}/stream?token=nope")
    assert response.status_code == 401 and response.mimetype == "application/problem+json"
