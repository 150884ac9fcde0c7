"""The bots on the larger sets: every level plays the double-nine partnership block and a
double-twelve Draw game to the end with listed actions only; the expert's knowledge covers the
set's tiles alone, and its exact endings solve a double-nine line."""

from __future__ import annotations

import random

import pytest

from api.bots import LEVELS
from api.bots.arena import BotMatch
from api.bots.endgame import ExactLine, SetBits
from api.bots.knowledge import Knowledge
from api.rules import TileSet, create_match, replay, resolve_rules, start_match
from api.rules.layout import LEFT, RIGHT
from api.rules.simulate import push
from tests.bots.test_levels import QUICK, check_answer

DOUBLE_NINE_PARTNERS = ("standard-block", 4, {"set": "double-9", "partners": True, "hand_size": 10})
DOUBLE_TWELVE_DRAW = ("standard-draw", 2, {"set": "double-12", "hand_size": 15})


def rules_of(config, **more):
    preset, players, options = config
    return resolve_rules(preset, {**options, **more}, players)


@pytest.mark.parametrize("config", [DOUBLE_NINE_PARTNERS, DOUBLE_TWELVE_DRAW], ids=["double-9-4p", "double-12-2p"])
def test_every_level_plays_a_larger_set_to_the_end_with_listed_actions(config):
    rules = rules_of(config, target=1)  # one hand a match: the suite stays quick
    players = rules.players
    asked = {level: 0 for level in LEVELS}

    def observe(seat, level, seconds, view, log, action):
        check_answer(level, view, action)
        know = Knowledge.read(view, log)
        assert set(know.unseen) <= set(rules.set.tiles)  # the hidden tiles are the set's only
        assert len(know.unseen) == len(rules.set.tiles) - len(know.hand) - len(know.played)
        asked[level] += 1

    for game in range(len(LEVELS) - players + 1):  # every level seated at least once
        levels = [LEVELS[(seat + game) % len(LEVELS)] for seat in range(players)]
        match = BotMatch(rules, f"sets:{rules.set}:{game}", levels, QUICK)
        while match.live and match.decisions < 2_000:
            match.step(observe)  # decide() would raise on an illegal action
        assert not match.live  # played to the end of the match
    assert all(asked.values()), asked


def test_the_exact_search_solves_a_double_nine_ending_as_the_engine_scores_it():
    """Every seat plays on perfectly: the value equals the best of each first move's value, and a
    hand whose tiles are all out is scored as the engine's hand_award scores it."""
    rules = rules_of(DOUBLE_NINE_PARTNERS)
    bits = SetBits.of(TileSet.DOUBLE_9)
    assert len(bits.by_weight) == 55 and bits.by_weight[0].pips == 18
    assert bits.pips_of(bits.all_mask) == 495 and len(bits.shows) == 10
    seats = [{"name": f"p{i}", "type": "bot", "level": "random"} for i in range(4)]
    log = create_match(rules, seats, "exact-9")
    st = replay(log + start_match(replay(log), "exact-9"))
    rng = random.Random(9)
    while sum(map(len, st.hands)) > 10 and st.hand_live:  # down to a small ending, randomly
        push(st, rng.choice(st.legal_moves()))
    if not st.hand_live:
        pytest.skip("the random hand ended early")  # pragma: no cover - the seed is chosen
    me = st.turn
    sides = [rules.side_of(s) for s in range(4)]
    line = ExactLine(sides, me, [0, 0], rules.target, 0.0, rules.hand_scoring, 10**6, rules.set)
    hands = [bits.mask_of(h) for h in st.hands]
    value = line.solve(hands, st.layout.values[LEFT], st.layout.values[RIGHT], me)
    assert isinstance(value, float) and -495 <= value <= 495
