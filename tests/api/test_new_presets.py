"""Fives and Threes and the double-nine partnership game through the API (issue 33), as a new
user and an integrator meet them: the presets document, whole matches played by listed actions
(remote seats, and computer players of every level), the views, the log, ``/audit``,
``/fairness``, ratings per family, and the refusals.

Every score is checked against this file's own reading of the rule book (docs/rules.md, sections
9 to 11 and examples E19 to E23), not against the server's functions.
"""

from __future__ import annotations

import pytest

from api.services.ratings import NEWCOMER, rate
from api.services.standings import standing

from .helpers import act, assert_problem, auth, create, new_portal, portal_client, tokens_of, view, whole_audit
from .test_presets import document_validator, presets

TARGET = 61  # fives-and-threes: exactly 61 wins
# The rule book's table of the count (docs/rules.md, section 11, Fives and Threes): count -> points.
WORKED_COUNTS = {3: 1, 5: 1, 6: 2, 9: 3, 10: 2, 12: 4, 15: 8, 18: 6, 20: 4, 21: 7}
SEEDED = {"RATELIMIT_ENABLED": False, "ALLOW_CLIENT_SEED": True}


def fives_and_threes_points(count: int) -> int:
    """A point per five in the count when 5 divides it, plus a point per three when 3 does."""
    return (count // 5 if count % 5 == 0 else 0) + (count // 3 if count % 3 == 0 else 0)


def test_the_reading_of_the_count_agrees_with_the_rule_books_worked_examples():
    assert {count: fives_and_threes_points(count) for count in WORKED_COUNTS} == WORKED_COUNTS
    assert [fives_and_threes_points(c) for c in (0, 1, 2, 4, 7, 8, 11, 13, 14, 16)] == [0] * 10


@pytest.fixture
def seeding_client(make_client):
    """A server that takes a chosen seed: the deals (and so the test's path) are fixed."""
    return make_client(**SEEDED)


def remotes(count: int) -> list[dict]:
    return [{"name": f"P{seat}", "type": "remote"} for seat in range(count)]


def created_seeded(client, preset: str, seats: list[dict], seed: str, rules: dict | None = None) -> dict:
    body = {"preset": preset, "seats": seats, "seed": seed, **({"rules": rules} if rules else {})}
    response = client.post("/v1/matches", json=body)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def log_of(client, match_id: str) -> list[dict]:
    """The whole log of an ended match, as ``/audit`` publishes it (every hand revealed)."""
    audit = whole_audit(client, match_id)
    assert audit["match_id"] == match_id
    return audit["events"]


def assert_verified(client, match_id: str) -> dict:
    fairness = client.get(f"/v1/matches/{match_id}/fairness").get_json()
    assert fairness["verified"] is True and fairness["problems"] == [], fairness
    return fairness


def numbers_of(tile: list[int]) -> int:
    return max(tile)


# --- the presets document --------------------------------------------------------------------
def test_the_presets_document_lists_both_new_presets_with_their_players_and_options(client):
    served = {p["name"]: p for p in presets(client)["presets"]}
    fives = served["fives-and-threes"]
    assert fives["players"] == [2, 3, 4]
    assert [(r["players"], r["hand_size"], r["target"], r["partners"]) for r in fives["rules"]] == [
        (2, 7, 61, False),
        (3, 5, 61, False),
        (4, 5, 61, True),  # four play as partners by default
    ]
    for rules in fives["rules"]:
        assert {k: rules[k] for k in ("game", "lead", "end_count_scoring", "exact_target", "out_bonus")} == {
            "game": "block",
            "lead": "rotate_any",
            "end_count_scoring": "fives_and_threes",
            "exact_target": True,
            "out_bonus": 1,
        }
        # v1's spelling, still written: true exactly when the count scores by fives alone
        assert (rules["fives_scoring"], rules["hand_end_pips"], rules["spinner"]) == (False, False, "none")
        assert "set" not in rules  # the default double-six set is not named
    assert fives["partner_rules"] == fives["rules"][2]

    nine = served["double-nine-partners"]
    assert nine["players"] == [4]
    [rules] = nine["rules"]
    assert {
        k: rules[k]
        for k in ("set", "players", "partners", "hand_size", "game", "lead", "hand_points", "blocked_scoring")
    } == {
        "set": "double-9",
        "players": 4,
        "partners": True,
        "hand_size": 10,
        "game": "block",
        "lead": "winner_any",
        "hand_points": "all_hands",
        "blocked_scoring": "others",
    }
    assert (rules["target"], rules["fives_scoring"], "end_count_scoring" in rules) == (100, False, False)
    assert nine["partner_rules"] == rules


# --- Fives and Threes, two players: every count, the exact target, the out bonus ----------------
def play_fives_and_threes(client, created: dict) -> dict:
    """Play a match of remote seats to its end, each seat sending its best-scoring listed action
    as listed, and check every play's points against the rule book as it goes: what it saw."""
    match_id, tokens = created["id"], tokens_of(created)
    partners = created["rules"]["partners"]
    seen = {"scored": [], "past_target": [], "out_bonus": 0, "blocked": 0}
    for _ in range(3000):
        spectator = view(client, match_id)
        if spectator["status"] == "ended":
            return seen
        seat = spectator["turn"]
        side = seat % 2 if partners else seat
        before = view(client, match_id, tokens[seat])
        assert before["count"] >= 0  # the count is shown whenever it scores
        action = max(before["legal_actions"], key=lambda a: a.get("scores", 0))  # the first best
        events = act(client, match_id, tokens[seat], action)["events"]
        scored = [e for e in events if e["type"] == "points_scored"]
        if action["type"] == "play":
            check_play(client, match_id, tokens[seat], action, before, events, side, seen)
        else:
            assert action == {"type": "knock"} and not scored  # stuck: a block game has no drawing
        for hand in (e for e in events if e["type"] == "hand_ended"):
            if hand["reason"] == "blocked":
                assert (hand["winner"], hand["side"], hand["points"]) == (None, None, 0)
                seen["blocked"] += 1
                continue
            out_side = hand["winner"] % 2 if partners else hand["winner"]
            assert hand["side"] == out_side and hand["hands"][hand["winner"]] == []
            start = scored[0]["scores"] if scored else before["scores"]
            # Chipping out scores 1, whatever pips the others still hold (none are counted). It
            # never passes 61: a side on 61 has won, the match ended before the hand's end.
            assert hand["points"] == 1 and hand["scores"][out_side] == start[out_side] + 1 <= TARGET
            seen["out_bonus"] += sum(hand["pips"]) > 1
            if spectator_status(client, match_id) == "playing":
                last = view(client, match_id, tokens[seat])["last_hand"]
                assert last == {k: v for k, v in hand.items() if k not in ("type", "seq")}
    raise AssertionError("match did not end")


def check_play(client, match_id: str, token: str, action: dict, before: dict, events: list, side: int, seen: dict):
    """One play's events against the rule book: its points are the count's, as listed; a play
    whose points would pass 61 stands and scores nothing."""
    seat, played = before["seat"], events[0]
    assert (played["type"], played["seat"], played["tile"], played["end"]) == (
        "tile_played",
        seat,
        action["tile"],
        action["end"],
    )
    scored = [e for e in events if e["type"] == "points_scored"]
    if scored:
        [points] = scored
        assert (points["seat"], points["side"], points["how"]) == (seat, side, "play")
        assert points["points"] == fives_and_threes_points(points["count"]) == action["scores"] > 0
        assert points["scores"][side] == before["scores"][side] + points["points"] <= TARGET
        seen["scored"].append(points["count"])
    else:
        assert "scores" not in action
    ended = [e for e in events if e["type"] in ("hand_ended", "match_ended")]
    if not ended:
        after = view(client, match_id, token)
        count = after["count"]  # the sum of the open ends, a double at an end counting both halves
        if scored:
            assert count == scored[0]["count"]
        elif fives_and_threes_points(count) > 0:
            # The play stands but scores nothing: its points would take the side past 61.
            assert before["scores"][side] + fives_and_threes_points(count) > TARGET
            assert after["scores"] == before["scores"]
            seen["past_target"].append((before["scores"][side], count))
        else:
            assert fives_and_threes_points(count) == 0


def spectator_status(client, match_id: str) -> str:
    return view(client, match_id)["status"]


def assert_ended_on_exactly_the_target(client, match_id: str, sides: int) -> list[dict]:
    final = view(client, match_id)
    assert final["status"] == "ended" and len(final["scores"]) == sides
    assert final["scores"][final["winner"]] == TARGET and max(final["scores"]) == TARGET
    log = log_of(client, match_id)
    assert log[-1]["type"] == "match_ended" and log[-1]["winner"] == final["winner"]
    for event in log:
        if event["type"] == "points_scored":
            assert event["points"] == fives_and_threes_points(event["count"]) > 0
        if "scores" in event:
            assert max(event["scores"]) <= TARGET  # never past it
    return log


def test_a_two_player_fives_and_threes_match_scores_every_count_and_ends_on_exactly_61(seeding_client):
    client = seeding_client
    created = created_seeded(client, "fives-and-threes", remotes(2), "fives-and-threes-2p-32")
    assert created["rules"]["hand_size"] == 7 and created["rules"]["exact_target"] is True
    seen = play_fives_and_threes(client, created)
    # What this seed's match showed through the API (a test that saw none of it proves nothing):
    assert len(seen["scored"]) >= 10 and set(seen["scored"]) & {3, 6, 9, 12, 15, 18}  # threes score too
    assert seen["past_target"], "no play's points would pass 61: choose another seed"
    assert seen["out_bonus"] and seen["blocked"], "nobody chipped out, or no hand blocked: choose another seed"
    log = assert_ended_on_exactly_the_target(client, created["id"], sides=2)
    assert_verified(client, created["id"])
    # the first hand is led by lot (rotate_any): the heaviest tile turned up leads
    turned = next(e for e in log if e["type"] == "tiles_turned_up")
    heaviest = max(range(2), key=lambda s: (sum(turned["tiles"][s]), max(turned["tiles"][s])))
    assert turned["leader"] == heaviest == next(e for e in log if e["type"] == "hand_started")["leader"]


def test_a_four_player_fives_and_threes_match_plays_as_partners_against_computer_players(seeding_client):
    client = seeding_client
    seats = [{"name": "Ana", "type": "remote"}] + [
        {"name": level.title(), "type": "bot", "level": level} for level in ("random", "greedy", "intermediate")
    ]
    created = created_seeded(client, "fives-and-threes", seats, "fives-and-threes-4p")
    match_id, tokens = created["id"], tokens_of(created)
    assert (created["rules"]["partners"], created["rules"]["hand_size"]) == (True, 5)
    first = view(client, match_id, tokens[0])
    assert first["sides"] == [[0, 2], [1, 3]] and len(first["hand"]) == 5 and "count" in first
    for _ in range(2000):
        seat_view = view(client, match_id, tokens[0])
        if seat_view["status"] == "ended":
            break
        assert seat_view["turn"] == 0  # the computer players move within each answer
        act(client, match_id, tokens[0], seat_view["legal_actions"][0])
    log = assert_ended_on_exactly_the_target(client, match_id, sides=2)
    scored = [e for e in log if e["type"] == "points_scored"]
    assert scored and all(e["side"] == e["seat"] % 2 for e in scored)
    assert {e["seat"] for e in scored} - {0}, "only Ana scored: the computer players never did"
    fairness = assert_verified(client, match_id)  # every computer player's decision re-checked
    assert fairness["moves_checked"] > 0


def test_fives_and_threes_against_the_expert_ends_on_exactly_its_target(seeding_client):
    client = seeding_client
    seats = [{"name": "Ana", "type": "remote"}, {"name": "Ex", "type": "bot", "level": "expert"}]
    created = created_seeded(client, "fives-and-threes", seats, "fives-and-threes-expert", {"target": 21})
    match_id, tokens = created["id"], tokens_of(created)
    for _ in range(500):
        seat_view = view(client, match_id, tokens[0])
        if seat_view["status"] == "ended":
            break
        act(client, match_id, tokens[0], seat_view["legal_actions"][-1])
    final = view(client, match_id)
    assert final["status"] == "ended" and final["scores"][final["winner"]] == 21 >= max(final["scores"])
    assert_verified(client, match_id)


# --- Double-nine partners ----------------------------------------------------------------------
def heaviest(actions: list[dict]) -> dict:
    """The heaviest listed play, else the one listed action (a stuck seat's knock)."""
    plays = [a for a in actions if a["type"] == "play"]
    return max(plays, key=lambda a: (sum(a["tile"]), max(a["tile"]))) if plays else actions[0]


def test_a_double_nine_partners_match_deals_double_nine_tiles_and_scores_all_hands(seeding_client):
    client = seeding_client
    created = created_seeded(client, "double-nine-partners", remotes(4), "double-nine-partners")
    match_id, tokens = created["id"], tokens_of(created)
    assert created["rules"]["set"] == "double-9"
    views_valid = document_validator("View")
    first = view(client, match_id, tokens[0])
    # 10 tiles each, the highest double dealt already led (forced); the other 15 never dealt
    assert sorted(first["hand_counts"]) == [9, 10, 10, 10] and len(first["hand"]) == first["hand_counts"][0]
    assert first["boneyard"] == 15 and first["sides"] == [[0, 2], [1, 3]] and len(first["line"]) == 1
    assert "count" not in first  # the count does not score here
    views_valid.validate(first)
    assert any(numbers_of(tile) > 6 for seat in range(4) for tile in view(client, match_id, tokens[seat])["hand"])
    nine_in_a_view = nine_played = 0
    for _ in range(3000):
        spectator = view(client, match_id)
        if spectator["status"] == "ended":
            break
        seat = spectator["turn"]
        seat_view = view(client, match_id, tokens[seat])
        views_valid.validate(seat_view)
        nine_in_a_view += any(7 <= numbers_of(t) <= 9 for t in seat_view["hand"])
        action = heaviest(seat_view["legal_actions"])
        assert "scores" not in action
        events = act(client, match_id, tokens[seat], action)["events"]
        if action["type"] == "play" and numbers_of(action["tile"]) > 6:
            assert events[0]["type"] == "tile_played" and events[0]["tile"] == action["tile"]
            nine_played += 1
    assert nine_in_a_view and nine_played
    final = view(client, match_id)
    assert final["status"] == "ended" and final["scores"][final["winner"]] >= 100

    log = log_of(client, match_id)
    assert not [e for e in log if e["type"] == "points_scored"]
    starts = [i for i, e in enumerate(log) if e["type"] == "hand_started"]
    # The first hand: the holder of the highest double dealt sets it, forced.
    deal = log[starts[0]]
    dealt_doubles = [(t[0], seat) for seat, hand in enumerate(deal["hands"]) for t in hand if t[0] == t[1]]
    top, holder = max(dealt_doubles)
    lead = log[starts[0] + 1]
    assert (lead["type"], lead["seat"], lead["tile"], lead["auto"]) == ("tile_played", holder, [top, top], True)
    assert len(deal["boneyard"]) == 15 and all(len(hand) == 10 for hand in deal["hands"])
    ended = [e for e in log if e["type"] == "hand_ended"]
    assert ended
    for hand in ended:
        if hand["reason"] == "domino":
            # the side that goes out scores every other hand's pips, the partner's included
            partner = (hand["winner"] + 2) % 4
            assert hand["side"] == hand["winner"] % 2 and hand["points"] == sum(hand["pips"])
            assert hand["pips"][hand["winner"]] == 0
            assert (
                hand["points"]
                == sum(p for s, p in enumerate(hand["pips"]) if s % 2 != hand["side"]) + (hand["pips"][partner])
            )
        else:
            sides = [hand["pips"][0] + hand["pips"][2], hand["pips"][1] + hand["pips"][3]]
            if sides[0] == sides[1]:
                assert (hand["side"], hand["points"]) == (None, 0)
            else:
                # the lighter side scores all four hands' pips, its own included
                assert hand["side"] == sides.index(min(sides)) and hand["points"] == sum(hand["pips"])
    assert any(h["reason"] == "domino" and h["pips"][(h["winner"] + 2) % 4] > 0 for h in ended), (
        "no hand went out with the partner holding pips: choose another seed"
    )
    # Later hands: the previous hand's winner leads any tile.
    for before, start in zip(ended, starts[1:], strict=False):
        if before["winner"] is not None:
            assert log[start]["leader"] == before["winner"]
    assert_verified(client, match_id)


def test_double_nine_partners_with_computer_players_of_every_level(seeding_client):
    client = seeding_client
    seats = [{"name": "Ana", "type": "remote"}] + [
        {"name": level.title(), "type": "bot", "level": level} for level in ("expert", "intermediate", "random")
    ]
    created = created_seeded(client, "double-nine-partners", seats, "double-nine-bots", {"target": 30})
    match_id, tokens = created["id"], tokens_of(created)
    for _ in range(500):
        seat_view = view(client, match_id, tokens[0])
        if seat_view["status"] == "ended":
            break
        act(client, match_id, tokens[0], heaviest(seat_view["legal_actions"]))
    final = view(client, match_id)
    assert final["status"] == "ended" and final["scores"][final["winner"]] >= 30
    assert_verified(client, match_id)


def test_a_tile_of_another_set_is_malformed_and_one_of_the_matchs_set_is_judged_by_the_rules(client):
    six = create(client, remotes(2), preset="standard-block")
    six_token = tokens_of(six)[view(client, six["id"])["turn"]]
    for tile in ([9, 3], "9-3", [7, 7]):
        response = client.post(
            f"/v1/matches/{six['id']}/actions", json={"type": "play", "tile": tile}, headers=auth(six_token)
        )
        assert_problem(response, 422, "invalid_tile")
    nine = create(client, remotes(4), preset="double-nine-partners")
    match_id, tokens = nine["id"], tokens_of(nine)
    seat = view(client, match_id)["turn"]
    seat_view = view(client, match_id, tokens[seat])
    response = client.post(
        f"/v1/matches/{match_id}/actions", json={"type": "play", "tile": [10, 3]}, headers=auth(tokens[seat])
    )
    assert_problem(response, 422, "invalid_tile")  # double-twelve's, not this set's
    held = {tuple(t) for t in seat_view["hand"]}
    elsewhere = next(t for t in ([9, 9], [9, 8], [9, 7], [8, 8]) if tuple(t) not in held)
    response = client.post(
        f"/v1/matches/{match_id}/actions", json={"type": "play", "tile": elsewhere}, headers=auth(tokens[seat])
    )
    assert_problem(response, 409, "tile_not_in_hand")  # a tile of the set, not this seat's


# --- ratings per family ---------------------------------------------------------------------
def test_a_rated_fives_and_threes_match_rates_its_players_in_their_own_family(app):
    portal = portal_client(app, new_portal(app, "pub"))
    seats = [{"name": ref.title(), "type": "remote", "player_ref": ref} for ref in ("ana", "ben")]
    body = {"preset": "fives-and-threes", "seats": seats, "rated": True, "rules": {"target": 15}}
    created = portal.post("/v1/matches", json=body).get_json()
    match_id, tokens = created["id"], tokens_of(created)
    for _ in range(1000):
        spectator = view(portal, match_id)
        if spectator["status"] == "ended":
            break
        turn = spectator["turn"]
        act(portal, match_id, tokens[turn], view(portal, match_id, tokens[turn])["legal_actions"][0])
    winner = ("ana", "ben")[view(portal, match_id)["winner"]]
    loser = ({"ana", "ben"} - {winner}).pop()
    board = portal.get("/v1/leaderboards/fives_and_threes")
    assert board.status_code == 200, board.get_json()
    assert [(i["player_ref"], i["matches"]) for i in board.get_json()["items"]] == [(winner, 1), (loser, 1)]
    for family in ("fives", "block", "double_nine"):
        assert portal.get(f"/v1/leaderboards/{family}").get_json()["items"] == [], family


# --- refusals ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "preset, players, rules, field",
    [
        ("standard-block", 2, {"set": "double-12", "hand_size": 7}, "set"),  # opens with the trains games
        ("fives-and-threes", 5, None, "players"),  # within the server's 8, not the preset's 2-4
        ("standard-draw", 8, None, "players"),
        ("double-nine-partners", 2, None, "players"),
        ("fives-and-threes", 2, {"muggins_calls": True}, "exact_target"),
        ("standard-block", 2, {"hand_end_pips": False}, "hand_end_pips"),  # nothing could ever score
        ("fives-and-threes", 2, {"out_bonus": 0, "end_count_scoring": "none"}, "hand_end_pips"),
        ("double-nine-partners", 4, {"blocked_scoring": "others_minus_own"}, "blocked_scoring"),
        ("double-nine-partners", 4, {"partners": False, "hand_size": 14}, "hand_size"),  # 56 of 55 tiles
    ],
)
def test_rules_that_cannot_be_played_are_refused_naming_the_field(client, preset, players, rules, field):
    body = {"preset": preset, "seats": remotes(players), **({"rules": rules} if rules else {})}
    problem = assert_problem(client.post("/v1/matches", json=body), 422, "invalid_rules")
    assert problem["field"] == field, problem
    if field == "players":
        allowed = {"fives-and-threes": "2, 3 or 4", "standard-draw": "2, 3 or 4", "double-nine-partners": "4"}
        assert allowed[preset] + " players" in problem["detail"]
    assert client.get("/v1/matches").get_json()["items"] == []


def test_more_seats_than_the_server_seats_is_a_malformed_request(client):
    response = client.post("/v1/matches", json={"preset": "standard-draw", "seats": remotes(9)})
    assert "seats" in assert_problem(response, 422, "invalid_request")["errors"]["json"]
    seek = client.post("/v1/seeks", json={"preset": "fives-and-threes", "players": 9})
    assert "players" in assert_problem(seek, 422, "invalid_request")["errors"]["json"]
    seek = client.post("/v1/seeks", json={"preset": "fives-and-threes", "players": 5})
    assert assert_problem(seek, 422, "invalid_rules")["field"] == "players"
    ok = client.post("/v1/seeks", json={"preset": "double-nine-partners", "players": 4})
    assert ok.status_code == 201 and ok.get_json()["players"] == 4, ok.get_json()


def test_a_challenge_of_more_seats_than_the_preset_allows_is_refused(app):
    portal = portal_client(app, new_portal(app, "club"))
    token = {ref: portal.post(f"/v1/portal/players/{ref}/tokens").get_json()["token"] for ref in ("ana", "ben")}

    def challenge(**body):
        return portal.post("/v1/challenges", json={"opponents": ["ben"], **body}, headers=auth(token["ana"]))

    eight = challenge(preset="fives-and-threes", bots=["random"] * 6)  # 8 seats: within the server's bound
    assert assert_problem(eight, 422, "invalid_rules")["field"] == "players"
    many = portal.post(
        "/v1/challenges",
        json={"opponents": [f"p{n}" for n in range(7)], "bots": ["random"] * 2},
        headers=auth(token["ana"]),
    )
    assert assert_problem(many, 422, "invalid_challenge")["reason"] == "seats"  # 10 seats
    four = challenge(preset="double-nine-partners", bots=["greedy", "greedy"])
    assert four.status_code == 201, four.get_json()
    accepted = portal.post(f"/v1/challenges/{four.get_json()['id']}/accept", headers=auth(token["ben"]))
    assert accepted.status_code == 200, accepted.get_json()
    match = portal.get(f"/v1/matches/{accepted.get_json()['match_id']}").get_json()
    assert (match["rules"]["set"], match["players"]) == ("double-9", 4)


def test_ratings_rank_and_rate_up_to_eight_sides():
    """A line game's end ranked over the server's eight sides, higher scores first (the trains
    games' eight seats, lower totals first: tests/services/test_trains_ratings.py)."""
    assert standing({"winner": 3, "scores": [10, 20, 5, 61, 20, 0, 7, 7]}).ranks == (3, 1, 6, 0, 1, 7, 4, 4)
    after = [side[0].mu for side in rate([[NEWCOMER]] * 8, list(range(8)))]
    assert after == sorted(after, reverse=True) and after[0] > NEWCOMER.mu > after[-1]
