"""Mexican Train and Chicken Foot through the API (issue 34), as a new user and an integrator meet
them: the presets, whole matches at 2, 4 and 8 seats played by listed actions, each view's legal
actions checked against this file's own reading of the rule book (docs/rules.md, the trains
games), the totals against the revealed hands, the log, ``/audit`` and ``/fairness``, and the
refusals of what the trains games do not have.
"""

from __future__ import annotations

import random

import pytest

from .helpers import act, assert_problem, auth, create, tokens_of, view, whole_audit

TRAINS = ("mexican-train", "chicken-foot")


def remotes(count: int) -> list[dict]:
    return [{"name": f"P{seat}", "type": "remote"} for seat in range(count)]


def fits(tile: list[int], number: int | None) -> bool:
    return number is not None and number in tile


def expected_actions(seat_view: dict) -> list[dict]:
    """What the rule book lets the seat to move do, read from its view alone: the places open
    to it (Mexican Train: its own train, the Mexican train, a train with a marker; a double
    awaiting cover before anything; Chicken Foot: the toe required next, else every open arm),
    each tile of its hand (after a draw, the drawn tile alone) that shows the place's number;
    else a draw while the boneyard has tiles; else a pass."""
    if seat_view["turn"] != seat_view["seat"] or seat_view["status"] != "playing":
        return []
    board, seat = seat_view["board"], seat_view["seat"]
    if "trains" in board:
        trains = board["trains"]
        if board["uncovered"] is not None:
            places = [(t["train"], t["open"]) for t in trains if t["train"] == board["uncovered"]]
        else:
            places = [(t["train"], t["open"]) for t in trains if t["owner"] in (None, seat) or t["marker"]]
    elif board["toes_needed"] is not None:
        places = [(board["toes_needed"]["next"], board["toes_needed"]["number"])]
    else:
        places = [(arm["train"], arm["open"]) for arm in board["arms"] if arm["open"] is not None]
    tiles = [seat_view["drawn"]] if seat_view["drawn"] is not None else seat_view["hand"]
    plays = [{"type": "play", "tile": t, "train": p} for t in tiles for p, number in places if fits(t, number)]
    if plays or seat_view["drawn"] is not None:
        return plays
    return [{"type": "draw"}] if seat_view["boneyard"] else [{"type": "pass"}]


def key(action: dict) -> tuple:
    return (action["type"], tuple(action.get("tile", ())), str(action.get("train")))


def play_whole_match(client, preset: str, players: int, rules: dict, seed: int) -> tuple[str, dict]:
    """Create a match of remote seats and play it by listed actions to its end, checking every
    seat-to-move view's legal actions against ``expected_actions``; answers the id and the end."""
    created = create(client, remotes(players), preset, rules)
    match_id, tokens = created["id"], tokens_of(created)
    rng = random.Random(seed)
    for step in range(5000):
        spectator = view(client, match_id)
        if spectator["status"] == "ended":
            return match_id, spectator
        assert spectator["legal_actions"] == [] and "hand" not in spectator
        seat = spectator["turn"]
        seat_view = view(client, match_id, tokens[seat])
        listed = seat_view["legal_actions"]
        assert sorted(map(key, listed)) == sorted(map(key, expected_actions(seat_view))), seat_view
        assert len(set(map(key, listed))) == len(listed)
        if step % 5 == 0:  # (not every step: the suite's time) another seat may do nothing now
            other = view(client, match_id, tokens[(seat + 1) % players])
            assert other["legal_actions"] == [] and other["drawn"] is None
        act(client, match_id, tokens[seat], rng.choice(listed))
    raise AssertionError("match did not end")


def pips(hand: list[list[int]], double_blank: int) -> int:
    return sum(double_blank if tile == [0, 0] else sum(tile) for tile in hand)


@pytest.mark.parametrize(
    ("preset", "players", "rules"),
    [
        ("mexican-train", 2, {"rounds": 1, "hand_size": 2}),
        ("mexican-train", 4, {"rounds": 2, "hand_size": 4}),
        ("mexican-train", 8, {"rounds": 1, "hand_size": 4}),
        ("chicken-foot", 2, {"rounds": 1, "hand_size": 3}),
        ("chicken-foot", 4, {"rounds": 2, "hand_size": 4}),
        ("chicken-foot", 8, {"rounds": 1}),
    ],
)
def test_a_whole_match_plays_by_listed_actions_and_its_totals_are_the_pips_left(client, preset, players, rules):
    match_id, final = play_whole_match(client, preset, players, rules, seed=players)
    log = whole_audit(client, match_id)["events"]
    types = [event["type"] for event in log]
    assert types[0] == "match_created" and types[-1] == "match_ended"
    assert not {"hand_started", "tile_played", "knocked", "points_scored", "hand_ended"} & set(types)
    double_blank = final["rules"]["double_blank_points"]
    rounds = [e for e in log if e["type"] == "round_ended"]
    assert len(rounds) == rules["rounds"] == final["rounds"] == final["round"]
    totals = [0] * players
    for ended in rounds:
        assert ended["pips"] == [pips(hand, double_blank) for hand in ended["hands"]]
        assert ended["winner"] is None or ended["hands"][ended["winner"]] == []
        totals = [t + p for t, p in zip(totals, ended["pips"], strict=True)]
        assert ended["totals"] == totals
    started = [e for e in log if e["type"] == "round_started"]
    top = 12 if preset == "mexican-train" else 9
    assert [(e["round"], e["engine"], e["leader"]) for e in started] == [
        (r, top - r + 1, (r - 1) % players) for r in range(1, rules["rounds"] + 1)
    ]
    best = min(totals)
    ended = log[-1]
    assert ended["winners"] == [s for s, t in enumerate(totals) if t == best] == final["winners"]
    assert (ended["scores"], ended["winner"]) == (totals, ended["winners"][0])
    assert final["totals"] == totals and final["winner"] == ended["winner"]
    fairness = client.get(f"/v1/matches/{match_id}/fairness").get_json()
    assert fairness["verified"] is True and fairness["deals_checked"] == rules["rounds"], fairness
    summary = client.get(f"/v1/matches/{match_id}").get_json()
    assert (summary["status"], summary["scores"], summary["hand_number"]) == ("ended", totals, rules["rounds"])


def test_the_presets_document_lists_both_games_for_two_to_eight_players(client):
    presets = {p["name"]: p for p in client.get("/v1/presets").get_json()["presets"]}
    for name, top, rounds, blank in (("mexican-train", 12, 13, 0), ("chicken-foot", 9, 10, 50)):
        preset = presets[name]
        assert preset["players"] == list(range(2, 9)) and preset["partner_rules"] is None
        for rules in preset["rules"]:
            assert set(rules) == {
                "preset",
                "players",
                "set",
                "hand_size",
                "rounds",
                "double_blank_points",
                "double_must_be_covered",
                "turn_seconds",
                "timeout_limit",
            }
            assert (rules["set"], rules["rounds"], rules["double_blank_points"]) == (f"double-{top}", rounds, blank)
    sizes = {name: [r["hand_size"] for r in presets[name]["rules"]] for name in TRAINS}
    assert sizes == {"mexican-train": [15, 15, 15, 12, 12, 10, 10], "chicken-foot": [15, 11, 11, 8, 8, 6, 6]}


@pytest.mark.parametrize(
    ("preset", "rules", "players", "field"),
    [
        ("mexican-train", {"target": 100}, 4, "target"),  # a line game's option
        ("mexican-train", {"partners": True}, 4, "partners"),
        ("mexican-train", {"set": "double-9"}, 4, "set"),  # fixed by the preset
        ("mexican-train", {"rounds": 14}, 4, "rounds"),
        ("chicken-foot", {"rounds": 0}, 4, "rounds"),
        ("mexican-train", {"double_blank_points": 25}, 2, "double_blank_points"),
        ("chicken-foot", {"double_must_be_covered": False}, 2, "double_must_be_covered"),
        ("mexican-train", {"hand_size": 12}, 8, "hand_size"),  # 96 of the 90 tiles dealt
        ("mexican-train", {"rounds": True}, 2, "rounds"),
        ("chicken-foot", {"timeout_limit": 3}, 2, "timeout_limit"),  # no clock to time out
        ("standard-draw", {"rounds": 3}, 2, "rounds"),  # a trains game's option on a line game
        ("standard-draw", {"set": "double-12"}, 2, "set"),  # double-twelve: the trains games'
    ],
)
def test_options_the_game_does_not_have_or_cannot_play_are_refused_naming_them(client, preset, rules, players, field):
    response = client.post("/v1/matches", json={"preset": preset, "rules": rules, "seats": remotes(players)})
    assert assert_problem(response, 422, "invalid_rules")["field"] == field


def test_nine_seats_are_refused(client):
    response = client.post("/v1/matches", json={"preset": "mexican-train", "seats": remotes(9)})
    assert response.status_code == 422


def test_actions_of_the_line_games_and_places_not_open_are_refused_precisely(client):
    for _ in range(30):  # a deal in which seat 0, to move first, holds a 12 (nearly every deal)
        created = create(client, remotes(4), "mexican-train", {"rounds": 1})
        match_id, tokens = created["id"], tokens_of(created)
        first = view(client, match_id, tokens[0])
        if first["legal_actions"][0]["type"] == "play":
            break
    assert first["turn"] == 0 and first["round"] == 1 and first["board"]["engine"] == [12, 12]
    play = first["legal_actions"][0]
    assert play["type"] == "play" and play["train"] in (0, "mexican")
    url = f"/v1/matches/{match_id}/actions"

    def refused(action, token=tokens[0]):
        return client.post(url, json=action, headers=auth(token))

    assert_problem(refused({**play, "end": "left"}), 422, "invalid_action")
    assert_problem(refused({"type": "play", "tile": play["tile"]}), 422, "invalid_action")  # no train named
    assert_problem(refused({"type": "knock"}), 422, "invalid_action")
    assert_problem(refused({"type": "draw", "until": "playable"}), 422, "invalid_action")
    assert_problem(refused({**play, "train": "train:1"}), 422, "invalid_action")  # not the wire's spelling
    assert_problem(refused({**play, "train": True}), 422, "invalid_action")
    assert_problem(refused({**play, "train": 1}), 409, "illegal_play")  # seat 1's train: no marker on it
    assert_problem(refused({**play, "train": 5}), 409, "illegal_play")  # no seat 5 at this table
    assert_problem(refused({**play, "train": 9}), 422, "invalid_action")  # no seat 9 at any table
    assert_problem(refused({**play, "train": "toe:13:0"}), 422, "invalid_action")
    assert_problem(refused({**play, "train": "toe:9:0"}), 409, "illegal_play")  # Chicken Foot's
    assert_problem(refused({"type": "pass"}), 409, "must_play")
    assert_problem(refused(play, tokens[1]), 409, "not_your_turn")
    assert_problem(refused({**play, "tile": [13, 1]}), 422, "invalid_tile")
    assert view(client, match_id, tokens[0])["legal_actions"] == first["legal_actions"]  # nothing changed
    answer = act(client, match_id, tokens[0], play)
    assert [e["type"] for e in answer["events"]] == ["tile_placed"]
    assert answer["events"][0] == {
        "type": "tile_placed",
        "seq": 3,
        "seat": 0,
        "tile": play["tile"],
        "train": play["train"],
        "auto": False,
    }


def test_a_line_game_refuses_a_pass_and_a_train(client):
    created = create(client, remotes(2), "standard-block")
    match_id, tokens = created["id"], tokens_of(created)
    turn = view(client, match_id)["turn"]
    seat_view = view(client, match_id, tokens[turn])
    tile = seat_view["hand"][0]
    url = f"/v1/matches/{match_id}/actions"
    for action in ({"type": "pass"}, {"type": "play", "tile": tile, "train": 0}):
        assert_problem(client.post(url, json=action, headers=auth(tokens[turn])), 422, "invalid_action")


def test_the_deal_shows_each_seat_its_own_hand_and_the_others_counts(client):
    created = create(client, remotes(3), "chicken-foot", {"rounds": 1})
    match_id, tokens = created["id"], tokens_of(created)
    hands = [view(client, match_id, tokens[seat])["hand"] for seat in range(3)]
    assert all(len(hand) == 11 for hand in hands)
    seen = [t for hand in hands for t in hand]
    assert len({tuple(t) for t in seen}) == 33 and [9, 9] not in seen  # the engine is out of the deal
    for seat in range(3):
        events = client.get(f"/v1/matches/{match_id}/events", headers=auth(tokens[seat])).get_json()["events"]
        deal = next(e for e in events if e["type"] == "round_started")
        assert deal["hand"] == hands[seat] and deal["hand_counts"] == [11, 11, 11] and deal["boneyard"] == 54 - 33
        assert "hands" not in deal
    spectator = client.get(f"/v1/matches/{match_id}/events").get_json()["events"]
    assert "hand" not in next(e for e in spectator if e["type"] == "round_started")
