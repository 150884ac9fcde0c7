"""Portals as tenants: keys made by the operator, matches and players scoped to their portal,
player ids only from a portal, statistics no one else can forge, a budget per portal."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from api.config import from_environ
from api.portal_cli import portal_cli
from api.services.stats import player_stats
from api.store import tables
from api.store.repositories import utcnow

from .fake_clock import FakeClock, use_clock
from .helpers import TWO_REMOTE, act, assert_problem, auth, create, new_portal, play_to_end, portal_client, tokens_of

OPEN = [{"name": "Ana", "type": "remote"}, {"name": "?", "type": "open"}]


def ids(response) -> list[str]:
    assert response.status_code == 200, response.get_json()
    return [m["id"] for m in response.get_json()["items"]]


@pytest.fixture
def two(app):
    """Two portals on one server, and a keyless client of the public space."""
    alpha = portal_client(app, new_portal(app, "alpha"))
    beta = portal_client(app, new_portal(app, "beta"))
    return alpha, beta, app.test_client()


def stats_of(client, ref) -> dict:
    response = client.get(f"/v1/players/{ref}/stats")
    assert response.status_code == 200, response.get_json()
    return response.get_json()


# --- isolation ---------------------------------------------------------------------------------
def test_each_portal_lists_only_its_own_matches_and_keyless_clients_only_the_public_ones(two):
    alpha, beta, public = two
    a_live = create(alpha, [{**TWO_REMOTE[0], "player_ref": "sam"}, TWO_REMOTE[1]])["id"]
    a_open = create(alpha, OPEN)["id"]
    b_open = create(beta, [{**OPEN[0], "player_ref": "sam"}, OPEN[1]])["id"]
    p_open = create(public, OPEN)["id"]
    assert ids(alpha.get("/v1/matches")) == [a_open, a_live]
    assert ids(beta.get("/v1/matches")) == [b_open]
    assert ids(public.get("/v1/matches")) == [p_open]
    # the lobby (open seats), a status, a player: each within its own space
    assert ids(alpha.get("/v1/matches?has_open_seat=true")) == [a_open]
    assert ids(beta.get("/v1/matches?has_open_seat=true")) == [b_open]
    assert ids(public.get("/v1/matches?has_open_seat=true")) == [p_open]
    assert ids(alpha.get("/v1/matches?status=playing")) == [a_live]
    assert ids(beta.get("/v1/matches?status=playing")) == []
    assert ids(alpha.get("/v1/matches?player_ref=sam")) == [a_live]
    assert ids(beta.get("/v1/matches?player_ref=sam")) == [b_open]
    assert_problem(public.get("/v1/matches?player_ref=sam"), 403, "player_ref_needs_portal")


def test_another_portals_match_does_not_exist_for_a_key_on_any_path(two):
    alpha, beta, public = two
    created = create(alpha, OPEN)
    match_id, token = created["id"], tokens_of(created)[0]
    paths = ["", "/view", "/events", "/audit", "/fairness", "/stream"]
    for path in paths:
        assert_problem(beta.get(f"/v1/matches/{match_id}{path}"), 404, "unknown_match")
    assert_problem(beta.get(f"/v1/matches/{match_id}/view", headers=auth(token)), 404, "unknown_match")
    assert_problem(beta.post(f"/v1/matches/{match_id}/seats/1/claim", json={"name": "Eve"}), 404, "unknown_match")
    assert_problem(
        beta.post(f"/v1/matches/{match_id}/actions", json={"type": "knock"}, headers=auth(token)), 404, "unknown_match"
    )
    assert_problem(beta.post(f"/v1/matches/{match_id}/rematch", headers=auth(token)), 404, "unknown_match")
    # its own portal and the seat's player (a token, no key) see it; a public match stays visible to a key
    assert alpha.get(f"/v1/matches/{match_id}").status_code == 200
    assert public.get(f"/v1/matches/{match_id}/view", headers=auth(token)).status_code == 200
    assert beta.get(f"/v1/matches/{create(public, OPEN)['id']}").status_code == 200


def test_player_ids_are_shown_only_to_their_portal(two):
    alpha, beta, public = two
    created = create(alpha, [{**TWO_REMOTE[0], "player_ref": "sam"}, TWO_REMOTE[1]])
    assert [s["player_ref"] for s in created["seats"]] == ["sam", None]
    match_id = created["id"]
    assert [s["player_ref"] for s in alpha.get(f"/v1/matches/{match_id}").get_json()["seats"]] == ["sam", None]
    assert [s["player_ref"] for s in public.get(f"/v1/matches/{match_id}").get_json()["seats"]] == [None, None]
    view = public.get(f"/v1/matches/{match_id}/view").get_json()
    assert "sam" not in str(view)
    assert stats_of(beta, "sam")["matches_played"] == 0 and "sam" not in str(beta.get("/v1/matches").get_json())


# --- player ids only from a portal -----------------------------------------------------------------
def test_a_player_ref_without_the_portals_key_is_refused_everywhere(two):
    alpha, beta, public = two
    forged = [{"name": "Me", "type": "bot", "player_ref": "champion"}, {"name": "Bo", "type": "bot"}]
    assert_problem(public.post("/v1/matches", json={"seats": forged}), 403, "player_ref_needs_portal")
    assert_problem(public.get("/v1/players/champion/stats"), 403, "player_ref_needs_portal")
    # a claim under a made-up id: refused without the key, and with another portal's key the match is unknown
    waiting = create(alpha, OPEN)["id"]
    claim = f"/v1/matches/{waiting}/seats/1/claim"
    assert_problem(public.post(claim, json={"name": "Eve", "player_ref": "champion"}), 403, "player_ref_needs_portal")
    assert_problem(beta.post(claim, json={"name": "Eve", "player_ref": "champion"}), 404, "unknown_match")
    public_open = create(public, OPEN)["id"]
    assert_problem(
        alpha.post(f"/v1/matches/{public_open}/seats/1/claim", json={"name": "Eve", "player_ref": "sam"}),
        403,
        "player_ref_needs_portal",
    )
    # a seat the portal named for its player is claimed by the portal, not by whoever finds it
    named = create(alpha, [OPEN[0], {**OPEN[1], "player_ref": "sam"}])["id"]
    assert_problem(
        public.post(f"/v1/matches/{named}/seats/1/claim", json={"name": "Sam?"}), 403, "player_ref_needs_portal"
    )
    claimed = alpha.post(f"/v1/matches/{named}/seats/1/claim", json={"name": "Sam"})
    assert claimed.status_code == 200, claimed.get_json()
    assert alpha.get(f"/v1/matches/{named}").get_json()["seats"][1]["player_ref"] == "sam"
    # the portal claims for its player with an id of its own choosing
    made = alpha.post(claim, json={"name": "Eve", "player_ref": "eve"})
    assert made.status_code == 200, made.get_json()
    assert alpha.get(f"/v1/matches/{waiting}").get_json()["seats"][1]["player_ref"] == "eve"


def test_a_server_without_a_public_space_needs_a_key_to_create_and_list_but_tokens_still_play(app, two):
    alpha, _beta, public = two
    app.config["PUBLIC_MATCHES"] = False
    assert_problem(public.post("/v1/matches", json={"seats": TWO_REMOTE}), 401, "portal_key_required")
    assert_problem(public.get("/v1/matches"), 401, "portal_key_required")
    created = create(alpha, TWO_REMOTE)
    tokens = tokens_of(created)
    seat = public.get(f"/v1/matches/{created['id']}/view", headers=auth(tokens[0])).get_json()
    mover = tokens[seat["turn"]]
    moves = public.get(f"/v1/matches/{created['id']}/view", headers=auth(mover)).get_json()["legal_actions"]
    act(public, created["id"], mover, moves[0])


def test_a_wrong_or_revoked_key_is_refused_never_taken_for_no_key(app, two):
    alpha, _beta, public = two
    for key in ("nope", "bypk_000000000000_" + "A" * 43):
        assert_problem(public.get("/v1/matches", headers={"X-API-Key": key}), 401, "invalid_api_key")
    made = alpha.post("/v1/portal/keys")
    assert made.status_code == 201
    new_key = made.get_json()["key"]
    old_id = next(
        k["key_id"] for k in alpha.get("/v1/portal").get_json()["keys"] if k["key_id"] != made.get_json()["key_id"]
    )
    rotated = portal_client(app, new_key)
    assert rotated.delete(f"/v1/portal/keys/{old_id}").status_code == 204
    assert_problem(alpha.get("/v1/matches"), 401, "invalid_api_key")  # the old key, revoked
    assert rotated.get("/v1/matches").status_code == 200
    assert_problem(rotated.delete(f"/v1/portal/keys/{made.get_json()['key_id']}"), 409, "last_portal_key")
    keys = rotated.get("/v1/portal").get_json()["keys"]
    assert [(k["key_id"], k["revoked_at"] is None) for k in keys] == [
        (old_id, False),
        (made.get_json()["key_id"], True),
    ]
    assert new_key not in str(keys)


def test_only_a_hash_of_each_key_is_stored(app, two):
    key = new_portal(app, "gamma")
    with app.extensions["boneyard.store"].engine.connect() as conn:
        stored = [row.key_hash for row in conn.execute(select(tables.portal_keys))]
    assert len(stored) == 3 and key not in stored and all(len(h) == 64 for h in stored)


# --- statistics no one else can forge --------------------------------------------------------------
def test_statistics_are_per_portal_and_count_only_the_portals_matches(two):
    alpha, beta, public = two
    seats = [{"name": "Sam", "type": "remote", "player_ref": "sam"}, {"name": "Bo", "type": "bot", "level": "random"}]
    created = create(alpha, seats, rules={"target": 1})
    play_to_end(alpha, created["id"], tokens_of(created))
    winner = alpha.get(f"/v1/matches/{created['id']}").get_json()["winner"]
    sam = stats_of(alpha, "sam")
    assert sam["matches_played"] == 1 and sam["matches_won"] == (winner == 0) and sam["matches_forfeited"] == 0
    assert stats_of(beta, "sam")["matches_played"] == 0  # the same id at another portal is another player
    # bot-only matches of the public space cannot carry a player id at all
    assert_problem(public.post("/v1/matches", json={"seats": seats}), 403, "player_ref_needs_portal")


def test_a_seat_handed_to_a_bot_after_timing_out_is_played_and_lost_whatever_the_bot_does(app, portal):
    clock = use_clock(app, FakeClock())
    seats = [
        {"name": "Sam", "type": "remote", "player_ref": "sam"},
        {"name": "Ann", "type": "remote", "player_ref": "ann"},
    ]
    created = create(portal, seats, rules={"turn_seconds": 30, "timeout_limit": 1, "target": 50})
    match_id = created["id"]
    stalled = portal.get(f"/v1/matches/{match_id}").get_json()["turn"]
    clock.advance(31)
    events = portal.get(f"/v1/matches/{match_id}/events?after=0&limit=1000").get_json()["events"]
    assert any(e["type"] == "seat_replaced" and e["seat"] == stalled for e in events)
    gone, stayed = ("sam", "ann") if stalled == 0 else ("ann", "sam")
    figures = stats_of(portal, gone)
    assert (figures["matches_played"], figures["matches_won"], figures["matches_forfeited"]) == (1, 0, 1)
    assert stats_of(portal, stayed)["matches_played"] == 0  # still playing
    # the other player plays on against the bot to the end: the forfeit stands, the other counts once
    tokens = tokens_of(created)
    play_to_end(portal, match_id, {n: t for n, t in tokens.items() if n != stalled})
    assert portal.get(f"/v1/matches/{match_id}").get_json()["status"] == "ended"
    assert stats_of(portal, gone)["matches_played"] == 1 and stats_of(portal, gone)["matches_won"] == 0
    assert stats_of(portal, stayed)["matches_played"] == 1


def test_a_match_left_waiting_on_a_player_counts_as_lost_for_that_player(app, portal):
    flow = app.extensions["boneyard.bus"].flow
    portal_id = portal.get("/v1/portal").get_json()["id"]
    seats = [
        {"name": "Sam", "type": "remote", "player_ref": "sam"},
        {"name": "Ann", "type": "remote", "player_ref": "ann"},
    ]
    created = create(portal, seats)
    to_move = portal.get(f"/v1/matches/{created['id']}").get_json()["turn"]
    walker, waiter = ("sam", "ann") if to_move == 0 else ("ann", "sam")
    assert stats_of(portal, walker)["matches_played"] == 0  # not yet abandoned
    a_day_later = lambda: utcnow() + timedelta(hours=24, seconds=1)  # noqa: E731 - the store's clock, moved on
    figures = player_stats(flow, portal_id, walker, now=a_day_later)
    assert (figures["matches_played"], figures["matches_won"], figures["matches_forfeited"]) == (1, 0, 1)
    assert figures["current_streak"] == 0
    assert player_stats(flow, portal_id, waiter, now=a_day_later)["matches_played"] == 0


# --- a budget per portal ---------------------------------------------------------------------------
def test_each_portal_has_its_own_creation_budget_whatever_its_address(make_client):
    client = make_client(RATE_LIMIT_CREATE="1 per minute", RATE_LIMIT_PORTAL_CREATE="2 per minute")
    app = client.application
    alpha = portal_client(app, new_portal(app, "alpha"))
    beta = portal_client(app, new_portal(app, "beta", create_limit="3 per minute"))
    assert [alpha.post("/v1/matches", json={"seats": TWO_REMOTE}).status_code for _ in range(3)] == [201, 201, 429]
    assert [beta.post("/v1/matches", json={"seats": TWO_REMOTE}).status_code for _ in range(4)] == [201] * 3 + [429]
    # the same address without a key has the public budget, spent apart from the portals'
    assert [client.post("/v1/matches", json={"seats": TWO_REMOTE}).status_code for _ in range(2)] == [201, 429]


def _player_token(portal, player_ref: str) -> str:
    issued = portal.post(f"/v1/portal/players/{player_ref}/tokens")
    assert issued.status_code == 201, issued.get_json()
    return issued.get_json()["token"]


def _seek_and_cancel(client, token: str):
    """One seek with the player token, cancelled at once (a player holds one waiting seek per pool)."""
    sought = client.post("/v1/seeks", json={}, headers=auth(token))
    if sought.status_code == 201:
        assert client.delete(f"/v1/seeks/{sought.get_json()['id']}", headers=auth(token)).status_code == 200
    return sought


def test_a_player_tokens_seeks_spend_its_portals_budget_and_keyless_creates_keep_the_address_own(make_client):
    """Issue 32 with the default limits: sixteen bots of one portal behind one NAT are not held
    to the keyless 30 per minute of their address, nor do they spend it."""
    client = make_client()  # RATE_LIMIT_CREATE 30, RATE_LIMIT_PORTAL_CREATE 600 per minute
    app = client.application
    token = _player_token(portal_client(app, new_portal(app, "arcade")), "ana")
    sought = [_seek_and_cancel(client, token) for _ in range(31)]
    assert [s.status_code for s in sought] == [201] * 31
    assert sought[-1].headers["X-RateLimit-Limit"] == "600"
    assert sought[-1].headers["X-RateLimit-Remaining"] == str(600 - 31)
    created = [client.post("/v1/matches", json={"seats": TWO_REMOTE}) for _ in range(31)]
    assert [c.status_code for c in created] == [201] * 30 + [429]
    assert created[0].headers["X-RateLimit-Limit"] == "30"
    assert created[0].headers["X-RateLimit-Remaining"] == "29"  # none of the 31 seeks was the address's


def test_a_portals_budget_is_shared_by_its_key_and_its_players_tokens(make_client):
    client = make_client(RATE_LIMIT_CREATE="1 per minute", RATE_LIMIT_PORTAL_CREATE="4 per minute")
    app = client.application
    alpha = portal_client(app, new_portal(app, "alpha"))
    beta = portal_client(app, new_portal(app, "beta", create_limit="3 per minute"))
    ana, ben = _player_token(alpha, "ana"), _player_token(alpha, "ben")
    assert [_seek_and_cancel(client, t).status_code for t in (ana, ben)] == [201, 201]
    assert [alpha.post("/v1/matches", json={"seats": TWO_REMOTE}).status_code for _ in range(2)] == [201, 201]
    refused = _seek_and_cancel(client, ana)
    assert_problem(refused, 429, "too_many_requests")
    assert refused.headers["X-RateLimit-Limit"] == "4"
    assert_problem(alpha.post("/v1/matches", json={"seats": TWO_REMOTE}), 429, "too_many_requests")
    # the portal's own limit holds for its players' tokens too, in a bucket apart from alpha's
    cleo = _player_token(beta, "cleo")
    assert [_seek_and_cancel(client, cleo).status_code for _ in range(4)] == [201] * 3 + [429]
    assert [beta.post("/v1/matches", json={"seats": TWO_REMOTE}).status_code] == [429]
    # and the address's keyless budget is untouched by all of it
    assert client.post("/v1/matches", json={"seats": TWO_REMOTE}).status_code == 201


def test_a_player_token_spends_its_portals_budget_only_where_it_acts_for_the_player(make_client):
    """POST /v1/matches reads no player token (keyless, the match is the public space's): it
    spends the address's budget, and a key there spends the portal's whatever else is sent."""
    client = make_client(RATE_LIMIT_CREATE="1 per minute", RATE_LIMIT_PORTAL_CREATE="5 per minute")
    app = client.application
    key = new_portal(app, "arcade")
    token = _player_token(portal_client(app, key), "ana")
    public = [client.post("/v1/matches", json={"seats": TWO_REMOTE}, headers=auth(token)) for _ in range(2)]
    assert [p.status_code for p in public] == [201, 429] and public[0].headers["X-RateLimit-Limit"] == "1"
    keyed = client.post(
        "/v1/matches", json={"seats": TWO_REMOTE}, headers={"X-API-Key": key, "Authorization": "Basic YW5hOg=="}
    )
    assert keyed.status_code == 201 and keyed.headers["X-RateLimit-Remaining"] == "4"
    assert _seek_and_cancel(client, token).headers["X-RateLimit-Remaining"] == "3"


def test_a_player_token_that_does_not_verify_spends_the_address_budget_not_a_portals(make_client):
    client = make_client(RATE_LIMIT_CREATE="2 per minute", RATE_LIMIT_PORTAL_CREATE="5 per minute")
    app = client.application
    real = _player_token(portal_client(app, new_portal(app, "arcade")), "ana")
    forged = real[: -len("secret")] + "secret"  # the real token's id, a wrong secret: no live token
    unknown = "bypl_000000000000_" + "x" * 43
    answers = [client.post("/v1/seeks", json={}, headers=auth(token)) for token in (forged, unknown, forged)]
    assert [a.status_code for a in answers] == [401, 401, 429]
    assert answers[0].get_json()["code"] == "invalid_token" and answers[0].headers["X-RateLimit-Limit"] == "2"
    assert_problem(client.post("/v1/matches", json={"seats": TWO_REMOTE}), 429, "too_many_requests")
    # the portal whose token id was borrowed still has its whole budget
    assert _seek_and_cancel(client, real).headers["X-RateLimit-Remaining"] == "4"


# --- the operator's commands ---------------------------------------------------------------------------
def test_the_operator_creates_a_portal_rotates_its_keys_and_sets_its_limit_from_the_command_line(app):
    runner = app.test_cli_runner()
    made = runner.invoke(portal_cli, ["create", "club"])
    assert made.exit_code == 0, made.output
    key = next(line.split(": ", 1)[1] for line in made.output.splitlines() if line.startswith("key "))
    client = portal_client(app, key)
    assert client.get("/v1/portal").get_json()["name"] == "club"
    assert runner.invoke(portal_cli, ["create", "club"]).exit_code != 0  # names are unique
    assert runner.invoke(portal_cli, ["create", "Bad Name!"]).exit_code != 0
    added = runner.invoke(portal_cli, ["add-key", "club"])
    assert added.exit_code == 0
    first_id = client.get("/v1/portal").get_json()["keys"][0]["key_id"]
    assert runner.invoke(portal_cli, ["revoke-key", "club", first_id]).exit_code == 0
    assert_problem(client.get("/v1/portal"), 401, "invalid_api_key")
    limited = runner.invoke(portal_cli, ["limit", "club", "5 per minute"])
    assert limited.exit_code == 0 and "5 per minute" in limited.output
    assert runner.invoke(portal_cli, ["limit", "club", "lots"]).exit_code != 0
    listed = runner.invoke(portal_cli, ["list"])
    assert "club" in listed.output and key not in listed.output and "5 per minute" in listed.output


def test_the_old_flat_key_list_is_refused_at_start_not_silently_ignored():
    with pytest.raises(ValueError, match="API_KEYS is no longer read"):
        from_environ({"API_KEYS": "k1,k2"})
    assert from_environ({})["PUBLIC_MATCHES"] is True
