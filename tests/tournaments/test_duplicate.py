"""Duplicate deals: each pairing at two tables, seats swapped, the round's tables checked against
its one seed commitment."""

from __future__ import annotations

import hashlib

import pytest

from api import tournaments as t

from .support import fold, settings, tournament

SEED = "a3" * 32
COMMITMENT = hashlib.sha256(SEED.encode()).hexdigest()


def test_each_pairing_plays_two_tables_with_the_seats_swapped_and_the_round_commits_to_its_seed():
    state = tournament(5, format=t.ROUND_ROBIN, rounds=None, duplicate=True)
    state = fold(state, t.start(state))
    (paired,) = t.pair_round(state)
    assert isinstance(paired, t.RoundPaired)
    sides = [table.sides for table in paired.tables]
    assert len(sides) == 4 and sides[1::2] == [(b, a) for a, b in sides[::2]] and paired.bye is not None
    state = fold(state, [t.with_deals(paired, COMMITMENT)])
    assert state.rounds[0].seed_commitment == COMMITMENT
    events = t.withdraw(state, sides[0][0], "portal")  # both of its legs are forfeited
    assert [(e.table, e.winner) for e in events if isinstance(e, t.MatchResult)] == [(1, 1), (2, 0)]


def test_an_arena_has_no_duplicate_deals():
    with pytest.raises(t.InvalidTournament) as refused:
        t.create("x", settings(format=t.ARENA, rounds=None, duration_minutes=5, duplicate=True))
    assert refused.value.field == "duplicate"


def test_the_round_deals_check_names_every_table_that_cannot_prove_the_rounds_deals():
    assert t.round_deals_problems(COMMITMENT, {"m1": (COMMITMENT, SEED), "m2": (COMMITMENT, SEED)}) == []
    other = hashlib.sha256(b"other").hexdigest()
    tables = {"m1": (other, SEED), "m2": (COMMITMENT, "b4" * 32), "m3": (COMMITMENT, None)}
    problems = t.round_deals_problems(COMMITMENT, tables)
    assert len(problems) == 3 and [p.split()[1] for p in problems] == ["m1", "m2's", "m3's"]
