"""The scoring games and the automatic draw/knock options, through the API."""

from __future__ import annotations

from .helpers import auth, create, play_to_end, tokens_of, view


def _events(client, match_id, token=None):
    headers = auth(token) if token else {}
    return client.get(f"/v1/matches/{match_id}/events?after=0&limit=1000", headers=headers).get_json()["events"]


def test_an_all_fives_match_against_a_bot_scores_during_play_and_shows_the_spinner(client):
    created = create(client, [{"name": "Ana", "type": "remote"}, {"name": "Bot", "type": "bot", "level": "greedy"}],
                     preset="all-fives", rules={"target": 60})
    match_id, tokens = created["id"], tokens_of(created)
    assert created["rules"]["spinner"] == "first_double" and created["rules"]["fives_scoring"] is True
    seen_hint = False
    for _ in range(600):
        seat_view = view(client, match_id, tokens[0])
        if seat_view["status"] == "ended":
            break
        assert "count" in seat_view and "arms" in seat_view and "spinner" in seat_view
        actions = seat_view["legal_actions"]
        if not actions:
            continue
        scoring = [a for a in actions if a.get("scores")]
        seen_hint = seen_hint or bool(scoring)
        choice = max(actions, key=lambda a: a.get("scores", 0))
        response = client.post(f"/v1/matches/{match_id}/actions", json=choice, headers=auth(tokens[0]))
        assert response.status_code == 200, response.get_json()
    final = view(client, match_id, tokens[0])
    assert final["status"] == "ended" and max(final["scores"]) >= 60
    scored = [e for e in _events(client, match_id) if e["type"] == "points_scored"]
    assert scored and all(e["points"] % 5 == 0 and e["points"] == e["count"] for e in scored)
    assert seen_hint
    assert client.get(f"/v1/matches/{match_id}/fairness").get_json()["verified"] is True


def test_muggins_calls_hide_the_count_and_take_claims(client):
    created = create(client, [{"name": "Ana", "type": "remote"}, {"name": "Ben", "type": "remote"}],
                     preset="all-fives", rules={"muggins_calls": True, "target": 40})
    match_id, tokens = created["id"], tokens_of(created)
    first = view(client, match_id, tokens[0])
    assert "count" not in first
    assert all("scores" not in a for a in first["legal_actions"])
    final = play_to_end(client, match_id, tokens, choose=lambda actions: actions[0])
    assert final["status"] == "ended"
    assert client.get(f"/v1/matches/{match_id}/fairness").get_json()["verified"] is True


def test_auto_draw_and_auto_knock_happen_without_round_trips_and_stay_redacted(client):
    created = create(client, [{"name": n, "type": "remote"} for n in ("Ana", "Ben", "Cal")],
                     rules={"auto_draw": True, "auto_knock": True, "target": 40})
    match_id, tokens = created["id"], tokens_of(created)
    for _ in range(2000):
        spectator = view(client, match_id)
        if spectator["status"] == "ended":
            break
        seat_view = view(client, match_id, tokens[spectator["turn"]])
        kinds = {a["type"] for a in seat_view["legal_actions"]}
        assert kinds <= {"play", "draw"} and "knock" not in kinds       # stuck seats never wait to knock
        assert "play" in kinds                     # the server drew (or knocked) for a stuck seat
        play = next(a for a in seat_view["legal_actions"] if a["type"] == "play")
        client.post(f"/v1/matches/{match_id}/actions", json=play, headers=auth(tokens[spectator["turn"]]))
    log = _events(client, match_id, tokens[0])
    auto_draws = [e for e in log if e["type"] == "tile_drawn" and e["auto"]]
    assert auto_draws, "no seat was ever stuck: choose another target"
    assert all(("tile" in e) == (e["seat"] == 0) for e in auto_draws)   # only the drawer sees the tile
    assert not any(e["type"] == "knocked" and not e["auto"] for e in log)  # every knock was the server's


def test_draw_until_playable_draws_every_tile_needed_in_one_request(client):
    created = create(client, [{"name": "Ana", "type": "remote"}, {"name": "Ben", "type": "remote"}],
                     rules={"target": 30})
    match_id, tokens = created["id"], tokens_of(created)
    for _ in range(500):
        spectator = view(client, match_id)
        if spectator["status"] == "ended":
            break
        token = tokens[spectator["turn"]]
        actions = view(client, match_id, token)["legal_actions"]
        if {"type": "draw", "until": "playable"} in actions:
            result = client.post(f"/v1/matches/{match_id}/actions", json={"type": "draw", "until": "playable"},
                                 headers=auth(token)).get_json()
            drawn = [e for e in result["events"] if e["type"] == "tile_drawn"]
            assert drawn and all("tile" in e for e in drawn)
            after = result["view"]
            assert any(a["type"] == "play" for a in after["legal_actions"]) or after["boneyard"] == 0
            return
        client.post(f"/v1/matches/{match_id}/actions", json=actions[0], headers=auth(token))
    raise AssertionError("no seat was ever stuck with tiles to draw")
