"""The greedy level: biggest score first (fives games), then the heaviest tile, doubles on ties."""

from __future__ import annotations

from api.bots import LEVELS, choose_action
from tests.bots.support import Position


def greedy(position: Position, seat: int, seed: str = "g") -> dict:
    view, log = position.seen_by(seat)
    return choose_action("greedy", view, log, seed)


def test_greedy_sheds_the_heaviest_playable_tile():
    p = Position(["6-6 1-0 2-0", "6-1 6-5 6-4 3-2"]).play(0, "6-6")
    for seed in ("a", "b", "c", "d"):
        assert greedy(p, 1, seed)["tile"] == [6, 5]


def test_greedy_prefers_a_double_among_equally_heavy_tiles():
    p = Position(["6-4 1-0 2-0", "6-2 4-4 3-1"]).play(0, "6-4")
    for seed in ("a", "b", "c", "d"):
        assert greedy(p, 1, seed) == {"type": "play", "tile": [4, 4], "end": "right"}


def test_greedy_takes_the_biggest_score_before_the_heaviest_tile():
    # Muggins (no spinner): 6-6 leads; 6-3 makes 3 + 12 = 15, the heavier 6-5 makes 17.
    p = Position(["6-6 1-0 2-0", "6-5 6-3 1-1"], preset="muggins").play(0, "6-6")
    action = greedy(p, 1)
    assert action["tile"] == [6, 3] and action["scores"] == 15
    p.act(1, action)
    assert p.state.scores == [0, 15]


def test_greedy_claims_its_points_under_muggins_calls():
    p = Position(["6-6 1-0 2-0", "6-5 6-3 1-1"], preset="muggins", options={"muggins_calls": True})
    p.play(0, "6-6")
    action = greedy(p, 1)
    assert action["tile"] == [6, 3] and action["claim"] == action["scores"] == 15
    assert action["end"] in ("left", "right") and action in p.seen_by(1)[0]["legal_actions"]
    p.act(1, action)
    assert p.state.scores == [0, 15] and p.state.pending_muggins is None


def test_greedy_and_expert_call_muggins_when_it_is_listed():
    # 5-5 leads without a claim: 10 points lie on the table for the opponent to take.
    p = Position(["5-5 1-0 2-0", "5-4 6-6 1-1"], preset="all-fives", options={"muggins_calls": True})
    p.play(0, "5-5")
    view, log = p.seen_by(1)
    assert {"type": "muggins", "scores": 10} in view["legal_actions"]
    for level in ("greedy", "expert"):
        assert choose_action(level, view, log, "m") == {"type": "muggins", "scores": 10}
    assert choose_action("random", view, log, "m") in view["legal_actions"]
    p.act(1, {"type": "muggins", "scores": 10})
    assert p.state.scores == [0, 10]


def test_with_nothing_to_play_every_level_draws_or_knocks():
    p = Position(["6-6 1-0 2-0", "5-4 3-2 1-1"], boneyard="4-0 6-2").play(0, "6-6")
    view, log = p.seen_by(1)
    for level in ("greedy", "expert"):
        assert choose_action(level, view, log, "d") == {"type": "draw", "until": "playable"}
    assert choose_action("random", view, log, "d")["type"] == "draw"
    block = Position(["6-6 6-1 2-0", "5-4 3-2 1-1"], preset="standard-block").play(0, "6-6")
    view, log = block.seen_by(1)
    for level in LEVELS:
        assert choose_action(level, view, log, "k") == {"type": "knock"}
