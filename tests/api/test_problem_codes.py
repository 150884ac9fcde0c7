"""Every problem code each operation declares is one it really answers, and the catalogue is whole.

The other half of the proof that every operation's list of codes is exact: the recorder
every API test runs under (``tests/problem_guard.py``) fails a test whose requests get a
code their operation does not declare; here, for every (operation, code) the document
declares, one real request gets it:

* :data:`ROWS`: the codes an operation declares for itself, each with the request that
  gets it (on a fresh app, some of its bounds lowered where a bound is what the code is
  about);
* :data:`ANY_OPERATION`: what any request may be answered (every operation's default
  response, and the same codes in its responses of the same status), sent to every
  operation; what no single operation answers (a path no route matches) once; what only
  gunicorn answers, before the app, through its own code path (:data:`BEFORE_THE_APP`).

Then: every catalogue code is declared by some operation; ``docs/problems.md`` is the
catalogue's table; the README names no code with another status than the catalogue's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from flask import Flask, request_finished
from sqlalchemy.engine import make_url

from api import create_app
from api.http import problem_codes as codes
from api.http import request_body
from api.http.callers import BUS_KEY
from api.http.health import READINESS_KEY
from api.http.problem_codes import ANY_REQUEST, CATALOGUE
from api.http.request_ids import RequestIds
from api.services.analyses import ANALYSIS_ATTEMPTS
from api.services.commands import AnalysisAttemptFailed, ClaimDueAnalyses, CreatePortal, GetSummary
from api.services.errors import SeatReserved
from api.services.health import Readiness
from api.services.waiting import Client
from api.serving import PROTOCOL_ERRORS, protocol_error
from api.store import DatabaseBusy, Store, make_engine
from tests.problem_guard import Recorder, declared_problems

from .fake_clock import FakeClock, use_clock
from .helpers import PROBLEM, auth, tokens_of, view

ROOT = Path(__file__).resolve().parents[2]
TWO = [{"name": "Ana", "type": "remote"}, {"name": "Ben", "type": "remote"}]
BOTS = [{"name": "R1", "type": "bot", "level": "random"}, {"name": "R2", "type": "bot", "level": "random"}]
NO_MATCH = "0123456789abcdef0123456789abcdef"


# --- a world to provoke codes in ------------------------------------------------------------------
@dataclass
class World:
    app: Flask
    client: object

    @property
    def flow(self):
        return self.app.extensions["boneyard.bus"].flow

    def match(
        self, seats=TWO, preset: str = "standard-draw", rules: dict | None = None, seed: str | None = None
    ) -> tuple[str, dict[int, str]]:
        """A new match; with ``seed``, the server's seed chosen (the same deals every run)."""
        body = {"preset": preset, "seats": seats, "rules": rules or {}, **({"seed": seed} if seed else {})}
        response = self.client.post("/v1/matches", json=body)
        assert response.status_code == 201, response.get_json()
        created = response.get_json()
        return created["id"], tokens_of(created)

    def turn(self, match_id: str) -> int:
        return view(self.client, match_id)["turn"]

    def seat_view(self, match_id: str, tokens: dict[int, str], seat: int | None = None) -> dict:
        return view(self.client, match_id, tokens[self.turn(match_id) if seat is None else seat])

    def act(self, match_id: str, token: str, action, **headers):
        return self.client.post(f"/v1/matches/{match_id}/actions", json=action, headers={**auth(token), **headers})

    def play_until(self, match_id: str, tokens: dict[int, str], found: Callable[[dict], bool]) -> dict | None:
        """Play listed actions (the first each time) until the seat to move sees what ``found`` looks
        for (its view), or the match ends (None). Seeded matches: the same deals every run."""
        for _ in range(2000):
            if view(self.client, match_id)["status"] == "ended":
                return None
            seat_view = self.seat_view(match_id, tokens)
            if found(seat_view):
                return seat_view
            assert self.act(match_id, tokens[seat_view["seat"]], seat_view["legal_actions"][0]).status_code == 200
        raise AssertionError("the match neither ended nor came to that")

    def ended(self) -> tuple[str, dict[int, str]]:
        """A match of two remote seats played to its end (to a target of 1: one hand)."""
        match_id, tokens = self.match(rules={"target": 1}, seed="ended")
        assert self.play_until(match_id, tokens, lambda _: False) is None
        return match_id, tokens

    def lower(self, **limits) -> None:
        """Lower the service's bounds on work (``api.services.limits.WorkLimits``) for this test."""
        self.flow.limits = replace(self.flow.limits, **limits)


@pytest.fixture
def world(database_url):
    app = create_app(
        {
            "TESTING": True,
            "DATABASE_URL": database_url,
            "ALLOW_CLIENT_SEED": True,
            "RATELIMIT_ENABLED": True,
            "RATELIMIT_STORAGE_URI": "memory://",
            "STREAM_MAX_SECONDS": 0,
            "LONG_POLL_MAX_SECONDS": 0.05,
            "AUTOPLAY_PACE_SECONDS": 0,
        }
    )
    yield World(app, app.test_client())
    app.extensions["boneyard.store"].dispose()


def first_play(seat_view: dict) -> dict:
    return next(a for a in seat_view["legal_actions"] if a["type"] == "play")


def has_play(seat_view: dict) -> bool:
    return any(a["type"] == "play" for a in seat_view["legal_actions"])


def held_tile_matching_no_end(seat_view: dict) -> list[int] | None:
    values = {end["value"] for end in seat_view["ends"]}
    return next((tile for tile in seat_view["hand"] if values and not values & set(tile)), None)


# --- the requests that get each operation's own codes -----------------------------------------------
#: A key of the right form that no portal has.
UNKNOWN_KEY = {"X-API-Key": "bypk_000000000000_" + "A" * 43}


def _no_public_space(w: World) -> World:
    w.app.config["PUBLIC_MATCHES"] = False
    return w


def _portal_key(w: World, name: str = "arcade") -> str:
    with w.app.app_context():
        return w.app.extensions[BUS_KEY].handle(CreatePortal(name))["key"]


def _claim_named_seat(w: World):
    key = _portal_key(w)
    seats = [TWO[0], {"name": "Open", "type": "open", "player_ref": "pat"}]
    created = w.client.post("/v1/matches", json={"seats": seats}, headers={"X-API-Key": key}).get_json()
    return w.client.post(f"/v1/matches/{created['id']}/seats/1/claim", json={"name": "Eve"})


def _revoke_last_key(w: World):
    key = _portal_key(w)
    key_id = w.client.get("/v1/portal", headers={"X-API-Key": key}).get_json()["keys"][0]["key_id"]
    return w.client.delete(f"/v1/portal/keys/{key_id}", headers={"X-API-Key": key})


def _create_client_seed_not_allowed(w: World):
    w.flow.allow_client_seed = False
    return w.client.post("/v1/matches", json={"seats": TWO, "seed": "mine"})


def _create_too_many_bot_matches(w: World):
    w.lower(bot_matches_per_creator=1)
    w.match(BOTS)
    return w.client.post("/v1/matches", json={"seats": BOTS})


def _create_event_limit_reached(w: World):
    w.lower(max_events_per_match=1)  # the first deal alone appends more
    return w.client.post("/v1/matches", json={"seats": TWO})


ANALYSIS = "GET /v1/matches/{match_id}/analysis"
HINT = "GET /v1/matches/{match_id}/hint"
AGAINST_A_BOT = [{"name": "Ana", "type": "remote"}, {"name": "Bot", "type": "bot", "level": "greedy"}]


def _hint_not_your_turn(w: World):
    # the computer's replies left to the runner: after the person's move it is the computer's turn
    w.lower(inline_bot_moves=0)
    match_id, tokens = w.match(AGAINST_A_BOT, seed="hint")
    if w.turn(match_id) == 0:
        assert w.act(match_id, tokens[0], w.seat_view(match_id, tokens, 0)["legal_actions"][0]).status_code == 200
    return w.client.get(f"/v1/matches/{match_id}/hint", headers=auth(tokens[0]))


def _hint_match_over(w: World):
    match_id, tokens = w.match(AGAINST_A_BOT, rules={"target": 1}, seed="ended")
    for _ in range(500):
        if view(w.client, match_id)["status"] == "ended":
            return w.client.get(f"/v1/matches/{match_id}/hint", headers=auth(tokens[0]))
        assert w.act(match_id, tokens[0], w.seat_view(match_id, tokens, 0)["legal_actions"][0]).status_code == 200
    raise AssertionError("the match did not end")


def _analysis_failed(w: World, path: str):
    """An ended match whose every analysis attempt failed: claimed and given back each time, as the
    runner does with a failing one (api.services.analyses.AnalysisRunner)."""
    match_id = w.ended()[0]
    bus = w.app.extensions[BUS_KEY]
    for _ in range(ANALYSIS_ATTEMPTS):
        (job,) = bus.handle(ClaimDueAnalyses(1))
        assert job.match_id == match_id
        bus.handle(AnalysisAttemptFailed(match_id))
    return w.client.get(path.format(match_id=match_id))


def _rate_limited(w: World, setting: str, send: Callable[[], object]):
    w.app.config[setting] = "1 per minute"
    assert send().status_code != 429
    return send()


def _actions_rule(code_of_state: Callable[[World, str, dict], object]):
    """A row for a refusal by the rules: a seeded live match, then the request that gets it."""

    def provoke(w: World):
        match_id, tokens = w.match(seed="rules")
        return code_of_state(w, match_id, tokens)

    return provoke


def _not_your_turn(w, match_id, tokens):
    other = 1 - w.turn(match_id)
    return w.act(match_id, tokens[other], {"type": "knock"})


def _tile_not_in_hand(w, match_id, tokens):
    seat_view = w.seat_view(match_id, tokens)
    missing = next(
        [a, b]
        for a in range(7)
        for b in range(a + 1)
        if [a, b] not in seat_view["hand"] and [b, a] not in seat_view["hand"]
    )
    return w.act(match_id, tokens[seat_view["seat"]], {"type": "play", "tile": missing, "end": "left"})


def _illegal_play(w, match_id, tokens):
    seat_view = w.play_until(match_id, tokens, lambda v: held_tile_matching_no_end(v) is not None)
    tile = held_tile_matching_no_end(seat_view)
    return w.act(match_id, tokens[seat_view["seat"]], {"type": "play", "tile": tile, "end": "left"})


def held_tile_fitting_two_ends(seat_view: dict) -> list[int] | None:
    values = [end["value"] for end in seat_view["ends"]]
    return next((tile for tile in seat_view["hand"] if sum(value in tile for value in values) > 1), None)


def _end_required(w, match_id, tokens):
    seat_view = w.play_until(match_id, tokens, lambda v: held_tile_fitting_two_ends(v) is not None)
    return w.act(match_id, tokens[seat_view["seat"]], {"type": "play", "tile": held_tile_fitting_two_ends(seat_view)})


def _must_play(w, match_id, tokens):
    seat_view = w.play_until(match_id, tokens, has_play)
    return w.act(match_id, tokens[seat_view["seat"]], {"type": "knock"})


def _must_draw(w, match_id, tokens):
    seat_view = w.play_until(match_id, tokens, lambda v: not has_play(v) and v["boneyard"] > 0)
    return w.act(match_id, tokens[seat_view["seat"]], {"type": "knock"})


def _drain_boneyard(w: World, rules: dict, down_to: int):
    """A match drawing at will: the seat to move draws until ``down_to`` tiles are left."""
    match_id, tokens = w.match(rules={"draw_at_will": True, **rules}, seed="draws")
    seat_view = w.seat_view(match_id, tokens)
    for _ in range(seat_view["boneyard"] - down_to):
        assert w.act(match_id, tokens[seat_view["seat"]], {"type": "draw"}).status_code == 200
    assert w.seat_view(match_id, tokens)["boneyard"] == down_to
    return w.act(match_id, tokens[seat_view["seat"]], {"type": "draw"})


def _drawing_not_allowed(w: World):
    match_id, tokens = w.match(preset="standard-block", seed="block")
    return w.act(match_id, tokens[w.turn(match_id)], {"type": "draw"})


def _wrong_claim(w: World):
    match_id, tokens = w.match(preset="muggins", rules={"muggins_calls": True}, seed="claims")
    seat_view = w.play_until(match_id, tokens, lambda v: any("claim" in a for a in v["legal_actions"]))
    play = next(a for a in seat_view["legal_actions"] if "claim" in a)
    return w.act(match_id, tokens[seat_view["seat"]], {**play, "claim": play["claim"] + 5})


def _claim_not_allowed(w, match_id, tokens):
    seat_view = w.play_until(match_id, tokens, has_play)
    return w.act(match_id, tokens[seat_view["seat"]], {**first_play(seat_view), "claim": 0})


def _nothing_to_muggins(w: World):
    match_id, tokens = w.match(preset="muggins", rules={"muggins_calls": True}, seed="muggins")
    return w.act(match_id, tokens[w.turn(match_id)], {"type": "muggins"})


def _match_not_started(w: World):
    match_id, tokens = w.match([TWO[0], {"name": "Open", "type": "open"}])
    return w.act(match_id, tokens[0], {"type": "knock"})


def _match_over(w: World):
    match_id, tokens = w.ended()
    return w.act(match_id, tokens[0], {"type": "knock"})


def _seat_played_by_computer(w: World):
    clock = use_clock(w.app, FakeClock())
    match_id, tokens = w.match(rules={"turn_seconds": 5, "timeout_limit": 1}, seed="rules")
    idle = w.turn(match_id)
    clock.advance(6)  # the next read plays the turn that ran out: the seat goes to a bot at once
    assert view(w.client, match_id)["seats"][idle]["type"] == "bot"
    return w.act(match_id, tokens[idle], {"type": "knock"})


def _event_limit_on_action(w, match_id, tokens):
    seat_view = w.seat_view(match_id, tokens)
    w.lower(max_events_per_match=seat_view["seq"])
    return w.act(match_id, tokens[seat_view["seat"]], seat_view["legal_actions"][0])


def _idempotency_key_reused(w, match_id, tokens):
    seat = w.turn(match_id)
    assert w.act(match_id, tokens[seat], {"type": "knock"}, **{"Idempotency-Key": "k1"}).status_code == 409
    return w.act(match_id, tokens[seat], {"type": "muggins"}, **{"Idempotency-Key": "k1"})


def _claim_stale_seq(w: World, monkeypatch):
    """Others keep moving the match while this claim is decided, every time: the service gives
    up after CLAIM_ATTEMPTS (patched: under the lock the match is always one seq further on)."""
    match_id, _ = w.match([TWO[0], {"name": "Open", "type": "open"}])
    flow = w.flow
    real_lock = flow.lock

    def moved_on(uow, locked_id):
        record = real_lock(uow, locked_id)
        return replace(record, last_seq=record.last_seq + 1)

    monkeypatch.setattr(flow, "lock", moved_on)
    return w.client.post(f"/v1/matches/{match_id}/seats/1/claim", json={"name": "Cy"})


def _claim_event_limit(w: World):
    match_id, _ = w.match([TWO[0], {"name": "Open", "type": "open"}])
    w.lower(max_events_per_match=2)  # the claim and the first deal it starts append more
    return w.client.post(f"/v1/matches/{match_id}/seats/1/claim", json={"name": "Cy"})


def _seat_reserved(w: World):
    match_id, tokens = w.ended()
    rematch = w.client.post(f"/v1/matches/{match_id}/rematch", headers=auth(tokens[0])).get_json()
    return w.client.post(f"/v1/matches/{rematch['id']}/seats/1/claim", json={"name": "Eve"})


def _rematch_wrong_match(w: World):
    match_id, _ = w.ended()
    _, others = w.match()
    return w.client.post(f"/v1/matches/{match_id}/rematch", headers=auth(others[0]))


def _rematch_match_not_over(w: World):
    match_id, tokens = w.match()
    return w.client.post(f"/v1/matches/{match_id}/rematch", headers=auth(tokens[0]))


def _rematch_invalid_api_key(w: World):
    match_id, tokens = w.ended()
    return w.client.post(f"/v1/matches/{match_id}/rematch", headers={**auth(tokens[0]), **UNKNOWN_KEY})


def _waiters_capped(w: World) -> None:
    """This address already holds as many waits as one may (the cap lowered to 1)."""
    w.flow.waiter.per_address = 1
    w.flow.waiter.take(Client("127.0.0.1"), 60)


def _events_too_many_waiters(w: World):
    match_id, _ = w.match()
    _waiters_capped(w)
    seq = view(w.client, match_id)["seq"]
    return w.client.get(f"/v1/matches/{match_id}/events?after={seq}&wait=1")


def _stream_too_many_waiters(w: World):
    match_id, _ = w.match()
    _waiters_capped(w)
    return w.client.get(f"/v1/matches/{match_id}/stream")


class _BusyStore:
    """A store whose write lock is never had in time (as while another writer holds it)."""

    def unit_of_work(self, *args, **kwargs):
        raise DatabaseBusy("the write lock was not had in time")

    def migrations_pending(self, script_location=None):
        return None  # reading the schema's revision takes no write lock


class _BehindStore:
    """The app's store, on a database its migrations have not reached yet."""

    def __init__(self, store: Store):
        self.store = store

    def migrations_pending(self, script_location=None):
        return "the database is at revision none, the scripts' head is newer"


def _healthz(w: World, store) -> object:
    w.app.extensions[READINESS_KEY] = Readiness(store)
    return w.client.get("/healthz")


def _readyz(w: World, store, *, draining: bool = False) -> object:
    w.app.extensions[READINESS_KEY] = Readiness(store, draining=lambda: draining)
    return w.client.get("/readyz")


def _read_only_store(w: World) -> Store:
    """A store on the same database that really refuses writes (root ignores file modes, so SQLite
    opens the file read-only; PostgreSQL sessions default to read-only transactions)."""
    url = make_url(w.app.config["DATABASE_URL"])
    if url.get_backend_name() == "sqlite":
        return Store(make_engine(f"sqlite:///file:{url.database}?mode=ro&uri=true"))
    return Store(
        make_engine(str(w.app.config["DATABASE_URL"]), connect_args={"options": "-c default_transaction_read_only=on"})
    )


def _stats_invalid_api_key(w: World):
    return w.client.get("/v1/players/pat/stats", headers=UNKNOWN_KEY)


def _unreachable_store(w: World, tmp_path) -> Store:
    return Store(make_engine(f"sqlite:///{tmp_path / 'no-such-dir' / 'boneyard.db'}"))


ACTIONS = "POST /v1/matches/{match_id}/actions"
CLAIM = "POST /v1/matches/{match_id}/seats/{seat}/claim"
REMATCH = "POST /v1/matches/{match_id}/rematch"

#: (operation, code) -> the request that gets it: ``provoke(world)``, or ``provoke(world, fixtures)``
#: for the few that need pytest's ``monkeypatch`` or ``tmp_path``.
ROWS: dict[tuple[str, str], Callable] = {
    ("GET /v1/matches", "invalid_api_key"): lambda w: w.client.get("/v1/matches", headers=UNKNOWN_KEY),
    ("GET /v1/matches", "portal_key_required"): lambda w: _no_public_space(w).client.get("/v1/matches"),
    ("GET /v1/matches", "player_ref_needs_portal"): lambda w: w.client.get("/v1/matches?player_ref=pat"),
    ("GET /v1/matches", "invalid_request"): lambda w: w.client.get("/v1/matches?limit=0"),
    ("GET /v1/matches", "invalid_cursor"): lambda w: w.client.get("/v1/matches?cursor=2024-01-01"),
    ("POST /v1/matches", "invalid_api_key"): lambda w: w.client.post(
        "/v1/matches", json={"seats": TWO}, headers=UNKNOWN_KEY
    ),
    ("POST /v1/matches", "portal_key_required"): lambda w: _no_public_space(w).client.post(
        "/v1/matches", json={"seats": TWO}
    ),
    ("POST /v1/matches", "player_ref_needs_portal"): lambda w: w.client.post(
        "/v1/matches", json={"seats": [{**TWO[0], "player_ref": "pat"}, TWO[1]]}
    ),
    ("POST /v1/matches", "client_seed_not_allowed"): _create_client_seed_not_allowed,
    ("POST /v1/matches", "too_many_bot_matches"): _create_too_many_bot_matches,
    ("POST /v1/matches", "event_limit_reached"): _create_event_limit_reached,
    ("POST /v1/matches", "unsupported_media_type"): lambda w: w.client.post(
        "/v1/matches", data=json.dumps({"seats": TWO}), content_type="text/plain"
    ),
    ("POST /v1/matches", "invalid_request"): lambda w: w.client.post("/v1/matches", json={"seats": []}),
    ("POST /v1/matches", "invalid_rules"): lambda w: w.client.post(
        "/v1/matches", json={"seats": TWO, "rules": {"partners": True}}
    ),
    ("POST /v1/matches", "rated_needs_portal"): lambda w: w.client.post(
        "/v1/matches", json={"seats": TWO, "rated": True}
    ),
    ("POST /v1/matches", "invalid_rated_seats"): lambda w: w.client.post(
        "/v1/matches", json={"seats": TWO, "rated": True}, headers={"X-API-Key": _portal_key(w)}
    ),
    ("POST /v1/matches", "too_many_requests"): lambda w: _rate_limited(
        w, "RATE_LIMIT_CREATE", lambda: w.client.post("/v1/matches", json={"seats": TWO})
    ),
    ("GET /v1/matches/{match_id}", "unknown_match"): lambda w: w.client.get(f"/v1/matches/{NO_MATCH}"),
    ("GET /v1/matches/{match_id}/view", "invalid_token"): lambda w: w.client.get(
        f"/v1/matches/{w.match()[0]}/view", headers=auth("not-a-token")
    ),
    ("GET /v1/matches/{match_id}/view", "wrong_match"): lambda w: w.client.get(
        f"/v1/matches/{w.match()[0]}/view", headers=auth(w.match()[1][0])
    ),
    ("GET /v1/matches/{match_id}/view", "unknown_match"): lambda w: w.client.get(f"/v1/matches/{NO_MATCH}/view"),
    (ACTIONS, "invalid_if_match"): _actions_rule(
        lambda w, m, t: w.act(m, t[0], {"type": "knock"}, **{"If-Match": "yesterday"})
    ),
    (ACTIONS, "invalid_token"): _actions_rule(
        lambda w, m, t: w.client.post(
            f"/v1/matches/{m}/actions", data="not even JSON", content_type="text/plain", headers={"If-Match": "garbage"}
        )
    ),
    (ACTIONS, "wrong_match"): _actions_rule(lambda w, m, t: w.act(m, w.match()[1][0], {"type": "knock"})),
    (ACTIONS, "unknown_match"): lambda w: w.act(NO_MATCH, "some-token", {"type": "knock"}),
    (ACTIONS, "not_your_turn"): _actions_rule(_not_your_turn),
    (ACTIONS, "tile_not_in_hand"): _actions_rule(_tile_not_in_hand),
    (ACTIONS, "illegal_play"): _actions_rule(_illegal_play),
    (ACTIONS, "end_required"): _actions_rule(_end_required),
    (ACTIONS, "must_play"): _actions_rule(_must_play),
    (ACTIONS, "must_draw"): _actions_rule(_must_draw),
    (ACTIONS, "boneyard_reserved"): lambda w: _drain_boneyard(w, {"boneyard_reserve": 2}, 2),
    (ACTIONS, "boneyard_empty"): lambda w: _drain_boneyard(w, {}, 0),
    (ACTIONS, "drawing_not_allowed"): _drawing_not_allowed,
    (ACTIONS, "wrong_claim"): _wrong_claim,
    (ACTIONS, "claim_not_allowed"): _actions_rule(_claim_not_allowed),
    (ACTIONS, "nothing_to_muggins"): _nothing_to_muggins,
    (ACTIONS, "match_not_started"): _match_not_started,
    (ACTIONS, "match_over"): _match_over,
    (ACTIONS, "seat_played_by_computer"): _seat_played_by_computer,
    (ACTIONS, "stale_seq"): _actions_rule(lambda w, m, t: w.act(m, t[w.turn(m)], {"type": "knock", "expected_seq": 0})),
    (ACTIONS, "event_limit_reached"): _actions_rule(_event_limit_on_action),
    (ACTIONS, "precondition_failed"): _actions_rule(
        lambda w, m, t: w.act(m, t[0], {"type": "knock"}, **{"If-Match": '"0"'})
    ),
    (ACTIONS, "unsupported_media_type"): _actions_rule(
        lambda w, m, t: w.client.post(
            f"/v1/matches/{m}/actions", data='{"type": "knock"}', content_type="text/plain", headers=auth(t[0])
        )
    ),
    (ACTIONS, "invalid_action"): _actions_rule(lambda w, m, t: w.act(m, t[0], {"type": "pass"})),
    (ACTIONS, "invalid_tile"): _actions_rule(lambda w, m, t: w.act(m, t[0], {"type": "play", "tile": "6-9"})),
    (ACTIONS, "invalid_idempotency_key"): _actions_rule(
        lambda w, m, t: w.act(m, t[0], {"type": "knock"}, **{"Idempotency-Key": '""'})
    ),
    (ACTIONS, "idempotency_key_reused"): _actions_rule(_idempotency_key_reused),
    (ACTIONS, "too_many_requests"): _actions_rule(
        lambda w, m, t: _rate_limited(w, "RATE_LIMIT_ACTIONS_PER_TOKEN", lambda: w.act(m, t[0], {"type": "muggins"}))
    ),
    ("GET /v1/matches/{match_id}/events", "invalid_token"): lambda w: w.client.get(
        f"/v1/matches/{w.match()[0]}/events", headers=auth("not-a-token")
    ),
    ("GET /v1/matches/{match_id}/events", "wrong_match"): lambda w: w.client.get(
        f"/v1/matches/{w.match()[0]}/events", headers=auth(w.match()[1][0])
    ),
    ("GET /v1/matches/{match_id}/events", "unknown_match"): lambda w: w.client.get(f"/v1/matches/{NO_MATCH}/events"),
    ("GET /v1/matches/{match_id}/events", "invalid_request"): lambda w: w.client.get(
        f"/v1/matches/{w.match()[0]}/events?after=-1"
    ),
    ("GET /v1/matches/{match_id}/events", "too_many_waiters"): _events_too_many_waiters,
    ("GET /v1/matches/{match_id}/audit", "unknown_match"): lambda w: w.client.get(f"/v1/matches/{NO_MATCH}/audit"),
    ("GET /v1/matches/{match_id}/audit", "match_not_over"): lambda w: w.client.get(f"/v1/matches/{w.match()[0]}/audit"),
    ("GET /v1/matches/{match_id}/audit", "invalid_request"): lambda w: w.client.get(
        f"/v1/matches/{w.match()[0]}/audit?limit=0"
    ),
    ("GET /v1/matches/{match_id}/audit", "too_many_requests"): lambda w: _rate_limited(
        w, "RATE_LIMIT_AUDIT", lambda: w.client.get(f"/v1/matches/{NO_MATCH}/audit")
    ),
    ("GET /v1/matches/{match_id}/record", "invalid_token"): lambda w: w.client.get(
        f"/v1/matches/{w.match()[0]}/record", headers=auth("not-a-token")
    ),
    ("GET /v1/matches/{match_id}/record", "wrong_match"): lambda w: w.client.get(
        f"/v1/matches/{w.match()[0]}/record", headers=auth(w.match()[1][0])
    ),
    ("GET /v1/matches/{match_id}/record", "unknown_match"): lambda w: w.client.get(f"/v1/matches/{NO_MATCH}/record"),
    ("GET /v1/matches/{match_id}/record", "match_not_over"): lambda w: w.client.get(
        f"/v1/matches/{w.match()[0]}/record"
    ),
    ("GET /v1/matches/{match_id}/record", "too_many_requests"): lambda w: _rate_limited(
        w, "RATE_LIMIT_AUDIT", lambda: w.client.get(f"/v1/matches/{NO_MATCH}/record")
    ),
    (CLAIM, "invalid_token"): lambda w: w.client.post(
        f"/v1/matches/{w.match([TWO[0], {'name': 'Open', 'type': 'open'}])[0]}/seats/1/claim",
        json={"name": "Cy"},
        headers={"Authorization": "Basic Y3k6"},
    ),
    (CLAIM, "seat_reserved"): _seat_reserved,
    (CLAIM, "player_ref_needs_portal"): _claim_named_seat,
    (CLAIM, "unknown_match"): lambda w: w.client.post(f"/v1/matches/{NO_MATCH}/seats/1/claim", json={"name": "Cy"}),
    (CLAIM, "unknown_seat"): lambda w: w.client.post(f"/v1/matches/{w.match()[0]}/seats/7/claim", json={"name": "Cy"}),
    (CLAIM, "seat_taken"): lambda w: w.client.post(f"/v1/matches/{w.match()[0]}/seats/1/claim", json={"name": "Cy"}),
    (CLAIM, "stale_seq"): lambda w, fx: _claim_stale_seq(w, fx.monkeypatch),
    (CLAIM, "event_limit_reached"): _claim_event_limit,
    (CLAIM, "unsupported_media_type"): lambda w: w.client.post(
        f"/v1/matches/{w.match([TWO[0], {'name': 'Open', 'type': 'open'}])[0]}/seats/1/claim",
        data="name=Cy",
        content_type="application/x-www-form-urlencoded",
    ),
    (CLAIM, "invalid_request"): lambda w: w.client.post(
        f"/v1/matches/{w.match([TWO[0], {'name': 'Open', 'type': 'open'}])[0]}/seats/1/claim", json={"name": ""}
    ),
    (REMATCH, "invalid_token"): lambda w: w.client.post(f"/v1/matches/{NO_MATCH}/rematch"),
    (REMATCH, "invalid_api_key"): _rematch_invalid_api_key,
    (REMATCH, "wrong_match"): _rematch_wrong_match,
    (REMATCH, "unknown_match"): lambda w: w.client.post(f"/v1/matches/{NO_MATCH}/rematch", headers=auth("x")),
    (REMATCH, "match_not_over"): _rematch_match_not_over,
    (REMATCH, "too_many_requests"): lambda w: _rate_limited(
        w, "RATE_LIMIT_CREATE", lambda: w.client.post(f"/v1/matches/{NO_MATCH}/rematch", headers=auth("x"))
    ),
    ("GET /v1/matches/{match_id}/fairness", "unknown_match"): lambda w: w.client.get(
        f"/v1/matches/{NO_MATCH}/fairness"
    ),
    ("GET /v1/matches/{match_id}/fairness", "match_not_over"): lambda w: w.client.get(
        f"/v1/matches/{w.match()[0]}/fairness"
    ),
    ("GET /v1/matches/{match_id}/fairness", "too_many_requests"): lambda w: _rate_limited(
        w, "RATE_LIMIT_AUDIT", lambda: w.client.get(f"/v1/matches/{NO_MATCH}/fairness")
    ),
    ("GET /v1/matches/{match_id}/record", "analysis_not_ready"): lambda w: w.client.get(
        f"/v1/matches/{w.ended()[0]}/record?annotate=analysis"
    ),
    ("GET /v1/matches/{match_id}/record", "analysis_failed"): lambda w: _analysis_failed(
        w, "/v1/matches/{match_id}/record?annotate=analysis"
    ),
    ("GET /v1/matches/{match_id}/record", "invalid_request"): lambda w: w.client.get(
        f"/v1/matches/{NO_MATCH}/record?annotate=everything"
    ),
    (ANALYSIS, "unknown_match"): lambda w: w.client.get(f"/v1/matches/{NO_MATCH}/analysis"),
    (ANALYSIS, "match_not_over"): lambda w: w.client.get(f"/v1/matches/{w.match()[0]}/analysis"),
    (ANALYSIS, "analysis_not_ready"): lambda w: w.client.get(f"/v1/matches/{w.ended()[0]}/analysis"),
    (ANALYSIS, "analysis_failed"): lambda w: _analysis_failed(w, "/v1/matches/{match_id}/analysis"),
    (ANALYSIS, "too_many_requests"): lambda w: _rate_limited(
        w, "RATE_LIMIT_AUDIT", lambda: w.client.get(f"/v1/matches/{NO_MATCH}/analysis")
    ),
    (HINT, "invalid_token"): lambda w: w.client.get(f"/v1/matches/{w.match(AGAINST_A_BOT)[0]}/hint"),
    (HINT, "wrong_match"): lambda w: w.client.get(
        f"/v1/matches/{w.match(AGAINST_A_BOT)[0]}/hint", headers=auth(w.match()[1][0])
    ),
    (HINT, "unknown_match"): lambda w: w.client.get(f"/v1/matches/{NO_MATCH}/hint", headers=auth("x")),
    (HINT, "hint_not_offered"): lambda w: w.client.get(
        f"/v1/matches/{(made := w.match())[0]}/hint", headers=auth(made[1][0])
    ),
    (HINT, "not_your_turn"): _hint_not_your_turn,
    (HINT, "match_over"): _hint_match_over,
    (HINT, "too_many_requests"): lambda w: _rate_limited(
        w, "RATE_LIMIT_AUDIT", lambda: w.client.get(f"/v1/matches/{NO_MATCH}/hint", headers=auth("x"))
    ),
    ("GET /v1/players/{player_ref}/stats", "invalid_api_key"): _stats_invalid_api_key,
    ("GET /v1/players/{player_ref}/stats", "player_ref_needs_portal"): lambda w: w.client.get("/v1/players/pat/stats"),
    ("GET /v1/portal", "invalid_api_key"): lambda w: w.client.get("/v1/portal", headers=UNKNOWN_KEY),
    ("GET /v1/portal", "portal_key_required"): lambda w: w.client.get("/v1/portal"),
    ("POST /v1/portal/keys", "invalid_api_key"): lambda w: w.client.post("/v1/portal/keys", headers=UNKNOWN_KEY),
    ("POST /v1/portal/keys", "portal_key_required"): lambda w: w.client.post("/v1/portal/keys"),
    ("DELETE /v1/portal/keys/{key_id}", "invalid_api_key"): lambda w: w.client.delete(
        "/v1/portal/keys/000000000000", headers=UNKNOWN_KEY
    ),
    ("DELETE /v1/portal/keys/{key_id}", "portal_key_required"): lambda w: w.client.delete(
        "/v1/portal/keys/000000000000"
    ),
    ("DELETE /v1/portal/keys/{key_id}", "unknown_portal_key"): lambda w: w.client.delete(
        "/v1/portal/keys/000000000000", headers={"X-API-Key": _portal_key(w)}
    ),
    ("DELETE /v1/portal/keys/{key_id}", "last_portal_key"): _revoke_last_key,
    ("GET /v1/players/{player_ref}/stats", "invalid_request"): lambda w: w.client.get(
        "/v1/players/" + "x" * 129 + "/stats"
    ),
    ("GET /v1/leaderboards/{family}", "invalid_api_key"): lambda w: w.client.get(
        "/v1/leaderboards/draw", headers=UNKNOWN_KEY
    ),
    ("GET /v1/leaderboards/{family}", "player_ref_needs_portal"): lambda w: w.client.get("/v1/leaderboards/draw"),
    ("GET /v1/leaderboards/{family}", "invalid_request"): lambda w: w.client.get(
        "/v1/leaderboards/chess", headers={"X-API-Key": _portal_key(w)}
    ),
    ("GET /v1/leaderboards/{family}", "invalid_cursor"): lambda w: w.client.get(
        "/v1/leaderboards/draw?cursor=x", headers={"X-API-Key": _portal_key(w)}
    ),
    ("GET /v1/players/{player_ref}/ratings", "invalid_api_key"): lambda w: w.client.get(
        "/v1/players/pat/ratings", headers=UNKNOWN_KEY
    ),
    ("GET /v1/players/{player_ref}/ratings", "player_ref_needs_portal"): lambda w: w.client.get(
        "/v1/players/pat/ratings"
    ),
    ("GET /v1/players/{player_ref}/ratings", "invalid_request"): lambda w: w.client.get(
        "/v1/players/" + "x" * 129 + "/ratings", headers={"X-API-Key": _portal_key(w)}
    ),
    ("GET /v1/players/{player_ref}/history", "invalid_api_key"): lambda w: w.client.get(
        "/v1/players/pat/history?family=draw", headers=UNKNOWN_KEY
    ),
    ("GET /v1/players/{player_ref}/history", "player_ref_needs_portal"): lambda w: w.client.get(
        "/v1/players/pat/history?family=draw"
    ),
    ("GET /v1/players/{player_ref}/history", "invalid_request"): lambda w: w.client.get(
        "/v1/players/pat/history", headers={"X-API-Key": _portal_key(w)}
    ),
    ("GET /v1/players/{player_ref}/history", "invalid_cursor"): lambda w: w.client.get(
        "/v1/players/pat/history?family=draw&cursor=1-x", headers={"X-API-Key": _portal_key(w)}
    ),
    ("GET /v1/matches/{match_id}/stream", "invalid_last_event_id"): lambda w: w.client.get(
        f"/v1/matches/{w.match()[0]}/stream", headers={"Last-Event-ID": "first"}
    ),
    ("GET /v1/matches/{match_id}/stream", "invalid_token"): lambda w: w.client.get(
        f"/v1/matches/{w.match()[0]}/stream?token=not-a-token"
    ),
    ("GET /v1/matches/{match_id}/stream", "wrong_match"): lambda w: w.client.get(
        f"/v1/matches/{w.match()[0]}/stream", headers=auth(w.match()[1][0])
    ),
    ("GET /v1/matches/{match_id}/stream", "unknown_match"): lambda w: w.client.get(f"/v1/matches/{NO_MATCH}/stream"),
    ("GET /v1/matches/{match_id}/stream", "too_many_waiters"): _stream_too_many_waiters,
    ("GET /healthz", "database_unavailable"): lambda w, fx: _healthz(w, _unreachable_store(w, fx.tmp_path)),
    ("GET /healthz", "database_read_only"): lambda w: _healthz(w, _read_only_store(w)),
    ("GET /healthz", "database_busy"): lambda w: _healthz(w, _BusyStore()),
    ("GET /readyz", "draining"): lambda w: _readyz(w, w.app.extensions["boneyard.store"], draining=True),
    ("GET /readyz", "migrations_pending"): lambda w: _readyz(w, _BehindStore(w.app.extensions["boneyard.store"])),
    ("GET /readyz", "database_unavailable"): lambda w, fx: _readyz(w, _unreachable_store(w, fx.tmp_path)),
    ("GET /readyz", "database_read_only"): lambda w: _readyz(w, _read_only_store(w)),
    ("GET /readyz", "database_busy"): lambda w: _readyz(w, _BusyStore()),
}


# --- webhooks (api/http/webhooks.py) ---------------------------------------------------------------
HOOKS = "/v1/portal/webhooks"
NO_ID = "0" * 32  # an id of the right form that nothing has
PUBLIC_URL = "https://93.184.216.34/hooks"


def _hook(w: World) -> tuple[dict[str, str], str]:
    """A portal's key header and one webhook of its."""
    key = {"X-API-Key": _portal_key(w, "hooked")}
    return key, w.client.post(HOOKS, json={"url": PUBLIC_URL}, headers=key).get_json()["id"]


def _too_many_webhooks(w: World):
    key = {"X-API-Key": _portal_key(w, "hooked")}
    for _ in range(16):
        w.client.post(HOOKS, json={"url": PUBLIC_URL}, headers=key)
    return w.client.post(HOOKS, json={"url": PUBLIC_URL}, headers=key)


def _webhook_rows() -> dict[tuple[str, str], Callable]:
    one = f"{HOOKS}/{{webhook_id}}"
    paths = {  # operation -> (method, its URL for the webhook id)
        f"GET {one}": ("GET", lambda hook: f"{HOOKS}/{hook}"),
        f"DELETE {one}": ("DELETE", lambda hook: f"{HOOKS}/{hook}"),
        f"POST {one}/secret": ("POST", lambda hook: f"{HOOKS}/{hook}/secret"),
        f"GET {one}/deliveries": ("GET", lambda hook: f"{HOOKS}/{hook}/deliveries"),
        f"POST {one}/deliveries/{{delivery_id}}/replay": (
            "POST",
            lambda hook: f"{HOOKS}/{hook}/deliveries/{NO_ID}/replay",
        ),
    }
    rows: dict[tuple[str, str], Callable] = {
        (f"POST {HOOKS}", "invalid_api_key"): lambda w: w.client.post(
            HOOKS, json={"url": PUBLIC_URL}, headers=UNKNOWN_KEY
        ),
        (f"POST {HOOKS}", "portal_key_required"): lambda w: w.client.post(HOOKS, json={"url": PUBLIC_URL}),
        (f"POST {HOOKS}", "invalid_webhook_url"): lambda w: w.client.post(
            HOOKS, json={"url": "http://127.0.0.1/x"}, headers={"X-API-Key": _portal_key(w)}
        ),
        (f"POST {HOOKS}", "invalid_webhook_events"): lambda w: w.client.post(
            HOOKS, json={"url": PUBLIC_URL, "events": ["match.won"]}, headers={"X-API-Key": _portal_key(w)}
        ),
        (f"POST {HOOKS}", "too_many_webhooks"): _too_many_webhooks,
        (f"POST {HOOKS}", "unsupported_media_type"): lambda w: w.client.post(
            HOOKS, data="{}", headers={"X-API-Key": _portal_key(w)}
        ),
        (f"POST {HOOKS}", "invalid_request"): lambda w: w.client.post(
            HOOKS, json={"events": []}, headers={"X-API-Key": _portal_key(w)}
        ),
        (f"GET {HOOKS}", "invalid_api_key"): lambda w: w.client.get(HOOKS, headers=UNKNOWN_KEY),
        (f"GET {HOOKS}", "portal_key_required"): lambda w: w.client.get(HOOKS),
        (f"GET {one}/deliveries", "invalid_cursor"): lambda w: (
            lambda key, hook: w.client.get(f"{HOOKS}/{hook}/deliveries?cursor=later", headers=key)
        )(*_hook(w)),
        (f"POST {one}/secret", "unsupported_media_type"): lambda w: (
            lambda key, hook: w.client.post(f"{HOOKS}/{hook}/secret", data="{}", headers=key)
        )(*_hook(w)),
        (f"POST {one}/deliveries/{{delivery_id}}/replay", "unknown_delivery"): lambda w: (
            lambda key, hook: w.client.post(f"{HOOKS}/{hook}/deliveries/{NO_ID}/replay", headers=key)
        )(*_hook(w)),
    }
    for label, (method, url) in paths.items():
        rows[(label, "invalid_api_key")] = lambda w, m=method, u=url: w.client.open(
            u(NO_ID), method=m, headers=UNKNOWN_KEY
        )
        rows[(label, "portal_key_required")] = lambda w, m=method, u=url: w.client.open(u(NO_ID), method=m)
        rows[(label, "unknown_webhook")] = lambda w, m=method, u=url: w.client.open(
            u(NO_ID), method=m, headers={"X-API-Key": _portal_key(w)}
        )
        rows[(label, "invalid_request")] = lambda w, m=method, u=url: w.client.open(
            u("not-an-id"), method=m, headers={"X-API-Key": _portal_key(w)}
        )
    return rows


ROWS.update(_webhook_rows())


# --- matchmaking (api/http/matchmaking.py) ------------------------------------------------------------
SEEKS, CHALLENGES, ME, STREAM = "/v1/seeks", "/v1/challenges", "/v1/me/events", "/v1/me/stream"


def _player(w: World, ref: str = "ana", portal: str = "arcade") -> dict[str, str]:
    """An Authorization header with a player token of ``ref`` (of a new portal ``portal``)."""
    key = {"X-API-Key": _portal_key(w, portal)}
    return auth(w.client.post(f"/v1/portal/players/{ref}/tokens", headers=key).get_json()["token"])


def _seek_paired(w: World):
    key = {"X-API-Key": _portal_key(w)}
    first = w.client.post(SEEKS, json={"player_ref": "ana"}, headers=key).get_json()
    w.client.post(SEEKS, json={"player_ref": "ben"}, headers=key)
    return w.client.delete(f"{SEEKS}/{first['id']}?player_ref=ana", headers=key)


def _already_seeking(w: World):
    key = {"X-API-Key": _portal_key(w)}
    w.client.post(SEEKS, json={"player_ref": "ana"}, headers=key)
    return w.client.post(SEEKS, json={"player_ref": "ana"}, headers=key)


def _challenge(w: World) -> tuple[dict[str, str], str]:
    """A pending challenge of ana to ben (players of one portal): the portal's key header and its id."""
    key = {"X-API-Key": _portal_key(w)}
    made = w.client.post(CHALLENGES, json={"opponents": ["ben"], "player_ref": "ana"}, headers=key).get_json()
    return key, made["id"]


def _matchmaking_rows() -> dict[tuple[str, str], Callable]:
    tokens, one_token = "/v1/portal/players/{player_ref}/tokens", "/v1/portal/players/{player_ref}/tokens/{token_id}"
    one_seek, one_challenge = f"{SEEKS}/{{seek_id}}", f"{CHALLENGES}/{{challenge_id}}"
    rows: dict[tuple[str, str], Callable] = {
        (f"POST {tokens}", "portal_key_required"): lambda w: w.client.post("/v1/portal/players/ana/tokens"),
        (f"POST {tokens}", "invalid_request"): lambda w: w.client.post(
            "/v1/portal/players/" + "x" * 129 + "/tokens", headers={"X-API-Key": _portal_key(w)}
        ),
        (f"GET {tokens}", "portal_key_required"): lambda w: w.client.get("/v1/portal/players/ana/tokens"),
        (f"GET {tokens}", "invalid_request"): lambda w: w.client.get(
            "/v1/portal/players/" + "x" * 129 + "/tokens", headers={"X-API-Key": _portal_key(w)}
        ),
        (f"DELETE {one_token}", "portal_key_required"): lambda w: w.client.delete(
            "/v1/portal/players/ana/tokens/000000000000"
        ),
        (f"DELETE {one_token}", "unknown_player_token"): lambda w: w.client.delete(
            "/v1/portal/players/ana/tokens/000000000000", headers={"X-API-Key": _portal_key(w)}
        ),
        (f"DELETE {one_token}", "invalid_request"): lambda w: w.client.delete(
            "/v1/portal/players/ana/tokens/nope", headers={"X-API-Key": _portal_key(w)}
        ),
        (f"POST {SEEKS}", "portal_key_required"): lambda w: _no_public_space(w).client.post(SEEKS, json={}),
        (f"POST {SEEKS}", "player_ref_needs_portal"): lambda w: w.client.post(SEEKS, json={"player_ref": "ana"}),
        (f"POST {SEEKS}", "invalid_request"): lambda w: w.client.post(SEEKS, json={"players": 9}),
        (f"POST {SEEKS}", "rated_needs_player"): lambda w: w.client.post(SEEKS, json={"rated": True}),
        (f"POST {SEEKS}", "invalid_seek"): lambda w: w.client.post(SEEKS, json={"rating_min": 3, "rating_max": 2}),
        (f"POST {SEEKS}", "already_seeking"): _already_seeking,
        (f"POST {SEEKS}", "invalid_rules"): lambda w: w.client.post(SEEKS, json={"rules": {"target": 0}}),
        (f"POST {SEEKS}", "unsupported_media_type"): lambda w: w.client.post(SEEKS, data="{}"),
        (f"POST {SEEKS}", "too_many_requests"): lambda w: _rate_limited(
            w, "RATE_LIMIT_CREATE", lambda: w.client.post(SEEKS, json={})
        ),
        (f"POST {CHALLENGES}", "too_many_requests"): lambda w: (
            lambda player: _rate_limited(
                w,
                "RATE_LIMIT_PORTAL_CREATE",  # a player token spends its portal's budget
                lambda: w.client.post(CHALLENGES, json={"opponents": ["ben"]}, headers=player),
            )
        )(_player(w)),
        (f"DELETE {one_seek}", "seek_paired"): _seek_paired,
        (f"POST {CHALLENGES}", "portal_key_required"): lambda w: _no_public_space(w).client.post(
            CHALLENGES, json={"opponents": ["ben"]}
        ),
        (f"POST {CHALLENGES}", "player_ref_needs_portal"): lambda w: w.client.post(
            CHALLENGES, json={"opponents": ["ben"], "player_ref": "ana"}
        ),
        (f"POST {CHALLENGES}", "player_required"): lambda w: w.client.post(CHALLENGES, json={"opponents": ["ben"]}),
        (f"POST {CHALLENGES}", "invalid_request"): lambda w: w.client.post(CHALLENGES, json={"opponents": []}),
        (f"POST {CHALLENGES}", "invalid_challenge"): lambda w: w.client.post(
            CHALLENGES, json={"opponents": ["ana"]}, headers=_player(w)
        ),
        (f"POST {CHALLENGES}", "invalid_rules"): lambda w: w.client.post(
            CHALLENGES, json={"opponents": ["ben"], "rules": {"target": 0}}, headers=_player(w)
        ),
        (f"POST {CHALLENGES}", "unsupported_media_type"): lambda w: w.client.post(
            CHALLENGES, data="{}", headers=_player(w)
        ),
        (f"GET {ME}", "portal_key_required"): lambda w: _no_public_space(w).client.get(ME),
        (f"GET {ME}", "player_ref_needs_portal"): lambda w: w.client.get(f"{ME}?player_ref=ana"),
        (f"GET {ME}", "player_required"): lambda w: w.client.get(ME),
        (f"GET {ME}", "invalid_request"): lambda w: w.client.get(f"{ME}?after=-1", headers=_player(w)),
        (f"GET {STREAM}", "portal_key_required"): lambda w: _no_public_space(w).client.get(STREAM),
        (f"GET {STREAM}", "player_ref_needs_portal"): lambda w: w.client.get(f"{STREAM}?player_ref=ana"),
        (f"GET {STREAM}", "player_required"): lambda w: w.client.get(STREAM),
        (f"GET {STREAM}", "invalid_request"): lambda w: w.client.get(
            f"{STREAM}?player_ref=" + "x" * 129, headers={"X-API-Key": _portal_key(w)}
        ),
        (f"GET {STREAM}", "invalid_last_event_id"): lambda w: w.client.get(
            STREAM, headers={**_player(w), "Last-Event-ID": "first"}
        ),
        (f"GET {STREAM}", "too_many_waiters"): lambda w: (
            lambda player: (_waiters_capped(w), w.client.get(STREAM, headers=player))[1]
        )(_player(w)),
    }
    for method, path in (("GET", one_seek), ("DELETE", one_seek)):
        url = SEEKS + "/{}"
        rows[(f"{method} {path}", "portal_key_required")] = lambda w, m=method, u=url: _no_public_space(w).client.open(
            u.format(NO_ID), method=m
        )
        rows[(f"{method} {path}", "player_ref_needs_portal")] = lambda w, m=method, u=url: w.client.open(
            u.format(NO_ID) + "?player_ref=ana", method=m
        )
        rows[(f"{method} {path}", "invalid_request")] = lambda w, m=method, u=url: w.client.open(
            u.format("not-an-id"), method=m
        )
        rows[(f"{method} {path}", "unknown_seek")] = lambda w, m=method, u=url: w.client.open(u.format(NO_ID), method=m)
    answers = [("GET", one_challenge, "")] + [
        ("POST", f"{one_challenge}/{verb}", f"/{verb}") for verb in ("accept", "decline", "cancel")
    ]
    for method, path, tail in answers:
        url = CHALLENGES + "/{}" + tail
        label = f"{method} {path}"
        rows[(label, "portal_key_required")] = lambda w, m=method, u=url: _no_public_space(w).client.open(
            u.format(NO_ID), method=m
        )
        rows[(label, "player_ref_needs_portal")] = lambda w, m=method, u=url: w.client.open(
            u.format(NO_ID) + "?player_ref=ana", method=m
        )
        rows[(label, "player_required")] = lambda w, m=method, u=url: w.client.open(u.format(NO_ID), method=m)
        rows[(label, "invalid_request")] = lambda w, m=method, u=url: w.client.open(
            u.format("not-an-id"), method=m, headers=_player(w)
        )
        rows[(label, "unknown_challenge")] = lambda w, m=method, u=url: w.client.open(
            u.format(NO_ID), method=m, headers=_player(w)
        )
        if method == "POST":
            # the challenger answering, or the challenged cancelling; then a closed one
            who = "ben" if tail == "/cancel" else "ana"
            rows[(label, "not_your_challenge")] = lambda w, u=url, who=who: (
                lambda key, cid: w.client.post(u.format(cid) + f"?player_ref={who}", headers=key)
            )(*_challenge(w))
            closer = "ana" if tail == "/cancel" else "ben"
            rows[(label, "challenge_closed")] = lambda w, u=url, closer=closer: (
                lambda key, cid: (
                    w.client.post(f"{CHALLENGES}/{cid}/decline?player_ref=ben", headers=key),
                    w.client.post(u.format(cid) + f"?player_ref={closer}", headers=key),
                )[1]
            )(*_challenge(w))
    return rows


ROWS.update(_matchmaking_rows())


# --- tournaments (api/http/tournaments.py) ------------------------------------------------------------------
TOURNAMENTS = "/v1/tournaments"
ROUND_ROBIN = {"format": "round_robin", "turn_seconds": 30, "bot_levels": ["random"], "rules": {"target": 5}}
BOT = {"members": [{"level": "random"}]}


def _tournament(w: World, *, bots: int = 0, change: str | None = None, **options) -> tuple[dict[str, str], str]:
    """A round robin of the portal's (its key header and id), with ``bots`` entered, then changed."""
    key = {"X-API-Key": _portal_key(w)}
    made = w.client.post(TOURNAMENTS, json={**ROUND_ROBIN, **options}, headers=key).get_json()
    for _ in range(bots):
        w.client.post(f"{TOURNAMENTS}/{made['id']}/entrants", json=BOT, headers=key)
    for one in (change or "").split():
        assert w.client.post(f"{TOURNAMENTS}/{made['id']}/{one}", headers=key).status_code == 200
    return key, made["id"]


def _twice(w: World):
    key, tid = _tournament(w)
    player = auth(w.client.post("/v1/portal/players/ana/tokens", headers=key).get_json()["token"])
    w.client.post(f"{TOURNAMENTS}/{tid}/entrants", headers=player)
    return w.client.post(f"{TOURNAMENTS}/{tid}/entrants", headers=player)


def _not_your_entrant(w: World):
    key, tid = _tournament(w)
    ana = auth(w.client.post("/v1/portal/players/ana/tokens", headers=key).get_json()["token"])
    bo = auth(w.client.post("/v1/portal/players/bo/tokens", headers=key).get_json()["token"])
    w.client.post(f"{TOURNAMENTS}/{tid}/entrants", headers=ana)
    return w.client.delete(f"{TOURNAMENTS}/{tid}/entrants/e1", headers=bo)


# (A row's provoker takes the world alone: one of two parameters is given pytest's fixtures too.)
def _read_rows(label: str, tail: str) -> dict[tuple[str, str], Callable]:
    def keyed(w: World, tournament_id: str):
        return w.client.get(f"{TOURNAMENTS}/{tournament_id}{tail}", headers={"X-API-Key": _portal_key(w)})

    return {
        (label, "portal_key_required"): lambda w: w.client.get(f"{TOURNAMENTS}/{NO_ID}{tail}"),
        (label, "unknown_tournament"): lambda w: keyed(w, NO_ID),
        (label, "invalid_request"): lambda w: keyed(w, "not-an-id"),
    }


def _change_rows(label: str, change: str, refusals: dict) -> dict[tuple[str, str], Callable]:
    def keyed(w: World, tournament_id: str):
        return w.client.post(f"{TOURNAMENTS}/{tournament_id}/{change}", headers={"X-API-Key": _portal_key(w)})

    def after(bots: int, before: str | None) -> Callable:
        def provoke(w: World):
            key, tournament_id = _tournament(w, bots=bots, change=before)
            return w.client.post(f"{TOURNAMENTS}/{tournament_id}/{change}", headers=key)

        return provoke

    rows: dict[tuple[str, str], Callable] = {
        (label, "portal_key_required"): lambda w: w.client.post(f"{TOURNAMENTS}/{NO_ID}/{change}"),
        (label, "unknown_tournament"): lambda w: keyed(w, NO_ID),
        (label, "invalid_request"): lambda w: keyed(w, "not-an-id"),
        (label, "tournament_over"): after(0, "cancel"),
    }
    rows.update({(label, code): after(bots, before) for code, (bots, before) in refusals.items()})
    return rows


def _tournament_rows() -> dict[tuple[str, str], Callable]:
    one = f"{TOURNAMENTS}/{{tournament_id}}"
    rows: dict[tuple[str, str], Callable] = {
        (f"POST {TOURNAMENTS}", "portal_key_required"): lambda w: w.client.post(TOURNAMENTS, json=ROUND_ROBIN),
        (f"POST {TOURNAMENTS}", "invalid_request"): lambda w: w.client.post(
            TOURNAMENTS, json={**ROUND_ROBIN, "format": "ladder"}, headers={"X-API-Key": _portal_key(w)}
        ),
        (f"POST {TOURNAMENTS}", "invalid_tournament"): lambda w: w.client.post(
            TOURNAMENTS, json={**ROUND_ROBIN, "format": "swiss"}, headers={"X-API-Key": _portal_key(w)}
        ),
        (f"POST {TOURNAMENTS}", "invalid_rules"): lambda w: w.client.post(
            TOURNAMENTS, json={**ROUND_ROBIN, "rules": {"target": 0}}, headers={"X-API-Key": _portal_key(w)}
        ),
        (f"POST {TOURNAMENTS}", "unsupported_media_type"): lambda w: w.client.post(
            TOURNAMENTS, data="{}", headers={"X-API-Key": _portal_key(w)}
        ),
    }
    for tail in ("", "/standings", "/rounds", "/crosstable", "/fairness", "/events"):
        rows.update(_read_rows(f"GET {one}{tail}", tail))
    entrants, entrant = f"POST {one}/entrants", f"DELETE {one}/entrants/{{entrant_id}}"
    rows.update(
        {
            (entrants, "portal_key_required"): lambda w: w.client.post(f"{TOURNAMENTS}/{NO_ID}/entrants", json=BOT),
            (entrants, "unknown_tournament"): lambda w: w.client.post(
                f"{TOURNAMENTS}/{NO_ID}/entrants", json=BOT, headers={"X-API-Key": _portal_key(w)}
            ),
            (entrants, "invalid_request"): lambda w: w.client.post(
                f"{TOURNAMENTS}/not-an-id/entrants", json=BOT, headers={"X-API-Key": _portal_key(w)}
            ),
            (entrants, "unsupported_media_type"): lambda w: w.client.post(
                f"{TOURNAMENTS}/{NO_ID}/entrants", data="{}", headers={"X-API-Key": _portal_key(w)}
            ),
            (entrants, "tournament_over"): lambda w: (
                lambda key, tid: w.client.post(f"{TOURNAMENTS}/{tid}/entrants", json=BOT, headers=key)
            )(*_tournament(w, change="cancel")),
            (entrants, "entry_refused"): lambda w: (
                lambda key, tid: w.client.post(
                    f"{TOURNAMENTS}/{tid}/entrants", json={"members": [{"level": "expert"}]}, headers=key
                )
            )(*_tournament(w)),
            (entrants, "already_registered"): _twice,
            (entrants, "registration_closed"): lambda w: (
                lambda key, tid: w.client.post(f"{TOURNAMENTS}/{tid}/entrants", json=BOT, headers=key)
            )(*_tournament(w, bots=2, change="start")),
            (entrants, "tournament_full"): lambda w: (
                lambda key, tid: w.client.post(f"{TOURNAMENTS}/{tid}/entrants", json=BOT, headers=key)
            )(*_tournament(w, bots=2, max_entrants=2)),
            (entrants, "invalid_tournament"): lambda w: (
                lambda key, tid: w.client.post(
                    f"{TOURNAMENTS}/{tid}/entrants", json={"members": [{"level": "random"}] * 2}, headers=key
                )
            )(*_tournament(w)),
            (entrant, "portal_key_required"): lambda w: w.client.delete(f"{TOURNAMENTS}/{NO_ID}/entrants/e1"),
            (entrant, "unknown_tournament"): lambda w: w.client.delete(
                f"{TOURNAMENTS}/{NO_ID}/entrants/e1", headers={"X-API-Key": _portal_key(w)}
            ),
            (entrant, "invalid_request"): lambda w: w.client.delete(
                f"{TOURNAMENTS}/{NO_ID}/entrants/x", headers={"X-API-Key": _portal_key(w)}
            ),
            (entrant, "tournament_over"): lambda w: (
                lambda key, tid: w.client.delete(f"{TOURNAMENTS}/{tid}/entrants/e1", headers=key)
            )(*_tournament(w, bots=1, change="cancel")),
            (entrant, "unknown_entrant"): lambda w: (
                lambda key, tid: w.client.delete(f"{TOURNAMENTS}/{tid}/entrants/e9", headers=key)
            )(*_tournament(w)),
            (entrant, "not_your_entrant"): _not_your_entrant,
        }
    )
    changes = {
        "start": {"too_few_entrants": (0, None), "tournament_already_started": (2, "start")},
        "pause": {"tournament_not_running": (0, None), "tournament_paused": (2, "start pause")},
        "resume": {"tournament_not_running": (0, None), "tournament_not_paused": (2, "start")},
        "close": {"tournament_not_running": (0, None), "invalid_tournament": (2, "start")},  # a round robin's
        "cancel": {},
    }
    for change, refusals in changes.items():
        rows.update(_change_rows(f"POST {one}/{change}", change, refusals))
    return rows


ROWS.update(_tournament_rows())


@dataclass
class Fixtures:
    monkeypatch: pytest.MonkeyPatch
    tmp_path: Path


def provoke(row: Callable, world: World, fixtures: Fixtures):
    return row(world, fixtures) if row.__code__.co_argcount == 2 else row(world)


def answered(response) -> tuple[int, str]:
    assert response.mimetype == PROBLEM, (response.status_code, response.get_data()[:300])
    body = response.get_json(force=True)
    assert body["status"] == response.status_code and body["type"].endswith("/" + body["code"]), body
    return response.status_code, body["code"]


@pytest.mark.parametrize("operation, code", sorted(ROWS), ids=[f"{op} {code}" for op, code in sorted(ROWS)])
def test_each_operation_answers_each_code_it_declares(
    world, operation, code, monkeypatch, tmp_path, answered_problems_are_declared: Recorder
):
    response = provoke(ROWS[(operation, code)], world, Fixtures(monkeypatch, tmp_path))
    assert answered(response) == (CATALOGUE[code].status, code)
    # ... and it was this operation that answered it (as the recorder saw it)
    method, path = operation.split(" ", 1)
    assert (method, path, CATALOGUE[code].status, code) in answered_problems_are_declared.answered


# --- what any request may be answered ---------------------------------------------------------------
def _operations(document: dict) -> list[tuple[str, str]]:
    return sorted(declared_problems(document))


def _url(path: str, match_id: str) -> str:
    ids = {"{webhook_id}": NO_ID, "{delivery_id}": NO_ID, "{key_id}": "0" * 12, "{token_id}": "0" * 12}
    ids.update({"{seek_id}": NO_ID, "{challenge_id}": NO_ID, "{tournament_id}": NO_ID, "{entrant_id}": "e1"})
    for name, value in ids.items():
        path = path.replace(name, value)
    path = path.replace("{match_id}", match_id).replace("{seat}", "1").replace("{player_ref}", "pat")
    path = path.replace("{family}", "draw")
    return path + ("?family=draw" if path.endswith("/history") else "")  # its one required query


class _TimedOut:
    """``request_body._deadline`` as gevent's would be once the client stopped sending."""

    def __init__(self, seconds):
        pass

    def __enter__(self):
        raise request_body._Timeout

    def __exit__(self, *exc):
        return False


def _raises(error: BaseException):
    def unit_of_work(*args, **kwargs):
        raise error

    return unit_of_work


#: The operations that need a portal key to get as far as the database (looking it up does).
KEYED = re.compile(r" /v1/(portal|players|challenges|me|leaderboards|tournaments)\b")
#: A body each operation takes, so that a request gets as far as the database.
BODIES = {
    "POST /v1/matches": {"seats": TWO},
    ACTIONS: {"type": "knock"},
    CLAIM: {"name": "Cy"},
    "POST /v1/portal/webhooks": {"url": "https://93.184.216.34/hooks"},
    "POST /v1/challenges": {"opponents": ["ben"]},
    "POST /v1/tournaments": ROUND_ROBIN,
    "POST /v1/tournaments/{tournament_id}/entrants": BOT,
}


@dataclass
class Send:
    """One request to one operation, as :data:`ANY_OPERATION` sends them."""

    world: World
    monkeypatch: pytest.MonkeyPatch
    label: str
    url: str
    token: str

    @property
    def method(self) -> str:
        return self.label.split(" ", 1)[0]

    def __call__(self, url_suffix: str = "", **kwargs):
        url = self.url + (url_suffix.replace("?", "&", 1) if "?" in self.url else url_suffix)
        return self.world.client.open(url, method=kwargs.pop("method", self.method), **kwargs)

    def as_a_seat(self):
        """The operation's own request, with a seat's token (a portal's own resource: a key to look
        up, which reaches the database) and a body it takes."""
        body = BODIES.get(self.label)
        headers = {**auth(self.token), **(UNKNOWN_KEY if KEYED.search(self.label) else {})}
        return self(headers=headers, **({"json": body} if body is not None else {}))

    def patched(self, target, name: str, value, send: Callable[[], object]):
        with self.monkeypatch.context() as patch:
            patch.setattr(target, name, value)
            return send()


class _TimedOut:
    """``request_body._deadline`` as gevent's is once the client stopped sending."""

    def __init__(self, seconds: float):
        self.seconds = seconds

    def __enter__(self):
        raise request_body._Timeout

    def __exit__(self, *exc):
        return False


def _raises(error: BaseException):
    def raising(*args, **kwargs):
        raise error

    return raising


def _bodies_on_their_way(send: Send):
    """This address already has as many request bodies on their way as one may (per process)."""
    request_ids = send.world.app.wsgi_app  # the outermost middleware
    assert isinstance(request_ids, RequestIds)
    deadline = request_ids.app
    while not isinstance(deadline, request_body.RequestBodyDeadline):
        deadline = deadline.app  # a middleware between them (api.http.metrics.RequestMetrics)
    deadline._reading["127.0.0.1"] = deadline.per_address
    try:
        return send(json={"name": "Cy"})
    finally:
        del deadline._reading["127.0.0.1"]


def _store(send: Send):
    """The app's store; /healthz probes it afresh (a probe's outcome is otherwise kept a while)."""
    store = send.world.app.extensions["boneyard.store"]
    send.world.app.extensions[READINESS_KEY] = Readiness(store)
    return store


#: The codes of :data:`ANY_REQUEST` the app answers, and how any operation gets each.
ANY_OPERATION: dict[str, Callable[[Send], object]] = {
    "malformed_json": lambda send: send(data="{", content_type="application/json"),
    "invalid_request": lambda send: send(data='{"a": 1e999}', content_type="application/json"),
    "invalid_text": lambda send: send("?x=%01"),
    "invalid_token": lambda send: send(headers={"Authorization": "Bearer caf\u00e9"}),
    "invalid_api_key": lambda send: send(headers={"X-API-Key": "\u00b2"}),
    "uri_too_long": lambda send: send("?x=" + "9" * 3000),
    "header_too_large": lambda send: send(headers={"If-Match": "1" * 2000}),
    "payload_too_large": lambda send: send(data="[" + "0," * 40000 + "0]", content_type="application/json"),
    "method_not_allowed": lambda send: send(method="PATCH"),
    "request_timeout": lambda send: send.patched(
        request_body, "_deadline", _TimedOut, lambda: send(json={"name": "Cy"})
    ),
    "too_many_waiters": _bodies_on_their_way,
    "database_busy": lambda send: send.patched(
        _store(send), "unit_of_work", _raises(DatabaseBusy("locked")), send.as_a_seat
    ),
    "internal_error": lambda send: send.patched(
        _store(send), "unit_of_work", _raises(RuntimeError("a bug")), send.as_a_seat
    ),
}
#: What an operation that never reads the database cannot be answered (its default response is
#: every operation's, and lists them all the same).
WITHOUT_A_DATABASE = {
    "GET /livez": {"database_busy", "internal_error"},
    "GET /v1/presets": {"database_busy", "internal_error"},
    "GET /v1/ratings/bots": {"database_busy", "internal_error"},
}


def test_any_operation_answers_what_any_request_may_be_answered(world, monkeypatch):
    document = world.client.get("/v1/openapi.json").get_json()
    match_id, tokens = world.match()
    answers = set()
    for method, path in _operations(document):
        label = f"{method} {path}"
        for code, provoke_it in ANY_OPERATION.items():
            if code in WITHOUT_A_DATABASE.get(label, ()):
                continue
            response = provoke_it(Send(world, monkeypatch, label, _url(path, match_id), tokens[0]))
            assert answered(response) == (CATALOGUE[code].status, code), (label, code, response.get_json(force=True))
            answers.add((label, code))
    skipped = sum(len(codes) for codes in WITHOUT_A_DATABASE.values())
    assert len(answers) == len(_operations(document)) * len(ANY_OPERATION) - skipped


def test_a_path_no_route_matches_is_not_found(world):
    assert answered(world.client.get("/v1/no/such/thing")) == (404, "not_found")
    assert answered(world.client.post("/v1/matches/x/seats/one/claim", json={"name": "Cy"})) == (404, "not_found")


#: What gunicorn answers before the app runs, and the request that gets each (its parser's
#: exceptions, as the worker's error handler meets them). Over real HTTP:
#: tests/e2e/test_open_internet_http.py sends some of these bytes to a real gunicorn.
BEFORE_THE_APP = sorted({code for _kind, _status, code, _title, _detail in PROTOCOL_ERRORS})


@pytest.mark.parametrize("code", BEFORE_THE_APP)
def test_what_gunicorn_refuses_is_answered_with_the_catalogue_s_code_and_status(code):
    kinds = [kind for kind, _status, answer, _title, _detail in PROTOCOL_ERRORS if answer == code]
    for kind in kinds:
        try:
            error = kind.__new__(kind)
            BaseException.__init__(error, "refused")
        except TypeError:
            pytest.fail(f"cannot make a {kind.__name__}")
        status, answer, _title, _detail = protocol_error(error)
        assert (status, answer) == (CATALOGUE[code].status, code)


# --- the document, the catalogue and the docs agree ---------------------------------------------
def test_every_declared_code_is_answered_above(world):
    """Each (operation, code) the document declares has its request in ROWS, or is a code any
    request may get (ANY_OPERATION, gunicorn's), and ROWS holds nothing the document does not."""
    document = world.client.get("/v1/openapi.json").get_json()
    declared = {
        (f"{method} {path}", code)
        for (method, path), by_status in declared_problems(document).items()
        for codes_of_status in by_status.values()
        for code in codes_of_status
    }
    any_request = {entry.code for entry in ANY_REQUEST}
    assert any_request == set(ANY_OPERATION) | set(BEFORE_THE_APP) | {"not_found"}
    unanswered = {(op, code) for op, code in declared if (op, code) not in ROWS and code not in any_request}
    assert not unanswered, sorted(unanswered)
    assert set(ROWS) <= declared, sorted(set(ROWS) - declared)
    # Every operation's default response lists what any request may get, with nothing else.
    for by_status in declared_problems(document).values():
        assert by_status["default"] == any_request


def test_every_code_of_the_catalogue_is_declared_by_some_operation(world):
    document = world.client.get("/v1/openapi.json").get_json()
    declared = {
        code
        for by_status in declared_problems(document).values()
        for codes_of in by_status.values()
        for code in codes_of
    }
    assert declared == set(CATALOGUE)


def test_every_documented_problem_response_lists_its_codes_with_their_own_status(world):
    document = world.client.get("/v1/openapi.json").get_json()
    for (method, path), by_status in declared_problems(document).items():
        for status, listed in by_status.items():
            if status == "default" or not status.startswith(("4", "5")):
                continue
            assert listed, f"{method} {path} documents {status} without its codes"
            assert {CATALOGUE[code].status for code in listed} == {int(status)}, (method, path, status, listed)
            description = document["paths"][path][method.lower()]["responses"][status]["description"]
            assert all(f"`{code}`" in description for code in listed), (method, path, status)


#: What the transport refuses before an operation runs (api/http/transport_refusals.py): on any
#: operation, and on one that takes a body.
TRANSPORT_ON_ANY = {"414": {"uri_too_long"}, "431": {"header_too_large"}}
TRANSPORT_WITH_A_BODY = {"408": {"request_timeout"}, "413": {"payload_too_large"}, "415": {"unsupported_media_type"}}


def test_every_operation_declares_the_transport_refusals_it_can_meet(world):
    """Not only the default response: each operation's own responses name them (a tester that
    holds an answer to the operation's declared statuses finds them there)."""
    document = world.client.get("/v1/openapi.json").get_json()
    with_a_body = 0
    for (method, path), by_status in declared_problems(document).items():
        takes_a_body = "requestBody" in document["paths"][path][method.lower()]
        with_a_body += takes_a_body
        expected = {**TRANSPORT_ON_ANY, **(TRANSPORT_WITH_A_BODY if takes_a_body else {})}
        transport = {status: by_status[status] for status in ("408", "413", "414", "415", "431") if status in by_status}
        assert transport == expected, (method, path)
    # matches, actions, claim, webhooks, a webhook's secret rotation, seeks, challenges, tournaments, entrants
    assert with_a_body == 9


def test_a_query_longer_than_the_server_reads_is_a_414_its_operation_declares(world):
    """schemathesis' finding: GET /v1/me/events with a 2,049-character path and query."""
    document = world.client.get("/v1/openapi.json").get_json()
    target = "/v1/me/events?player_ref=" + "a" * (2049 - len("/v1/me/events") - len("player_ref="))
    assert len(target) - 1 == 2049  # the "?" is no part of either
    assert answered(world.client.get(target)) == (414, "uri_too_long")
    assert declared_problems(document)[("GET", "/v1/me/events")]["414"] == {"uri_too_long"}


def test_docs_problems_md_is_the_catalogue():
    assert (ROOT / "docs" / "problems.md").read_text() == codes.docs_page(), (
        "docs/problems.md is stale: run scripts/problem-codes"
    )


README_PAIR = re.compile(r"\b([1-5][0-9]{2}) `([a-z_]+)`")


def test_the_readme_gives_every_code_it_names_with_its_status():
    text = (ROOT / "README.md").read_text()
    pairs = README_PAIR.findall(text)
    assert len(pairs) >= 10
    wrong = [(status, code) for status, code in pairs if code in CATALOGUE and CATALOGUE[code].status != int(status)]
    assert not wrong, wrong
    unknown = [(status, code) for status, code in pairs if code not in CATALOGUE]
    assert not unknown, unknown


def test_the_recorder_fails_a_test_whose_operation_answers_an_undeclared_code(
    world, monkeypatch, answered_problems_are_declared: Recorder
):
    """The guard every API test runs under can fail: an answer its operation does not list."""
    recorder = Recorder()
    request_finished.disconnect(answered_problems_are_declared)  # this test's own undeclared answer
    request_finished.connect(recorder)
    try:
        world.client.get(f"/v1/matches/{NO_MATCH}")  # 404 unknown_match: declared
        assert recorder.answered and not recorder.undeclared
        monkeypatch.setitem(
            world.app.extensions[BUS_KEY].handlers, GetSummary, _raises(SeatReserved("not this operation's"))
        )
        world.client.get(f"/v1/matches/{NO_MATCH}")  # 403 seat_reserved: not declared here
    finally:
        request_finished.disconnect(recorder)
        request_finished.connect(answered_problems_are_declared)
    assert recorder.undeclared == ["GET /v1/matches/{match_id} answered 403 'seat_reserved'"]
