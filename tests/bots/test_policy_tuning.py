"""bench/policy_tuning.py: the seat policy played alone against greedy sides is exactly the policy."""

from __future__ import annotations

import dataclasses
import random

import pytest

from api.bots import DOUBLE_NINE_BUDGET
from api.bots.endgame import SetBits
from api.bots.honest import SHIPPED, HonestRollout, SeatPolicy, seat_policy
from api.rules import resolve_rules
from api.rules.tiles import Tile
from bench import policy_tuning

RULES = resolve_rules("double-nine-partners", {}, 4)
NINE = SetBits.of(RULES.set)


def test_the_policy_side_plays_its_own_dealt_tiles_each_as_the_seat_policy_picks_them(monkeypatch):
    weights = dataclasses.replace(SHIPPED, unseen_fit=-4)  # a feature that reads the table as well
    hands, leader, seed = next(policy_tuning.deals(3, 1))
    calls: list[tuple[int, int, int, int, list[int], int, tuple[int, bool]]] = []
    real = HonestRollout.policy

    def recorded(self, hand, seat, a, b, lacks, played=0, rng=None):
        choice = real(self, hand, seat, a, b, lacks, played, rng)
        calls.append((hand, seat, a, b, lacks[:], played, choice))
        return choice

    monkeypatch.setattr(HonestRollout, "policy", recorded)
    side = RULES.side_of(leader)  # the policy side leads: its first play is the lead, heaviest first
    winner, _blocked = policy_tuning.PolicySide(weights, side).play(hands, leader, seed)
    assert winner in (0, 1, None)
    assert calls and {RULES.side_of(seat) for _h, seat, *_rest in calls} == {side}  # greedy's seats never asked

    # a fresh policy of the same weights, asked the same, picks the same; each seat's hand is what it
    # was dealt less what it played before; what it sees as played is the lead and every tile placed
    # since, never a tile the side still holds
    fresh = HonestRollout(policy_tuning.PolicySide(weights, side).line, frozenset(), [0] * 4, weights=weights)
    lead = hands[leader] & -hands[leader]
    left = hands[:]
    left[leader] ^= lead
    placed = lead
    for hand, seat, a, b, lacks, played, (bit, on_a) in calls:
        assert real(fresh, hand, seat, a, b, lacks, played) == (bit, on_a)  # (the class's is recorded)
        assert hand == left[seat]
        assert played & lead and played & placed == placed
        assert not played & (left[seat] | left[(seat + 2) % 4])  # the side's own tiles: none is on the table
        left[seat] ^= bit
        placed |= bit


def test_the_shipped_policy_alone_is_measured_on_both_sides_of_each_deal():
    tally = policy_tuning.measure(SHIPPED, 0, 30)
    assert 0 < tally.decided <= 60  # each deal twice; a tied block decides nothing
    assert tally.won == sum(
        1
        for hands, leader, seed in policy_tuning.deals(0, 30)
        for side in (0, 1)
        if policy_tuning.PolicySide(SHIPPED, side).play(hands, leader, seed)[0] == side
    )
    greedy_like = policy_tuning.measure(SeatPolicy(double=0, next_knocks=0, partner_knocks=0, follow=0), 0, 30)
    assert greedy_like.won != tally.won or greedy_like.blocked != tally.blocked


def test_a_budget_names_its_seat_policy_and_the_weights_it_changes():
    assert seat_policy(DOUBLE_NINE_BUDGET.seat_policy) == SHIPPED  # the expert plays the shipped policy
    assert seat_policy("shipped+unseen_fit:-4+double:10") == dataclasses.replace(SHIPPED, unseen_fit=-4, double=10)
    with pytest.raises(ValueError, match="no seat policy 'strongest'"):
        seat_policy("strongest")
    with pytest.raises(ValueError, match="no seat policy weight 'tempo'"):
        seat_policy("shipped+tempo:3")


def test_with_unseen_fit_the_policy_leaves_the_ends_fewer_unseen_tiles_fit():
    def chosen(weights: SeatPolicy) -> Tile:
        rollout = HonestRollout(policy_tuning.PolicySide(weights, 0).line, frozenset({1, 3}), [0] * 4, weights=weights)
        hand = NINE.mask_of([Tile(9, 5), Tile(9, 4)])
        # on the table: every 4 but the 4-0 and the 9-4 (and whatever made the ends 9 and 0)
        played = NINE.mask_of([Tile(4, n) for n in range(1, 9)])
        bit, on_a = rollout.policy(hand, 0, 9, 0, [0] * 4, played)
        assert on_a  # on the 9
        return NINE.by_weight[bit.bit_length() - 1]

    assert chosen(SHIPPED) == Tile(9, 5)  # the heavier: ends 5 and 0 left
    # ends 4 and 0 left: 10 tiles not seen fit them (17 fit 5 and 0), worth 2 pips less shed
    assert chosen(seat_policy("shipped+unseen_fit:-2")) == Tile(9, 4)


def test_a_random_share_of_the_policys_plays_is_drawn_from_the_rollouts_randomness():
    hand = NINE.mask_of([Tile(9, 5), Tile(9, 4), Tile(0, 0), Tile(3, 1)])
    ends = (9, 0)  # 9-5 or 9-4 on the 9, 0-0 on the 0; 3-1 does not fit

    def play(weights: SeatPolicy, rng: random.Random | None) -> Tile:
        rollout = HonestRollout(policy_tuning.PolicySide(weights, 0).line, frozenset({1, 3}), [0] * 4, weights=weights)
        bit, _on_a = rollout.policy(hand, 0, *ends, [0] * 4, 0, rng)
        return NINE.by_weight[bit.bit_length() - 1]

    rng = random.Random(7)
    state = rng.getstate()
    assert {play(SHIPPED, rng) for _ in range(20)} == {Tile(9, 5)}  # the heaviest
    assert rng.getstate() == state  # the shipped policy draws nothing: its rollouts' greedy ties are as before
    half = SeatPolicy(random=50)
    assert {play(half, None) for _ in range(5)} == {Tile(9, 5)}  # no randomness given: its best
    drawn = [play(half, random.Random(k)) for k in range(200)]
    assert set(drawn) == {Tile(9, 5), Tile(9, 4), Tile(0, 0)}
    assert 100 <= drawn.count(Tile(9, 5)) <= 160  # half its best, and a third of the other half: about 133 (121)
