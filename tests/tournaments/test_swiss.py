"""Swiss pairing: score groups, no rematch while one is avoidable, at most one bye each."""

from __future__ import annotations

import random

import pytest

from api import tournaments as t
from api.tournaments import swiss
from api.tournaments.swiss import Contender, pair_swiss

from .support import fold, play_round, tournament


def contender(id_: str, points: int, seed: int, met: str = "", bye: bool = False) -> Contender:
    return Contender(id_, points, seed, frozenset(met), bye)


# Six after two rounds: A and B lead on 4, C and D on 2, E and F on 0, and each group's two have
# met. Pairing groups alone would make three rematches; the pairing must make none, at the least
# cost in score differences (one 4-point gap: one leader meets a 0, the other a 2).
SIX = [
    contender("A", 4, 0, "B"),
    contender("B", 4, 1, "A"),
    contender("C", 2, 2, "D"),
    contender("D", 2, 3, "C"),
    contender("E", 0, 4, "F"),
    contender("F", 0, 5, "E"),
]


def gaps(pairing: t.Pairing, field: list[Contender]) -> list[int]:
    points = {c.id: c.match_points for c in field}
    return sorted(abs(points[a] - points[b]) for a, b in pairing.tables)


def test_a_rematch_is_avoided_when_a_pairing_without_one_exists():
    pairing = pair_swiss(SIX)
    assert pairing.rematches(SIX) == 0
    assert gaps(pairing, SIX) == [2, 2, 4]
    assert pairing.bye is None


def test_the_score_group_path_falls_back_to_the_exact_matching(monkeypatch):
    monkeypatch.setattr(swiss, "ONE_MATCHING_UP_TO", 0)  # group by group first: it strands E and F
    pairing = pair_swiss(SIX)
    assert pairing.rematches(SIX) == 0
    assert gaps(pairing, SIX) == [2, 2, 4]


def test_a_rematch_is_made_only_when_none_can_be_avoided():
    field = [contender("A", 2, 0, "B"), contender("B", 0, 1, "A")]
    assert pair_swiss(field).tables == (("A", "B"),)


def test_the_first_round_pairs_top_half_against_bottom_half():
    field = [contender(f"S{n}", 0, n) for n in range(8)]
    assert pair_swiss(field).tables == (("S0", "S4"), ("S1", "S5"), ("S2", "S6"), ("S3", "S7"))


def test_the_bye_goes_to_the_lowest_ranked_entrant_without_one():
    field = [contender("A", 2, 0), contender("B", 2, 1), contender("C", 0, 2), contender("D", 0, 3, bye=True)]
    field.append(contender("E", 0, 4, bye=True))
    assert pair_swiss(field).bye == "C"


def test_an_odd_field_where_everyone_had_a_bye_cannot_be_paired():
    field = [contender(c, 2, n, bye=True) for n, c in enumerate("ABC")]
    with pytest.raises(t.PairingImpossible):
        pair_swiss(field)


def test_byes_rotate_from_the_bottom_one_each():
    """Five entrants, four rounds, the better seed always winning: the bye goes each round to the
    lowest-ranked entrant that has not had one."""
    state = fold(tournament(5, rounds=4), [])
    state = fold(state, t.start(state))
    byes = []
    for _ in range(4):
        state = play_round(state, lambda table: (0 if table.sides[0] < table.sides[1] else 1, (100, 50)))
        byes.append(state.rounds[-1].bye)
    assert byes == ["e5", "e4", "e3", "e2"]
    assert state.status == t.ENDED


def rematch_free_pairing_exists(ids: list[str], met: dict[str, frozenset[str]], bye_allowed: set[str]) -> bool:
    """Brute force, independent of networkx: can these be paired (one bye to an allowed one when
    odd) with no rematch?"""
    if not ids:
        return True
    if len(ids) % 2:
        return any(rematch_free_pairing_exists([o for o in ids if o != b], met, set()) for b in ids if b in bye_allowed)
    first, rest = ids[0], ids[1:]
    return any(
        rematch_free_pairing_exists([o for o in rest if o != other], met, bye_allowed)
        for other in rest
        if other not in met[first]
    )


@pytest.mark.parametrize("seed", range(12))
def test_random_swisses_rematch_only_when_unavoidable_and_give_one_bye_each(seed):
    chance = random.Random(seed)
    count = chance.randint(3, 9)
    state = tournament(count, rounds=count - 1)
    state = fold(state, t.start(state))
    while state.status == t.RUNNING:
        field = t.contenders(state)
        pairing = pair_swiss(field)
        if pairing.rematches(field):
            met = {c.id: c.opponents for c in field}
            allowed = {c.id for c in field if not c.had_bye}
            assert not rematch_free_pairing_exists([c.id for c in field], met, allowed)
        state = play_round(state, lambda _: (chance.choice([0, 1, None]), (chance.randint(0, 100), 0)))
    byes = [r.bye for r in state.rounds if r.bye is not None]
    assert len(byes) == len(set(byes)) == (count % 2) * (count - 1)


def test_a_large_field_is_paired_in_score_groups_without_rematches():
    chance = random.Random(7)
    state = tournament(301, rounds=7)
    state = fold(state, t.start(state))
    for _ in range(7):
        state = play_round(state, lambda _: (chance.choice([0, 1]), (chance.randint(50, 100), chance.randint(0, 49))))
    assert state.status == t.ENDED
    met: set[frozenset[str]] = set()
    for round_ in state.rounds:
        pairs = {frozenset(table.sides) for table in round_.tables}
        assert not pairs & met
        met |= pairs
        assert len(round_.tables) == 150 and round_.bye is not None
    byes = [r.bye for r in state.rounds]
    assert len(set(byes)) == 7
