"""Honest rollouts (api/bots/honest.py, ``Budget.honest``): hands played out on a guessed deal with
every seat playing only on what it could know, greedy bots as greedy plays."""

from __future__ import annotations

import dataclasses
import random

import pytest

from api.bots import Budget, choose_action
from api.bots.arena import BotMatch
from api.bots.endgame import ExactLine, SetBits
from api.bots.honest import HonestRollout
from api.rules import Tile, resolve_rules
from api.rules.tiles import TileSet

NINE = SetBits.of(TileSet.DOUBLE_9)
RULES = resolve_rules("double-nine-partners", {}, 4)


def masks(*hands: str) -> list[int]:
    return [NINE.mask_of([Tile.parse(t) for t in hand.split()]) for hand in hands]


def rollout(greedy: frozenset[int] = frozenset({1, 3}), lacks: list[int] | None = None) -> HonestRollout:
    line = ExactLine(
        [0, 1, 0, 1], 0, [0, 0], RULES.target, 0.0, RULES.hand_scoring, 20_000, RULES.set, RULES.exact_target
    )
    return HonestRollout(line, greedy, lacks or [0, 0, 0, 0])


def test_greedy_seats_shed_their_heaviest_fitting_tile_and_the_hand_is_valued_as_the_search_values_it():
    # Ends 9 and 1, seat 1 (greedy) to play: 9-8, its heaviest that fits (9-0 is lighter); seat 2
    # has nothing on 8 or 1 and knocks; seat 3 (greedy) plays 8-8 rather than the lighter 1-1;
    # seat 0 goes out with 8-2.
    hands = masks("8-2", "9-8 9-0 3-3", "7-7 6-6", "8-8 1-1 4-4")
    honest = rollout()
    value = honest.play(hands, 9, 1, 1, random.Random(1))
    assert value == honest.line.ended(masks("", "9-0 3-3", "7-7 6-6", "1-1 4-4"), 0)
    assert value > 0  # seat 0's side went out
    assert hands == masks("8-2", "9-8 9-0 3-3", "7-7 6-6", "8-8 1-1 4-4")  # its input untouched


def test_a_blocked_hand_goes_to_the_lighter_side():
    hands = masks("5-5", "9-9", "6-6", "8-8")  # nothing fits 0 or 1: blocked at once
    honest = rollout()
    value = honest.play(hands, 0, 1, 0, random.Random(1))
    assert value == honest.line.ended(hands, None)
    assert value > 0  # 10 + 12 pips against 18 + 16


def played(honest: HonestRollout, hand: str, lacks: list[int]) -> tuple[Tile, bool]:
    """The seat policy's play for seat 0 on ends 5 and 2: the tile, and whether it goes on the 5."""
    bit, on_five = honest.policy(masks(hand)[0], 0, 5, 2, lacks)
    return NINE.by_weight[bit.bit_length() - 1], on_five


def numbers(*ns: int) -> int:
    return sum(1 << n for n in ns)


def test_the_seat_policy_sheds_weight_but_leaves_numbers_the_next_seat_lacks_and_not_those_the_partner_lacks():
    hand = "5-3 2-4 3-0 4-0"  # 5-3 (8 pips) leaves 3 and 2 open, 2-4 (6 pips) leaves 5 and 4
    honest = rollout()
    assert played(honest, hand, [0, 0, 0, 0]) == (Tile.parse("5-3"), True)
    assert played(honest, hand, [0, numbers(5, 4), 0, 0]) == (Tile.parse("2-4"), False)  # the next seat knocks
    assert played(honest, hand, [0, 0, numbers(3, 2), 0]) == (Tile.parse("2-4"), False)  # the partner would
    assert played(honest, hand, [0, 0, 0, numbers(5, 4)]) == (Tile.parse("5-3"), True)  # the seat after: no matter


def test_the_honest_expert_plays_its_side_out_without_sight_and_decides_the_same_way_twice(monkeypatch):
    match = BotMatch(RULES, "honest", ["expert", "greedy"] * 2)
    while True:  # on to a choice of seat 0's
        view, log = match.inputs(0)
        if match.state.turn == 0 and len(view["legal_actions"]) > 1:
            break
        match.step()
    budget = Budget(honest=True, greedy_reading=True)
    rollouts: list[int] = []
    real = HonestRollout.play

    def counted(self, *args, **kwargs):
        rollouts.append(1)
        return real(self, *args, **kwargs)

    def no_sight(*args):
        raise AssertionError("an honest rollout never solves a guessed deal exactly")

    monkeypatch.setattr(HonestRollout, "play", counted)
    monkeypatch.setattr(ExactLine, "solve", no_sight)
    first = choose_action("expert", view, log, "s", budget)
    assert rollouts  # its candidates were played out honestly
    assert choose_action("expert", view, log, "s", budget) == first
    with pytest.raises(AssertionError, match="never solves"):
        choose_action("expert", view, log, "s", Budget())  # the shipped expert solves its endings


def test_the_expert_plays_double_nine_by_honest_rollouts_and_double_six_as_before():
    from api.bots import DEFAULT_BUDGET, DOUBLE_NINE_BUDGET, level_budget

    assert level_budget("expert", TileSet.DOUBLE_9) == DOUBLE_NINE_BUDGET
    assert DOUBLE_NINE_BUDGET.honest and not DEFAULT_BUDGET.honest
    assert level_budget("expert", TileSet.DOUBLE_6) == DEFAULT_BUDGET
    assert level_budget("intermediate", TileSet.DOUBLE_9) == level_budget("intermediate", TileSet.DOUBLE_6)


def test_a_hand_the_expert_leads_at_will_is_played_out_honestly_from_each_tile(monkeypatch):
    # double-nine-partners: the winner of a hand leads the next with any tile
    match = BotMatch(RULES, "honest-lead", ["expert", "greedy"] * 2)
    while True:
        seat = match.state.turn
        view, log = match.inputs(seat)
        if seat in (0, 2) and not view["line"] and len(view["legal_actions"]) > 1:
            break
        match.step()
    starts: list[tuple[int, int]] = []
    real = HonestRollout.play

    def watched(self, hands, a, b, turn, rng, **kwargs):
        starts.append((a, b))
        return real(self, hands, a, b, turn, rng, **kwargs)

    monkeypatch.setattr(HonestRollout, "play", watched)
    choose_action("expert", view, log, "s")  # the level's own budget: DOUBLE_NINE_BUDGET
    hand = [Tile.from_json(t) for t in view["hand"]]
    assert {(a, b) for a, b in starts} == {(t.high, t.low) for t in hand}  # every tile led, both ends open


def searching(explore: float = 20.0, widen: float = 2.0) -> HonestRollout:
    """Seat 0's side's rollouts with seat 0's own later decisions searched (``Budget.ismcts``)."""
    line = ExactLine(
        [0, 1, 0, 1], 0, [0, 0], RULES.target, 0.0, RULES.hand_scoring, 20_000, RULES.set, RULES.exact_target
    )
    return HonestRollout(line, frozenset({1, 3}), [0, 0, 0, 0], 0, explore, widen)


# Seat 0 has just played; ends 1 and 4, greedy seat 1 to move. At seat 0's next turn the policy
# sheds 6-5 (the heaviest) and its side loses the hand; 5-1 instead wins it.
SEARCHED = masks("6-5 4-0 3-3 5-1", "2-1 6-0 5-4", "8-2 8-1 0-0", "9-2 8-7 9-4")


def test_a_searched_playout_adds_one_decision_and_first_plays_it_as_the_policy_would():
    honest = searching()
    tree: dict = {}
    policy_only = honest.play(SEARCHED, 1, 4, 1, random.Random(0))
    assert honest.play(SEARCHED, 1, 4, 1, random.Random(0), tree) == policy_only == -25.0
    (node,) = tree.values()  # seat 0's next decision, keyed by the ends and what it saw played
    assert [(NINE.by_weight[bit.bit_length() - 1], on_a) for bit, on_a in node.moves] == [
        (Tile.parse("6-5"), False),  # the policy's own play first
        (Tile.parse("5-1"), False),
    ]
    assert (node.visits, node.count, node.total) == (1, [1, 0], [-25.0, 0.0])


def test_the_search_finds_the_later_move_the_policy_misses():
    honest = searching()
    tree: dict = {}
    values = [honest.play(SEARCHED, 1, 4, 1, random.Random(i), tree) for i in range(200)]
    (node,) = tree.values()
    means = [t / c for t, c in zip(node.total, node.count)]
    assert means == [-25.0, 51.0]
    assert node.count[1] > 190  # UCB1 settles on 5-1
    assert values[-1] == 51.0  # and the playouts now take it


def test_a_node_seen_a_few_times_plays_as_the_policy_then_opens_its_other_plays():
    from api.bots.honest import Node

    node = Node([(1, True), (2, True), (4, True)])
    assert node.select(explore=0.0, widen=0.5) == 0  # never tried: the policy's play
    node.visits, node.count, node.total = 3, [3, 0, 0], [30.0, 0.0, 0.0]
    assert node.select(explore=0.0, widen=0.5) == 0  # 1 + 0.5 * sqrt(3) < 2: still the policy's only
    node.visits = 4
    assert node.select(explore=0.0, widen=0.5) == 1  # a second play opens, untried: taken
    node.visits, node.count, node.total = 5, [3, 2, 0], [30.0, 40.0, 0.0]
    assert node.select(explore=0.0, widen=0.5) == 1  # the better mean, the third not open yet
    assert node.select(explore=100.0, widen=0.5) == 1  # fewer visits: more to explore as well
    node.count, node.total = [4, 1, 0], [40.0, 5.0, 0.0]
    assert node.select(explore=0.0, widen=0.5) == 0
    assert node.select(explore=100.0, widen=0.5) == 1  # exploration outweighs 10 - 5 points


def test_the_searching_expert_decides_the_same_way_twice_and_searches_only_when_asked(monkeypatch):
    match = BotMatch(RULES, "ismcts", ["expert", "greedy"] * 2)
    while True:  # on to a choice of seat 0's with a few tiles already down
        view, log = match.inputs(0)
        if match.state.turn == 0 and len(view["legal_actions"]) > 1 and len(view["line"]) >= 4:
            break
        match.step()
    from api.bots import DOUBLE_NINE_BUDGET

    trees: list[int] = []
    real = HonestRollout.play

    def watched(self, hands, a, b, turn, rng, tree=None, placed=0):
        trees.append(tree is not None)
        return real(self, hands, a, b, turn, rng, tree, placed)

    monkeypatch.setattr(HonestRollout, "play", watched)
    searched = dataclasses.replace(DOUBLE_NINE_BUDGET, ismcts=True)
    first = choose_action("expert", view, log, "s", searched)
    assert trees and all(trees)
    assert first in view["legal_actions"]
    assert choose_action("expert", view, log, "s", searched) == first
    trees.clear()
    choose_action("expert", view, log, "s", dataclasses.replace(DOUBLE_NINE_BUDGET, ismcts=False))
    assert trees and not any(trees)


def test_under_importance_each_deal_counts_by_the_samplers_correction(monkeypatch):
    from api.bots import DOUBLE_NINE_BUDGET
    from api.bots.actions import plays_of, to_move
    from api.bots.expert import evaluate
    from api.bots.knowledge import Knowledge

    match = BotMatch(RULES, "importance", ["expert", "greedy"] * 2)
    while True:
        view, log = match.inputs(0)
        if match.state.turn == 0 and len(view["legal_actions"]) > 1 and view["line"]:
            break
        match.step()
    know = Knowledge.read(view, log)
    first, _boneyard, _w = know.weighed_sample(random.Random(1))
    second, _boneyard, _w = know.weighed_sample(random.Random(2))
    assert first != second
    deals = [(first, 1.0), (second, 3.0)]  # dealt in turn, the second three times likelier in truth
    dealt: list[int] = []

    def weighed_sample(self, rng):
        hands, weight = deals[len(dealt) % 2]
        dealt.append(1)
        return {s: tiles[:] for s, tiles in hands.items()}, [], weight

    marker = NINE.mask_of(first[1])

    def play(self, hands, a, b, turn, rng, tree=None, placed=0):
        return 10.0 if hands[1] == marker else 50.0  # whatever the move: the deal alone

    monkeypatch.setattr(Knowledge, "weighed_sample", weighed_sample)
    monkeypatch.setattr(HonestRollout, "play", play)
    moves = [to_move(a) for a in plays_of(view["legal_actions"])]
    counted = evaluate(know, moves, random.Random(0), DOUBLE_NINE_BUDGET)
    assert len(dealt) == 32  # every move alike on every deal: settled at the least number of deals
    assert counted == [30.0] * len(moves)  # 16 deals of 10 and 16 of 50
    dealt.clear()
    weighed = evaluate(know, moves, random.Random(0), dataclasses.replace(DOUBLE_NINE_BUDGET, importance=True))
    assert weighed == [40.0] * len(moves)  # (16 * 10 + 3 * 16 * 50) / (16 + 3 * 16)
