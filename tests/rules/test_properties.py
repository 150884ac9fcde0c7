"""Random games of every preset, driven through ``decide``, checked against the rule book."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from api.rules import (
    IllegalAction,
    InvalidAction,
    InvalidTile,
    Tile,
    apply,
    create_match,
    event_from_dict,
    legal_actions,
    parse_action,
    redact_event,
    replay,
    resolve_rules,
    start_match,
    view,
)
from api.rules.engine import SeedDealer, decide
from api.rules.games import presets_of
from api.rules.layout import END_INDEX
from api.rules.simulate import push, random_match
from api.rules.state import DRAW, KNOCK, MUGGINS, PLAY
from api.rules.tiles import EVERY_TILE
from tests.long_runs import long_run
from tests.rules.support import seats, snapshot

QUICK = settings.get_profile("rules-quick")
SLOW = settings.get_profile("rules-slow")

BASE_CASES = [(p, n, {}) for p, spec in presets_of("line").items() for n in spec.players]
COMBOS = [
    ("standard-draw", 4, {"partners": True}),
    ("standard-block", 4, {"partners": True}),
    ("pagat-draw", 4, {"partners": True}),
    ("dominorules-draw", 4, {"partners": True}),
    ("all-fives", 4, {"partners": True}),
    ("muggins", 4, {"partners": True, "muggins_calls": True}),
    ("all-fives", 2, {"muggins_calls": True}),
    ("all-fives", 3, {"muggins_calls": True}),
    ("all-fives", 4, {"muggins_calls": True, "partners": True}),
    ("standard-draw", 2, {"auto_draw": True, "auto_knock": True}),
    ("standard-draw", 3, {"auto_draw": True}),
    ("standard-block", 3, {"auto_knock": True}),
    ("all-fives", 2, {"auto_draw": True, "auto_knock": True}),
    ("standard-draw", 2, {"draw_at_will": True}),
    ("standard-draw", 3, {"draw_at_will": True, "boneyard_reserve": 2}),
    ("pagat-draw", 2, {"draw_at_will": True, "auto_knock": True}),
    ("standard-draw", 4, {"round_to_five": True, "blocked_scoring": "others", "lead": "winner_any"}),
    ("standard-draw", 4, {"hand_size": 7}),
    ("standard-block", 2, {"hand_size": 14, "lead": "rotate_any"}),
    ("standard-draw", 2, {"hand_size": 1}),
    ("winner-leads", 2, {"round_to_five": True, "spinner": "first_double", "fives_scoring": True}),
    # The larger sets: the double-nine partnership block (10 each, 15 out of play) and a
    # double-twelve Draw game for two (15 each, 61 in the boneyard).
    ("standard-block", 4, {"set": "double-9", "partners": True, "hand_size": 10}),
    ("standard-draw", 2, {"set": "double-12", "hand_size": 15}),
    # Fives and Threes' and the double-nine game's options on other games, and other forms of theirs.
    ("fives-and-threes", 4, {"partners": False}),
    ("fives-and-threes", 2, {"hand_end_pips": True, "out_bonus": 0, "exact_target": False}),
    ("standard-block", 2, {"end_count_scoring": "fives_and_threes", "spinner": "first_double"}),
    ("fives-and-threes", 2, {"hand_end_pips": True, "round_to_five": True}),
    ("standard-draw", 4, {"partners": True, "hand_points": "all_hands", "blocked_scoring": "others"}),
    ("double-nine-partners", 4, {"lead": "highest_double", "round_to_five": True}),
]
CASES = BASE_CASES + COMBOS
CASE_IDS = [f"{p}-{n}-{'-'.join(sorted(o)) or 'plain'}" for p, n, o in CASES]

NON_TILE_KEYS = {"scores", "hand_counts", "drawn", "pips", "sides", "last_hand", "rules", "seats"}


# --- independent re-statements of the rule book ------------------------------------------
def bare_actions(listed):
    """The listed actions without their hints (``scores``) and claims: what an unlisted
    action is compared against."""
    return [{k: v for k, v in a.items() if k not in ("scores", "claim")} for a in listed]


def side_of(rules, seat):
    return seat % 2 if rules.partners else seat


def expected_count_points(rules, count):
    fives, threes = count % 5 == 0, count % 3 == 0
    if count == 0 or rules.end_count_scoring == "none":
        return 0
    if rules.end_count_scoring == "fives":
        return count if fives else 0
    return (count // 5 if fives else 0) + (count // 3 if threes else 0)


def expected_hand_points(rules, reason, hands, scores):
    pips = [sum(t.pips for t in h) for h in hands]
    sides = 2 if rules.partners else rules.players
    side_pips = [sum(p for s, p in enumerate(pips) if side_of(rules, s) == side) for side in range(sides)]
    every_hand = rules.hand_points == "all_hands"
    if reason == "domino":
        [out] = [s for s, h in enumerate(hands) if not h]
        side = side_of(rules, out)
        points = sum(p for other, p in enumerate(side_pips) if other != side or every_hand)
        winner = out
    elif not rules.hand_end_pips:
        return None, None, 0  # blocked, and no pips are counted: nobody wins it
    else:
        low = min(side_pips)
        if side_pips.count(low) > 1:
            return None, None, 0
        side = side_pips.index(low)
        if every_hand:
            points = sum(side_pips)
        else:
            points = sum(side_pips) - low - (low if rules.blocked_scoring == "others_minus_own" else 0)
        members = [s for s in range(rules.players) if side_of(rules, s) == side]
        winner = sorted(members, key=lambda s: (pips[s], s))[0]
    if not rules.hand_end_pips:
        points = 0
    if rules.round_to_five:
        points = points - points % 5 + (5 if points % 5 >= 3 else 0)
    if reason == "domino":
        points += rules.out_bonus
    if rules.exact_target and scores[side] + points > rules.target:
        points = 0  # past an exact target: not scored
    return winner, side, points


def open_numbers(state):
    return {v for v in state.layout.values if v is not None}


def can_play(state, seat):
    if not state.placements:
        return bool(state.hands[seat])
    ends = open_numbers(state)
    return any(t.high in ends or t.low in ends for t in state.hands[seat])


def drawable(state):
    if state.rules.game != "draw":
        return 0
    return max(0, len(state.boneyard) - state.rules.boneyard_reserve)


def hand_must_end(state):
    """The rule book's end of a hand: someone went out, or nobody can play nor draw."""
    if state.placements and any(not h for h in state.hands):
        return "domino"
    if drawable(state) == 0 and not any(can_play(state, s) for s in range(state.players)):
        return "blocked"
    return None


def tiles_in(obj, skip=NON_TILE_KEYS):
    """Every [a, b] pair of pip numbers found in a JSON value (outside non-tile fields)."""
    found = set()
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k not in skip:
                found |= tiles_in(v, skip)
    elif isinstance(obj, list):
        if len(obj) == 2 and all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= 6 for x in obj):
            found.add(Tile(*obj))
        else:
            for v in obj:
                found |= tiles_in(v, skip)
    return found


def secrets_from(state, seat):
    """Tiles ``seat`` must not see: other live hands and the boneyard."""
    hidden = set(state.boneyard)
    if state.hand_live:
        for s, hand in enumerate(state.hands):
            if s != seat:
                hidden |= set(hand)
    return hidden


# --- the driver --------------------------------------------------------------------------
class Game:
    def __init__(self, rules, seed, rng, *, thorough=True, fast_check=True):
        self.rules, self.seed, self.rng, self.thorough = rules, seed, rng, thorough
        self.log = list(create_match(rules, seats(rules.players), seed))
        self.state = replay(self.log)
        self.shadow = replay([event_from_dict(json.loads(json.dumps(e.to_dict()))) for e in self.log])
        self.fast = None
        self.hands_played = 0
        self.absorb(start_match(self.state, seed))
        if fast_check and not rules.muggins_calls:
            self.fast = replay(self.log)  # the fast path continues from the same deal

    # every event, one at a time, against the state it builds
    def absorb(self, events):
        for event in events:
            data = event.to_dict()
            again = event_from_dict(json.loads(json.dumps(data)))
            assert again == event and again.to_dict() == data
            before = self.state
            if event.type == "hand_ended":
                self.check_hand_end(before, event)
            if self.log[-1].type == "tile_played" and not self.rules.muggins_calls:
                self.check_count_scored(before, event)
            self.state = replay([event], self.state)
            self.log.append(event)
            # a second fold, of the JSON copies, one event at a time (every prefix of the log)
            self.shadow = apply(self.shadow, again)
            self.check_accounting()
            self.check_redaction(data)
            if event.type == "hand_ended":
                self.hands_played += 1

    def check_count_scored(self, before, event):
        """After a play, the count scores (a points_scored event) exactly when the rule book says."""
        count = before.layout.count()
        side = side_of(self.rules, self.log[-1].seat)
        points = expected_count_points(self.rules, count)
        if self.rules.exact_target and before.scores[side] + points > self.rules.target:
            points = 0
        if points:
            assert (event.type, event.how, event.count, event.points, event.side) == (
                "points_scored",
                "play",
                count,
                points,
                side,
            )
        else:
            assert event.type != "points_scored"

    def check_hand_end(self, before, event):
        assert before.hand_live
        reason = hand_must_end(before)
        assert reason == event.reason
        hands = [list(h) for h in event.hands]
        assert hands == before.hands
        winner, side, points = expected_hand_points(self.rules, event.reason, hands, before.scores)
        assert (event.winner, event.side, event.points) == (winner, side, points)
        assert list(event.pips) == [sum(t.pips for t in h) for h in hands]
        expected_scores = list(before.scores)
        if side is not None:
            expected_scores[side] += points
        assert list(event.scores) == expected_scores

    def check_accounting(self):
        state = self.state
        if state.hand_number == 0:
            return
        on_table = [t for _, t, _ in state.placements]
        every = [t for h in state.hands for t in h] + list(state.boneyard) + on_table
        assert len(every) == len(set(every)) == len(self.rules.set.tiles)
        assert set(every) == set(self.rules.set.tiles)
        assert state.layout.tiles == len(on_table)

    def check_redaction(self, data):
        if data["type"] in ("tiles_turned_up", "match_created"):
            return  # an independent shuffle / the rules: nothing about the hands
        for seat in [None, *range(self.rules.players)]:
            shown = redact_event(data, seat)
            json.dumps(shown)
            leaked = tiles_in(shown) & secrets_from(self.state, seat)
            assert not leaked, (data["type"], seat, leaked)

    def check_views(self):
        for seat in [None, *range(self.rules.players)]:
            v = view(self.state, seat)
            json.dumps(v)
            leaked = tiles_in(v) & secrets_from(self.state, seat)
            assert not leaked, (seat, leaked)
            assert v["hand_counts"] == [len(h) for h in self.state.hands]
            assert v["boneyard"] == len(self.state.boneyard)

    def check_live_state(self):
        state = self.state
        scores, target = state.scores, self.rules.target
        if state.status == "ended":
            assert [s for s, v in enumerate(scores) if v >= target] == [state.winner]
            assert self.log[-1].type == "match_ended" and self.log[-1].seed == self.seed
        else:
            assert max(scores) < target
            assert state.hand_live
            assert hand_must_end(state) is None  # a live hand is never one the rules have ended

    def actions_of(self, seat):
        return legal_actions(self.state, seat)

    def random_unlisted(self, seat, listed):
        rng = self.rng
        kind = rng.choice(["play", "play", "play", "draw", "knock", "muggins", "until"])
        if kind == "play":
            action = {
                "type": "play",
                # mostly the set's tiles (well formed, maybe illegal); now and then any set's
                "tile": rng.choice(self.rules.set.tiles if rng.random() < 0.8 else EVERY_TILE).to_json(),
                "end": rng.choice(["left", "right", "up", "down"]),
            }
        elif kind == "until":
            action = {"type": "draw", "until": "playable"}
        else:
            action = {"type": kind}
        return None if action in bare_actions(listed) else action

    def step(self):
        state = self.state
        rng = self.rng
        options = [(s, a) for s in range(self.rules.players) for a in self.actions_of(s)]
        assert options, "a live hand always offers someone an action"
        assert any(s == state.turn for s, _ in options)
        if self.thorough:
            for seat, action in options:  # every listed action is accepted
                decide(state, parse_action(seat, action), self.seed)
            for _ in range(4):  # unlisted ones are refused
                seat = rng.randrange(self.rules.players)
                listed = self.actions_of(seat)
                action = self.random_unlisted(seat, listed)
                if action is None:
                    continue
                self.check_refused(seat, action, listed)
        seat, action = rng.choice(options)
        if "claim" in action and rng.random() < 0.4:
            # the unlisted spelling: a scoring play without its claim, leaving the points to muggins
            action = {k: v for k, v in action.items() if k != "claim"}
        events = decide(state, parse_action(seat, action), self.seed)
        assert snapshot(state) == snapshot(self.state)  # decide never changes its input
        self.absorb(events)
        if self.fast is not None:
            self.push_fast(seat, action)
            assert core(self.fast) == core(self.state)
        if self.thorough:
            self.check_views()
            assert snapshot(self.shadow) == snapshot(self.state)
            if any(e.type in ("hand_ended", "match_ended") for e in events):
                self.check_full_replay()
        self.check_live_state()

    def check_full_replay(self):
        again = replay([event_from_dict(json.loads(json.dumps(e.to_dict()))) for e in self.log])
        assert snapshot(again) == snapshot(self.state)

    def check_refused(self, seat, action, listed):
        state = self.state
        if (
            action["type"] == "play"
            and not state.placements
            and action["end"] == "right"
            and {"type": "play", "tile": action["tile"], "end": "left"} in bare_actions(listed)
        ):
            # the engine takes "right" for the first tile as "left" (documented in the report)
            same = decide(state, parse_action(seat, action), self.seed)
            left = decide(state, parse_action(seat, dict(action, end="left")), self.seed)
            assert [e.to_dict() for e in same] == [e.to_dict() for e in left]
            return
        before = snapshot(state)
        outside = action["type"] == "play" and not self.rules.set.holds(Tile.from_json(action["tile"]))
        with pytest.raises(InvalidTile if outside else (IllegalAction, InvalidAction)):
            decide(state, parse_action(seat, action), self.seed)
        assert snapshot(state) == before

    def push_fast(self, seat, action):
        fast, dealer = self.fast, SeedDealer(self.seed, self.state.rules.set)
        kind = action["type"]
        if kind == "play":
            push(fast, (PLAY, Tile.from_json(action["tile"]), END_INDEX[action["end"]]), dealer, seat)
        elif kind == "draw" and action.get("until") == "playable":
            hand = fast.hand_number
            push(fast, (DRAW,), dealer, seat)
            while (
                fast.hand_number == hand
                and fast.hand_live
                and fast.turn == seat
                and not fast.can_play(seat)
                and fast.boneyard_drawable()
                and fast.hand_outcome() is None
            ):
                push(fast, (DRAW,), dealer, seat)
        elif kind == "draw":
            push(fast, (DRAW,), dealer, seat)
        elif kind == "knock":
            push(fast, (KNOCK,), dealer, seat)
        else:
            push(fast, (MUGGINS,), dealer, seat)

    def play_out(self, max_steps=100_000):
        steps = 0
        while self.state.status == "playing" and steps < max_steps:
            self.step()
            steps += 1
        return steps


def core(state):
    return (
        state.status,
        state.hand_number,
        state.leader,
        state.turn,
        state.scores,
        state.winner,
        [list(h) for h in state.hands],
        list(state.boneyard),
        list(state.placements),
        state.drawn,
        state.layout.ends_dict(),
        state.pending_muggins,
        state.hand_live,
    )


def rules_for(case, target=None):
    preset, players, overrides = case
    overrides = dict(overrides)
    if target is not None:
        overrides["target"] = target
    return resolve_rules(preset, overrides, players)


# --- the properties ----------------------------------------------------------------------
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_a_short_match_of_every_rule_set_keeps_every_invariant(case):
    rules = rules_for(case, target=15)
    game = Game(rules, f"seed-{CASE_IDS[CASES.index(case)]}", random.Random(7))
    game.play_out()
    assert game.state.status == "ended"


@settings(QUICK, max_examples=20)
@given(
    case=st.sampled_from(CASES),
    rng_seed=st.integers(0, 2**32 - 1),
    seed=st.text(max_size=12),
    target=st.integers(1, 30),
)
def test_random_games_keep_every_invariant(case, rng_seed, seed, target):
    game = Game(rules_for(case, target), seed, random.Random(rng_seed))
    game.play_out()
    assert game.state.status == "ended"


@settings(QUICK, max_examples=12)
@given(case=st.sampled_from(CASES), rng_seed=st.integers(0, 2**32 - 1), seed=st.text(max_size=12))
def test_whole_matches_to_the_preset_target_end_with_one_winner(case, rng_seed, seed):
    rules = rules_for(case)
    game = Game(rules, seed, random.Random(rng_seed), thorough=False)
    game.play_out()
    scores = game.state.scores
    assert game.state.status == "ended"
    assert [s for s, v in enumerate(scores) if v >= rules.target] == [game.state.winner]


@pytest.mark.slow
@settings(SLOW, max_examples=long_run(20))
@given(
    case=st.sampled_from(CASES),
    rng_seed=st.integers(0, 2**32 - 1),
    seed=st.text(max_size=12),
    target=st.integers(1, 120),
)
def test_thousands_of_random_games_keep_every_invariant(case, rng_seed, seed, target):
    game = Game(rules_for(case, target), seed, random.Random(rng_seed))
    game.play_out()
    assert game.state.status == "ended"


@pytest.mark.slow
@settings(SLOW, max_examples=long_run(40))
@given(case=st.sampled_from(CASES), rng_seed=st.integers(0, 2**32 - 1), seed=st.text(max_size=12))
def test_thousands_of_whole_matches_end_with_one_winner(case, rng_seed, seed):
    rules = rules_for(case)
    game = Game(rules, seed, random.Random(rng_seed), thorough=False)
    game.play_out()
    assert [s for s, v in enumerate(game.state.scores) if v >= rules.target] == [game.state.winner]


def test_same_seed_and_same_actions_give_identical_logs():
    for case in [
        ("standard-draw", 3, {}),
        ("all-fives", 4, {"partners": True, "muggins_calls": True}),
        ("dominorules-block", 2, {}),
    ]:
        logs = []
        for _ in range(2):
            game = Game(rules_for(case, 60), "same-seed", random.Random(99), thorough=False)
            game.play_out()
            logs.append(json.dumps([e.to_dict() for e in game.log]))
        assert logs[0] == logs[1]
        other = Game(rules_for(case, 60), "other-seed", random.Random(99), thorough=False)
        other.play_out()
        assert json.dumps([e.to_dict() for e in other.log]) != logs[0]


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_the_fast_path_finishes_a_match_of_every_rule_set_with_one_winner(case):
    rules = rules_for(case)
    for n in range(3):
        final = random_match(rules, random.Random(n))
        assert final.status == "ended"
        at_target = [s for s, v in enumerate(final.scores) if v >= rules.target]
        assert at_target == [final.winner]


@pytest.mark.slow
@settings(SLOW, max_examples=long_run(1000))
@given(case=st.sampled_from(CASES), rng_seed=st.integers(0, 2**32 - 1))
def test_the_fast_path_finishes_thousands_of_matches(case, rng_seed):
    rules = rules_for(case)
    final = random_match(rules, random.Random(rng_seed))
    assert [s for s, v in enumerate(final.scores) if v >= rules.target] == [final.winner]
