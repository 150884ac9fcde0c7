"""Tiles of the double-six set: small immutable values with a parse/format pair.

Every tile is an interned singleton (``Tile(6, 3) is Tile(3, 6)``), so hands can be
plain lists and sets with identity hashing, which keeps playouts fast.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar, NoReturn

from .errors import InvalidTile

MAX_PIP = 6


def _is_pip_number(text: str) -> bool:
    return 1 <= len(text) <= 2 and text.isascii() and text.isdigit()


class Tile:
    """One domino, always stored high end first: ``Tile(3, 6)`` is ``Tile(6, 3)``."""

    __slots__ = ("high", "index", "is_double", "low", "pips")
    _interned: ClassVar[dict[tuple[int, int], Tile]] = {}
    high: int
    low: int
    pips: int
    index: int  # in ``ALL_TILES``
    is_double: bool

    def __new__(cls, a: int, b: int) -> Tile:
        high, low = (a, b) if a >= b else (b, a)
        try:
            return cls._interned[(high, low)]
        except KeyError:
            raise InvalidTile(f"no tile {a}-{b} in a double-six set") from None

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


# Canonical order (the order the shuffle spec starts from): 0-0, 1-0, 1-1, 2-0, … 6-6.
ALL_TILES: tuple[Tile, ...] = tuple(
    Tile._make(high, low, index)
    for index, (high, low) in enumerate((h, lo) for h in range(MAX_PIP + 1) for lo in range(h + 1))
)
DOUBLES: tuple[Tile, ...] = tuple(t for t in ALL_TILES if t.is_double)
TOTAL_PIPS = sum(t.pips for t in ALL_TILES)


def pip_count(tiles: Iterable[Tile]) -> int:
    return sum(t.pips for t in tiles)


def weight_key(tile: Tile) -> tuple[int, int]:
    """Sort key for 'heaviest tile': pips, then the higher end."""
    return (tile.pips, tile.high)
