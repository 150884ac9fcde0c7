"""The tiles on the table: open ends, the spinner, and the count.

Ends are addressed by index into ``END_NAMES``. Line games only ever open ``left`` and
``right``; with ``spinner="first_double"`` the first double played becomes the spinner,
and once both of its sides hold a tile the arms ``up`` and ``down`` open on it.
"""

from __future__ import annotations

from .tiles import ALL_TILES, Tile

# Bit n set for each number n on a tile: a tile fits the open numbers ``mask`` iff
# ``TILE_MASK[tile] & mask``. (Tiles are interned, so the lookup hashes by identity.)
TILE_MASK: dict[Tile, int] = {t: (1 << t.high) | (1 << t.low) for t in ALL_TILES}

END_NAMES = ("left", "right", "up", "down")
LEFT, RIGHT, UP, DOWN = range(4)
END_INDEX = {name: i for i, name in enumerate(END_NAMES)}


class Layout:
    """Mutable working layout; callers that need immutability copy it first."""

    __slots__ = ("values", "doubles", "occupied", "spinner_ends", "spinner", "spinner_sides",
                 "tiles", "first", "uses_spinner", "open_mask", "end_bits")

    def __init__(self, uses_spinner: bool = False):
        self.values: list[int | None] = [None, None, None, None]  # open number per end
        self.doubles = [False, False, False, False]  # the end tile is a double (counts twice)
        self.occupied = [False, False, False, False]  # a tile lies on this arm
        self.spinner_ends: set[int] = set()          # ends whose end tile is the spinner itself
        self.spinner: Tile | None = None
        self.spinner_sides = 0                        # sides of the spinner holding a tile
        self.tiles = 0
        self.first: Tile | None = None
        self.uses_spinner = uses_spinner
        self.open_mask = 0                            # bit n set: some open end shows n
        self.end_bits: tuple[tuple[int, int], ...] = ()  # (end index, 1 << number) per open end

    def copy(self) -> "Layout":
        other = Layout.__new__(Layout)
        other.values = self.values[:]
        other.doubles = self.doubles[:]
        other.occupied = self.occupied[:]
        other.spinner_ends = set(self.spinner_ends)
        other.spinner = self.spinner
        other.spinner_sides = self.spinner_sides
        other.tiles = self.tiles
        other.first = self.first
        other.uses_spinner = self.uses_spinner
        other.open_mask = self.open_mask
        other.end_bits = self.end_bits
        return other

    # --- questions ------------------------------------------------------------
    @property
    def is_empty(self) -> bool:
        return self.tiles == 0

    def open_ends(self) -> list[tuple[int, int]]:
        """(end index, number) for every end a tile may be placed on now."""
        return [(i, v) for i, v in enumerate(self.values) if v is not None]

    def fits(self, tile: Tile) -> list[int]:
        """The ends ``tile`` may be placed on (every end when the table is empty)."""
        if self.tiles == 0:
            return [LEFT]
        return [i for i, v in enumerate(self.values) if v is not None and (tile.high == v or tile.low == v)]

    def accepts_any(self, tiles) -> bool:
        if self.tiles == 0:
            return bool(tiles)
        mask = self.open_mask
        for t in tiles:          # a plain loop: this is the hottest question in playouts
            if TILE_MASK[t] & mask:
                return True
        return False

    def count(self) -> int:
        """The sum of the open ends of every arm that holds a tile (the All Fives count)."""
        if self.tiles == 1:
            return self.first.pips
        total = 0
        for i in range(4):
            v = self.values[i]
            if v is not None and (i < UP or self.occupied[i]):
                total += 2 * v if self.doubles[i] else v
        return total

    def ends_dict(self) -> dict[str, int]:
        return {END_NAMES[i]: v for i, v in enumerate(self.values) if v is not None}

    # --- change -----------------------------------------------------------------
    def place(self, tile: Tile, end: int) -> None:
        """Put ``tile`` on ``end`` (the caller has checked it fits)."""
        if self.tiles == 0:
            self.first = tile
            self.values[LEFT], self.values[RIGHT] = tile.high, tile.low
            self.doubles[LEFT] = self.doubles[RIGHT] = tile.is_double
            if self.uses_spinner and tile.is_double:
                self.spinner = tile
                self.spinner_ends = {LEFT, RIGHT}
            self.tiles = 1
            self.open_mask = (1 << tile.high) | (1 << tile.low)
            self.end_bits = ((LEFT, 1 << tile.high), (RIGHT, 1 << tile.low))
            return
        values = self.values
        number = values[end]
        values[end] = tile.low if tile.high == number else tile.high   # tile.other(number)
        self.doubles[end] = tile.is_double
        self.occupied[end] = True
        self.tiles += 1
        if not self.uses_spinner:
            # Line games: two ends, nothing else to track (the branch below, specialised).
            left, right = 1 << values[LEFT], 1 << values[RIGHT]
            self.end_bits = ((LEFT, left), (RIGHT, right))
            self.open_mask = left | right
            return
        if end in self.spinner_ends:
            # A tile against one of the spinner's sides; with both sides taken its ends open.
            self.spinner_ends.discard(end)
            self.spinner_sides += 1
            if self.spinner_sides == 2:
                values[UP] = values[DOWN] = self.spinner.high
        elif self.uses_spinner and self.spinner is None and tile.is_double:
            # The first double, played on a line end: its inner side already touches the line.
            self.spinner = tile
            self.spinner_ends = {end}
            self.spinner_sides = 1
        # left and right are always open once a tile lies; up and down only after the spinner fills.
        bits = ((LEFT, 1 << values[LEFT]), (RIGHT, 1 << values[RIGHT]))
        if values[UP] is not None:
            bits += ((UP, 1 << values[UP]), (DOWN, 1 << values[DOWN]))
        mask = 0
        for _end, bit in bits:
            mask |= bit
        self.end_bits = bits
        self.open_mask = mask
