"""The line's board: open ends, the spinner, and the count.

Ends are addressed by index into ``END_NAMES``. Line games only ever open ``left`` and
``right``; with ``spinner="first_double"`` the first double played becomes the spinner,
and once both of its sides hold a tile the arms ``up`` and ``down`` open on it.

``Layout`` is the line games' ``board.Board``: the ends' names are its place ids. The engine's
hot paths keep the int indices (``place``, ``fits``, ``accepts_any``, ``ends_key``); the
protocol's questions (``open_places``, ``places_for``, ``put``, ``describe``) answer in ids, for
the views and the event log, and are never asked in a playout.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from .board import Place
from .tiles import EVERY_TILE, LARGEST_PIP, Tile
from .vocabulary import End

if TYPE_CHECKING:
    from .board import Board

# The tables below are sized once for the largest set (numbers 0 to 12), so one table
# serves every set: a smaller set's tiles and numbers are a prefix of the largest's.
NUMBERS = LARGEST_PIP + 1

# Bit n set for each number n on a tile: a tile fits the open numbers ``mask`` iff
# ``TILE_MASK[tile] & mask``. (Tiles are interned, so the lookup hashes by identity.)
TILE_MASK: dict[Tile, int] = {t: (1 << t.high) | (1 << t.low) for t in EVERY_TILE}

# Tiles counted by number, four bits per number (a count of 0 to 15; at most 13 tiles of
# the largest set show any one number): ``TILE_COUNT[tile]`` counts the tile once under each
# number it shows, so a sum of them counts, for every number, the tiles of a group that show
# it. ``NUMBER_FIELDS[mask]`` selects the counts of the numbers in ``mask``: a group holds a
# tile fitting the open numbers ``mask`` iff ``counts & NUMBER_FIELDS[mask]``.
TILE_COUNT: dict[Tile, int] = {t: (1 << 4 * t.high) | (1 << 4 * t.low) for t in EVERY_TILE}
_FIELD = tuple(0xF << 4 * n for n in range(NUMBERS))
NUMBER_FIELDS: tuple[int, ...] = tuple(
    sum(_FIELD[n] for n in range(NUMBERS) if mask >> n & 1) for mask in range(1 << NUMBERS)
)

END_NAMES: tuple[End, ...] = tuple(End)  # by end index: the line's place ids
LEFT, RIGHT, UP, DOWN = range(4)
END_INDEX: dict[Place, int] = {name: i for i, name in enumerate(END_NAMES)}

# ``Layout.ends_key`` names the open numbers in one small int, four bits per end in
# ``END_NAMES`` order, 15 for a closed end (above every number of every set):
# ``left | right << 4 | up << 8 | down << 12``. Equal keys mean the same tiles fit the same
# ends, so questions about the ends can be answered once per key and looked up
# (``MatchState.legal_moves`` does).
END_BITS = 4
CLOSED = (1 << END_BITS) - 1
EMPTY_KEY = CLOSED | CLOSED << 4 | CLOSED << 8 | CLOSED << 12  # no tile yet: every end closed
_NO_ARMS = CLOSED << 8 | CLOSED << 12  # a line: up and down closed


def ends_of_key(key: int) -> list[int | None]:
    """The open number of each end (None: closed) that ``key`` stands for."""
    return [None if (v := key >> END_BITS * i & CLOSED) == CLOSED else v for i in range(4)]


# Per ends key: the open numbers as a mask (bit n: some open end shows n), and the
# ``NUMBER_FIELDS`` of that mask. Looked up rather than kept up to date on every play.
_BIT = tuple(1 << n if n < NUMBERS else 0 for n in range(CLOSED + 1))  # a closed end shows nothing
OPEN_MASK: tuple[int, ...] = tuple(
    _BIT[k & 15] | _BIT[k >> 4 & 15] | _BIT[k >> 8 & 15] | _BIT[k >> 12] for k in range(EMPTY_KEY + 1)
)
OPEN_FIELDS: tuple[int, ...] = tuple(NUMBER_FIELDS[mask] for mask in OPEN_MASK)


class Layout:
    """Mutable working layout; callers that need immutability copy it first."""

    __slots__ = (
        "doubles",
        "ends_key",
        "first",
        "occupied",
        "spinner",
        "spinner_ends",
        "spinner_sides",
        "tiles",
        "uses_spinner",
        "values",
    )

    def __init__(self, uses_spinner: bool = False) -> None:
        self.values: list[int | None] = [None, None, None, None]  # open number per end
        self.doubles: list[bool] = [False, False, False, False]  # the end tile is a double (counts twice)
        self.occupied: list[bool] = [False, False, False, False]  # a tile lies on this arm
        self.spinner_ends: frozenset[int] = frozenset()  # ends whose end tile is the spinner itself
        self.spinner: Tile | None = None
        self.spinner_sides = 0  # sides of the spinner holding a tile
        self.tiles = 0
        self.first: Tile | None = None
        self.uses_spinner = uses_spinner
        self.ends_key = EMPTY_KEY  # the open numbers, packed (see above)

    def copy(self) -> Layout:
        other = Layout.__new__(Layout)
        other.values = self.values[:]
        other.doubles = self.doubles[:]
        other.occupied = self.occupied[:]
        other.spinner_ends = self.spinner_ends  # frozen: replaced, never changed in place
        other.spinner = self.spinner
        other.spinner_sides = self.spinner_sides
        other.tiles = self.tiles
        other.first = self.first
        other.uses_spinner = self.uses_spinner
        other.ends_key = self.ends_key
        return other

    # --- questions ------------------------------------------------------------
    @property
    def is_empty(self) -> bool:
        return self.tiles == 0

    @property
    def open_mask(self) -> int:
        """Bit n set: some open end shows n."""
        return OPEN_MASK[self.ends_key]

    def open_ends(self) -> list[tuple[int, int]]:
        """(end index, number) for every end a tile may be placed on now."""
        return [(i, v) for i, v in enumerate(self.values) if v is not None]

    def fits(self, tile: Tile) -> list[int]:
        """The ends ``tile`` may be placed on. On an empty table that is ``[LEFT]`` alone: the
        first tile starts the line, and ``place`` opens both of its halves as ends."""
        if self.tiles == 0:
            return [LEFT]
        return [i for i, v in enumerate(self.values) if v is not None and (tile.high == v or tile.low == v)]

    def accepts_any(self, tiles: Iterable[Tile]) -> bool:
        if self.tiles == 0:
            return bool(tiles)
        mask = OPEN_MASK[self.ends_key]
        for t in tiles:  # noqa: SIM110  a plain loop: this is the hottest question in playouts
            if TILE_MASK[t] & mask:
                return True
        return False

    def count(self) -> int:
        """The sum of the open ends of every arm that holds a tile (the All Fives count)."""
        first = self.first
        if self.tiles == 1 and first is not None:
            return first.pips
        total = 0
        for i in range(4):
            v = self.values[i]
            if v is not None and (i < UP or self.occupied[i]):
                total += 2 * v if self.doubles[i] else v
        return total

    def count_after(self, tile: Tile, end: int) -> int:
        """``count()`` once ``tile`` is played on ``end`` (which it fits), without copying the
        layout: the listed ``scores`` hints, the server's muggins claims and the bots' playouts.

        Only the arm played on changes: its end becomes the tile's far half (both halves for
        a double); arms ``up``/``down`` count once they hold a tile. A spinner whose second
        side is taken opens ``up``/``down`` empty, which count nothing yet.
        """
        if self.tiles == 0:
            return tile.pips
        values = self.values
        doubles = self.doubles
        occupied = self.occupied
        v = values[end]
        far = tile.low if tile.high == v else tile.high
        total = 2 * far if tile.is_double else far
        for j in range(4):
            if j != end:
                w = values[j]
                if w is not None and (j < UP or occupied[j]):
                    total += 2 * w if doubles[j] else w
        return total

    def ends_dict(self) -> dict[str, int]:
        """The open ends by name (``tile_played.ends``, ``knocked.ends``)."""
        return dict(self.open_places())

    # --- the Board protocol: places by id ---------------------------------------------
    def open_places(self) -> list[tuple[Place, int]]:
        """Every open end by name, with its number: left, right, then up and down."""
        return [(END_NAMES[i], v) for i, v in enumerate(self.values) if v is not None]

    def places_for(self, tile: Tile) -> list[Place]:
        """The ends ``tile`` fits, by name (``fits`` in ids): ``["left"]`` on an empty table."""
        return [END_NAMES[i] for i in self.fits(tile)]

    def put(self, tile: Tile, place: Place) -> None:
        """``place`` by the end's name (``KeyError`` for a word that names no end)."""
        self.place(tile, END_INDEX[place])

    def describe(self, placed: Iterable[tuple[Tile, Place]]) -> dict[str, Any]:
        """The tiles on the table oriented as they lie: the line left to right, and with a
        spinner, the spinner and its arms (``placed``: this hand's tiles and ends, in order)."""
        line: list[list[int]] = []
        arms: dict[int, list[list[int]]] = {UP: [], DOWN: []}
        spinner = self.spinner
        # up and down only ever open on the spinner: an arm's first tile matches the spinner's number
        arm_root = spinner.high if spinner is not None else None
        values: list[int | None] = [None, None, arm_root, arm_root]
        for tile, place in placed:
            if not line:
                line.append([tile.high, tile.low])
                values[LEFT], values[RIGHT] = tile.high, tile.low
                continue
            end = END_INDEX[place]
            number = values[end]
            assert number is not None  # a tile was placed on this end: it was open
            other = tile.other(number)
            if end == LEFT:
                line.insert(0, [other, number])
            elif end == RIGHT:
                line.append([number, other])
            else:
                arms[end].append([number, other])
            values[end] = other
        out: dict[str, Any] = {"line": line}
        if self.uses_spinner:
            out["spinner"] = spinner.to_json() if spinner else None
            out["arms"] = {"up": arms[UP], "down": arms[DOWN]}
        return out

    # --- change -----------------------------------------------------------------
    def place(self, tile: Tile, end: int) -> None:
        """Put ``tile`` on ``end`` (the caller has checked it fits)."""
        if not self.tiles:
            self.first = tile
            self.values[LEFT], self.values[RIGHT] = tile.high, tile.low
            self.doubles[LEFT] = self.doubles[RIGHT] = tile.is_double
            if self.uses_spinner and tile.is_double:
                self.spinner = tile
                self.spinner_ends = frozenset((LEFT, RIGHT))
            self.tiles = 1
            self.ends_key = tile.high | tile.low << 4 | _NO_ARMS
            return
        values = self.values
        high = tile.high
        values[end] = tile.low if high == values[end] else high  # tile.other(number)
        self.doubles[end] = tile.is_double
        self.occupied[end] = True
        self.tiles += 1
        if not self.uses_spinner:
            # Line games: two ends, nothing else to track (the branch below, specialised).
            # (mypy cannot know that left and right are open once a tile lies; no check here, the hottest line.)
            self.ends_key = values[LEFT] | values[RIGHT] << 4 | _NO_ARMS  # type: ignore[operator]
            return
        if end in self.spinner_ends:
            # A tile against one of the spinner's sides; with both sides taken its ends open.
            self.spinner_ends = self.spinner_ends - {end}
            self.spinner_sides += 1
            if self.spinner_sides == 2:
                values[UP] = values[DOWN] = self.spinner.high  # type: ignore[union-attr]  # it has sides: it lies
        elif self.uses_spinner and self.spinner is None and tile.is_double:
            # The first double, played on a line end: its inner side already touches the line.
            self.spinner = tile
            self.spinner_ends = frozenset((end,))
            self.spinner_sides = 1
        # left and right are always open once a tile lies; up and down only after the spinner fills.
        up = values[UP]
        if up is None:
            self.ends_key = values[LEFT] | values[RIGHT] << 4 | _NO_ARMS  # type: ignore[operator]
        else:  # (up and down open together)
            self.ends_key = values[LEFT] | values[RIGHT] << 4 | up << 8 | values[DOWN] << 12  # type: ignore[operator]


if TYPE_CHECKING:
    _LAYOUT_IS_A_BOARD: Board = Layout()  # mypy checks that Layout satisfies the protocol
