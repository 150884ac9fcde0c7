"""A rated trains match over HTTP (issue 34): six seats ranked by their totals, lowest first, the
two sharing the lowest both winning, checked against openskill itself; the leaderboard, the
histories, the players' figures and the computer players' table know the trains families."""

from __future__ import annotations

import pytest
from openskill.models import PlackettLuce

from api.rules.vocabulary import BotLevel, Family

from .helpers import new_portal, play_to_end, portal_client, tokens_of

MODEL = PlackettLuce()  # the library's own, with its defaults
REFS = [f"p{n}" for n in range(6)]


@pytest.fixture
def seeded_portal(make_client):
    """A portal's client on a server that takes a chosen seed: the deal is fixed."""
    app = make_client(RATELIMIT_ENABLED=False, ALLOW_CLIENT_SEED=True).application
    return portal_client(app, new_portal(app, "arcade"))


def test_a_rated_mexican_train_match_rates_six_seats_by_lowest_total_and_shares_the_win(seeded_portal):
    client = seeded_portal
    seats = [{"name": ref.upper(), "type": "remote", "player_ref": ref} for ref in REFS]
    body = {"preset": "mexican-train", "seats": seats, "rules": {"rounds": 1}, "seed": "0" * 64, "rated": True}
    created = client.post("/v1/matches", json=body)
    assert created.status_code == 201, created.get_json()
    match_id = created.get_json()["id"]
    final = play_to_end(client, match_id, tokens_of(created.get_json()))
    # seat 0 went out; seat 4 was left with the 0-0, worth 0 in Mexican Train: both on 0
    assert (final["totals"], final["winners"], final["winner"]) == ([0, 19, 33, 1, 0, 16], [0, 4], 0)

    # ranks 0, 3, 5, 1, 0, 2: the winners' tie, with four places after it, broken both ways
    runs = [
        MODEL.rate([[MODEL.rating()] for _ in REFS], ranks=order) for order in ([0, 4, 5, 2, 1, 3], [1, 4, 5, 2, 0, 3])
    ]
    for seat, ref in enumerate(REFS):
        (rating,) = client.get(f"/v1/players/{ref}/ratings").get_json()["ratings"]
        assert rating["family"] == "mexican_train" and rating["matches"] == 1
        assert rating["mu"] == pytest.approx(sum(run[seat][0].mu for run in runs) / 2, abs=1e-9)
        assert rating["sigma"] == pytest.approx(sum(run[seat][0].sigma for run in runs) / 2, abs=1e-9)
        (change,) = client.get(f"/v1/players/{ref}/history?family=mexican_train").get_json()["items"]
        assert change["outcome"] == ("won" if seat in (0, 4) else "lost")
        assert change["match_id"] == match_id

    board = client.get("/v1/leaderboards/mexican_train").get_json()["items"]
    assert [r["player_ref"] for r in board] == ["p0", "p4", "p3", "p5", "p1", "p2"]  # the tie by player_ref
    assert board[0]["ordinal"] == pytest.approx(board[1]["ordinal"])
    assert client.get("/v1/leaderboards/chicken_foot").get_json()["items"] == []

    figures = {ref: client.get(f"/v1/players/{ref}/stats").get_json() for ref in REFS}
    assert [figures[ref]["matches_won"] for ref in REFS] == [1, 0, 0, 0, 1, 0]
    assert [figures[ref]["hands_won"] for ref in REFS] == [1, 0, 0, 0, 0, 0]  # the round seat 0 went out of
    assert [figures[ref]["best_margin"] for ref in REFS] == [1, None, None, None, 1, None]  # ahead of seat 3's 1


def test_the_computer_players_table_has_every_level_of_both_trains_families(client):
    shown = client.get("/v1/ratings/bots").get_json()["items"]
    for family in (Family.MEXICAN_TRAIN, Family.CHICKEN_FOOT):
        levels = [r["level"] for r in shown if r["family"] == family.value]
        assert levels == [level.value for level in BotLevel]
