"""ETags, If-Match / If-None-Match, and Idempotency-Key on actions."""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor

from .helpers import assert_problem, auth, seq_of, view


def _seq(client, match_id):
    return seq_of(client, match_id)


def test_every_read_of_a_match_carries_an_etag_naming_its_seq(client, live):
    match_id, tokens, _ = live
    seq = _seq(client, match_id)
    head = client.get(f"/v1/matches/{match_id}/view").get_json()["chain_head"]
    assert head["seq"] == seq
    assert client.get(f"/v1/matches/{match_id}").headers["ETag"] == f'"{seq}"'
    assert client.get(f"/v1/matches/{match_id}/view").headers["ETag"] == f'"{seq}:s:{head["hash"]}"'
    seat_view = client.get(f"/v1/matches/{match_id}/view", headers=auth(tokens[1]))
    assert seat_view.headers["ETag"] == f'"{seq}:1:{head["hash"]}"'
    events = client.get(f"/v1/matches/{match_id}/events?after=0&limit=5")
    assert events.headers["ETag"] == f'"{seq}:s:0:5:{head["hash"]}"'


def test_if_none_match_answers_304_until_the_match_moves(client, live):
    match_id, tokens, turn = live
    first = client.get(f"/v1/matches/{match_id}/view", headers=auth(tokens[turn]))
    tag = first.headers["ETag"]
    again = client.get(f"/v1/matches/{match_id}/view", headers={**auth(tokens[turn]), "If-None-Match": tag})
    assert again.status_code == 304 and again.get_data() == b""
    action = first.get_json()["legal_actions"][0]
    client.post(f"/v1/matches/{match_id}/actions", json=action, headers=auth(tokens[turn]))
    moved = client.get(f"/v1/matches/{match_id}/view", headers={**auth(tokens[turn]), "If-None-Match": tag})
    assert moved.status_code == 200 and moved.headers["ETag"] != tag


def test_if_match_with_an_old_etag_is_412_with_the_current_seq_and_writes_nothing(client, live):
    match_id, tokens, turn = live
    seat_view = client.get(f"/v1/matches/{match_id}/view", headers=auth(tokens[turn]))
    seq = seat_view.get_json()["seq"]
    stale = client.post(
        f"/v1/matches/{match_id}/actions",
        json={"type": "knock"},
        headers={**auth(tokens[turn]), "If-Match": f'"{seq - 1}:{turn}"'},
    )
    assert assert_problem(stale, 412, "precondition_failed")["current_seq"] == seq
    assert _seq(client, match_id) == seq
    action = seat_view.get_json()["legal_actions"][0]
    fresh = client.post(
        f"/v1/matches/{match_id}/actions",
        json=action,
        headers={**auth(tokens[turn]), "If-Match": seat_view.headers["ETag"]},
    )
    assert fresh.status_code == 200 and fresh.headers["ETag"].startswith(f'"{fresh.get_json()["seq"]}:')
    garbage = client.post(
        f"/v1/matches/{match_id}/actions",
        json={"type": "knock"},
        headers={**auth(tokens[turn]), "If-Match": "nonsense"},
    )
    assert_problem(garbage, 400, "invalid_if_match")


def test_a_retry_with_the_same_idempotency_key_replays_the_first_response_and_appends_nothing(client, live):
    match_id, tokens, turn = live
    action = view(client, match_id, tokens[turn])["legal_actions"][0]
    headers = {**auth(tokens[turn]), "Idempotency-Key": "move-1"}
    first = client.post(f"/v1/matches/{match_id}/actions", json=action, headers=headers)
    assert first.status_code == 200
    seq = _seq(client, match_id)
    retry = client.post(f"/v1/matches/{match_id}/actions", json=action, headers=headers)
    assert retry.status_code == 200 and retry.headers["Idempotent-Replayed"] == "true"
    assert retry.get_data() == first.get_data()  # byte for byte
    assert retry.headers["ETag"] == first.headers["ETag"] and retry.mimetype == first.mimetype
    assert _seq(client, match_id) == seq


def test_the_same_key_with_another_body_is_422_and_a_refusal_is_replayed_too(client, live):
    match_id, tokens, turn = live
    headers = {**auth(tokens[1 - turn]), "Idempotency-Key": '"k-2"'}
    refused = client.post(f"/v1/matches/{match_id}/actions", json={"type": "knock"}, headers=headers)
    assert_problem(refused, 409, "not_your_turn")
    again = client.post(f"/v1/matches/{match_id}/actions", json={"type": "knock"}, headers=headers)
    assert_problem(again, 409, "not_your_turn")
    assert again.headers["Idempotent-Replayed"] == "true" and again.get_data() == refused.get_data()
    other = client.post(f"/v1/matches/{match_id}/actions", json={"type": "draw"}, headers=headers)
    assert_problem(other, 422, "idempotency_key_reused")


def test_keys_are_scoped_per_token(client, live):
    match_id, tokens, turn = live
    key = {"Idempotency-Key": "shared"}
    a = client.post(
        f"/v1/matches/{match_id}/actions", json={"type": "knock"}, headers={**auth(tokens[1 - turn]), **key}
    )
    assert_problem(a, 409, "not_your_turn")
    action = view(client, match_id, tokens[turn])["legal_actions"][0]
    b = client.post(f"/v1/matches/{match_id}/actions", json=action, headers={**auth(tokens[turn]), **key})
    assert b.status_code == 200 and "Idempotent-Replayed" not in b.headers


def test_the_stored_answer_commits_with_the_action_or_not_at_all(client, live, monkeypatch):
    """The key's answer is written in the action's own transaction: if storing it fails,
    the action is not applied either, and a retry runs it (once)."""
    from api.store.idempotency import IdempotencyRepository

    match_id, tokens, turn = live
    action = view(client, match_id, tokens[turn])["legal_actions"][0]
    headers = {**auth(tokens[turn]), "Idempotency-Key": "atomic"}
    seq = _seq(client, match_id)

    def crash(*args, **kwargs):
        raise RuntimeError("the process died here")

    monkeypatch.setattr(IdempotencyRepository, "remember", crash)
    crashed = client.post(f"/v1/matches/{match_id}/actions", json=action, headers=headers)
    assert_problem(crashed, 500, "internal_error")
    assert _seq(client, match_id) == seq  # nothing applied without its answer
    monkeypatch.undo()
    first = client.post(f"/v1/matches/{match_id}/actions", json=action, headers=headers)
    assert first.status_code == 200 and "Idempotent-Replayed" not in first.headers
    again = client.post(f"/v1/matches/{match_id}/actions", json=action, headers=headers)
    assert again.headers["Idempotent-Replayed"] == "true" and again.get_json() == first.get_json()
    assert _seq(client, match_id) == first.get_json()["seq"]


def test_racing_duplicates_apply_once_and_the_other_replays(app, live):
    match_id, tokens, turn = live
    with app.test_client() as probe:
        action = view(probe, match_id, tokens[turn])["legal_actions"][0]
        seq = _seq(probe, match_id)
    headers = {**auth(tokens[turn]), "Idempotency-Key": "race"}
    start = threading.Barrier(4)

    def send(_):
        with app.test_client() as racer:
            start.wait()
            response = racer.post(f"/v1/matches/{match_id}/actions", json=action, headers=headers)
            return response.status_code, response.headers.get("Idempotent-Replayed"), response.get_json()

    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(send, range(4)))
    assert [status for status, _, _ in answers] == [200] * 4
    assert sorted(replayed or "" for _, replayed, _ in answers) == ["", "true", "true", "true"]
    assert len({json.dumps(body, sort_keys=True) for _, _, body in answers}) == 1
    with app.test_client() as probe:
        assert _seq(probe, match_id) == answers[0][2]["seq"] > seq


def test_keys_are_stored_only_for_a_seat_of_the_match(app, client, live):
    from api.store import tables

    match_id, tokens, turn = live
    for token in ("not-a-token", tokens[turn] + "x"):
        response = client.post(
            f"/v1/matches/{match_id}/actions",
            json={"type": "knock"},
            headers={**auth(token), "Idempotency-Key": "anonymous"},
        )
        assert_problem(response, 401, "invalid_token")
    with app.extensions["boneyard.store"].engine.connect() as conn:
        assert conn.execute(tables.idempotency_keys.select()).all() == []


def test_an_invalid_idempotency_key_is_422(client, live):
    match_id, tokens, turn = live
    response = client.post(
        f"/v1/matches/{match_id}/actions",
        json={"type": "knock"},
        headers={**auth(tokens[turn]), "Idempotency-Key": "x" * 300},
    )
    assert_problem(response, 422, "invalid_idempotency_key")
