"""The expert's exact search (api/bots/endgame.py) against the engine itself.

Every value the search gives must be the minimax value of the same position played move by
move through the engine (``simulate.push``) and scored by the engine (``expert._value``,
the playouts' own scoring), whatever the player count, the partnerships or the scoring
options; its limit must stop it; its greedy playout must end hands as the rules say.
"""

from __future__ import annotations

import random

import pytest

from api.bots.endgame import BY_WEIGHT, SHOWS, ExactLine, SearchTooBig, mask_of, pips_of
from api.bots.expert import Budget, _exact_line, _value
from api.rules import resolve_rules
from api.rules.layout import LEFT, RIGHT
from api.rules.ruleset import RuleSet
from api.rules.scoring import HandScoring
from api.rules.simulate import push
from api.rules.state import PLAY, PLAYING, MatchState
from api.rules.tiles import ALL_TILES

BONUS = 7.5  # a match bonus that is not a whole number, so it cannot hide in the points


def position(rules: RuleSet, rng: random.Random, left: int, scores: list[int]) -> MatchState | None:
    """A hand dealt at random and played at random until ``left`` tiles are left in the hands."""
    st = MatchState(rules, [{"name": str(i), "type": "bot", "level": "random"} for i in range(rules.players)])
    tiles = list(ALL_TILES)
    rng.shuffle(tiles)
    size = rules.hand_size
    hands = [tiles[i * size : (i + 1) * size] for i in range(rules.players)]
    st.on_hand_started(1, 0, hands, tiles[rules.players * size :])
    st.status = PLAYING
    st.scores = list(scores)
    while st.hand_live and sum(map(len, st.hands)) > left:
        push(st, rng.choice(st.legal_moves()))
    return st if st.hand_live and st.layout.tiles else None


def minimax(st: MatchState, side: int, before: list[int], greedy: frozenset[int] = frozenset()) -> float:
    """The engine's minimax value; a ``greedy`` seat only chooses among its heaviest fitting tiles
    (pips, then a double first: ``simple.choose_greedy``'s key) and the ends they fit."""
    if not (st.hand_live and st.status == PLAYING):
        return _value(st, before, side, BONUS)
    moves = st.legal_moves()
    if st.turn in greedy and moves[0][0] == PLAY:
        heaviest = max((m[1].pips, m[1].is_double) for m in moves)
        moves = [m for m in moves if (m[1].pips, m[1].is_double) == heaviest]
    values = []
    for move in moves:
        child = st.copy()
        push(child, move)
        values.append(minimax(child, side, before, greedy))
    return max(values) if st.rules.side_of(st.turn) == side else min(values)  # type: ignore[arg-type]


ALL_HANDS = {"hand_points": "all_hands", "blocked_scoring": "others"}

CASES = [
    pytest.param("standard-block", {"partners": True, "hand_size": 7}, 4, 9, [0, 0], id="partners"),
    pytest.param("standard-block", {}, 2, 8, [0, 0], id="two"),
    pytest.param("standard-block", {"blocked_scoring": "others"}, 3, 8, [0, 0, 0], id="three-paranoid"),
    pytest.param("standard-block", {"round_to_five": True}, 2, 8, [0, 0], id="rounded"),
    # the match ends in most lines: the bonus decides
    pytest.param("standard-block", {"partners": True, "hand_size": 7, "target": 20}, 4, 9, [15, 12], id="near-target"),
    # double-nine-partners' hand scoring: going out, or the lighter side when blocked, scores every hand
    pytest.param("standard-block", {**ALL_HANDS, "partners": True, "hand_size": 7}, 4, 9, [0, 0], id="all-hands"),
    # points past an exact target are lost, and reaching it exactly ends the match
    pytest.param(
        "standard-block",
        {**ALL_HANDS, "partners": True, "hand_size": 7, "target": 20, "exact_target": True},
        4,
        9,
        [15, 12],
        id="all-hands-exact-target",
    ),
]

# blocked_scoring others_minus_own, not rounded (the standard games' hand scoring)
MINUS_OWN = HandScoring(pips_counted=True, all_hands=False, minus_own=True, rounded=False, out_bonus=0)


@pytest.mark.parametrize(("preset", "options", "players", "left", "scores"), CASES)
def test_the_search_gives_the_engines_minimax_value(preset, options, players, left, scores):
    rules = resolve_rules(preset, options, players)
    rng = random.Random(f"endgame:{preset}:{options}:{players}")
    checked = 0
    while checked < 25:
        st = position(rules, rng, left, scores)
        if st is None:
            continue
        me = st.turn
        assert me is not None
        side = rules.side_of(me)
        sides = [rules.side_of(s) for s in range(players)]
        line = ExactLine(
            sides, me, st.scores[:], rules.target, BONUS, rules.hand_scoring, 10**6, rules.set, rules.exact_target
        )
        got = line.solve([mask_of(h) for h in st.hands], st.layout.values[LEFT], st.layout.values[RIGHT], me)  # type: ignore[arg-type]
        assert got == minimax(st, side, st.scores[:])
        checked += 1


@pytest.mark.parametrize(("preset", "options", "players", "left", "scores"), CASES[:2] + CASES[5:6])
def test_a_greedy_seat_is_searched_as_shedding_its_heaviest_tile(preset, options, players, left, scores):
    # the seats after the searching one are greedy bots: the search must give the engine's value of
    # the hand with them playing that way, which is not what playing against them perfectly gives
    rules = resolve_rules(preset, options, players)
    rng = random.Random(f"greedy-endgame:{preset}:{options}:{players}")
    checked = differ = 0
    while checked < 25:
        st = position(rules, rng, left, scores)
        if st is None:
            continue
        me = st.turn
        assert me is not None
        side = rules.side_of(me)
        sides = [rules.side_of(s) for s in range(players)]
        greedy = frozenset(s for s in range(players) if sides[s] != side)
        args = (sides, me, st.scores[:], rules.target, BONUS, rules.hand_scoring, 10**6, rules.set, rules.exact_target)
        hands = [mask_of(h) for h in st.hands]
        a, b = st.layout.values[LEFT], st.layout.values[RIGHT]
        got = ExactLine(*args, greedy_seats=greedy).solve(hands, a, b, me)  # type: ignore[arg-type]
        assert got == minimax(st, side, st.scores[:], greedy)
        differ += got != ExactLine(*args).solve(hands, a, b, me)  # type: ignore[arg-type]
        checked += 1
    assert differ >= 3  # the model matters: against greedy seats the lines are worth more


def test_a_solve_past_its_limit_stops_and_the_table_keeps_only_true_values():
    rules = resolve_rules("standard-block", {"partners": True, "hand_size": 7}, 4)
    st = position(rules, random.Random(3), 20, [0, 0])
    assert st is not None and st.turn is not None
    hands = [mask_of(h) for h in st.hands]
    a, b = st.layout.values[LEFT], st.layout.values[RIGHT]
    args = ([0, 1, 0, 1], st.turn, [0, 0], 100, 50.0, MINUS_OWN)
    whole = ExactLine(*args, limit=10**7)
    truth = whole.solve(hands, a, b, st.turn)  # type: ignore[arg-type]
    assert whole.visited > 200
    small = ExactLine(*args, limit=200)
    with pytest.raises(SearchTooBig):
        small.solve(hands, a, b, st.turn)  # type: ignore[arg-type]
    assert small.visited == 201  # counted, not timed: the same on every machine
    small.limit = 10**7
    assert small.solve(hands, a, b, st.turn) == truth  # type: ignore[arg-type]


def test_the_greedy_playout_sheds_the_heaviest_fitting_tile_and_ends_as_the_rules_say():
    # two players, no randomness: 6-6 is played (heaviest) on the 6, then the 6-5 on the 6, ...
    line = ExactLine([0, 1], 0, [0, 0], 100, 50.0, MINUS_OWN, 10**6)
    tiles = {str(t): t for t in ALL_TILES}
    mine = mask_of([tiles["6-6"], tiles["6-5"], tiles["1-0"]])
    theirs = mask_of([tiles["4-4"]])
    # on 6 | 3: I play 6-6 (still 6 | 3), they cannot (4-4), I play 6-5 (5 | 3), blocked with my 1-0 left
    value = line.playout([mine, theirs], 6, 3, 0, random.Random(0), 0.0, exact_tiles=0)
    assert value == 8 - 1  # blocked: I am lighter (1 vs 8) and score their 8 less my own 1
    assert BY_WEIGHT[0] == tiles["6-6"] and pips_of(mine) == 24
    assert SHOWS[4] & theirs == theirs


def test_the_solver_is_only_for_line_games_without_points_during_play():
    budget = Budget()
    block = resolve_rules("standard-block", {}, 2)
    assert _exact_line(block, 0, [0, 0], 50.0, budget) is not None
    assert _exact_line(resolve_rules("all-fives", {}, 2), 0, [0, 0], 50.0, budget) is None
    assert _exact_line(block, 0, [0, 0], 50.0, Budget(exact_tiles=0)) is None
    line = _exact_line(block, 0, [0, 0], 50.0, budget, frozenset({1}))
    assert line is not None and line.greedy == (False, True)  # the greedy seats it is told of
