"""Turn clocks through the app: deadlines in views, turns played when they run out, the sweep.

The service's clocks are injected (``service.now`` and its waiters' clock: ``fake_clock.py``),
so time moves without sleeping.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from .fake_clock import FakeClock, use_clock
from .helpers import TWO_REMOTE, act, create, tokens_of, view


@pytest.fixture
def clock(app):
    return use_clock(app, FakeClock())


def events_after(client, match_id, after):
    return client.get(f"/v1/matches/{match_id}/events?after={after}&limit=1000").get_json()["events"]


def test_a_view_shows_when_the_seat_to_move_times_out(client, clock):
    created = create(client, TWO_REMOTE, rules={"turn_seconds": 30})
    expected = (clock.now + timedelta(seconds=30)).isoformat()
    assert created["rules"]["turn_seconds"] == 30 and created["deadline_at"] == expected
    assert view(client, created["id"])["deadline_at"] == expected
    tokens = tokens_of(created)
    seat = view(client, created["id"])["turn"]
    clock.advance(10)
    result = act(client, created["id"], tokens[seat], view(client, created["id"], tokens[seat])["legal_actions"][0])
    assert result["view"]["deadline_at"] == (clock.now + timedelta(seconds=30)).isoformat()
    plain = create(client, TWO_REMOTE)
    assert "deadline_at" not in view(client, plain["id"]) and plain["rules"]["turn_seconds"] is None


def test_a_request_after_the_deadline_plays_the_seats_turn_and_starts_the_next_clock(client, clock):
    created = create(client, TWO_REMOTE, rules={"turn_seconds": 30})
    match_id, seq = created["id"], created["seq"]
    seat = view(client, match_id)["turn"]
    clock.advance(30)
    assert view(client, match_id)["seq"] == seq  # not yet: the deadline itself is still in time
    clock.advance(1)
    events = events_after(client, match_id, seq)  # the next request plays the turn
    assert events[0] == {"seq": seq + 1, "type": "turn_timed_out", "seat": seat, "consecutive": 1}
    own = [e for e in events[1:] if e.get("seat") == seat]
    assert own and all(e["auto"] for e in own) and own[-1]["type"] in ("tile_played", "knocked")
    after = view(client, match_id)
    assert after["seq"] == events[-1]["seq"]
    assert after["deadline_at"] == (clock.now + timedelta(seconds=30)).isoformat()
    # the seat that timed out is refused: its turn was played
    token = tokens_of(created)[seat]
    if after["turn"] != seat:
        response = client.post(
            f"/v1/matches/{match_id}/actions", json={"type": "knock"}, headers={"Authorization": f"Bearer {token}"}
        )
        assert response.status_code == 409 and response.get_json()["code"] == "not_your_turn"


def test_the_sweep_command_moves_an_unattended_table_and_leaves_the_others(app, client, clock):
    late = create(client, TWO_REMOTE, rules={"turn_seconds": 10})
    slow = create(client, TWO_REMOTE, rules={"turn_seconds": 600})
    plain = create(client, TWO_REMOTE)
    clock.advance(11)
    result = app.test_cli_runner().invoke(args=["boneyard", "sweep"])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == "timed out 1 turn"
    store = app.extensions["boneyard.store"]
    with store.unit_of_work(readonly=True) as uow:
        seqs = {m["id"]: uow.matches.get(m["id"]).last_seq for m in (late, slow, plain)}
        stored = uow.events.load(late["id"], after=late["seq"], limit=1)
    assert stored[0].type == "turn_timed_out"
    assert seqs[late["id"]] > late["seq"] and seqs[slow["id"]] == slow["seq"] and seqs[plain["id"]] == plain["seq"]
    again = app.test_cli_runner().invoke(args=["boneyard", "sweep"])
    assert again.output.strip() == "timed out 0 turns"


def test_a_seat_that_times_out_the_limit_in_a_row_is_played_by_greedy_from_then_on(client, clock):
    created = create(client, TWO_REMOTE, rules={"turn_seconds": 5, "timeout_limit": 2})
    match_id, tokens = created["id"], tokens_of(created)
    idle = view(client, match_id)["turn"]
    active = 1 - idle
    for _ in range(200):
        current = view(client, match_id)
        if current["seats"][idle]["type"] == "bot" or current["status"] == "ended":
            break
        if current["turn"] == idle:
            clock.advance(6)
        else:
            act(client, match_id, tokens[active], view(client, match_id, tokens[active])["legal_actions"][0])
    assert current["seats"][idle] == {
        "seat": idle,
        "name": created["seats"][idle]["name"],
        "type": "bot",
        "level": "greedy",
        "client_seed": None,
    }
    log = events_after(client, match_id, 0)
    timed = [e for e in log if e["type"] == "turn_timed_out"]
    assert [e["consecutive"] for e in timed] == [1, 2] and {e["seat"] for e in timed} == {idle}
    assert [(e["seat"], e["level"]) for e in log if e["type"] == "seat_replaced"] == [(idle, "greedy")]
    # from now on the bot answers in the same response, and no clock runs on its turns
    if current["status"] == "playing":
        result = act(client, match_id, tokens[active], view(client, match_id, tokens[active])["legal_actions"][0])
        assert result["view"]["status"] == "ended" or result["view"]["turn"] == active
        assert result["view"]["status"] == "ended" or result["view"]["deadline_at"] is not None


def test_a_match_played_by_timeouts_alone_ends_and_passes_the_fairness_check(client, clock):
    created = create(client, TWO_REMOTE, rules={"turn_seconds": 5, "target": 1})
    match_id = created["id"]
    for _ in range(300):
        if view(client, match_id)["status"] == "ended":
            break
        clock.advance(6)
    fairness = client.get(f"/v1/matches/{match_id}/fairness").get_json()
    assert fairness["verified"] is True, fairness["problems"]
    assert fairness["moves_checked"] >= 2


def test_a_long_poll_plays_a_turn_whose_clock_runs_out_while_it_waits(client, clock):
    created = create(client, TWO_REMOTE, rules={"turn_seconds": 30})
    seat = view(client, created["id"])["turn"]
    clock.advance(29.6)  # 0.4 s of the turn left when the long-poll starts
    page = client.get(f"/v1/matches/{created['id']}/events?after={created['seq']}&wait=60").get_json()
    assert page["events"][0] == {"seq": created["seq"] + 1, "type": "turn_timed_out", "seat": seat, "consecutive": 1}
    # It slept past the deadline (by the re-check's margin), not to the end of its wait.
    assert 30 < clock.monotonic() < 31 and len(clock.naps) == 1
