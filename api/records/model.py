"""A record's parts as values (``docs/records.md``): its tags and the elements of its move text.

Standard library only. Each element of the move text stands for one event of the match's log
(a deal stands for ``hand_started`` with its ``Deal`` and ``Boneyard`` lines), so a record and a
log convert one to the other element by element. Where an element was read from (``at``) is not
part of its value: two records are equal when they say the same things.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: The version this package reads and writes: the value of the first tag, ``Format``.
FORMAT = "boneyard-record/1"

#: The tags of the canonical order (docs/records.md, *Header tags*); others follow by name.
TAG_ORDER = (
    "Format",
    "Event",
    "Site",
    "Date",
    "Match",
    "Game",
    "Family",
    "Set",
    "Players",
    "Teams",
    "Rules",
    "Seats",
    "Claims",
    "SeededByClient",
    "SeedAlgorithm",
    "SeedCommitment",
    "Seed",
    "Result",
    "Scores",
)
#: The tags every record holds.
REQUIRED_TAGS = ("Format", "Game", "Family", "Set", "Players", "Rules", "Seats", "SeedCommitment", "Result")
#: The tags that say where and when, not what happened: no event of the log gives them.
CIRCUMSTANCE_TAGS = frozenset({"Event", "Site", "Date", "Match"})
UNKNOWN = {"Event": "?", "Site": "?", "Date": "????.??.??"}
#: ``Result`` while the match goes on.
GOING_ON = "*"

Tile = tuple[int, int]  # (high, low)
Held = Tile | None  # None: a tile the record's reader may not see ("?")

#: A line end's letter in a play (``0:6-4R``) and back.
END_LETTERS = {"left": "L", "right": "R", "up": "U", "down": "D"}
LETTER_ENDS = {letter: end for end, letter in END_LETTERS.items()}
#: The computer players' levels a ``R=level`` token may name.
LEVELS = ("random", "greedy", "intermediate", "expert")


@dataclass(frozen=True)
class Position:
    """Line and column, both from 1 (the column in characters)."""

    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.line}:{self.column}"


@dataclass(frozen=True)
class Tag:
    name: str
    value: Any  # a JSON value
    at: Position | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class TurnUp:
    """``rotate_any``: each seat's turned-up tile, and the seat that leads hand 1."""

    tiles: tuple[Tile, ...]
    leader: int
    at: Position | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class HandStart:
    number: int
    leader: int
    at: Position | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class RoundStart:
    number: int
    engine: int
    leader: int
    at: Position | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Deal:
    """One seat's tiles in dealt order (``None`` for each tile the reader may not see)."""

    seat: int
    tiles: tuple[Held, ...]
    at: Position | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Boneyard:
    tiles: tuple[Held, ...]
    at: Position | None = field(default=None, compare=False, repr=False)


# What a move token does: its letter after ``seat:`` (a play starts with its tile instead).
PLAY, DRAW, KNOCK, PASS, MUGGINS, TIME_OUT, REPLACED = (
    "play",
    "draw",
    "knock",
    "pass",
    "muggins",
    "time_out",
    "replaced",
)


@dataclass(frozen=True)
class Move:
    """One move token: ``seat:action``. ``place`` is an end's name (``left``…) or a trains
    game's train as ``tile_placed`` names it (``0``, ``mexican``, ``toe:9:0``), as a string."""

    seat: int
    kind: str
    tile: Tile | None = None
    place: str | None = None
    auto: bool = False
    claim: int | None = None  # muggins_calls: the points claimed with the play
    points: int | None = None  # scored at once by the play, or taken by the muggins call
    consecutive: int | None = None  # a time-out: the seat's turns timed out in a row
    level: str | None = None  # a replaced seat's new player
    at: Position | None = field(default=None, compare=False, repr=False)

    @property
    def is_the_seats_own(self) -> bool:
        """An action of the seat (or of the clock, ``T``), not a consequence the rules give."""
        return self.kind in (MUGGINS, TIME_OUT) or (self.kind in (PLAY, DRAW, KNOCK, PASS) and not self.auto)


@dataclass(frozen=True)
class HandEnd:
    """``hand_ended`` (``label`` "scores": per side) or a trains game's ``round_ended``
    ("totals": per seat; no ``points``)."""

    reason: str
    winner: int | None
    points: int | None
    pips: tuple[int, ...]
    scores: tuple[int, ...]
    label: str = "scores"
    at: Position | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class MatchEnd:
    """``match_ended``: the winning side (or every seat sharing a trains game's win) and the scores."""

    winners: tuple[int, ...]
    shared: bool  # written "winners" (a trains game), else "winner"
    scores: tuple[int, ...]
    at: Position | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Comment:
    text: str
    at: Position | None = field(default=None, compare=False, repr=False)


Element = TurnUp | HandStart | RoundStart | Deal | Boneyard | Move | HandEnd | MatchEnd | Comment


@dataclass(frozen=True)
class Record:
    tags: tuple[Tag, ...]
    elements: tuple[Element, ...]

    def tag(self, name: str) -> Tag | None:
        return next((tag for tag in self.tags if tag.name == name), None)

    def value(self, name: str, default: Any = None) -> Any:
        found = self.tag(name)
        return default if found is None else found.value

    def without_comments(self) -> list[Element]:
        """The elements without the comments: what a replay compares."""
        return [element for element in self.elements if not isinstance(element, Comment)]
