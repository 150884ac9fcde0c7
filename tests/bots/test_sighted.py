"""The bench's ceiling (``bench/sighted.py``): an expert seat shown some of the true hidden tiles
deals exactly those, and the rest as before; a seat the server plays never is."""

from __future__ import annotations

import random

from api.bots import choose_action
from api.bots.knowledge import Knowledge
from api.rules import resolve_rules
from bench.sighted import Sighted, SightedMatch

RULES = resolve_rules("double-nine-partners", {}, 4)


def _match(shown: str) -> SightedMatch:
    match = SightedMatch(RULES, "sighted", ["expert", "greedy"] * 2, None, sighted=frozenset({"expert"}), shown=shown)
    while not (match.state.turn == 0 and match.state.layout.tiles >= 6):
        match.step()
    return match


def test_a_seat_shown_every_hidden_tile_deals_only_the_true_deal():
    match = _match("all")
    hands, boneyard = match.truth(0)
    assert sorted(hands) == [1, 2, 3] and len(boneyard) == 15
    know = Sighted.of(Knowledge.read(*match.inputs(0)), hands, boneyard)
    assert know.unseen == [] and know.slots == {}
    dealt, out = know.sample(random.Random(1))
    assert dealt == {s: list(match.state.hands[s]) for s in (1, 2, 3)}
    assert out == list(match.state.boneyard)


def test_a_seat_shown_its_partners_hand_deals_the_rest_as_it_knows_them():
    match = _match("partner")
    hands, boneyard = match.truth(0)
    assert list(hands) == [2] and boneyard is None  # seat 2 is seat 0's partner
    know = Sighted.of(Knowledge.read(*match.inputs(0)), hands, boneyard)
    partner = set(match.state.hands[2])
    rng = random.Random(2)
    guesses = set()
    for _ in range(50):
        dealt, out = know.sample(rng)
        assert set(dealt[2]) == partner
        assert len(out) == 15 and [len(dealt[s]) for s in (1, 3)] == [len(match.state.hands[s]) for s in (1, 3)]
        assert set(dealt[1]) | set(dealt[3]) | set(out) == set(match.state.hands[1]) | set(match.state.hands[3]) | set(
            match.state.boneyard
        )
        guesses.add(tuple(sorted(dealt[1])))
    assert len(guesses) > 1  # the opponents' hands guessed, not shown


def test_the_server_path_never_shows_a_hidden_tile_and_the_sighted_seat_plays_differently_somewhere():
    match = _match("all")
    differs = 0
    for _ in range(40):
        if not match.live:
            break
        seat = match.state.next_to_act(range(4))
        seat_view, log = match.inputs(seat)
        plain = choose_action(match.levels[seat], seat_view, log, match.rng_seed())  # what the server asks
        sighted = match.choose(seat, seat_view, log)
        if match.levels[seat] == "greedy":
            assert sighted == plain  # only the expert seats are shown anything
        differs += sighted != plain
        match.step()
    assert differs  # sight changed some of the expert's decisions
