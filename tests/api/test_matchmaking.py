"""Matchmaking over the API: player tokens, seeks and their pairing, challenges, the player's events.

Pairing races run threads against the real store (SQLite here, PostgreSQL in the database run):
many seekers at once never put one seeker in two matches nor leave a paired one without its token.
Time (expiry, bot fill) moves by an injected clock, never by sleeping.
"""

from __future__ import annotations

import threading
from collections import Counter

import pytest

from api.http.callers import BUS_KEY
from api.services.commands import CreatePortal, CreateSeek, IdentifyPlayer, Seeker, SweepMatchmaking
from api.services.tokens import hash_token
from api.store import tables
from api.store.matchmaking import player_key, seek_key
from api.store.notify import SqliteChanges

from .fake_clock import FAILURE_BOUND, FakeClock, use_clock
from .helpers import assert_problem, auth, new_portal, portal_client, view


@pytest.fixture
def arcade(app):
    """The portal "arcade": (its client, a function issuing a player's token)."""
    portal = portal_client(app, new_portal(app, "arcade"))

    def token(ref: str) -> str:
        answer = portal.post(f"/v1/portal/players/{ref}/tokens")
        assert answer.status_code == 201, answer.get_json()
        return answer.get_json()["token"]

    return portal, token


def seek(client, token=None, status=201, **body):
    answer = client.post("/v1/seeks", json=body, headers=auth(token) if token else {})
    assert answer.status_code == status, answer.get_json()
    return answer.get_json()


def read(client, seek_id, token, **query):
    answer = client.get(f"/v1/seeks/{seek_id}", query_string=query, headers=auth(token))
    assert answer.status_code == 200, answer.get_json()
    return answer.get_json()


def events(client, token, after=0, **query):
    answer = client.get("/v1/me/events", query_string={"after": after, **query}, headers=auth(token))
    assert answer.status_code == 200, answer.get_json()
    return answer.get_json()


def test_two_players_tokens_pair_them_in_one_match_each_with_a_working_seat(client, arcade):
    _, token = arcade
    ana, ben = token("ana"), token("ben")
    first = seek(client, ana)
    assert first["status"] == "waiting" and first["match_id"] is None and first["token"] is None
    assert first["secret"] is None  # a player's seek is the player's: no secret
    second = seek(client, ben)
    assert second["status"] == "paired"
    mine = read(client, first["id"], ana)
    assert mine["status"] == "paired" and mine["match_id"] == second["match_id"]
    assert {mine["seat"], second["seat"]} == {0, 1}
    for answer in (mine, second):  # each token is its own seat's
        assert view(client, answer["match_id"], answer["token"])["seat"] == answer["seat"]
    assert read(client, first["id"], ana)["token"] == mine["token"]  # read again: the same token
    summary = client.get(f"/v1/matches/{mine['match_id']}").get_json()
    assert sorted(s["name"] for s in summary["seats"]) == ["ana", "ben"]
    started = events(client, ana)["events"]
    assert [(e["type"], e["match_id"], e["seat"], e["seek_id"]) for e in started] == [
        ("match_started", mine["match_id"], mine["seat"], first["id"])
    ]


def test_a_players_token_is_listed_by_id_only_and_refused_once_revoked(client, arcade):
    portal, token = arcade
    ana = token("ana")
    listed = portal.get("/v1/portal/players/ana/tokens").get_json()
    assert [set(t) for t in listed["tokens"]] == [{"token_id", "label", "created_at", "revoked_at"}]
    token_id = listed["tokens"][0]["token_id"]
    assert ana.startswith(f"bypl_{token_id}_")
    assert events(client, ana)["events"] == []
    assert portal.delete(f"/v1/portal/players/ana/tokens/{token_id}").status_code == 204
    assert_problem(client.get("/v1/me/events", headers=auth(ana)), 401, "invalid_token")
    assert_problem(portal.delete(f"/v1/portal/players/ana/tokens/{token_id}"), 404, "unknown_player_token")
    assert_problem(client.post("/v1/portal/players/ana/tokens"), 401, "portal_key_required")


def test_the_portal_key_with_player_ref_acts_as_that_player(client, arcade):
    portal, token = arcade
    first = seek(portal, player_ref="ana")
    assert first["player_ref"] == "ana"
    assert read(client, first["id"], token("ana"))["id"] == first["id"]  # the player's own token reads it
    assert_problem(client.get(f"/v1/seeks/{first['id']}", headers=auth(token("ben"))), 404, "unknown_seek")
    assert_problem(portal.post("/v1/seeks", json={"player_ref": "ana"}), 409, "already_seeking")
    assert_problem(client.post("/v1/seeks", json={"player_ref": "ana"}), 403, "player_ref_needs_portal")


@pytest.mark.parametrize(
    ("players", "rules"),
    [(3, {}), (4, {}), (4, {"partners": True})],
)
def test_three_and_four_seekers_make_one_match(client, arcade, players, rules):
    _, token = arcade
    tokens = [token(f"p{n}") for n in range(players)]
    made = [seek(client, t, players=players, rules=rules) for t in tokens]
    assert [m["status"] for m in made] == ["waiting"] * (players - 1) + ["paired"]
    answers = [read(client, m["id"], t) for m, t in zip(made, tokens)]
    assert len({a["match_id"] for a in answers}) == 1
    assert sorted(a["seat"] for a in answers) == list(range(players))
    match = client.get(f"/v1/matches/{answers[0]['match_id']}").get_json()
    assert match["rules"]["players"] == players
    assert match["rules"].get("partners", False) == rules.get("partners", False)
    for a in answers:
        assert view(client, a["match_id"], a["token"])["seat"] == a["seat"]


def test_seeks_of_other_pools_do_not_meet(client, arcade):
    _, token = arcade
    seek(client, token("a"), preset="standard-block")
    seek(client, token("b"), preset="standard-draw")
    seek(client, token("c"), players=3)
    assert seek(client, token("d"), rules={"target": 150})["status"] == "waiting"


def test_anonymous_seekers_of_the_public_space_read_their_seek_with_its_secret_only(client):
    first = seek(client)
    assert first["secret"].startswith("bysk_") and first["player_ref"] is None
    second = seek(client)
    assert second["status"] == "paired"
    assert_problem(client.get(f"/v1/seeks/{first['id']}"), 404, "unknown_seek")
    assert_problem(client.get(f"/v1/seeks/{first['id']}", headers=auth(second["secret"])), 404, "unknown_seek")
    mine = read(client, first["id"], first["secret"])
    assert mine["match_id"] == second["match_id"]
    assert view(client, mine["match_id"], mine["token"])["seat"] == mine["seat"]
    assert_problem(client.post("/v1/seeks", json={"rated": True}), 422, "invalid_seek")


def test_without_a_public_space_a_keyless_seek_is_refused(make_client):
    client = make_client(PUBLIC_MATCHES=False, RATELIMIT_ENABLED=False)
    assert_problem(client.post("/v1/seeks", json={}), 401, "portal_key_required")


def test_portals_are_isolated(app, client, arcade):
    _, token = arcade
    other = portal_client(app, new_portal(app, "other"))
    stranger = other.post("/v1/portal/players/ana/tokens").get_json()["token"]  # another portal's "ana"
    mine = seek(client, token("ana"))
    assert seek(client, stranger)["status"] == "waiting"  # never paired across portals
    assert_problem(client.get(f"/v1/seeks/{mine['id']}", headers=auth(stranger)), 404, "unknown_seek")
    assert_problem(other.get(f"/v1/seeks/{mine['id']}?player_ref=ana"), 404, "unknown_seek")
    challenge = client.post("/v1/challenges", json={"opponents": ["ben"]}, headers=auth(token("ana"))).get_json()
    assert_problem(client.get(f"/v1/challenges/{challenge['id']}", headers=auth(stranger)), 404, "unknown_challenge")
    other_ben = other.post("/v1/portal/players/ben/tokens").get_json()["token"]
    assert events(client, other_ben)["events"] == []  # the other portal's ben got no challenge
    assert [e["type"] for e in events(client, token("ben"))["events"]] == ["challenge"]


def test_a_seek_expires_at_its_time_on_a_read_and_by_the_sweep(app, client, arcade):
    clock = use_clock(app, FakeClock())
    _, token = arcade
    ana, ben = token("ana"), token("ben")
    first = seek(client, ana, ttl_seconds=60)
    second = seek(client, ben, ttl_seconds=60, preset="standard-block")
    clock.advance(59)
    assert read(client, first["id"], ana)["status"] == "waiting"
    clock.advance(1)
    assert read(client, first["id"], ana)["status"] == "expired"
    assert app.extensions[BUS_KEY].handle(SweepMatchmaking()) == 1  # the other one
    with app.app_context():
        assert read(client, second["id"], ben)["status"] == "expired"
    # an expired seek is never paired
    assert seek(client, token("cy"))["status"] == "waiting"


def test_a_waiting_seek_is_cancelled_and_a_paired_one_is_not(client, arcade):
    _, token = arcade
    ana, ben, cy = token("ana"), token("ben"), token("cy")
    first = seek(client, ana)
    answer = client.delete(f"/v1/seeks/{first['id']}", headers=auth(ana))
    assert answer.status_code == 200 and answer.get_json()["status"] == "canceled"
    assert seek(client, ben)["status"] == "waiting"  # the cancelled one is not taken
    paired = seek(client, cy)
    assert paired["status"] == "paired"
    body = assert_problem(client.delete(f"/v1/seeks/{paired['id']}", headers=auth(cy)), 409, "seek_paired")
    assert body["match_id"] == paired["match_id"]


def test_a_lone_seeker_is_completed_with_computer_players_after_its_fill_time(app, client, arcade):
    clock = use_clock(app, FakeClock())
    _, token = arcade
    ana = token("ana")
    first = seek(client, ana, players=3, fill_after_seconds=30, fill_level="random")
    clock.advance(29)
    assert app.extensions[BUS_KEY].handle(SweepMatchmaking()) == 0
    clock.advance(1)
    assert app.extensions[BUS_KEY].handle(SweepMatchmaking()) == 1
    mine = read(client, first["id"], ana)
    assert mine["status"] == "paired"
    summary = client.get(f"/v1/matches/{mine['match_id']}").get_json()
    assert Counter(s["type"] for s in summary["seats"]) == {"remote": 1, "bot": 2}
    assert {s["level"] for s in summary["seats"] if s["type"] == "bot"} == {"random"}
    assert view(client, mine["match_id"], mine["token"])["seat"] == mine["seat"]


def test_a_long_poll_on_a_seek_is_woken_by_the_pairing(app, client, arcade):
    clock = use_clock(app, FakeClock(wakeable=True))
    _, token = arcade
    ana, ben = token("ana"), token("ben")
    first = seek(client, ana)
    answers = {}

    def wait() -> None:
        answers["seek"] = read(app.test_client(), first["id"], ana, wait=30)

    waiter = threading.Thread(target=wait, daemon=True)
    waiter.start()
    assert clock.sleeping.wait(FAILURE_BOUND)
    second = seek(client, ben)
    waiter.join(FAILURE_BOUND)
    assert answers["seek"]["status"] == "paired" and answers["seek"]["match_id"] == second["match_id"]
    assert clock.naps and clock.naps[-1][1]  # woken by the pairing, not by the time running out


def test_the_event_stream_long_poll_is_woken_by_an_incoming_challenge_and_resumes_with_after(app, client, arcade):
    clock = use_clock(app, FakeClock(wakeable=True))
    _, token = arcade
    ana, ben = token("ana"), token("ben")
    answers = {}

    def wait() -> None:
        answers["page"] = events(app.test_client(), ben, wait=30)

    waiter = threading.Thread(target=wait, daemon=True)
    waiter.start()
    assert clock.sleeping.wait(FAILURE_BOUND)
    made = client.post("/v1/challenges", json={"opponents": ["ben"]}, headers=auth(ana)).get_json()
    waiter.join(FAILURE_BOUND)
    page = answers["page"]
    assert [(e["seq"], e["type"], e["challenge_id"]) for e in page["events"]] == [(1, "challenge", made["id"])]
    client.post(f"/v1/challenges/{made['id']}/accept", headers=auth(ben))
    resumed = events(client, ben, after=1)
    assert [(e["seq"], e["type"]) for e in resumed["events"]] == [(2, "match_started")]
    assert events(client, ben, after=0, limit=1)["next_after"] == 1


def challenge(client, token, status=201, **body):
    answer = client.post("/v1/challenges", json=body, headers=auth(token))
    assert answer.status_code == status, answer.get_json()
    return answer.get_json()


def test_a_challenge_starts_when_everyone_accepted_each_with_its_seat(client, arcade):
    _, token = arcade
    ana, ben, cy = token("ana"), token("ben"), token("cy")
    made = challenge(client, ana, opponents=["ben", "cy"], bots=["greedy"], rules={"partners": True})
    assert made["status"] == "pending" and made["seat"] == 0
    half = client.post(f"/v1/challenges/{made['id']}/accept", headers=auth(ben)).get_json()
    assert half["status"] == "pending" and half["token"] is None
    done = client.post(f"/v1/challenges/{made['id']}/accept", headers=auth(cy)).get_json()
    assert done["status"] == "started" and done["seat"] == 2
    for player, seat in ((ana, 0), (ben, 1), (cy, 2)):
        mine = client.get(f"/v1/challenges/{made['id']}", headers=auth(player)).get_json()
        assert mine["seat"] == seat and view(client, mine["match_id"], mine["token"])["seat"] == seat
        started = [e for e in events(client, player)["events"] if e["type"] == "match_started"]
        assert [(e["match_id"], e["seat"], e["challenge_id"]) for e in started] == [
            (done["match_id"], seat, made["id"])
        ]
    summary = client.get(f"/v1/matches/{done['match_id']}").get_json()
    assert [s["type"] for s in summary["seats"]] == ["remote", "remote", "remote", "bot"]
    assert_problem(client.post(f"/v1/challenges/{made['id']}/accept", headers=auth(ben)), 409, "challenge_closed")


def test_a_declined_challenge_closes_for_everyone_and_tells_them(client, arcade):
    _, token = arcade
    ana, ben, cy = token("ana"), token("ben"), token("cy")
    made = challenge(client, ana, opponents=["ben", "cy"])
    assert_problem(client.post(f"/v1/challenges/{made['id']}/accept", headers=auth(ana)), 403, "not_your_challenge")
    declined = client.post(f"/v1/challenges/{made['id']}/decline", headers=auth(cy)).get_json()
    assert declined["status"] == "declined" and declined["match_id"] is None
    for player in (ana, ben):
        last = events(client, player)["events"][-1]
        assert (last["type"], last["challenge_id"], last["by"]) == ("challenge_declined", made["id"], "cy")
    assert_problem(client.post(f"/v1/challenges/{made['id']}/accept", headers=auth(ben)), 409, "challenge_closed")


def test_only_the_challenger_cancels_and_unanswered_challenges_expire(app, client, arcade):
    clock = use_clock(app, FakeClock())
    _, token = arcade
    ana, ben = token("ana"), token("ben")
    made = challenge(client, ana, opponents=["ben"], ttl_seconds=60)
    assert_problem(client.post(f"/v1/challenges/{made['id']}/cancel", headers=auth(ben)), 403, "not_your_challenge")
    canceled = client.post(f"/v1/challenges/{made['id']}/cancel", headers=auth(ana)).get_json()
    assert canceled["status"] == "canceled"
    assert [(e["type"], e.get("reason")) for e in events(client, ben)["events"]] == [
        ("challenge", None),
        ("challenge_canceled", "canceled"),
    ]
    later = challenge(client, ana, opponents=["ben"], ttl_seconds=60)
    clock.advance(60)
    assert_problem(client.post(f"/v1/challenges/{later['id']}/accept", headers=auth(ben)), 409, "challenge_closed")
    assert app.extensions[BUS_KEY].handle(SweepMatchmaking()) == 1
    assert client.get(f"/v1/challenges/{later['id']}", headers=auth(ben)).get_json()["status"] == "expired"
    assert events(client, ana)["events"][-1]["reason"] == "expired"
    refused = client.post("/v1/challenges", json={"opponents": ["ana"]}, headers=auth(ana))
    assert assert_problem(refused, 422, "invalid_challenge")["reason"] == "opponents"
    assert_problem(client.post("/v1/challenges", json={"opponents": ["ben"]}), 401, "player_required")


# --- races: many seekers at once, on the real store ---------------------------------------------------
@pytest.mark.parametrize("players", [2, 3, 4])
def test_many_seekers_at_once_each_get_exactly_one_seat_with_its_token(app, players):
    """Keyless seekers of one pool (odd ones) and portal players (even ones: their own pool)."""
    bus = app.extensions[BUS_KEY]
    with app.app_context():
        portal_id = bus.handle(CreatePortal("racing"))["id"]
    seekers = 2 * 4 * players  # four matches in each pool
    barrier = threading.Barrier(seekers)
    answers: list[dict] = []
    failures: list[BaseException] = []

    def run(n: int) -> None:
        try:
            barrier.wait(FAILURE_BOUND)
            seeker = Seeker(portal_id, f"p{n}") if n % 2 == 0 else Seeker(None, None)
            answers.append(bus.handle(CreateSeek(seeker, "standard-draw", None, players, 300)))
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=run, args=(n,)) for n in range(seekers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not failures, failures
    with app.extensions["boneyard.store"].engine.connect() as conn:
        rows = conn.execute(tables.seeks.select()).all()
        seat_rows = conn.execute(tables.seats.select()).all()
    assert len(rows) == seekers
    assert {r.status for r in rows} == {"paired"}
    by_match = Counter(r.match_id for r in rows)
    assert len(by_match) == seekers // players and set(by_match.values()) == {players}
    assert all(len({r.portal_id for r in rows if r.match_id == m}) == 1 for m in by_match)  # pools never mix
    assert len({(r.match_id, r.seat) for r in rows}) == seekers  # no seat given twice
    hashes = {(s.match_id, s.seat): s.token_hash for s in seat_rows}
    assert all(hashes[(r.match_id, r.seat)] == hash_token(r.seat_token) for r in rows)  # each has its own seat's token


def test_other_processes_learn_a_pairing_and_a_new_event_from_the_sqlite_poller(app, client, arcade):
    """What the SQLite wake-up source reads for matchmaking's waiter keys (another process's commit)."""
    engine = app.extensions["boneyard.store"].engine
    if engine.dialect.name != "sqlite":
        pytest.skip("PostgreSQL wakes other processes by NOTIFY")
    _, token = arcade
    ana, ben = token("ana"), token("ben")
    first = seek(client, ana)
    changes = SqliteChanges(engine.url.database)
    portal_id = app.extensions[BUS_KEY].handle(IdentifyPlayer(ana)).portal.id
    keys = [seek_key(first["id"]), player_key(portal_id, "ana"), "0" * 32]
    try:
        assert changes.last_seqs(keys) == {seek_key(first["id"]): 0}  # no event yet: no head row
        seek(client, ben)
        assert changes.last_seqs(keys) == {seek_key(first["id"]): 1, player_key(portal_id, "ana"): 1}
    finally:
        changes.close()


def test_the_event_stream_as_server_sent_events_resumes_after_last_event_id(app, client, arcade):
    app.config["STREAM_MAX_SECONDS"] = 0  # send the backlog, then close (a real stream stays open)
    _, token = arcade
    ana, ben = token("ana"), token("ben")
    made = client.post("/v1/challenges", json={"opponents": ["ben"]}, headers=auth(ana)).get_json()
    client.post(f"/v1/challenges/{made['id']}/accept", headers=auth(ben))
    whole = client.get("/v1/me/stream", headers=auth(ben))
    assert whole.status_code == 200 and whole.mimetype == "text/event-stream"
    text = whole.get_data(as_text=True)
    assert [line for line in text.splitlines() if line.startswith(("id:", "event:"))] == [
        "id: 1",
        "event: challenge",
        "id: 2",
        "event: match_started",
    ]
    resumed = client.get("/v1/me/stream", headers={**auth(ben), "Last-Event-ID": "1"}).get_data(as_text=True)
    assert [line for line in resumed.splitlines() if line.startswith("id:")] == ["id: 2"]
    assert_problem(
        client.get("/v1/me/stream", headers={**auth(ben), "Last-Event-ID": "x"}), 400, "invalid_last_event_id"
    )
    assert_problem(client.get("/v1/me/stream"), 401, "player_required")


def test_a_rating_range_pairs_only_players_rated_within_it(app, client, arcade):
    portal, token = arcade
    portal_id = portal.get("/v1/portal").get_json()["id"]
    now = FakeClock().now
    with app.extensions["boneyard.store"].engine.begin() as conn:
        for ref, ordinal in (("strong", 30.0), ("fair", 10.0)):
            conn.execute(
                tables.ratings.insert().values(
                    portal_id=portal_id,
                    player_ref=ref,
                    family="draw",
                    mu=ordinal + 3 * 2.0,
                    sigma=2.0,
                    ordinal=ordinal,
                    matches=40,
                    updated_at=now,
                )
            )
    picky = seek(client, token("picky"), rating_min=5, rating_max=20)
    assert seek(client, token("strong"))["status"] == "waiting"  # 30: above picky's range
    newcomer = seek(client, token("newcomer"))  # a newcomer's ordinal (0): below it, but strong names no range
    assert newcomer["status"] == "paired" and read(client, picky["id"], token("picky"))["status"] == "waiting"
    fair = seek(client, token("fair"))
    assert fair["status"] == "paired" and fair["match_id"] == read(client, picky["id"], token("picky"))["match_id"]
    assert_problem(client.post("/v1/seeks", json={"rating_min": 3, "rating_max": 2}), 422, "invalid_seek")
