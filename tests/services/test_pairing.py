"""The pairing decision alone (api.services.matchmaking.pairing): plain seeks in, the group
seated out. No store, no clock: who meets whom, in what order, who keeps waiting.

The seeks are given oldest first, as the store reads a pool's; the ratings are those the
seeks' players hold (a player missing from them has none).
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from api.rules import resolve_rules
from api.services.matchmaking import pairing
from api.services.matchmaking.pairing import admits, choose_group, names_a_range, pool_of


@dataclass(frozen=True)
class Seek:
    name: str
    player_ref: str | None = None
    rating_min: float | None = None
    rating_max: float | None = None


def player(name: str, rating_min: float | None = None, rating_max: float | None = None) -> Seek:
    return Seek(name, name, rating_min, rating_max)


def anonymous(name: str) -> Seek:
    return Seek(name)


def seated(waiting: list[Seek], players: int = 2, ratings: dict[str, float] | None = None, **fill: bool):
    """The names of the seeks :func:`choose_group` seats, in its order (None: no match)."""
    group = choose_group(waiting, players, ratings or {}, **fill)
    return None if group is None else [seek.name for seek in group]


# --- who meets whom, in what order ------------------------------------------------------------------
def test_the_two_oldest_seekers_are_paired_and_a_third_keeps_waiting():
    assert seated([player("ana"), player("ben"), player("cleo")]) == ["ana", "ben"]


def test_four_seats_take_the_four_oldest_of_five_in_their_order():
    waiting = [player(name) for name in ("ana", "ben", "cleo", "dan", "eve")]
    assert seated(waiting, players=4) == ["ana", "ben", "cleo", "dan"]
    assert seated(waiting[:3], players=3) == ["ana", "ben", "cleo"]


@pytest.mark.parametrize(("count", "players"), [(0, 2), (1, 2), (2, 3), (3, 4)])
def test_too_few_seekers_make_no_match_and_all_keep_waiting(count, players):
    assert seated([player(f"p{n}") for n in range(count)], players=players) is None


def test_a_player_is_never_seated_twice_in_one_match():
    waiting = [Seek("ana-1", "ana"), Seek("ana-2", "ana"), player("ben")]
    assert seated(waiting) == ["ana-1", "ben"]
    assert seated(waiting, players=3) is None  # two players only, however many seeks


def test_anonymous_seekers_are_each_their_own_player():
    assert seated([anonymous("first"), anonymous("second"), anonymous("third")]) == ["first", "second"]


# --- rating ranges ------------------------------------------------------------------------------------
def test_a_range_admits_only_the_players_rated_within_it():
    waiting = [player("ana", 1000, 1200), player("ben"), player("cleo")]
    assert seated(waiting, ratings={"ana": 1100, "ben": 900, "cleo": 1150}) == ["ana", "cleo"]  # ben waits


def test_every_seek_of_a_group_is_in_every_others_range_both_ways():
    waiting = [player("ana"), player("ben", rating_max=1050), player("cleo")]
    ratings = {"ana": 1100, "ben": 1300, "cleo": 1000}
    # ana has no range, but ben's excludes her: ben meets cleo, whom his range admits
    assert seated(waiting[:2], ratings=ratings) is None
    assert seated(waiting, ratings=ratings) == ["ana", "cleo"]
    assert seated(waiting[1:], ratings=ratings) == ["ben", "cleo"]


def test_an_oldest_seek_that_fits_no_one_does_not_hold_up_the_younger_ones():
    waiting = [player("ana", 2000, 3000), player("ben"), player("cleo")]
    assert seated(waiting, ratings={"ana": 2500, "ben": 1000, "cleo": 1000}) == ["ben", "cleo"]  # ana waits


@pytest.mark.parametrize(("rating", "met"), [(1000, True), (1200, True), (999.5, False), (1200.5, False)])
def test_a_ranges_bounds_are_included(rating, met):
    waiting = [player("ana", 1000, 1200), player("ben")]
    assert seated(waiting, ratings={"ana": 1100, "ben": rating}) == (["ana", "ben"] if met else None)


def test_of_candidates_that_fit_alike_the_older_is_seated():
    ratings = {"ana": 1100, "ben": 1100, "cleo": 1100}
    assert seated([player("ana", 1000, 1200), player("ben"), player("cleo")], ratings=ratings) == ["ana", "ben"]
    assert seated([player("ana", 1000, 1200), player("cleo"), player("ben")], ratings=ratings) == ["ana", "cleo"]


def test_a_seeker_without_a_rating_meets_only_seeks_that_name_no_range():
    ranged, plain, nobody = player("ana", rating_min=0), player("ben"), anonymous("guest")
    ratings = {"ana": 1100, "ben": 1100}
    assert seated([nobody, ranged], ratings=ratings) is None
    assert seated([nobody, ranged, plain], ratings=ratings) == ["guest", "ben"]
    assert not admits(ranged, nobody, ratings) and admits(plain, nobody, ratings)
    assert not admits(ranged, player("unrated"), ratings)  # a player whose rating was not read


# --- bot fill -----------------------------------------------------------------------------------------
def test_with_fill_a_lone_seek_gets_a_match_of_its_own():
    assert seated([player("ana")], players=4) is None
    assert seated([player("ana")], players=4, fill=True) == ["ana"]
    assert seated([], players=2, fill=True) is None


def test_with_fill_the_oldest_seeks_group_takes_the_seats_it_can_and_bots_the_rest():
    waiting = [player("ana", 1000, 1200), player("ben"), player("cleo"), player("dan")]
    ratings = {"ana": 1100, "ben": 1100, "cleo": 900, "dan": 1150}
    assert seated(waiting, players=4, ratings=ratings) is None  # cleo is out of ana's range: three fit
    assert seated(waiting, players=4, ratings=ratings, fill=True) == ["ana", "ben", "dan"]  # one seat for a bot


def test_with_fill_a_full_group_is_still_seated_whole():
    assert seated([player("ana"), player("ben"), player("cleo")], fill=True) == ["ana", "ben"]


def test_names_a_range_tells_when_ratings_are_needed():
    assert not names_a_range([player("ana"), anonymous("guest")])
    assert names_a_range([player("ana"), player("ben", rating_max=1500)])
    assert names_a_range([player("ana", rating_min=0)])
    assert not names_a_range([])


# --- pools: what two seeks must share to meet at all ------------------------------------------------
def _pool(portal_id: str | None = "arcade", preset: str = "standard-draw", overrides=None, players=2, rated=False):
    rules = resolve_rules(preset, overrides or {}, players).to_dict()
    return pool_of(portal_id, preset, rules, players, rated)


def test_seeks_asking_the_same_match_share_a_pool_whatever_the_overrides_spelling():
    assert _pool() == _pool(overrides={"target": 100})  # the preset's own target: the same rules
    assert _pool(overrides={"target": 150, "hand_size": 6}) == _pool(overrides={"hand_size": 6, "target": 150})
    assert re.fullmatch(r"[0-9a-f]{64}", _pool())  # a SHA-256: the store's pool column holds 64 characters


@pytest.mark.parametrize(
    "other",
    [
        {"rated": True},  # rated and unrated seeks never meet
        {"preset": "all-fives"},
        {"players": 3},
        {"overrides": {"target": 150}},
        {"portal_id": None},  # the public space
        {"portal_id": "club"},  # another portal
    ],
)
def test_seeks_that_differ_in_what_the_match_is_made_of_are_in_different_pools(other):
    assert _pool(**other) != _pool()


def test_pairing_is_pure_it_imports_the_standard_library_only():
    tree = ast.parse(Path(pairing.__file__).read_text(encoding="utf-8"))
    imported = {
        (node.module or "") if isinstance(node, ast.ImportFrom) else alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }
    assert imported and all(name.split(".")[0] in sys.stdlib_module_names | {"__future__"} for name in imported)
    assert not any(isinstance(node, ast.ImportFrom) and node.level for node in ast.walk(tree))
