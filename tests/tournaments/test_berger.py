"""Round robin by Berger tables: FIDE's printed tables, and every pair met exactly once."""

from __future__ import annotations

from itertools import combinations

import pytest

from api.tournaments.berger import berger_round, rounds_for

# FIDE Handbook C.05, Annex 1: the Berger table for 5 or 6 players (6 is the bye with 5).
FIDE_SIX = {
    1: [(1, 6), (2, 5), (3, 4)],
    2: [(6, 4), (5, 3), (1, 2)],
    3: [(2, 6), (3, 1), (4, 5)],
    4: [(6, 5), (1, 4), (2, 3)],
    5: [(3, 6), (4, 2), (5, 1)],
}


def test_six_entrants_play_fide_berger_table():
    assert {r: berger_round(6, r) for r in range(1, 6)} == FIDE_SIX


def test_five_entrants_play_the_six_table_with_six_as_the_round_off():
    assert rounds_for(5) == 5
    rounds = {r: berger_round(5, r) for r in range(1, 6)}
    assert rounds == FIDE_SIX
    resting = [next(min(pair) for pair in rounds[r] if 6 in pair) for r in range(1, 6)]
    assert resting == [1, 4, 2, 5, 3]  # each of the five rests once


def test_four_entrants_play_fide_berger_table():
    assert [berger_round(4, r) for r in (1, 2, 3)] == [[(1, 4), (2, 3)], [(4, 3), (1, 2)], [(2, 4), (3, 1)]]


@pytest.mark.parametrize("entrants", [2, 3, 7, 8, 13, 16])
def test_everyone_meets_everyone_once(entrants):
    met = [frozenset(pair) for r in range(1, rounds_for(entrants) + 1) for pair in berger_round(entrants, r)]
    field = range(1, entrants + 1 + entrants % 2)
    assert sorted(met, key=sorted) == sorted((frozenset(p) for p in combinations(field, 2)), key=sorted)


def test_a_round_outside_the_table_is_refused():
    with pytest.raises(ValueError, match="rounds 1 to 5"):
        berger_round(6, 6)
