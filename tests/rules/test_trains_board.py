"""The trains games' boards answer the ``board.Board`` protocol in place ids, and describe
every train or arm as the views will show it."""

from __future__ import annotations

from api.rules.board import MEXICAN
from api.rules.tiles import Tile
from api.rules.trains_board import ChickenFootBoard, MexicanTrainBoard

T = Tile.parse


def test_a_mexican_train_board_starts_every_train_at_the_engine():
    board = MexicanTrainBoard(3, 12)
    assert board.is_empty and board.count() == 0
    assert board.open_places() == [("train:0", 12), ("train:1", 12), ("train:2", 12), (MEXICAN, 12)]
    assert board.places_for(T("12-4")) == ["train:0", "train:1", "train:2", MEXICAN]
    assert board.places_for_seat(T("12-4"), 1) == ["train:1", MEXICAN]
    assert board.places_for(T("4-3")) == []


def test_an_uncovered_double_is_the_one_open_place_and_a_copy_keeps_its_own():
    board = MexicanTrainBoard(2, 12)
    board.put(T("12-7"), "train:1")
    board.put(T("7-7"), "train:1")
    kept = board.copy()
    assert board.open_places() == [("train:1", 7)]
    assert board.places_for_seat(T("7-2"), 0) == ["train:1"]  # open to seat 0 while it awaits cover
    assert board.reachable_numbers() == {7}
    board.put(T("7-2"), "train:1")
    assert board.uncovered is None and board.reachable_numbers() == {12, 2}
    assert kept.uncovered == "train:1" and kept.trains["train:1"].end == 7


def test_a_double_need_not_be_covered_without_the_option():
    board = MexicanTrainBoard(2, 12, cover_doubles=False)
    board.put(T("12-7"), "train:1")
    board.put(T("7-7"), "train:1")
    assert board.uncovered is None and len(board.open_places()) == 3


def test_a_mexican_train_board_describes_each_train_with_owner_open_number_marker_and_cover():
    board = MexicanTrainBoard(2, 12)
    placed = [(T("12-7"), "train:1"), (T("3-12"), MEXICAN), (T("7-7"), "train:1")]
    for tile, place in placed:
        board.put(tile, place)
    board.mark(0)
    assert board.describe(placed) == {
        "engine": [12, 12],
        "trains": [
            {"id": "train:0", "owner": 0, "open": 12, "marker": True, "awaits_cover": False, "tiles": []},
            {"id": "train:1", "owner": 1, "open": 7, "marker": False, "awaits_cover": True, "tiles": [[12, 7], [7, 7]]},
            {"id": MEXICAN, "owner": None, "open": 3, "marker": False, "awaits_cover": False, "tiles": [[12, 3]]},
        ],
    }


def test_a_chicken_foot_board_fills_the_engines_sides_in_order_then_grows_arms():
    board = ChickenFootBoard(6)
    assert board.open_places() == [("toe:6:0", 6)]
    assert board.toes_needed() == 4
    for k, tile in enumerate(("6-1", "6-2", "6-3", "6-4")):
        assert board.places_for(T(tile)) == [f"toe:6:{k}"]
        board.put(T(tile), f"toe:6:{k}")
    assert board.toes_needed() == 0
    assert board.open_places() == [("toe:6:0", 1), ("toe:6:1", 2), ("toe:6:2", 3), ("toe:6:3", 4)]
    board.put(T("2-2"), "toe:6:1")
    assert board.open_places() == [("toe:2:0", 2)] and board.reachable_numbers() == {2}
    placed_toes = [(T("2-0"), "toe:2:0"), (T("2-5"), "toe:2:1")]
    for toe, place in placed_toes:
        board.put(toe, place)
    assert board.describe([(T("6-2"), "toe:6:1"), (T("2-2"), "toe:6:1"), *placed_toes])["toes_needed"] == {
        "number": 2,
        "next": "toe:2:2",
        "left": 1,
    }
    copy = board.copy()
    board.put(T("2-3"), "toe:2:2")
    board.put(T("5-8"), "toe:2:1")
    arms = board.describe([(T("2-5"), "toe:2:1"), (T("5-8"), "toe:2:1")])["arms"]
    assert arms[5] == {"id": "toe:2:1", "open": 8, "tiles": [[2, 5], [5, 8]]}  # laid from the foot outwards
    assert board.reachable_numbers() == {1, 3, 4, 0, 8}
    assert copy.toes_needed() == 1
