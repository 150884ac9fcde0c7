"""``Knowledge.uniform_sample`` (``api.bots.uniform``) draws every consistent deal alike, and counts
them exactly; ``Knowledge.sample``, dealing slot by slot, does not draw them alike."""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections import Counter

from api.bots.arena import BotMatch, next_actor
from api.bots.expert import DOUBLE_NINE_BUDGET, _likelihood, _next_deal
from api.bots.knowledge import Choice, Knowledge, index_mask, lean_powers, signal_powers, tile_mask
from api.bots.uniform import UniformDeals
from api.rules import Tile, resolve_rules
from api.rules.layout import Layout

Deal = tuple[frozenset[Tile], ...]


def _small() -> Knowledge:
    """Eight unseen tiles of a double-six partners game: seat 1 (two tiles) lacks 6, seat 2 (two
    tiles) lacks 5, seat 3 (one tile) is a greedy seat whose plays ruled out 6-6 and 6-5, and 4-0 is
    barred to every seat by a forced lead; three tiles are out of play."""
    rules = resolve_rules("standard-block", {"partners": True}, 4)
    unseen = [Tile.parse(t) for t in ("1-0", "4-0", "5-2", "6-2", "4-3", "6-5", "6-6", "5-5")]
    slots = {1: [1 << 6] * 2, 2: [1 << 5] * 2, 3: [0]}
    barred = index_mask([Tile.parse("4-0")])
    shed = {3: index_mask([Tile.parse("6-6"), Tile.parse("6-5")])}
    return Knowledge(rules, {}, 0, [], [], [], slots, unseen, 3, Layout(False), [], barred, shed)


def _consistent(know: Knowledge) -> list[Deal]:
    """Every deal of the unseen tiles that fits what ``know`` knows, by brute force."""
    seats = sorted(know.slots)
    out = []
    for order in itertools.permutations(know.unseen):
        deal, at, ok = [], 0, True
        for s in seats:
            n = len(know.slots[s])
            hand = order[at : at + n]
            at += n
            bar = know.barred | know.shed.get(s, 0)
            if any(tile_mask(t) & know.slots[s][0] or bar >> t.index & 1 for t in hand):
                ok = False
                break
            deal.append(frozenset(hand))
        if ok:
            out.append((*deal, frozenset(order[at:])))
    return sorted(set(out), key=lambda d: [sorted(t.index for t in part) for part in d])


def _key(know: Knowledge, hands: dict[int, list[Tile]], boneyard: list[Tile]) -> Deal:
    return (*(frozenset(hands[s]) for s in sorted(know.slots)), frozenset(boneyard))


def _chi_square(counts: Counter[Deal], deals: list[Deal], draws: int) -> float:
    expected = draws / len(deals)
    assert set(counts) <= set(deals)  # never an inconsistent deal
    return sum((counts[d] - expected) ** 2 / expected for d in deals)


DRAWS = 12_000


def test_the_exact_sampler_counts_the_consistent_deals_and_draws_each_alike():
    know = _small()
    deals = _consistent(know)
    assert len(deals) == 31  # few enough to see each often, enough to be uneven slot by slot
    sampler = know._uniform
    assert sampler is not None and sampler.count == len(deals)
    rng = random.Random(6)
    uniform = Counter(_key(know, *know.uniform_sample(rng) or ({}, [])) for _ in range(DRAWS))
    slotwise = Counter(_key(know, *know.sample(rng)) for _ in range(DRAWS))
    # chi-square with 30 degrees of freedom: 59.7 is its 0.1% tail (uniform draws: 22 here)
    assert _chi_square(uniform, deals, DRAWS) < 59.7
    assert set(uniform) == set(deals)
    # slot by slot, some deals come up several times as often as others (chi-square about 3,500)
    assert _chi_square(slotwise, deals, DRAWS) > 500
    assert max(slotwise.values()) > 3 * min(slotwise[d] for d in deals)


def test_the_three_deal_example_comes_out_a_third_each_not_half_a_quarter_a_quarter():
    # (the example of ``test_knowledge``): seat 1 lacks 6, seat 2 lacks 5, one tile each; the
    # consistent deals (seat 1, seat 2) are (5-2, 6-2), (5-2, 1-0), (1-0, 6-2)
    rules = resolve_rules("standard-block", {"partners": True}, 4)
    unseen = [Tile.parse(t) for t in ("1-0", "5-2", "6-2", "6-5")]
    know = Knowledge(rules, {}, 0, [], [], [], {1: [1 << 6], 2: [1 << 5], 3: []}, unseen, 2, Layout(False), [], 0)
    rng = random.Random(7)
    seen = Counter()
    for _ in range(3000):
        hands, _boneyard = know.uniform_sample(rng) or ({}, [])
        seen[(str(hands[1][0]), str(hands[2][0]))] += 1
    assert set(seen) == {("5-2", "6-2"), ("5-2", "1-0"), ("1-0", "6-2")}
    assert all(abs(n / 3000 - 1 / 3) < 0.035 for n in seen.values()), seen
    old = Counter()
    for _ in range(3000):
        hands, _boneyard = know.sample(rng)
        old[(str(hands[1][0]), str(hands[2][0]))] += 1
    assert abs(old[("1-0", "6-2")] / 3000 - 1 / 2) < 0.035


def test_counts_match_the_closed_form_without_constraints():
    tiles = resolve_rules("double-nine-partners", {}, 4).set.tiles[:20]
    free = set(tiles)
    deals = UniformDeals([1, 2, 3], [4, 5, 6], [free, free, free], list(tiles))
    # 20! / (4! 5! 6! 5!)
    assert deals.count == 9_777_287_520
    nobody = UniformDeals([1, 2], [1, 1], [set(tiles[:1]), set(tiles[:1])], list(tiles))
    assert nobody.count == 0  # two seats, one tile either may hold


def test_seats_whose_slots_differ_fall_back_to_the_slot_by_slot_sampler():
    know = dataclasses.replace(_small(), slots={1: [1 << 6, 0], 2: [1 << 5 | 1 << 4], 3: [0, 0]})
    assert know.uniform_sample(random.Random(1)) is None  # a draw split seat 1's slots


def test_in_double_nine_every_exact_deal_keeps_every_constraint_and_deals_every_unseen_tile():
    rules = resolve_rules("double-nine-partners", {}, 4)
    match = BotMatch(rules, "uniform", ["expert", "greedy"] * 2)
    checked = 0
    while match.live and checked < 12:
        seat = match.state.next_to_act(range(4))
        if seat == 0 and match.state.layout.tiles > 0:
            view, log = match.inputs(0)
            know = Knowledge.read(view, log)
            rng = random.Random(checked)
            for _ in range(20):
                hands, boneyard = know.uniform_sample(rng) or ({}, [])
                assert sorted(t.index for h in [*hands.values(), boneyard] for t in h) == sorted(
                    t.index for t in know.unseen
                )
                for s, hand in hands.items():
                    assert len(hand) == len(know.slots[s])
                    bar = know.barred | know.shed.get(s, 0)
                    assert not any(tile_mask(t) & know.slots[s][0] or bar >> t.index & 1 for t in hand)
                    assert not set(hand) & set(match.state.hands[0])
            checked += 1
        match.step()
    assert checked == 12


def _tied_position() -> Knowledge:
    """Double-nine: greedy seat 1 played 9-3 on a line showing 9 and 5, with 7-5 (as heavy, and
    fitting the 5) unseen; one hidden tile each for seats 1 and 2, one for seat 3, two out of play."""
    rules = resolve_rules("double-nine-partners", {}, 4)
    nine_three = Tile.parse("9-3")
    ends = 1 << 9 | 1 << 5
    fits = index_mask([t for t in rules.set.tiles if tile_mask(t) & ends])
    choice = Choice(1, nine_three.index, fits, 1 << nine_three.index, ends)
    unseen = [Tile.parse(t) for t in ("7-5", "2-0", "4-1", "3-3", "8-8")]
    slots = {1: [0], 2: [0], 3: [0]}
    return Knowledge(rules, {}, 0, [], [], [], slots, unseen, 2, Layout(False), [choice], 0, {1: 0})


def test_a_greedy_seat_that_held_a_play_as_heavy_as_its_own_made_its_play_half_as_likely():
    know = _tied_position()
    seven_five, two_nil = Tile.parse("7-5"), Tile.parse("2-0")
    assert know.tie_odds({1: [seven_five]}) == 0.5  # one play each: it picked 9-3 at even odds
    assert know.tie_odds({1: [two_nil]}) == 1.0
    assert know.tie_odds({2: [seven_five], 1: [two_nil]}) == 1.0  # another seat's tile says nothing
    # not read as greedy: no factor
    assert dataclasses.replace(know, shed={}).tie_odds({1: [seven_five]}) == 1.0


def test_with_greedy_ties_deals_come_as_likely_as_the_greedy_plays_make_them():
    know = _tied_position()
    seven_five = Tile.parse("7-5")
    deals = _consistent(know)
    weights = {d: know.tie_odds({1: list(d[0])}) for d in deals}
    truth = sum(w for d, w in weights.items() if seven_five in d[0]) / sum(weights.values())
    assert abs(truth - 1 / 9) < 1e-9  # 1/2 of the uniform 1/5, against 4/5 for the others: (1/10) / (9/10)
    rng = random.Random(11)
    held = sum(seven_five in _next_deal(know, None, rng, True, True)[0][1] for _ in range(DRAWS)) / DRAWS
    plain = sum(seven_five in _next_deal(know, None, rng, True, False)[0][1] for _ in range(DRAWS)) / DRAWS
    assert abs(held - truth) < 0.015  # about 5 standard errors over DRAWS deals
    assert abs(plain - 1 / 5) < 0.015


def test_partner_lean_reads_the_partner_as_leaning_or_not_instead_of_by_the_convention():
    rules = resolve_rules("double-nine-partners", {}, 4)
    match = BotMatch(rules, "partner-lean", ["expert", "greedy"] * 2)
    while True:
        know = Knowledge.read(*match.inputs(0))
        if next_actor(match.state) == 0 and any(c.seat == 2 for c in know.choices):
            break
        match.step()
    budget = dataclasses.replace(DOUBLE_NINE_BUDGET, exact_deals=True, importance=True)
    leaning = dataclasses.replace(budget, partner_lean=True)
    powers = lean_powers(budget.lean)
    rng = random.Random(3)
    differ = 0
    for _ in range(20):
        hands, _boneyard = know.uniform_sample(rng) or ({}, [])
        convention = know.likelihood(
            hands, powers, budget.stray, signaller=2, signal_powers=signal_powers(budget.signal_lean)
        )
        assert _likelihood(know, hands, budget) == convention
        assert _likelihood(know, hands, leaning) == know.likelihood(hands, powers, budget.stray)
        differ += _likelihood(know, hands, leaning) != convention
    assert differ  # the two readings of the partner weigh some deals differently
