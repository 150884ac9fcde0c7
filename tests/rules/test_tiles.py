import pickle

import pytest

from api.rules import ALL_TILES, InvalidTile, Tile
from api.rules.tiles import EVERY_TILE, TileSet, pip_count, weight_key


def test_parse_and_format_are_a_pair_written_high_end_first():
    tile = Tile.parse("3-6")
    assert str(tile) == "6-3"
    assert tile.to_json() == [6, 3]
    assert repr(tile) == "Tile(6, 3)"
    assert Tile.parse(str(tile)) is tile
    assert (tile.high, tile.low, tile.pips, tile.is_double) == (6, 3, 9, False)


def test_every_tile_round_trips_through_text_json_and_repr():
    for tile in ALL_TILES:
        assert Tile.parse(str(tile)) is tile
        assert Tile.from_json(tile.to_json()) is tile
        assert eval(repr(tile)) is tile
        assert pickle.loads(pickle.dumps(tile)) is tile


def test_either_order_gives_the_same_interned_tile():
    assert Tile(3, 6) is Tile(6, 3)
    assert Tile.from_json([3, 6]) is Tile.from_json([6, 3]) is Tile.parse("6-3")
    assert Tile.from_json("3-6") is Tile(6, 3)
    assert Tile.parse(" 6-3 ") is Tile(6, 3)


def test_tiles_are_immutable():
    with pytest.raises(AttributeError):
        Tile(6, 3).high = 5


@pytest.mark.parametrize("bad", ["13-1", "6_3", "6", "", "-1-2", "a-b", "6-3-1", "6--3", None, 63])
def test_badly_written_tiles_raise_invalid_tile(bad):
    with pytest.raises(InvalidTile) as info:
        Tile.parse(bad)
    assert info.value.code == "invalid_tile"


@pytest.mark.parametrize("bad", ["\u00b2-1", "6-\u0663", "\uff16-3", "9" * 5000 + "-1", "1-" + "0" * 5000, "006-3"])
def test_only_a_few_ascii_digits_are_a_tile_half(bad):
    """'²' passes str.isdigit() but not int(), int() refuses more than 4,300 digits, and
    Arabic-Indic or full-width digits are not how a tile is written: each is an InvalidTile
    (with a short message), never a ValueError."""
    with pytest.raises(InvalidTile) as info:
        Tile.parse(bad)
    assert len(str(info.value)) < 100


@pytest.mark.parametrize(
    "bad",
    [[6], [True, 1], [1, False], [13, 1], [6, -1], [6, 3, 1], [6.0, 3], ["6", "3"], None, {"high": 6}, "13-1", "6_3"]
    + [6],
)
def test_bad_json_tiles_raise_invalid_tile(bad):
    with pytest.raises(InvalidTile):
        Tile.from_json(bad)


def test_tile_constructor_refuses_numbers_outside_every_set():
    for a, b in [(13, 1), (-1, 0), (0, 13)]:
        with pytest.raises(InvalidTile):
            Tile(a, b)


def test_a_tile_of_a_larger_set_is_not_one_of_a_smaller_sets():
    assert Tile(12, 7) is Tile(7, 12)
    assert TileSet.DOUBLE_9.holds(Tile(9, 3)) and not TileSet.DOUBLE_6.holds(Tile(9, 3))
    with pytest.raises(InvalidTile, match="no tile 7-1 in a double-6 set"):
        TileSet.DOUBLE_6.check(Tile(7, 1))
    assert TileSet.DOUBLE_12.check(Tile(12, 12)) is Tile(12, 12)


def test_weight_orders_by_pips_then_the_higher_end():
    assert weight_key(Tile(6, 3)) > weight_key(Tile(5, 4))
    assert Tile(6, 3).heavier_than(Tile(5, 4))
    assert not Tile(5, 4).heavier_than(Tile(6, 3))
    assert max(ALL_TILES, key=weight_key) is Tile(6, 6)
    heaviest_non_double = max((t for t in ALL_TILES if not t.is_double), key=weight_key)
    assert heaviest_non_double is Tile(6, 5)
    assert sorted([Tile(5, 4), Tile(6, 3), Tile(4, 4)], key=weight_key, reverse=True) == [
        Tile(6, 3),
        Tile(5, 4),
        Tile(4, 4),
    ]


def test_the_set_has_28_distinct_tiles_and_168_pips():
    assert ALL_TILES is TileSet.DOUBLE_6.tiles
    assert len(ALL_TILES) == 28
    assert len(set(ALL_TILES)) == 28
    assert {(t.high, t.low) for t in ALL_TILES} == {(h, lo) for h in range(7) for lo in range(h + 1)}
    assert TileSet.DOUBLE_6.total_pips == 168 == pip_count(ALL_TILES)
    assert [str(t) for t in TileSet.DOUBLE_6.doubles] == ["0-0", "1-1", "2-2", "3-3", "4-4", "5-5", "6-6"]


@pytest.mark.parametrize(
    ("tile_set", "tiles", "pips", "per_number"),
    [(TileSet.DOUBLE_6, 28, 168, 7), (TileSet.DOUBLE_9, 55, 495, 10), (TileSet.DOUBLE_12, 91, 1092, 13)],
)
def test_each_set_has_the_rule_books_tiles_pips_and_tiles_per_number(tile_set, tiles, pips, per_number):
    """docs/rules.md, section 1: each smaller set is the start of the larger one's canonical order."""
    top = tile_set.top
    assert str(tile_set) == f"double-{top}" and TileSet(f"double-{top}") is tile_set
    assert len(tile_set.tiles) == tiles == len(set(tile_set.tiles))
    assert {(t.high, t.low) for t in tile_set.tiles} == {(h, lo) for h in range(top + 1) for lo in range(h + 1)}
    assert tile_set.total_pips == pips == pip_count(tile_set.tiles)
    assert tile_set.tiles_per_number == per_number
    assert all(sum(t.has(n) for t in tile_set.tiles) == per_number for n in tile_set.numbers)
    assert tile_set.tiles == EVERY_TILE[:tiles]
    assert [t.index for t in tile_set.tiles] == list(range(tiles))
    assert [d.high for d in tile_set.doubles] == list(range(top + 1))


def test_canonical_order_starts_0_0_1_0_1_1_and_indexes_match():
    assert [str(t) for t in ALL_TILES[:4]] == ["0-0", "1-0", "1-1", "2-0"]
    assert str(ALL_TILES[-1]) == "6-6"
    assert [t.index for t in ALL_TILES] == list(range(28))
    assert sorted(reversed(ALL_TILES)) == list(ALL_TILES)


def test_each_number_appears_on_seven_tiles():
    for n in range(7):
        assert sum(1 for t in ALL_TILES if t.has(n)) == 7


def test_other_gives_the_half_left_open():
    assert Tile(6, 3).other(6) == 3
    assert Tile(6, 3).other(3) == 6
    assert Tile(4, 4).other(4) == 4
