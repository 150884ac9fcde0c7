"""The lobby through the app: list filters and Link paging, player statistics, rematches."""

from __future__ import annotations

import re

from .helpers import assert_problem, auth, create, create_played, play_to_end, tokens_of, view, whole_audit

BOTS = [{"name": "Bo", "type": "bot", "level": "random"}, {"name": "Cy", "type": "bot", "level": "random"}]


def ids(response):
    assert response.status_code == 200, response.get_json()
    return [m["id"] for m in response.get_json()["items"]]


def test_matches_filter_by_status_preset_open_seat_and_player(portal):
    client = portal  # player ids are a portal's
    playing = create(
        client, [{"name": "Ana", "type": "remote", "player_ref": "u-ana"}, {"name": "Ben", "type": "remote"}]
    )
    waiting = create(
        client,
        [{"name": "Ana", "type": "remote", "player_ref": "u-ana"}, {"name": "?", "type": "open"}],
        preset="standard-block",
    )
    ended = create_played(client, BOTS, preset="all-fives", rules={"target": 20})
    assert client.get(f"/v1/matches/{ended['id']}").get_json()["status"] == "ended"
    assert ids(client.get("/v1/matches?preset=standard-block")) == [waiting["id"]]
    assert ids(client.get("/v1/matches?has_open_seat=true")) == [waiting["id"]]
    assert ids(client.get("/v1/matches?has_open_seat=false")) == [ended["id"], playing["id"]]
    assert ids(client.get("/v1/matches?player_ref=u-ana")) == [waiting["id"], playing["id"]]
    assert ids(client.get("/v1/matches?player_ref=u-ana&status=playing")) == [playing["id"]]
    assert ids(client.get("/v1/matches?player_ref=nobody")) == []
    listed = client.get("/v1/matches?player_ref=u-ana").get_json()["items"][0]
    assert [s["player_ref"] for s in listed["seats"]] == ["u-ana", None]
    summary = client.get(f"/v1/matches/{playing['id']}").get_json()
    assert [s["player_ref"] for s in summary["seats"]] == ["u-ana", None]
    assert_problem(client.get("/v1/matches?preset=chess"), 422, "invalid_request")


def test_the_next_page_is_linked_with_the_same_filters(client):
    made = [create_played(client, BOTS, preset="standard-block", rules={"target": 10})["id"] for _ in range(3)]
    create_played(client, BOTS, rules={"target": 10})  # another preset: filtered out
    first = client.get("/v1/matches?preset=standard-block&limit=2")
    link = first.headers["Link"]
    match = re.fullmatch(r'<(/v1/matches\?[^>]+)>; rel="next"', link)
    assert match and "preset=standard-block" in link and "limit=2" in link
    assert first.get_json()["next_cursor"] in link
    second = client.get(match.group(1))
    assert ids(first) + ids(second) == made[::-1]
    assert "Link" not in second.headers and second.get_json()["next_cursor"] is None


def expected_stats(client, match_ids, seat_of):
    """A player's figures computed straight from the audit logs, oldest match first."""
    played = won = hands = streak = longest = 0
    margins = []
    for match_id in match_ids:
        log = whole_audit(client, match_id)["events"]
        partners = log[0]["rules"]["partners"]
        side = seat_of[match_id] % 2 if partners else seat_of[match_id]
        hands += sum(1 for e in log if e["type"] == "hand_ended" and e["side"] == side)
        end = log[-1]
        played += 1
        if end["winner"] == side:
            won += 1
            streak += 1
            longest = max(longest, streak)
            margins.append(end["scores"][side] - max(s for i, s in enumerate(end["scores"]) if i != side))
        else:
            streak = 0
    return {
        "matches_played": played,
        "matches_won": won,
        "matches_forfeited": 0,
        "hands_won": hands,
        "best_margin": max(margins) if margins else None,
        "current_streak": streak,
        "longest_streak": longest,
    }


def stats(client, ref):
    response = client.get(f"/v1/players/{ref}/stats")
    assert response.status_code == 200, response.get_json()
    body = response.get_json()
    assert body.pop("player_ref") == ref
    return body


def test_two_player_stats_count_matches_hands_margin_and_streaks(portal):
    client = portal
    matches, seat_of = [], {}
    for n in range(5):
        seats = [
            {"name": "Ana", "type": "bot", "level": "random", "player_ref": "ana"},
            {"name": "Ben", "type": "bot", "level": "greedy", "player_ref": "ben"},
        ]
        if n % 2:
            seats.reverse()  # Ana sits in seat 1 every other match
        created = create_played(client, seats, preset="winner-leads", rules={"target": 30})
        matches.append(created["id"])
        seat_of[created["id"]] = 1 if n % 2 else 0
    ana = stats(client, "ana")
    assert ana == expected_stats(client, matches, seat_of)
    ben = stats(client, "ben")
    assert ben == expected_stats(client, matches, {m: 1 - s for m, s in seat_of.items()})
    assert ana["matches_played"] == 5 and ana["matches_won"] + ben["matches_won"] == 5
    assert stats(client, "nobody") == {
        "matches_played": 0,
        "matches_won": 0,
        "matches_forfeited": 0,
        "hands_won": 0,
        "best_margin": None,
        "current_streak": 0,
        "longest_streak": 0,
    }


def test_partners_share_their_sides_wins(portal):
    client = portal
    seats = [{"name": f"P{i}", "type": "bot", "level": "random", "player_ref": f"p{i}"} for i in range(4)]
    first = create_played(client, seats, rules={"partners": True, "target": 40})["id"]
    second = create_played(client, seats, preset="all-fives", rules={"partners": True, "target": 60})["id"]
    figures = {i: stats(client, f"p{i}") for i in range(4)}
    assert figures[0] == figures[2] and figures[1] == figures[3]
    assert figures[0]["matches_won"] + figures[1]["matches_won"] == 2
    for i in range(4):
        assert figures[i] == expected_stats(client, [first, second], {first: i, second: i})


def test_a_rematch_keeps_each_seat_for_its_player_who_claims_it_with_the_old_token(app, portal):
    client = app.test_client()  # the players act with their tokens only; the portal creates
    seats = [{"name": "Ana", "type": "remote", "player_ref": "ana"}, {"name": "Bot", "type": "bot"}]
    created = create(portal, seats, rules={"target": 1})
    old_token = tokens_of(created)[0]
    live = create(portal, seats)
    assert_problem(
        client.post(f"/v1/matches/{live['id']}/rematch", headers=auth(tokens_of(live)[0])), 409, "match_not_over"
    )
    play_to_end(client, created["id"], {0: old_token})
    assert_problem(client.post(f"/v1/matches/{created['id']}/rematch"), 401, "invalid_token")
    response = client.post(f"/v1/matches/{created['id']}/rematch", headers=auth(old_token))
    assert response.status_code == 201, response.get_json()
    rematch = response.get_json()
    assert rematch["id"] != created["id"] and rematch["status"] == "waiting"
    rematch = portal.get(f"/v1/matches/{rematch['id']}").get_json()  # the portal's view: with player ids
    assert rematch["rules"] == created["rules"] and rematch["open_seats"] == [0]
    assert [(s["type"], s["level"], s["player_ref"]) for s in rematch["seats"]] == [
        ("open", None, "ana"),
        ("bot", "greedy", None),
    ]
    again = client.post(f"/v1/matches/{created['id']}/rematch", headers=auth(old_token))
    assert again.status_code == 200 and again.get_json()["id"] == rematch["id"]
    # the kept seat is not open to the public, nor to another player's token
    assert rematch["id"] not in ids(portal.get("/v1/matches?has_open_seat=true"))
    claim = f"/v1/matches/{rematch['id']}/seats/0/claim"
    assert_problem(client.post(claim, json={"name": "Eve"}), 403, "seat_reserved")
    assert_problem(client.post(claim, json={"name": "Eve"}, headers=auth(tokens_of(live)[0])), 403, "seat_reserved")
    claimed = client.post(claim, json={"name": "Ana"}, headers=auth(old_token))
    assert claimed.status_code == 200, claimed.get_json()
    new_token = claimed.get_json()["token"]
    assert new_token != old_token and claimed.get_json()["view"]["status"] == "playing"
    assert view(client, rematch["id"], new_token)["seat"] == 0
    assert_problem(client.get(f"/v1/matches/{rematch['id']}/view", headers=auth(old_token)), 403, "wrong_match")
    summary = portal.get(f"/v1/matches/{rematch['id']}").get_json()
    assert summary["seats"][0]["player_ref"] == "ana" and summary["seats"][0]["type"] == "remote"
    # the rematch is the portal's, like the match: its player ids are not shown to anyone else
    assert client.get(f"/v1/matches/{rematch['id']}").get_json()["seats"][0]["player_ref"] is None
    assert rematch["id"] in ids(portal.get("/v1/matches")) and rematch["id"] not in ids(client.get("/v1/matches"))


def test_stats_are_kept_by_the_transaction_that_ends_the_match_and_read_as_one_row(app, portal):
    """No stats request is needed for the figures to be kept, and a request reads the kept row
    (here: edited behind the server's back, and the edit shows) instead of the matches."""
    from sqlalchemy import text

    client = portal
    seats = [
        {"name": "Ana", "type": "bot", "level": "greedy", "player_ref": "ana"},
        {"name": "Bo", "type": "bot", "level": "random"},
    ]
    first = [create_played(client, seats, rules={"target": 20})["id"] for _ in range(2)]
    expected = expected_stats(client, first, {m: 0 for m in first})
    with app.extensions["boneyard.store"].engine.begin() as conn:
        kept = conn.execute(
            text("SELECT played, won, hands_won, longest_streak FROM player_stats WHERE player_ref = 'ana'")
        ).one()
        assert tuple(kept) == (2, expected["matches_won"], expected["hands_won"], expected["longest_streak"])
        conn.execute(text("UPDATE player_stats SET played = 100 WHERE player_ref = 'ana'"))
    assert stats(client, "ana")["matches_played"] == 100  # the kept row, not a fold of the matches
    create_played(client, seats, rules={"target": 20})
    assert stats(client, "ana")["matches_played"] == 101
