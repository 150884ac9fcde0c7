"""Secrecy as a property: no byte the server sends tells a seat a tile it may not know.

Hypothesis plays random matches through the HTTP API over presets × player counts
(partners, fives, muggins with calls, auto draw…) and random mixes of remote, bot and
open (claimed later) seats. After every action it reads every answer each seat and a
spectator can get (the view, the events of the current hand, the whole log and the record
(docs/records.md) for one reader in turn, the summary, the list, action answers and
refusals) and compares the tile pairs in them with the tiles that reader may not know, read
from the server's own state:

* while a hand is live: every other seat's hand (a partner's too) and the boneyard;
* for a finished hand: the tiles left in its boneyard (never revealed before the end);
* once the match has ended: nothing (the seed is out, every deal can be re-derived).

Tiles that are public are not findings: the table, the reader's own hand, hands revealed
by ``hand_ended`` / ``last_hand`` (checked against their own hand's secrets, not the
live one's), and ``tiles_turned_up`` (a separate shuffle, shown to all by design).

Turn clocks run on an injected clock: letting a seat's clock run out is one of the moves
(its turn is then played by the server, and a bot may take the seat over). Every event
checked is counted by type, and one scripted run asserts that the checks see every type
of ``api.rules.EVENT_TYPES``: a new type gets its redactor and its secrecy check together.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from api import create_app
from api.records.model import Boneyard, Deal, HandStart, Move, RoundStart
from api.records.text import parse
from api.rules import EVENT_TYPES
from tests.long_runs import long_run

from .fake_clock import FakeClock, use_clock
from .helpers import auth, tiles_in

TABLES = [
    ("standard-draw", 2, {}),
    ("standard-draw", 3, {}),
    ("standard-draw", 4, {}),
    ("standard-draw", 4, {"partners": True}),
    ("standard-draw", 3, {"auto_draw": True, "auto_knock": True}),
    ("standard-draw", 2, {"draw_at_will": True}),
    ("standard-block", 2, {}),
    ("standard-block", 3, {}),
    ("standard-block", 4, {"partners": True}),
    ("pagat-draw", 3, {}),
    ("pagat-block", 4, {}),
    ("dominorules-draw", 3, {}),
    ("dominorules-block", 2, {}),
    ("winner-leads", 2, {}),
    ("all-fives", 2, {}),
    ("all-fives", 3, {"auto_draw": True}),
    ("all-fives", 4, {"partners": True}),
    ("muggins", 2, {"muggins_calls": True}),
    ("muggins", 3, {"muggins_calls": True}),
    ("all-fives", 4, {"partners": True, "muggins_calls": True}),
    ("standard-draw", 2, {"turn_seconds": 30, "timeout_limit": 2}),
    ("dominorules-draw", 3, {"turn_seconds": 5, "auto_draw": True}),
    ("all-fives", 3, {"turn_seconds": 5, "timeout_limit": 1}),
    ("fives-and-threes", 2, {}),
    ("fives-and-threes", 4, {}),
    ("double-nine-partners", 4, {}),  # 15 of the 55 tiles never dealt, secret to the end
]
TARGETS = (15, 40, 120)
CHECKED_TYPES: set[str] = set()  # the type of every event check_event has looked at


def T(pair) -> tuple[int, int]:
    a, b = pair
    return (max(a, b), min(a, b))


class Truth:
    """What the server knows about one match right now, and who may know which tile."""

    def __init__(self, app, match_id: str):
        self.state = app.extensions["boneyard.bus"].flow.cache.get(match_id).state
        game = self.state.trains  # a trains match keeps its hands and boneyard in its game
        self.hands = game.hands if game is not None else self.state.hands
        self.boneyard = game.boneyard if game is not None else self.state.boneyard
        with app.extensions["boneyard.store"].unit_of_work(readonly=True) as uow:
            log = [{"seq": e.seq, **e.to_dict()} for e in uow.events.load(match_id)]
        assert [e["seq"] for e in log] == list(range(1, len(log) + 1))
        self.ended = any(e["type"] == "match_ended" for e in log)
        self.hand_of_seq: dict[int, int] = {}
        self.hand_start: dict[int, int] = {}
        self.boneyard_left: dict[int, set] = {}  # per finished hand: what was never drawn
        hand, boneyard, draws = 0, [], 0
        for event in log:
            if event["type"] in ("hand_started", "round_started"):  # a deal: a line game's hand, a trains round
                if hand:
                    self.boneyard_left[hand] = {T(t) for t in boneyard[draws:]}
                hand, boneyard, draws = event.get("hand_number", event.get("round")), event["boneyard"], 0
                self.hand_start[hand] = event["seq"]
            elif event["type"] == "tile_drawn":
                draws += 1
            self.hand_of_seq[event["seq"]] = hand
        self.current = hand
        if hand:
            self.boneyard_left[hand] = {T(t) for t in boneyard[draws:]}
        self.live = self.state.status == "playing" and self.state.hand_live
        self.seq = log[-1]["seq"]

    def secret(self, seat: int | None, hand: int | None = None) -> set:
        """Tiles ``seat`` (None: a spectator) may not know, as of hand ``hand``'s events."""
        if self.ended:
            return set()
        hand = self.current if hand in (None, 0) else hand
        if hand == self.current and self.live:
            hidden = {T(t.to_json()) for t in self.boneyard}
            for other, tiles in enumerate(self.hands):
                if other != seat:
                    hidden |= {T(t.to_json()) for t in tiles}
            return hidden
        return self.boneyard_left.get(hand, set())

    def live_owner(self, tile) -> str:
        for seat, tiles in enumerate(self.hands):
            if tile in [T(t.to_json()) for t in tiles]:
                return f"seat {seat}'s hand"
        return "the boneyard"


def check_event(truth: Truth, reader, event: dict, where: str) -> None:
    CHECKED_TYPES.add(event["type"])
    hand = truth.hand_of_seq[event["seq"]]
    skip = ("tiles",) if event["type"] == "tiles_turned_up" else ()
    leaked = tiles_in(event, skip=skip) & truth.secret(reader, hand)
    assert not leaked, f"{where}: {leaked} leaked to {_who(reader)} in {event} (hand {hand})"


def check_view(truth: Truth, reader, view: dict, where: str) -> None:
    body = {k: v for k, v in view.items() if k not in ("last_hand", "last_round")}
    leaked = tiles_in(body) & truth.secret(reader)
    assert not leaked, f"{where}: {leaked} ({[truth.live_owner(t) for t in leaked]}) leaked to {_who(reader)}: {body}"
    if view.get("hand") is not None:
        assert {T(t) for t in view["hand"]} == {T(t.to_json()) for t in truth.hands[reader]}
    last = view.get("last_hand") or view.get("last_round")
    if last is not None:
        leaked = tiles_in(last) & truth.secret(reader, last.get("hand_number", last.get("round")))
        assert not leaked, f"{where}: last_hand shows {leaked} to {_who(reader)}"


def check_plain(truth: Truth, reader, body, where: str) -> None:
    leaked = tiles_in(body) & truth.secret(reader)
    assert not leaked, f"{where}: {leaked} leaked to {_who(reader)}: {body}"


def _who(reader) -> str:
    return "a spectator" if reader is None else f"seat {reader}"


def observe_everything(client, app, match_id: str, tokens: dict, full_log_reader) -> Truth:
    """Read every representation every reader can get, and check each one."""
    truth = Truth(app, match_id)
    start = truth.hand_start.get(truth.current, 1)
    for reader in [None, *tokens]:
        headers = auth(tokens[reader]) if reader is not None else {}
        view = client.get(f"/v1/matches/{match_id}/view", headers=headers)
        assert view.status_code == 200
        check_view(truth, reader, view.get_json(), "view")
        page = client.get(f"/v1/matches/{match_id}/events?after={start - 1}&limit=1000", headers=headers)
        assert page.status_code == 200
        for event in page.get_json()["events"]:
            check_event(truth, reader, event, "events of the current hand")
    reader = full_log_reader
    headers = auth(tokens[reader]) if reader is not None else {}
    if reader is not None or truth.ended:  # the record, the whole log written out (a spectator's opens at the end)
        record = client.get(f"/v1/matches/{match_id}/record", headers=headers)
        assert record.status_code == 200
        check_record(truth, reader, record.get_data(as_text=True))
    page = client.get(f"/v1/matches/{match_id}/events?after=0&limit=1000", headers=headers)
    for event in page.get_json()["events"]:
        check_event(truth, reader, event, "the whole log")
    check_plain(truth, None, client.get(f"/v1/matches/{match_id}").get_json(), "summary")
    listed = [m for m in client.get("/v1/matches?limit=100").get_json()["items"] if m["id"] == match_id]
    check_plain(truth, None, listed, "list")
    return truth


def check_record(truth: Truth, reader, text: str) -> None:
    """A record (docs/records.md) shows no tile the reader may not know, hand by hand, and no
    seed before the end."""
    record = parse(text)
    hand = None
    for element in record.elements:
        if isinstance(element, HandStart | RoundStart):
            hand = element.number
        if isinstance(element, Deal | Boneyard):
            shown = {t for t in element.tiles if t is not None}
        elif isinstance(element, Move) and element.tile is not None:
            shown = {element.tile}
        else:
            continue  # a turn-up is public by design; ends and results hold no tile
        leaked = shown & truth.secret(reader, hand)
        assert not leaked, f"record: {leaked} leaked to {_who(reader)} in {element} (hand {hand})"
    assert (record.value("Seed") is not None) == truth.ended


def check_action_answer(app, match_id: str, seat: int, answer: dict) -> Truth:
    truth = Truth(app, match_id)
    for event in answer["events"]:
        check_event(truth, seat, event, "action answer")
    check_view(truth, seat, answer["view"], "action answer's view")
    return truth


def try_refused(client, app, match_id, tokens, truth: Truth, data) -> None:
    """Send actions the rules refuse, aimed at hidden tiles; the refusal must not tell
    where a hidden tile lies (another hand or the boneyard answer alike)."""
    state = truth.state
    seat = data.draw(st.sampled_from(sorted(tokens)), label="refused by")
    hidden_in_hands = sorted({T(t.to_json()) for o, h in enumerate(state.hands) if o != seat for t in h})
    in_boneyard = sorted(T(t.to_json()) for t in state.boneyard)
    answers = {}
    for label, pool in (("hand", hidden_in_hands), ("boneyard", in_boneyard)):
        if not pool:
            continue
        tile = data.draw(st.sampled_from(pool), label=f"hidden tile in a {label}")
        response = client.post(
            f"/v1/matches/{match_id}/actions",
            headers=auth(tokens[seat]),
            json={"type": "play", "tile": list(tile), "end": "left"},
        )
        assert response.status_code in (409, 422), response.get_json()
        body = response.get_json()
        check_plain(Truth(app, match_id), seat, body, "refusal")
        answers[label] = (body["code"], body["detail"].replace(f"{tile[0]}-{tile[1]}", "<tile>"))
    if len(answers) == 2:
        assert answers["hand"] == answers["boneyard"], answers
    other = data.draw(
        st.sampled_from(
            [{"type": "knock"}, {"type": "draw"}, {"type": "muggins"}, {"type": "draw", "until": "playable"}]
        ),
        label="other refusal",
    )
    response = client.post(f"/v1/matches/{match_id}/actions", headers=auth(tokens[seat]), json=other)
    if response.status_code != 200:
        assert response.status_code in (409, 422), response.get_json()
        check_plain(Truth(app, match_id), seat, response.get_json(), "refusal")
    else:
        check_action_answer(app, match_id, seat, response.get_json())


def open_table(client, app, preset: str, rules: dict, seats: list[dict], seed: str) -> tuple[str, dict[int, str]]:
    """Create the match and claim its open seats, checking both answers: its id, the tokens by seat."""
    created = client.post("/v1/matches", json={"preset": preset, "rules": rules, "seats": seats, "seed": seed})
    assert created.status_code == 201, created.get_json()
    created = created.get_json()
    match_id = created["id"]
    check_plain(Truth(app, match_id), None, created, "create answer")
    tokens = {s["seat"]: s["token"] for s in created["seats"] if "token" in s}
    for seat in [i for i, s in enumerate(seats) if s["type"] == "open"]:
        claimed = client.post(f"/v1/matches/{match_id}/seats/{seat}/claim", json={"name": f"C{seat}"})
        assert claimed.status_code == 200, claimed.get_json()
        claimed = claimed.get_json()
        tokens[seat] = claimed["token"]
        check_view(Truth(app, match_id), seat, claimed["view"], "claim answer")
    return match_id, tokens


def run_out_the_clock(client, app, match_id: str, truth: Truth) -> None:
    """Let the seat to move time out: move the injected clock past its deadline, and send the
    request that plays the turn (the summary) before the next ``Truth`` is read."""
    app.extensions["boneyard.bus"].flow.now.advance(truth.state.rules.turn_seconds + 1)
    summary = client.get(f"/v1/matches/{match_id}")
    assert summary.status_code == 200, summary.get_json()
    after = Truth(app, match_id)
    assert after.seq > truth.seq, "the clock ran out but no turn was played"
    check_plain(after, None, summary.get_json(), "summary after a timeout")


def options_of(client, match_id: str, tokens: dict) -> list[tuple[int, dict]]:
    """Every (seat, action) the remote seats may take now."""
    options = []
    for seat, token in sorted(tokens.items()):
        actions = client.get(f"/v1/matches/{match_id}/view", headers=auth(token)).get_json()["legal_actions"]
        options += [(seat, action) for action in actions]
    return options


def clock_runs(truth: Truth) -> bool:
    """A turn clock runs while a seat that is not a computer player is to move."""
    state = truth.state
    return bool(state.rules.turn_seconds) and state.turn is not None and state.seats[state.turn]["type"] != "bot"


def play_one(client, app, data, max_actions: int) -> None:
    preset, players, rules = data.draw(st.sampled_from(TABLES), label="table")
    rules = {**rules, "target": data.draw(st.sampled_from(TARGETS), label="target")}
    kinds = data.draw(
        st.lists(st.sampled_from(["remote", "remote", "bot", "open"]), min_size=players, max_size=players).filter(
            lambda k: set(k) - {"bot"}
        ),
        label="seats",
    )
    seats = [{"name": f"P{i}", "type": kind} for i, kind in enumerate(kinds)]
    for seat in seats:
        if seat["type"] == "bot":
            seat["level"] = data.draw(st.sampled_from(["random", "greedy"]), label="level")
    # The server seed comes from the example, so that hypothesis can replay and shrink it.
    seed = data.draw(st.text("0123456789abcdef", min_size=8, max_size=8), label="server seed")
    match_id, tokens = open_table(client, app, preset, rules, seats, seed)

    for _ in range(max_actions):
        truth = observe_everything(
            client, app, match_id, tokens, data.draw(st.sampled_from([None, *tokens]), label="log reader")
        )
        if truth.state.status == "ended":
            return
        if all(s["type"] == "bot" for s in truth.state.seats):
            return  # every person timed out and was replaced: the autoplay runner's table now
        if clock_runs(truth) and data.draw(st.integers(0, 3), label="run out the clock?") == 0:
            run_out_the_clock(client, app, match_id, truth)
            continue
        if data.draw(st.integers(0, 4), label="refuse?") == 0:
            try_refused(client, app, match_id, tokens, truth, data)
            continue
        options = options_of(client, match_id, tokens)
        assert options, "the match is live but no remote seat may act"
        seat, action = data.draw(st.sampled_from(options), label="action")
        if data.draw(st.booleans(), label="expected_seq?"):
            action = {**action, "expected_seq": truth.seq}
        response = client.post(f"/v1/matches/{match_id}/actions", headers=auth(tokens[seat]), json=action)
        assert response.status_code == 200, (action, response.get_json())
        check_action_answer(app, match_id, seat, response.get_json())


@pytest.fixture
def secrecy_app(database_url):
    app = create_app(
        {"TESTING": True, "DATABASE_URL": database_url, "RATELIMIT_ENABLED": False, "ALLOW_CLIENT_SEED": True}
    )
    use_clock(app, FakeClock())  # turn clocks run out only when a test says so
    yield app
    app.extensions["boneyard.store"].dispose()


COMMON = dict(deadline=None, database=None, suppress_health_check=list(HealthCheck))


@settings(max_examples=3, derandomize=True, **COMMON)  # the long run below plays longer ones
@given(data=st.data())
def test_no_answer_shows_a_seat_or_a_spectator_a_tile_it_may_not_know(secrecy_app, data):
    play_one(secrecy_app.test_client(), secrecy_app, data, max_actions=30)


@pytest.mark.slow
@settings(max_examples=long_run(2), **COMMON)  # few matches, each one long (up to 200 actions)
@given(data=st.data())
def test_no_answer_shows_a_hidden_tile_over_many_long_matches(secrecy_app, data):
    play_one(secrecy_app.test_client(), secrecy_app, data, max_actions=200)


# Tables that between them make every event type, by their rules rather than by luck of the
# deal: open seats claimed (seat_claimed); the lead turned up (tiles_turned_up); All Fives counts
# (points_scored); a seat that never moves, whose clock runs out (turn_timed_out) until a bot
# takes it over (seat_replaced); drawing at will, preferred, which empties the boneyard early
# (tile_drawn); the Block game, where a stuck seat knocks (knocked), and where without fives a
# match ends only with a hand (hand_ended). The seed is fixed: every run plays the same matches.
COVERING_TABLES = [
    (
        "all-fives",
        {"lead": "rotate_any", "draw_at_will": True, "turn_seconds": 5, "timeout_limit": 1, "target": 40},
        [{"name": "Idle", "type": "remote"}, {"name": "Ana", "type": "remote"}, {"name": "Open", "type": "open"}],
    ),
    ("standard-block", {"target": 15}, [{"name": "Ben", "type": "remote"}, {"name": "Cy", "type": "open"}]),
    # The trains games' own events: a round's deal, plays on trains, passes, the round's end.
    (
        "mexican-train",
        {"rounds": 1, "hand_size": 8},
        [{"name": "Dee", "type": "remote"}, {"name": "Eve", "type": "open"}],
    ),
]
IDLE = "Idle"


def preferred(option: tuple[int, dict]) -> int:
    """Scoring plays first, then draws: the moves that make the rarer events."""
    action = option[1]
    return 0 if action.get("scores") and action["type"] == "play" else 1 if action["type"] == "draw" else 2


def test_the_secrecy_checks_see_every_event_type(secrecy_app):
    """The checks above, run on scripted matches: every event they see they check as the reader
    gets it (each seat, a spectator, the whole log); together, every type there is."""
    client = secrecy_app.test_client()
    CHECKED_TYPES.clear()
    for preset, rules, seats in COVERING_TABLES:
        match_id, tokens = open_table(client, secrecy_app, preset, rules, seats, "c0ffee00")
        idle = {i for i, s in enumerate(seats) if s["name"] == IDLE}
        for step in range(400):
            readers = [None, *tokens]
            truth = observe_everything(client, secrecy_app, match_id, tokens, readers[step % len(readers)])
            if truth.state.status == "ended":
                break
            options = [(seat, action) for seat, action in options_of(client, match_id, tokens) if seat not in idle]
            if not options:
                assert clock_runs(truth), "only the idle seat may act, and no clock runs for it"
                run_out_the_clock(client, secrecy_app, match_id, truth)
                continue
            seat, action = min(options, key=preferred)
            response = client.post(f"/v1/matches/{match_id}/actions", headers=auth(tokens[seat]), json=action)
            assert response.status_code == 200, (action, response.get_json())
            check_action_answer(secrecy_app, match_id, seat, response.get_json())
        assert truth.state.status == "ended", f"{preset} {rules}: not over after {step + 1} steps"
    assert set(EVENT_TYPES) == CHECKED_TYPES, f"never checked: {sorted(set(EVENT_TYPES) - CHECKED_TYPES)}"


def test_the_truth_sees_the_hidden_tiles_a_leak_would_show(secrecy_app):
    """The checker itself: a body that does show another seat's tile is caught."""
    client = secrecy_app.test_client()
    created = client.post(
        "/v1/matches", json={"seats": [{"name": "A", "type": "remote"}, {"name": "B", "type": "remote"}]}
    ).get_json()
    truth = Truth(secrecy_app, created["id"])
    other = truth.state.hands[1][0].to_json()
    with pytest.raises(AssertionError, match="leaked to seat 0"):
        check_plain(truth, 0, {"detail": "x", "hint": other}, "planted")
    assert json.dumps(other) and T(other) in truth.secret(None)
