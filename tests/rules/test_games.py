"""The registry of game families is the one place presets come from, and what a family declares
(its sets, seat counts, board and ratings word) is what the rules consult."""

from __future__ import annotations

import dataclasses

import pytest

import api.rules
from api.rules import games, ruleset
from api.rules.errors import InvalidRules
from api.rules.layout import Layout
from api.rules.line_games import LINE_GAMES
from api.rules.ruleset import resolve_rules
from api.rules.tiles import TileSet
from api.rules.vocabulary import Family
from tests.rules.toy_trains import TOY_PRESET, TOY_TRAINS, ToyTrains

LINE_PRESETS = [
    "standard-draw",
    "standard-block",
    "pagat-draw",
    "pagat-block",
    "dominorules-draw",
    "dominorules-block",
    "winner-leads",
    "all-fives",
    "muggins",
    "fives-and-threes",
    "double-nine-partners",
]
TRAINS_PRESETS = ["mexican-train", "chicken-foot"]


@pytest.fixture
def toy_family():
    """The toy trains family registered for one test, and taken out again after it."""
    games.register(TOY_TRAINS)
    try:
        yield TOY_TRAINS
    finally:
        games.unregister(TOY_TRAINS.name)


def test_every_reader_of_presets_reads_the_registry_itself():
    assert ruleset.PRESETS is games.PRESETS
    assert api.rules.PRESETS is games.PRESETS


def test_the_line_and_the_trains_games_are_registered_with_every_preset_in_menu_order():
    assert list(games.FAMILIES) == ["line", "trains"]
    assert list(games.PRESETS) == LINE_PRESETS + TRAINS_PRESETS
    assert {name: games.family_of(name).name for name in LINE_PRESETS} == dict.fromkeys(LINE_PRESETS, "line")
    assert {name: games.family_of(name).name for name in TRAINS_PRESETS} == dict.fromkeys(TRAINS_PRESETS, "trains")
    assert list(games.presets_of("trains")) == TRAINS_PRESETS
    assert LINE_GAMES.players == (2, 3, 4)
    assert games.PRESETS["mexican-train"].players == games.PRESETS["chicken-foot"].players == tuple(range(2, 9))


def test_a_preset_that_names_no_seat_counts_plays_its_familys():
    assert games.PRESETS["standard-draw"].players == (2, 3, 4)
    assert games.PRESETS["winner-leads"].players == (2,)
    assert games.PRESETS["double-nine-partners"].players == (4,)
    assert TOY_PRESET.players == ()  # as written; registered, it names the family's counts


def test_a_registered_family_s_presets_resolve_and_leave_with_it(toy_family):
    assert list(games.PRESETS)[-1] == "toy-trains"
    assert games.PRESETS["toy-trains"].players == (2, 3, 4)
    rules = resolve_rules("toy-trains", {}, 3)
    assert (rules.set, rules.hand_size, rules.target, rules.boneyard_size) == (TileSet.DOUBLE_12, 12, 150, 91 - 36)
    assert rules.family is Family.BLOCK  # the toy family's ratings word, not the line games' rule
    board = toy_family.new_board(rules)
    assert isinstance(board, ToyTrains)
    assert board.open_places() == [("train:0", 12), ("train:1", 12), ("train:2", 12), ("mexican", 12)]


def test_after_unregistering_a_family_its_presets_are_unknown_again(toy_family):
    games.unregister(toy_family.name)
    try:
        assert list(games.PRESETS) == LINE_PRESETS + TRAINS_PRESETS
        with pytest.raises(InvalidRules) as refused:
            resolve_rules("toy-trains", {}, 2)
        assert refused.value.field == "preset"
    finally:
        games.register(toy_family)  # the fixture takes it out


def test_a_set_the_family_does_not_play_is_refused_naming_the_set(toy_family):
    with pytest.raises(InvalidRules) as refused:
        resolve_rules("toy-trains", {"set": "double-9"}, 2)
    assert refused.value.field == "set"
    assert "double-9" in str(refused.value)


def test_a_seat_count_the_family_does_not_play_is_refused_naming_players():
    with pytest.raises(InvalidRules) as refused:
        resolve_rules("standard-draw", {}, 5)  # within the server's 2 to 8, not the line games' 2 to 4
    assert refused.value.field == "players"
    assert str(refused.value).endswith("preset standard-draw is for 2, 3 or 4 players")


def test_a_family_or_preset_name_already_taken_is_refused(toy_family):
    with pytest.raises(ValueError, match="toy-trains"):
        games.register(toy_family)
    with pytest.raises(ValueError, match="standard-draw"):
        games.register(dataclasses.replace(toy_family, name="other", presets=(LINE_GAMES.presets[0],)))
    assert list(games.FAMILIES) == ["line", "trains", "toy-trains"]


def test_a_preset_naming_seat_counts_its_family_does_not_play_is_refused():
    eight = dataclasses.replace(TOY_PRESET, name="toy-eight", players=(8,))
    with pytest.raises(ValueError, match="toy-eight"):
        games.register(dataclasses.replace(TOY_TRAINS, name="eights", presets=(eight,)))
    assert "eights" not in games.FAMILIES and "toy-eight" not in games.PRESETS


def test_the_line_family_starts_each_hand_on_a_line_with_the_rules_spinner():
    spinner = LINE_GAMES.new_board(resolve_rules("all-fives", {}, 2))
    line = LINE_GAMES.new_board(resolve_rules("muggins", {}, 2))
    assert isinstance(spinner, Layout) and isinstance(line, Layout)
    assert (spinner.uses_spinner, line.uses_spinner) == (True, False)
    assert spinner.is_empty and line.is_empty


@pytest.mark.parametrize(
    ("preset", "overrides", "players", "family"),
    [
        ("standard-draw", {}, 2, Family.DRAW),
        ("standard-block", {}, 3, Family.BLOCK),
        ("all-fives", {"game": "block"}, 2, Family.FIVES),
        ("fives-and-threes", {}, 4, Family.FIVES_AND_THREES),
        ("double-nine-partners", {}, 4, Family.DOUBLE_NINE),
    ],
)
def test_the_line_family_names_each_rule_sets_ratings_word(preset, overrides, players, family):
    assert resolve_rules(preset, overrides, players).family is family
