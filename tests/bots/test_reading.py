"""bench/reading.py: the log predictive score of the true hands under the expert's reading.

Runs without the ``bench`` extra: against a Boneyard level the script needs no public AI.
"""

from __future__ import annotations

import math

import pytest

from api.bots.knowledge import Knowledge
from api.rules import Tile
from bench import reading
from tests.bots.support import Position

EVERY, EVEN, CONVENTION = (name for name, *_ in reading.READINGS)


def test_the_score_is_how_much_likelier_the_reading_makes_the_truth_than_the_guesses():
    # 6-6 leads; seat 1 answers with 6-5, the heaviest six (seat 0 can go on: 5-1). Truth: 3-3, 4-0 besides.
    p = Position(["6-6 5-1 1-1", "6-5 3-3 4-0"], preset="standard-block").play(0, "6-6").play(1, "6-5", "right")
    know = Knowledge.read(*p.seen_by(0))
    truth = {1: [Tile.parse("3-3"), Tile.parse("4-0")]}
    # Guesses that, like the truth, hold no other six explain the choice alike: score 0.
    guesses = [truth, {1: [Tile.parse("2-2"), Tile.parse("4-0")]}]
    scores = reading.score_decision(know, truth, guesses)
    assert set(scores) == {(name, group) for name in (EVERY, EVEN, CONVENTION) for group in ("opponents", "all")}
    assert all(abs(v) < 1e-12 for v in scores.values())  # no partner here: 2 players

    # Seat 1 answers with 6-1 instead: a guess holding 6-5 makes that choice unlikely.
    q = Position(["6-6 5-1 1-1", "6-1 3-3 4-0"], preset="standard-block").play(0, "6-6").play(1, "6-1", "right")
    know = Knowledge.read(*q.seen_by(0))
    truth = {1: [Tile.parse("3-3"), Tile.parse("4-0")]}
    with_six_five = {1: [Tile.parse("6-5"), Tile.parse("4-0")]}
    scores = reading.score_decision(know, truth, [truth, with_six_five])
    from api.bots import DEFAULT_BUDGET
    from api.bots.knowledge import lean_powers

    powers = lean_powers(DEFAULT_BUDGET.lean)
    for name, stray, odds, _convention in reading.READINGS:
        dear = know.likelihood(with_six_five, powers, stray, odds)  # the truth's own likelihood is 1
        assert scores[(name, "all")] == math.log(1.0 / ((1.0 + dear) / 2))
    # Reading every seat as leaning trusts the choice more: it scores higher when it was right.
    assert scores[(EVERY, "all")] > scores[(EVEN, "all")] > 0
    assert scores[(CONVENTION, "all")] == scores[(EVEN, "all")]  # no partner to read by the convention


# slow: a whole bench run (one deal, both arrangements, twice); the score is tested above on one position
@pytest.mark.slow
def test_a_run_against_greedy_sides_scores_every_expert_decision_with_a_choice_to_read():
    rows = reading.play_pair(reading.Job(index=0, seed=1, opponent="greedy", guesses=20))
    assert rows  # both arrangements, the expert's decisions after the others' first choices
    groups = {group for row in rows for _name, group in row}
    assert groups == {"partner", "opponents", "all"}
    assert all(math.isfinite(v) for row in rows for v in row.values())
    # The same deal and seed give the same figures.
    assert reading.play_pair(reading.Job(index=0, seed=1, opponent="greedy", guesses=20)) == rows
