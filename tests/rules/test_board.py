"""The board protocol: the line's ``Layout`` answers in place ids, and a trains board fits it too."""

from __future__ import annotations

import pytest

from api.rules.board import MEXICAN, toe_place, train_place
from api.rules.layout import DOWN, LEFT, RIGHT, UP, Layout
from api.rules.tiles import Tile
from tests.rules.support import T
from tests.rules.toy_trains import new_toy_trains


def test_place_ids_of_the_trains_games_and_chicken_foot_read_as_the_issue_names_them():
    assert train_place(2) == "train:2"
    assert MEXICAN == "mexican"
    assert toe_place(5, 1) == "toe:5:1"


def test_an_empty_layout_has_no_open_place_and_starts_from_the_left():
    layout = Layout(uses_spinner=True)
    assert layout.is_empty
    assert layout.open_places() == []
    assert layout.places_for(T("6-4")) == ["left"]


def test_the_spinner_layout_answers_by_place_id_as_it_does_by_index():
    by_id, by_index = Layout(uses_spinner=True), Layout(uses_spinner=True)
    for tile, place, index in (("5-5", "left", LEFT), ("5-3", "right", RIGHT), ("5-2", "left", LEFT)):
        by_id.put(T(tile), place)
        by_index.place(T(tile), index)
    assert by_id.ends_key == by_index.ends_key
    # both sides of the 5-5 spinner hold a tile: its arms open, showing 5
    assert by_id.open_places() == [("left", 2), ("right", 3), ("up", 5), ("down", 5)]
    assert by_id.places_for(T("5-1")) == ["up", "down"]
    assert by_id.places_for(T("3-2")) == ["left", "right"]
    assert by_id.places_for(T("6-6")) == []
    assert by_id.count() == 5  # the empty arms count nothing yet
    by_id.put(T("5-4"), "up")
    assert by_id.count() == 2 + 3 + 4
    assert by_index.fits(T("5-4")) == [UP, DOWN]


def test_the_layout_describes_its_line_and_arms_from_the_placements():
    layout = Layout(uses_spinner=True)
    placed = [(T("5-5"), "left"), (T("5-3"), "right"), (T("5-2"), "left"), (T("5-6"), "down")]
    for tile, place in placed:
        layout.put(tile, place)
    assert layout.describe(placed) == {
        "line": [[2, 5], [5, 5], [5, 3]],
        "spinner": [5, 5],
        "arms": {"up": [], "down": [[5, 6]]},
    }
    line = Layout()
    line.put(T("6-4"), "left")
    line.put(T("4-1"), "right")
    assert line.describe([(T("6-4"), "left"), (T("4-1"), "right")]) == {"line": [[6, 4], [4, 1]]}


def test_a_copy_of_a_layout_is_independent():
    layout = Layout()
    layout.put(T("6-4"), "right")
    other = layout.copy()
    other.put(T("4-4"), "right")
    assert layout.open_places() == [("left", 6), ("right", 4)]
    assert other.open_places() == [("left", 6), ("right", 4)]
    assert other.count() == 6 + 8  # the double at the end counts twice
    assert layout.count() == 10


def test_a_word_that_is_no_end_of_the_line_is_no_place_on_it():
    layout = Layout()
    layout.put(T("6-4"), "left")
    with pytest.raises(KeyError):
        layout.put(T("4-1"), "train:2")


def test_a_trains_board_fits_the_protocol_with_its_own_place_ids():
    board = new_toy_trains(3)
    assert board.is_empty
    assert board.open_places() == [("train:0", 12), ("train:1", 12), ("train:2", 12), ("mexican", 12)]
    before = board.copy()
    board.put(Tile(12, 5), "train:1")
    board.put(Tile(12, 9), "mexican")
    assert board.places_for(Tile(9, 5)) == ["train:1", "mexican"]
    assert before.places_for(Tile(9, 5)) == []
    assert board.describe([(Tile(12, 5), "train:1"), (Tile(12, 9), "mexican")]) == {
        "engine": [12, 12],
        "trains": {"train:0": [], "train:1": [[12, 5]], "train:2": [], "mexican": [[12, 9]]},
    }
