"""Tiles and the sets they come in: small immutable values with a parse/format pair.

Every tile up to 12-12 is an interned singleton (``Tile(6, 3) is Tile(3, 6)``), so hands
can be plain lists and sets with identity hashing, which keeps playouts fast. The canonical
order (0-0, 1-0, 1-1, 2-0, …) lists each smaller set first, so every set is a prefix of
``EVERY_TILE`` and ``Tile.index`` is one index for all of them.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import Any, ClassVar, NamedTuple, NoReturn

from .errors import InvalidTile

LARGEST_PIP = 12  # the double-twelve set's top number: every tile of every set is interned


def _is_pip_number(text: str) -> bool:
    return 1 <= len(text) <= 2 and text.isascii() and text.isdigit()


class Tile:
    """One domino, always stored high end first: ``Tile(3, 6)`` is ``Tile(6, 3)``."""

    __slots__ = ("high", "index", "is_double", "low", "pips")
    _interned: ClassVar[dict[tuple[int, int], Tile]] = {}
    high: int
    low: int
    pips: int
    index: int  # in ``EVERY_TILE`` (and so in every set's ``tiles``)
    is_double: bool

    def __new__(cls, a: int, b: int) -> Tile:
        high, low = (a, b) if a >= b else (b, a)
        try:
            return cls._interned[(high, low)]
        except KeyError:
            raise InvalidTile(f"no tile {a}-{b} in any set (numbers 0 to {LARGEST_PIP})") from None

    @classmethod
    def _make(cls, high: int, low: int, index: int) -> Tile:
        tile = object.__new__(cls)
        for name, value in (
            ("high", high),
            ("low", low),
            ("pips", high + low),
            ("index", index),
            ("is_double", high == low),
        ):
            object.__setattr__(tile, name, value)
        cls._interned[(high, low)] = tile
        return tile

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError("Tile is immutable")

    def __reduce__(self) -> tuple[type[Tile], tuple[int, int]]:
        return (Tile, (self.high, self.low))

    # --- parse / format -------------------------------------------------------
    @classmethod
    def parse(cls, text: str) -> Tile:
        """Read a tile written for people: ``"6-3"`` (either order)."""
        if not isinstance(text, str):
            raise InvalidTile(f"a tile is written like '6-3', not {text!r}")
        parts = [part.strip() for part in text.strip().split("-")]
        # ASCII digits only, and few of them: str.isdigit() also accepts '²' (which int()
        # refuses) and int() refuses more than 4,300 digits.
        if len(parts) != 2 or not all(_is_pip_number(p) for p in parts):
            raise InvalidTile(f"a tile is written like '6-3', not {text[:20]!r}")
        return cls(int(parts[0]), int(parts[1]))

    @classmethod
    def from_json(cls, value: Any) -> Tile:
        """Read the JSON form ``[6, 3]`` (either order); ``"6-3"`` is accepted too."""
        if isinstance(value, str):
            return cls.parse(value)
        if (
            not isinstance(value, (list, tuple))
            or len(value) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        ):
            raise InvalidTile(f"a tile is a pair of numbers like [6, 3], not {value!r}")
        return cls(value[0], value[1])

    def to_json(self) -> list[int]:
        return [self.high, self.low]

    def __str__(self) -> str:
        return f"{self.high}-{self.low}"

    def __repr__(self) -> str:
        return f"Tile({self.high}, {self.low})"

    # --- questions --------------------------------------------------------------
    def has(self, number: int) -> bool:
        return self.high == number or self.low == number

    def other(self, number: int) -> int:
        """The half that stays open when this tile is matched on ``number``."""
        return self.low if self.high == number else self.high

    def heavier_than(self, other: Tile) -> bool:
        """Weight first, then the higher end: 6-3 is heavier than 5-4."""
        return (self.pips, self.high) > (other.pips, other.high)

    def __lt__(self, other: Tile) -> bool:
        return self.index < other.index


# Canonical order (the order the shuffle spec starts from): 0-0, 1-0, 1-1, 2-0, … 12-12.
EVERY_TILE: tuple[Tile, ...] = tuple(
    Tile._make(high, low, index)
    for index, (high, low) in enumerate((h, lo) for h in range(LARGEST_PIP + 1) for lo in range(h + 1))
)


class _SetFacts(NamedTuple):
    top: int
    numbers: range
    tiles: tuple[Tile, ...]
    doubles: tuple[Tile, ...]
    total_pips: int
    tiles_per_number: int


_FACTS: dict[str, _SetFacts] = {}  # by set name: each set's facts, computed once


class TileSet(StrEnum):
    """A set of dominoes, named as a rule set names it: ``double-6`` (the default), ``double-9``,
    ``double-12``. Each member carries its facts, computed once: ``top`` (the highest number),
    ``numbers`` (``range(top + 1)``), ``tiles`` (canonical order, a prefix of ``EVERY_TILE``),
    ``doubles`` (lowest first), ``total_pips`` and ``tiles_per_number`` (tiles showing any one
    number)."""

    DOUBLE_6 = "double-6"
    DOUBLE_9 = "double-9"
    DOUBLE_12 = "double-12"

    def __init__(self, name: str) -> None:
        top = int(name.removeprefix("double-"))
        tiles = EVERY_TILE[: (top + 1) * (top + 2) // 2]
        _FACTS[name] = _SetFacts(
            top, range(top + 1), tiles, tuple(t for t in tiles if t.is_double), sum(t.pips for t in tiles), top + 1
        )

    @property
    def top(self) -> int:
        return _FACTS[self].top

    @property
    def numbers(self) -> range:
        return _FACTS[self].numbers

    @property
    def tiles(self) -> tuple[Tile, ...]:
        return _FACTS[self].tiles

    @property
    def doubles(self) -> tuple[Tile, ...]:
        return _FACTS[self].doubles

    @property
    def total_pips(self) -> int:
        return _FACTS[self].total_pips

    @property
    def tiles_per_number(self) -> int:
        return _FACTS[self].tiles_per_number

    def holds(self, tile: Tile) -> bool:
        """Whether ``tile`` belongs to this set (any other is a malformed tile in its matches)."""
        return tile.high <= self.top

    def check(self, tile: Tile) -> Tile:
        """``tile``, or InvalidTile when it is not one of this set's."""
        if tile.high > self.top:
            raise InvalidTile(f"no tile {tile} in a {self} set")
        return tile


DEFAULT_SET = TileSet.DOUBLE_6  # every game of the rule book's first part (a rule set's ``set`` unless named)

# The double-six set's tiles: the default set's, for what only ever plays it (a match's own
# tiles are ``rules.set.tiles``).
ALL_TILES: tuple[Tile, ...] = DEFAULT_SET.tiles


def pip_count(tiles: Iterable[Tile]) -> int:
    return sum(t.pips for t in tiles)


def weight_key(tile: Tile) -> tuple[int, int]:
    """Sort key for 'heaviest tile': pips, then the higher end."""
    return (tile.pips, tile.high)
