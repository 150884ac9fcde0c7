"""Rated matches: each update checked against openskill itself on the recorded result, computer
players at fixed ratings, forfeits rated at once, refusals, leaderboards and histories paged
with ``Link``, and one portal never seeing another's ratings."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from openskill.models import PlackettLuce

from api.bots.ratings import bot_rating
from api.rules.vocabulary import Family
from api.services.ratings import NEWCOMER, Skill
from api.store.ratings import RatingChange, RatingRecord

from .fake_clock import FakeClock, use_clock
from .helpers import assert_problem, auth, create, new_portal, play_to_end, portal_client, tokens_of

MODEL = PlackettLuce()  # the library's own, with its defaults: what the server must agree with
SHORT = {"target": 10}  # a hand or two: the result is what matters here


def remote(*refs: str) -> list[dict]:
    return [{"name": ref.title(), "type": "remote", "player_ref": ref} for ref in refs]


def rated(client, seats, preset="standard-draw", rules=None) -> dict:
    response = client.post(
        "/v1/matches", json={"preset": preset, "seats": seats, "rules": {**SHORT, **(rules or {})}, "rated": True}
    )
    assert response.status_code == 201, response.get_json()
    assert response.get_json()["rated"] is True
    return response.get_json()


def played(client, seats, **kwargs) -> tuple[dict, dict[int, str]]:
    """A rated match of ``seats`` played to its end: its final summary, and its seat tokens."""
    created = rated(client, seats, **kwargs)
    tokens = tokens_of(created)
    play_to_end(client, created["id"], tokens)
    return client.get(f"/v1/matches/{created['id']}").get_json(), tokens


def rematch(client, match_id, tokens) -> tuple[str, dict[int, str]]:
    """The rematch, each seat claimed with its old token: the new match's id and tokens."""
    response = client.post(f"/v1/matches/{match_id}/rematch", headers=auth(tokens[0]))
    assert response.status_code == 201, response.get_json()
    new_id = response.get_json()["id"]
    new_tokens = {}
    for seat, token in tokens.items():
        claimed = client.post(
            f"/v1/matches/{new_id}/seats/{seat}/claim", json={"name": f"P{seat}"}, headers=auth(token)
        )
        assert claimed.status_code == 200, claimed.get_json()
        new_tokens[seat] = claimed.get_json()["token"]
    return new_id, new_tokens


def ratings_of(client, ref) -> dict[str, dict]:
    response = client.get(f"/v1/players/{ref}/ratings")
    assert response.status_code == 200, response.get_json()
    body = response.get_json()
    assert body["player_ref"] == ref
    return {r["family"]: r for r in body["ratings"]}


def history_of(client, ref, family="draw") -> list[dict]:
    response = client.get(f"/v1/players/{ref}/history?family={family}")
    assert response.status_code == 200, response.get_json()
    return response.get_json()["items"]


def expected_ranks(winner: int, scores: list[int]) -> list[int]:
    """The documented ranking: the winning side first, the others by final score, ties shared."""
    return [
        0 if side == winner else 1 + sum(1 for o, s in enumerate(scores) if o not in (side, winner) and s > score)
        for side, score in enumerate(scores)
    ]


def assert_rating(found: dict, expected, matches: int = 1) -> None:
    assert found["mu"] == pytest.approx(expected.mu, abs=1e-9)
    assert found["sigma"] == pytest.approx(expected.sigma, abs=1e-9)
    assert found["ordinal"] == pytest.approx(expected.ordinal(), abs=1e-9)
    assert found["matches"] == matches


# --- updates, against openskill -------------------------------------------------------------------
def test_a_two_player_rated_match_and_its_rated_rematch_update_both_players_as_openskill_does(portal):
    final, tokens = played(portal, remote("sam", "ann"))
    winner = final["winner"]
    after = MODEL.rate([[MODEL.rating()], [MODEL.rating()]], ranks=[0 if s == winner else 1 for s in (0, 1)])
    for seat, ref in enumerate(("sam", "ann")):
        assert_rating(ratings_of(portal, ref)["draw"], after[seat][0])
        (row,) = history_of(portal, ref)
        assert row["match_id"] == final["id"]
        assert row["outcome"] == ("won" if seat == winner else "lost")
        assert (row["mu_before"], row["sigma_before"]) == (NEWCOMER.mu, NEWCOMER.sigma)
        assert row["mu_after"] == pytest.approx(after[seat][0].mu, abs=1e-9)
    assert final["seats"][0]["player_ref"] == "sam"
    recent = portal.get("/v1/matches?player_ref=sam").get_json()["items"]  # the player's recent matches
    assert [m["id"] for m in recent] == [final["id"]]

    # the rematch is rated too, and starts from the ratings the first match left
    rematch_id, new_tokens = rematch(portal, final["id"], tokens)
    play_to_end(portal, rematch_id, new_tokens)
    second = portal.get(f"/v1/matches/{rematch_id}").get_json()
    assert second["rated"] is True
    again = MODEL.rate([[after[0][0]], [after[1][0]]], ranks=[0 if s == second["winner"] else 1 for s in (0, 1)])
    for seat, ref in enumerate(("sam", "ann")):
        assert_rating(ratings_of(portal, ref)["draw"], again[seat][0], matches=2)
        newest, oldest = history_of(portal, ref)
        assert (newest["match_id"], oldest["match_id"]) == (rematch_id, final["id"])
        assert newest["mu_before"] == oldest["mu_after"]


def test_a_three_player_free_for_all_ranks_the_winner_first_then_the_others_by_score(portal):
    final, _ = played(portal, remote("ana", "ben", "cy"))
    ranks = expected_ranks(final["winner"], final["scores"])
    after = MODEL.rate([[MODEL.rating()] for _ in range(3)], ranks=ranks)
    for seat, ref in enumerate(("ana", "ben", "cy")):
        assert_rating(ratings_of(portal, ref)["draw"], after[seat][0])
        assert history_of(portal, ref)[0]["outcome"] == ("won" if seat == final["winner"] else "lost")


def test_partners_are_rated_as_one_team_of_two(portal):
    final, _ = played(portal, remote("ana", "ben", "cy", "dee"), rules={"partners": True}, preset="standard-block")
    teams = [[MODEL.rating(), MODEL.rating()], [MODEL.rating(), MODEL.rating()]]  # sides 0 (seats 0, 2) and 1
    after = MODEL.rate(teams, ranks=[0 if side == final["winner"] else 1 for side in (0, 1)])
    for seat, ref in enumerate(("ana", "ben", "cy", "dee")):
        assert_rating(ratings_of(portal, ref)["block"], after[seat % 2][seat // 2])
        assert history_of(portal, ref, "block")[0]["outcome"] == ("won" if seat % 2 == final["winner"] else "lost")
    assert ratings_of(portal, "ana").keys() == {"block"}  # nothing in the other families


def test_a_computer_opponent_plays_at_its_fixed_rating_and_never_moves(portal):
    bots_before = portal.get("/v1/ratings/bots").get_json()
    seats = [*remote("sam"), {"name": "Cpu", "type": "bot", "level": "expert", "player_ref": "house-bot"}]
    final, _ = played(portal, seats, preset="muggins")
    fixed = bot_rating(Family.FIVES, "expert")
    after = MODEL.rate(
        [[MODEL.rating()], [MODEL.rating(mu=fixed.mu, sigma=fixed.sigma)]],
        ranks=[0 if s == final["winner"] else 1 for s in (0, 1)],
    )
    assert_rating(ratings_of(portal, "sam")["fives"], after[0][0])
    assert ratings_of(portal, "house-bot") == {}  # a computer's seat is never rated, whatever its player_ref
    assert portal.get("/v1/ratings/bots").get_json() == bots_before
    shown = {(r["family"], r["level"]): r for r in bots_before["items"]}
    assert len(shown) == len(Family) * 4  # every family, four levels
    assert shown[("fives", "expert")]["mu"] == fixed.mu
    assert shown[("fives", "expert")]["ordinal"] == pytest.approx(fixed.mu - 3 * fixed.sigma)


def test_the_bots_fixed_ratings_order_random_below_greedy_below_expert_in_every_family(client):
    shown = client.get("/v1/ratings/bots").get_json()["items"]  # public: no key needed
    for family in ("draw", "block", "fives"):
        weakest_first = ("random", "greedy", "expert")
        mus = [next(r["mu"] for r in shown if r["family"] == family and r["level"] == lv) for lv in weakest_first]
        assert mus == sorted(mus) and len(set(mus)) == 3, (family, mus)


def test_an_unrated_match_changes_no_rating(portal):
    created = create(portal, remote("sam", "ann"), rules=SHORT)
    play_to_end(portal, created["id"], tokens_of(created))
    assert created["rated"] is False
    assert [m["rated"] for m in portal.get("/v1/matches?player_ref=sam").get_json()["items"]] == [False]
    assert ratings_of(portal, "sam") == {}
    assert portal.get("/v1/leaderboards/draw").get_json()["items"] == []


# --- forfeits ---------------------------------------------------------------------------------------
def test_a_seat_handed_to_a_bot_after_timing_out_is_rated_a_loss_at_once_and_not_again(app, portal):
    clock = use_clock(app, FakeClock())
    created = rated(portal, remote("sam", "ann"), rules={"turn_seconds": 30, "timeout_limit": 1})
    match_id = created["id"]
    stalled = portal.get(f"/v1/matches/{match_id}").get_json()["turn"]
    clock.advance(31)
    events = portal.get(f"/v1/matches/{match_id}/events?after=0&limit=1000").get_json()["events"]
    replaced = next(e for e in events if e["type"] == "seat_replaced")
    assert replaced["seat"] == stalled
    gone, stayed = ("sam", "ann") if stalled == 0 else ("ann", "sam")
    lost = MODEL.rate([[MODEL.rating()], [MODEL.rating()]], ranks=[1 if s == stalled else 0 for s in (0, 1)])
    assert_rating(ratings_of(portal, gone)["draw"], lost[stalled][0])
    assert history_of(portal, gone)[0]["outcome"] == "forfeited"
    assert ratings_of(portal, stayed) == {}  # still playing
    # the other plays on against the bot now in the seat: rated against that bot's fixed rating
    play_to_end(portal, match_id, {n: t for n, t in tokens_of(created).items() if n != stalled})
    final = portal.get(f"/v1/matches/{match_id}").get_json()
    fixed = bot_rating(Family.DRAW, replaced["level"])
    sides = [[MODEL.rating()], [MODEL.rating()]]
    sides[stalled] = [MODEL.rating(mu=fixed.mu, sigma=fixed.sigma)]
    end = MODEL.rate(sides, ranks=[0 if s == final["winner"] else 1 for s in (0, 1)])
    assert_rating(ratings_of(portal, stayed)["draw"], end[1 - stalled][0])
    assert_rating(ratings_of(portal, gone)["draw"], lost[stalled][0])  # the forfeit stands, counted once
    assert len(history_of(portal, gone)) == 1


# --- refusals ---------------------------------------------------------------------------------------
def test_a_rated_match_needs_a_portal_key_and_a_named_player_at_every_players_seat(client, portal):
    two = remote("sam", "ann")
    assert_problem(client.post("/v1/matches", json={"seats": two, "rated": True}), 403, "player_ref_needs_portal")
    anonymous = [{"name": "A", "type": "remote"}, {"name": "B", "type": "remote"}]
    assert_problem(client.post("/v1/matches", json={"seats": anonymous, "rated": True}), 403, "rated_needs_portal")
    cases = {
        "missing_player_ref": [*remote("sam"), {"name": "Open", "type": "open"}],
        "duplicate_player_ref": remote("sam", "sam"),
        "no_players": [{"name": "A", "type": "bot"}, {"name": "B", "type": "bot"}],
    }
    for reason, seats in cases.items():
        body = assert_problem(
            portal.post("/v1/matches", json={"seats": seats, "rated": True}), 422, "invalid_rated_seats"
        )
        assert body["reason"] == reason
    # an open seat named for a player is fine: whoever the portal seats there plays as that player
    seats = [*remote("sam"), {"name": "Open", "type": "open", "player_ref": "ann"}]
    assert portal.post("/v1/matches", json={"seats": seats, "rated": True}).status_code == 201


def test_reading_ratings_needs_a_portal_key(client):
    for path in ("/v1/leaderboards/draw", "/v1/players/sam/ratings", "/v1/players/sam/history?family=draw"):
        assert_problem(client.get(path), 403, "player_ref_needs_portal")
    assert_problem(client.get("/v1/leaderboards/chess"), 422, "invalid_request")  # no such family


# --- isolation --------------------------------------------------------------------------------------
def test_another_portal_never_sees_a_portals_ratings(app, portal):
    played(portal, remote("sam", "ann"))
    other = portal_client(app, new_portal(app, "elsewhere"))
    assert ratings_of(other, "sam") == {}  # the same player_ref there is another (unrated) player
    assert history_of(other, "sam") == []
    assert other.get("/v1/leaderboards/draw").get_json()["items"] == []
    assert [r["player_ref"] for r in portal.get("/v1/leaderboards/draw").get_json()["items"]] != []


# --- paging -----------------------------------------------------------------------------------------
def seed(uow, portal_id: str) -> None:
    """Ratings and a history written as rated matches would write them."""
    newcomer = RatingRecord("", "draw", NEWCOMER.mu, NEWCOMER.sigma, NEWCOMER.ordinal, 0)
    mus = {"a": 30.0, "b": 28.0, "c": 28.0, "d": 20.0, "e": 35.0}  # b and c tie: by player_ref
    now = datetime(2030, 1, 1, tzinfo=UTC)
    uow.ratings.lock(portal_id, "draw", mus, newcomer, now)
    for ref, mu in mus.items():
        skill = Skill(mu, 2.0)
        uow.ratings.save(portal_id, RatingRecord(ref, "draw", mu, 2.0, skill.ordinal, 3), now)
    uow.ratings.lock(portal_id, "block", ["z"], newcomer, now)  # another family: not on draw's board
    for i in range(5):
        uow.ratings.add_change(
            portal_id,
            RatingChange("a", "draw", f"{i:032x}", now + timedelta(minutes=i % 3), "won", 25.0, 8.0, 26.0, 7.0),
        )
    uow.commit()


def follow(client, path) -> list[list[str]]:
    """Every page from ``path``, by its Link headers: the keys of each page's items."""
    pages = []
    while path:
        response = client.get(path)
        assert response.status_code == 200, response.get_json()
        body = response.get_json()
        pages.append([item.get("player_ref") or item["match_id"] for item in body["items"]])
        link = response.headers.get("Link")
        assert (link is None) == (body["next_cursor"] is None)
        path = link and link.split(">", 1)[0].lstrip("<")
        assert not path or "cursor=" in path
    return pages


def test_a_leaderboard_and_a_history_are_paged_with_link_headers(app, portal):
    portal_id = portal.get("/v1/portal").get_json()["id"]
    with app.extensions["boneyard.store"].unit_of_work() as uow:
        seed(uow, portal_id)
    assert follow(portal, "/v1/leaderboards/draw?limit=2") == [["e", "a"], ["b", "c"], ["d"]]
    board = portal.get("/v1/leaderboards/draw").get_json()
    assert [r["ordinal"] for r in board["items"]] == sorted((r["ordinal"] for r in board["items"]), reverse=True)
    assert board["items"][0] == {
        "player_ref": "e",
        "family": "draw",
        "mu": 35.0,
        "sigma": 2.0,
        "ordinal": 29.0,
        "matches": 3,
    }
    # newest first; equal times by match id, descending
    ids = [f"{i:032x}" for i in (2, 4, 1, 3, 0)]
    assert follow(portal, "/v1/players/a/history?family=draw&limit=2") == [ids[:2], ids[2:4], ids[4:]]
    assert follow(portal, "/v1/players/a/history?family=block") == [[]]
    for path in ("/v1/leaderboards/draw?cursor=bm90LWpzb24", "/v1/players/a/history?family=draw&cursor=x"):
        assert_problem(portal.get(path), 422, "invalid_cursor")


def test_a_rated_match_always_has_a_turn_clock_so_walking_away_is_a_forfeit(portal):
    created = portal.post("/v1/matches", json={"seats": remote("ana", "ben"), "rated": True}).get_json()
    assert (created["rules"]["turn_seconds"], created["rules"]["timeout_limit"]) == (300, 3)
    own = rated(portal, remote("ana", "ben"), rules={"turn_seconds": 45})
    assert own["rules"]["turn_seconds"] == 45  # a clock of the table's own is kept
    plain = portal.post("/v1/matches", json={"seats": remote("ana", "ben")}).get_json()
    assert plain["rules"]["turn_seconds"] is None  # unrated: no clock unless asked for
