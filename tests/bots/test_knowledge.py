"""``Knowledge.sample`` deals the unseen tiles as likely as the seat's knowledge makes them.

With one seat known to lack some numbers and nothing else known, every consistent deal is
equally likely, so each unseen tile's chance of being in each hidden holder (a hand, or the
tiles out of play) has a closed form; the sampler's frequencies must match it."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter

from api.bots.arena import BotMatch
from api.bots.knowledge import Knowledge, tile_mask
from api.rules import Tile, resolve_rules
from api.rules.layout import Layout

DEALS = 4000
TOLERANCE = 0.035  # about 4 standard errors of one frequency over DEALS deals (p near 0.2..0.5)


def _position_with_one_seat_lacking() -> Knowledge:
    """The first decision of a greedy double-nine-partners match (fixed seed) where exactly one
    other seat is known to lack numbers and no forced lead bars a tile: 15 tiles out of play."""
    rules = resolve_rules("double-nine-partners", {}, 4)
    match = BotMatch(rules, "sampler-frequencies", ["greedy"] * 4)
    while match.live:
        seat = match.state.next_to_act(range(4))
        know = Knowledge.read(*match.inputs(seat))
        lacking = [s for s in know.slots if know.lacks(s)]
        if len(lacking) == 1 and not know.barred and know.boneyard == 15:
            # the knock alone: what the greedy seats' plays rule out (``shed``) is tested apart
            return dataclasses.replace(know, shed={})
        match.step()
    raise AssertionError("the match never reached such a position")


def test_a_knock_in_double_nine_spreads_the_tiles_it_rules_out_evenly_over_the_other_holders():
    know = _position_with_one_seat_lacking()
    (short,) = [s for s in know.slots if know.lacks(s)]
    lacked = 0
    for n in know.lacks(short):
        lacked |= 1 << n
    sizes = {s: len(m) for s, m in know.slots.items()} | {-1: know.boneyard}
    unseen = len(know.unseen)
    assert sum(sizes.values()) == unseen
    fitting = sum(1 for t in know.unseen if not tile_mask(t) & lacked)
    ruled_out = unseen - fitting
    assert ruled_out >= 3  # the position shows something worth sampling right

    rng = random.Random(33)
    seen: Counter = Counter()
    for _ in range(DEALS):
        hands, out_of_play = know.sample(rng)
        for s, hand in hands.items():
            seen.update((t, s) for t in hand)
        seen.update((t, -1) for t in out_of_play)

    others = unseen - sizes[short]  # the slots a ruled-out tile may go to
    for t in know.unseen:
        for holder, size in sizes.items():
            if tile_mask(t) & lacked:
                expected = 0.0 if holder == short else size / others
            elif holder == short:
                expected = size / fitting
            else:  # the short seat took it with chance size/fitting; else it is dealt like the rest
                expected = (1 - sizes[short] / fitting) * size / others
            got = seen[(t, holder)] / DEALS
            assert abs(got - expected) < TOLERANCE, (t, holder, got, expected)


def test_each_deal_is_weighed_by_how_much_dealing_slot_by_slot_underrates_it():
    # Seat 1 lacks 6, seat 2 lacks 5, one hidden tile each, two tiles out of play. The consistent
    # deals (seat 1, seat 2) are (5-2, 6-2), (5-2, 1-0), (1-0, 6-2): a third each, so seat 1 holds
    # 5-2 two times in three. Dealt slot by slot, seat 1 takes 5-2 or 1-0 alike (half the time
    # each), and the weights must restore the two thirds.
    rules = resolve_rules("standard-block", {"partners": True}, 4)
    unseen = [Tile.parse(t) for t in ("1-0", "5-2", "6-2", "6-5")]
    know = Knowledge(rules, {}, 0, [], [], [], {1: [1 << 6], 2: [1 << 5], 3: []}, unseen, 2, Layout(False), [], 0)
    rng = random.Random(5)
    draws = [know.weighed_sample(rng) for _ in range(DEALS)]
    five_two = Tile.parse("5-2")
    dealt = sum(five_two in hands[1] for hands, _, _ in draws) / DEALS
    weighed = sum(w for hands, _, w in draws if five_two in hands[1]) / sum(w for _, _, w in draws)
    assert abs(dealt - 1 / 2) < TOLERANCE
    assert abs(weighed - 2 / 3) < TOLERANCE
    assert all(Tile.parse("6-5") not in hands[1] + hands[2] for hands, _, _ in draws)


def test_a_greedy_seat_that_led_at_will_is_dealt_no_tile_heavier_than_its_lead():
    # double-nine-partners: the winner of a hand leads the next with any tile, and greedy leads its
    # heaviest; here greedy seat 1 leads a later hand with 8-6 (14 pips)
    rules = resolve_rules("double-nine-partners", {}, 4)
    match = BotMatch(rules, "lead0", ["expert", "greedy"] * 2)
    while not (match.state.hand_number > 1 and match.state.layout.tiles == 1 and match.state.leader == 1):
        match.step()
    know = Knowledge.read(*match.inputs(0))
    assert know.played == [Tile.parse("8-6")]
    heavier = {Tile.parse(t) for t in ("9-9", "9-8", "9-7", "8-8", "9-6", "8-7", "7-7")}  # 7-7: a double of 14
    assert {t for t in rules.set.tiles if know.led[1] >> t.index & 1} == heavier
    assert know.shed == {1: 0, 3: 0}  # no play of theirs yet: only the lead says anything
    assert not heavier & set(match.state.hands[1])  # true of the real hand
    reading = dataclasses.replace(know, shed=know.led)  # as the expert deals under ``Budget.lead_reading``
    rng = random.Random(3)
    dealt: set[Tile] = set()
    for _ in range(300):
        hands, _boneyard = reading.sample(rng)
        dealt |= set(hands[1])
    assert not dealt & heavier
    unread: set[Tile] = set()
    for _ in range(300):
        hands, _boneyard = know.sample(rng)
        unread |= set(hands[1])
    assert unread & heavier  # without the lead read, the same seat gets some of them
