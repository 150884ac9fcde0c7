"""The experts' partnership convention (``Budget.signal``): play toward the numbers you hold, and
read an expert partner's plays that way."""

from __future__ import annotations

import dataclasses

import pytest

from api.bots import DEFAULT_BUDGET, choose_action
from api.bots.expert import signalling_partner
from api.bots.knowledge import Knowledge, index_mask, lean_powers, signal_powers, signal_strength
from api.rules.tiles import Tile
from tests.bots.support import Position, tiles

PARTNERS = {"partners": True}


def test_the_signal_counts_the_other_tiles_of_the_hand_that_carry_the_number_left_open():
    hand = index_mask(tiles("6-4 4-1 4-4 2-0"))
    assert signal_strength(hand, Tile.parse("6-4"), 4) == 2  # 4-1 and 4-4; not 6-4 itself
    assert signal_strength(hand, Tile.parse("6-4"), 6) == 0
    assert signal_strength(hand, Tile.parse("2-0"), 0) == 0
    assert signal_powers(2.0) == tuple(2.0**k for k in range(13))  # up to 12 other tiles of a double-twelve hand


def four_seats() -> Position:
    # 6-6 leads; seat 1 answers 6-5 (ends 6 and 5); seat 2, seat 0's partner, plays 5-4 (leaving 4
    # open, with 4-4 still in hand) where 5-1 (leaving 1, with no other 1) also fitted.
    p = Position(
        ["6-6 0-0 1-1", "6-5 2-2 3-3", "5-4 4-4 5-1", "4-3 2-0 3-0"], preset="standard-block", options=PARTNERS
    )
    return p.play(0, "6-6").play(1, "6-5", "right").play(2, "5-4", "right")


def test_an_expert_reads_its_partner_by_the_convention_only_when_the_partner_is_an_expert_bot_too():
    view, log = four_seats().seen_by(0)
    assert signalling_partner(Knowledge.read(view, log)) == 2
    for changed in ({"type": "remote", "level": None}, {"type": "bot", "level": "greedy"}):
        other = {**view, "seats": [dict(s) for s in view["seats"]]}
        other["seats"][2].update(changed)
        assert signalling_partner(Knowledge.read(other, log)) is None
    two = Position(["6-6 1-1", "6-5 2-2"], preset="standard-block").play(0, "6-6")
    assert signalling_partner(Knowledge.read(*two.seen_by(1))) is None  # no partner


def test_a_partners_play_that_signals_makes_the_hands_behind_the_signal_likelier():
    know = Knowledge.read(*four_seats().seen_by(0))
    [choice] = [c for c in know.choices if c.seat == 2]
    assert choice.tile == Tile.parse("5-4").index and choice.ends == (1 << 6) | (1 << 5)
    powers, signals, stray = lean_powers(2.5), signal_powers(2.0), 0.2  # seat 1's one fitting tile: no factor
    others = {1: tiles("2-2 3-3"), 3: tiles("4-3 2-0 3-0")}
    truth = {**others, 2: tiles("4-4 5-1")}
    no_four = {**others, 2: tiles("5-1 3-2")}
    another_one = {**others, 2: tiles("5-1 3-1")}
    # With 4-4 kept, 5-4 signalled one tile (weight 2) against 5-1's none (weight 1).
    assert know.likelihood(truth, powers, stray, signaller=2, signal_powers=signals) == pytest.approx(
        (1 - stray) * 2 / 3 + stray / 2
    )
    # Without another 4, both plays signalled nothing: an even choice.
    assert know.likelihood(no_four, powers, stray, signaller=2, signal_powers=signals) == pytest.approx(
        (1 - stray) / 2 + stray / 2
    )
    # Holding 3-1, 5-1 would have signalled the 1: passing it up for a silent 5-4 is unlikely.
    assert know.likelihood(another_one, powers, stray, signaller=2, signal_powers=signals) == pytest.approx(
        (1 - stray) / 3 + stray / 2
    )
    # Read as any other seat (leaning or even), the same guess weighs otherwise.
    assert know.likelihood(another_one, powers, stray) != know.likelihood(
        another_one, powers, stray, signaller=2, signal_powers=signals
    )


def test_with_a_strong_enough_signal_the_expert_leaves_open_the_number_it_holds():
    # Ends 6 and 2 for seat 0: 6-3 (heavier, leaves 3: no other 3) or 6-1 (leaves 1: 1-1, 1-0).
    p = Position(
        ["6-6 6-3 6-1 1-1 1-0", "6-5 4-4 4-2 0-0 2-2", "5-3 5-5 5-4 3-3 2-0", "3-2 4-3 5-0 5-1 3-0"],
        preset="standard-block",
        options=PARTNERS,
    )
    p.play(0, "6-6").play(1, "6-5", "right").play(2, "5-3", "right").play(3, "3-2", "right")
    view, log = p.seen_by(0)
    loud = dataclasses.replace(DEFAULT_BUDGET, signal=100.0)
    assert choose_action("expert", view, log, "convention", loud)["tile"] == Tile.parse("6-1").to_json()
