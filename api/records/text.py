"""Read and write a record's text (``docs/records.md``): ``parse`` and ``write``, standard library only.

``write`` gives the canonical form; ``parse`` reads any text the grammar admits and says where
the first departure from it is (``RecordSyntaxError``: line and column). ``write(parse(x)) == x``
for every canonical ``x``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .model import (
    DRAW,
    END_LETTERS,
    FORMAT,
    KNOCK,
    LETTER_ENDS,
    LEVELS,
    MUGGINS,
    PASS,
    PLAY,
    REPLACED,
    REQUIRED_TAGS,
    TAG_ORDER,
    TIME_OUT,
    Boneyard,
    Comment,
    Deal,
    Element,
    HandEnd,
    HandStart,
    Held,
    MatchEnd,
    Move,
    Position,
    Record,
    RoundStart,
    Tag,
    Tile,
    TurnUp,
)

WIDTH = 79  # the canonical form's longest line (but for one token longer on its own)
CONTINUATION = "  "  # a wrapped Deal, Boneyard or TurnUp line goes on after this indent

NUMBER = r"(?:0|[1-9][0-9]*)"
TAG_LINE = re.compile(r"\[([A-Za-z][A-Za-z0-9]*) ")
TILE = re.compile(rf"({NUMBER})-({NUMBER})")
INT = re.compile(NUMBER)
TRAIN = rf"(?:{NUMBER}|mexican|toe:{NUMBER}:{NUMBER})"
MOVE = re.compile(
    rf"(?P<seat>{NUMBER}):(?:"
    rf"(?P<tile>{NUMBER}-{NUMBER})(?:(?P<end>[LRUD])|/(?P<train>{TRAIN}))(?P<auto>\*)?"
    rf"(?:=(?P<claim>{NUMBER}))?(?:\+(?P<points>{NUMBER}))?"
    rf"|D(?P<drawn>{NUMBER}-{NUMBER})?(?P<draw_auto>\*)?"
    rf"|(?P<letter>[KP])(?P<letter_auto>\*)?"
    rf"|M\+(?P<taken>{NUMBER})"
    rf"|T(?P<consecutive>{NUMBER})"
    rf"|R=(?P<level>{'|'.join(LEVELS)})"
    r")"
)
#: The words that begin an element of the move text.
KEYWORDS = ("TurnUp", "Hand", "Round", "Deal", "Boneyard", "End", "Match")


class RecordSyntaxError(ValueError):
    """The text departs from docs/records.md at ``position``."""

    def __init__(self, position: Position, message: str) -> None:
        super().__init__(f"{position}: {message}")
        self.position = position
        self.message = message


# --- writing --------------------------------------------------------------------------------
def json_text(value: Any) -> str:
    """A tag's value in the canonical form: compact JSON, keys sorted, non-ASCII as it is."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def tile_text(tile: Held) -> str:
    return "?" if tile is None else f"{tile[0]}-{tile[1]}"


def move_text(move: Move) -> str:
    """A move's token (``0:6-4R``, ``1:D3-1``, ``1:M+10``, …)."""
    auto = "*" if move.auto else ""
    if move.kind == PLAY:
        assert move.tile is not None and move.place is not None
        place = END_LETTERS.get(move.place) or f"/{move.place}"
        claim = "" if move.claim is None else f"={move.claim}"
        points = "" if move.points is None else f"+{move.points}"
        action = f"{tile_text(move.tile)}{place}{auto}{claim}{points}"
    elif move.kind == DRAW:
        action = f"D{'' if move.tile is None else tile_text(move.tile)}{auto}"
    elif move.kind in (KNOCK, PASS):
        action = f"{'K' if move.kind == KNOCK else 'P'}{auto}"
    elif move.kind == MUGGINS:
        action = f"M+{move.points}"
    elif move.kind == TIME_OUT:
        action = f"T{move.consecutive}"
    elif move.kind == REPLACED:
        action = f"R={move.level}"
    else:
        raise ValueError(f"no such move: {move.kind!r}")
    return f"{move.seat}:{action}"


def comment_text(text: str) -> str:
    return "{" + text.replace("\\", "\\\\").replace("}", "\\}") + "}"


def _numbers(words: tuple[int, ...]) -> list[str]:
    return [str(n) for n in words]


def element_tokens(element: Element) -> list[str]:
    """An element's tokens, keyword first (a move or a comment: its one token)."""
    if isinstance(element, Move):
        return [move_text(element)]
    if isinstance(element, Comment):
        return [comment_text(element.text)]
    if isinstance(element, TurnUp):
        return ["TurnUp", *(tile_text(t) for t in element.tiles), "lead", str(element.leader)]
    if isinstance(element, HandStart):
        return ["Hand", str(element.number), "lead", str(element.leader)]
    if isinstance(element, RoundStart):
        return ["Round", str(element.number), "engine", str(element.engine), "lead", str(element.leader)]
    if isinstance(element, Deal):
        return ["Deal", str(element.seat), *(tile_text(t) for t in element.tiles)]
    if isinstance(element, Boneyard):
        return ["Boneyard", *(tile_text(t) for t in element.tiles)]
    if isinstance(element, HandEnd):
        out = ["End", element.reason]
        if element.winner is not None:
            out += ["winner", str(element.winner)]
        if element.points is not None:
            out += ["points", str(element.points)]
        return [*out, "pips", *_numbers(element.pips), element.label, *_numbers(element.scores)]
    who = ["winners", *_numbers(element.winners)] if element.shared else ["winner", str(element.winners[0])]
    return ["Match", *who, "scores", *_numbers(element.scores)]


def _packed(tokens: list[str], indent: str) -> list[str]:
    """``tokens`` in lines of at most WIDTH characters (a longer token alone), later lines indented."""
    lines: list[str] = []
    line = ""
    for token in tokens:
        if line and len(line) + 1 + len(token) > WIDTH:
            lines.append(line)
            line = indent + token
        else:
            line = f"{line} {token}" if line else token
    if line:
        lines.append(line)
    return lines


def ordered_tags(tags: tuple[Tag, ...]) -> list[Tag]:
    """The canonical order: TAG_ORDER's, then the others by name."""
    rank = {name: i for i, name in enumerate(TAG_ORDER)}
    return sorted(tags, key=lambda tag: (rank.get(tag.name, len(rank)), tag.name))


def write(record: Record) -> str:
    """The record's canonical text."""
    lines = [f"[{tag.name} {json_text(tag.value)}]" for tag in ordered_tags(record.tags)]
    lines.append("")
    flow: list[str] = []  # moves and comments, packed together until the next line element
    for element in record.elements:
        if isinstance(element, Move | Comment):
            flow += element_tokens(element)
            continue
        lines += _packed(flow, "")
        flow = []
        lines += _packed(element_tokens(element), CONTINUATION)
    lines += _packed(flow, "")
    return "\n".join(lines) + "\n"


# --- reading --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Token:
    text: str
    at: Position
    comment: str | None = None  # the text of a {comment}, unescaped


def parse(text: str) -> Record:
    """The record ``text`` holds; ``RecordSyntaxError`` at the first departure from the grammar."""
    lines = [line[:-1] if line.endswith("\r") else line for line in text.split("\n")]
    if lines and lines[-1] == "":
        lines.pop()  # the final LF
    tags: list[Tag] = []
    number = 0
    while number < len(lines) and lines[number].startswith("["):
        tags.append(_tag(lines[number], number + 1))
        number += 1
    if not tags:
        raise RecordSyntaxError(Position(1, 1), f'a record begins with its tags, the first [Format "{FORMAT}"]')
    _check_tags(tags, Position(number, 1))
    if number < len(lines):
        if lines[number].strip():
            raise RecordSyntaxError(Position(number + 1, 1), "an empty line comes between the tags and the move text")
        number += 1
    elements = _Elements(list(_tokens(lines, number))).read()
    return Record(tuple(tags), tuple(elements))


def _tag(line: str, number: int) -> Tag:
    match = TAG_LINE.match(line)
    if match is None:
        raise RecordSyntaxError(Position(number, 2), "a tag is [Name value]: a name of letters and digits, one space")
    start = match.end()
    try:
        value, end = json.JSONDecoder().raw_decode(line, start)
    except json.JSONDecodeError as exc:
        raise RecordSyntaxError(Position(number, exc.colno), f"the tag's value is not JSON: {exc.msg}") from None
    if line[end:] != "]":
        raise RecordSyntaxError(Position(number, end + 1), "a tag ends with ] after its value, at the end of its line")
    return Tag(match[1], value, Position(number, 1))


def _check_tags(tags: list[Tag], end_of_header: Position) -> None:
    if tags[0].name != "Format":
        raise RecordSyntaxError(Position(1, 2), f'the first tag is [Format "{FORMAT}"]')
    if tags[0].value != FORMAT:
        raise RecordSyntaxError(Position(1, 9), f"this reader reads {FORMAT}, not {json_text(tags[0].value)}")
    seen: set[str] = set()
    for tag in tags:
        if tag.name in seen:
            assert tag.at is not None
            raise RecordSyntaxError(Position(tag.at.line, 2), f"a second {tag.name} tag")
        seen.add(tag.name)
    missing = [name for name in REQUIRED_TAGS if name not in seen]
    if missing:
        raise RecordSyntaxError(end_of_header, f"the header has no {', '.join(missing)} tag")


def _tokens(lines: list[str], first: int) -> Iterator[Token]:
    """The move text's tokens, from line ``first`` (0-based) on."""
    for index in range(first, len(lines)):
        line = lines[index]
        column = 0
        while column < len(line):
            char = line[column]
            if char == " ":
                column += 1
                continue
            at = Position(index + 1, column + 1)
            if char == "{":
                text, column = _comment(line, column, at)
                yield Token(line[at.column - 1 : column], at, text)
                continue
            if char == "[":
                raise RecordSyntaxError(at, "a tag after the move text began (tags come first)")
            end = line.find(" ", column)
            end = len(line) if end < 0 else end
            brace = line.find("{", column, end)
            end = end if brace < 0 else brace
            yield Token(line[column:end], at)
            column = end


def _comment(line: str, column: int, at: Position) -> tuple[str, int]:
    """The unescaped text of the comment opening at ``column``, and the column after it."""
    out: list[str] = []
    i = column + 1
    while i < len(line):
        char = line[i]
        if char == "}":
            return "".join(out), i + 1
        if char == "\\":
            if i + 1 < len(line) and line[i + 1] in "\\}":
                out.append(line[i + 1])
                i += 2
                continue
            raise RecordSyntaxError(Position(at.line, i + 1), "in a comment \\ escapes only } and \\")
        out.append(char)
        i += 1
    raise RecordSyntaxError(at, "this comment does not end on its line: close it with }")


class _Elements:
    """The move text's elements, read from its tokens one at a time."""

    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.i = 0

    def peek(self) -> Token | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self, what: str, after: Token) -> Token:
        token = self.peek()
        if token is None or token.comment is not None:
            where = after.at if token is None else token.at
            raise RecordSyntaxError(where, f"{what} expected after {after.text}")
        self.i += 1
        return token

    def word(self, word: str, after: Token) -> Token:
        token = self.take(f'"{word}"', after)
        if token.text != word:
            raise RecordSyntaxError(token.at, f'"{word}" expected, not {token.text!r}')
        return token

    def number(self, what: str, after: Token) -> int:
        token = self.take(what, after)
        if not INT.fullmatch(token.text):
            raise RecordSyntaxError(token.at, f"{what} (a whole number) expected, not {token.text!r}")
        return int(token.text)

    def numbers(self, what: str, after: Token) -> tuple[int, ...]:
        out = [self.number(what, after)]
        while (token := self.peek()) is not None and token.comment is None and INT.fullmatch(token.text):
            out.append(int(token.text))
            self.i += 1
        return tuple(out)

    def held(self, after: Token, hidden: bool = True) -> tuple[Held, ...]:
        """The tiles (and ``?``) that follow, up to the next token of another kind."""
        out: list[Held] = []
        while (token := self.peek()) is not None and token.comment is None:
            if token.text == "?" and hidden:
                out.append(None)
            elif TILE.fullmatch(token.text):
                out.append(_tile(token))
            else:
                break
            self.i += 1
        return tuple(out)

    def read(self) -> list[Element]:
        out: list[Element] = []
        while (token := self.peek()) is not None:
            self.i += 1
            if token.comment is not None:
                out.append(Comment(token.comment, token.at))
            elif token.text in KEYWORDS:
                out.append(self.line_element(token))
            else:
                out.append(_move(token))
        return out

    def line_element(self, key: Token) -> Element:
        at = key.at
        if key.text == "Hand":
            number = self.number("the hand's number", key)
            return HandStart(number, self.number("the leader's seat", self.word("lead", key)), at)
        if key.text == "Round":
            number = self.number("the round's number", key)
            engine = self.number("the engine's number", self.word("engine", key))
            return RoundStart(number, engine, self.number("the leader's seat", self.word("lead", key)), at)
        if key.text == "TurnUp":
            tiles = self.held(key, hidden=False)
            if not tiles:
                raise RecordSyntaxError(self.take("a tile", key).at, "TurnUp lists each seat's tile")
            return TurnUp(tiles, self.number("the leader's seat", self.word("lead", key)), at)  # type: ignore[arg-type]  # no "?" read
        if key.text == "Deal":
            return Deal(self.number("the seat", key), self.held(key), at)
        if key.text == "Boneyard":
            return Boneyard(self.held(key), at)
        if key.text == "End":
            return self.hand_end(key)
        return self.match_end(key)

    def hand_end(self, key: Token) -> HandEnd:
        reason = self.take("domino or blocked", key)
        if reason.text not in ("domino", "blocked"):
            raise RecordSyntaxError(reason.at, f"a hand ends by domino or blocked, not {reason.text!r}")
        winner = points = None
        token = self.take('"winner", "points" or "pips"', key)
        if token.text == "winner":
            winner = self.number("the winner's seat", token)
            token = self.take('"points" or "pips"', key)
        if token.text == "points":
            points = self.number("the points", token)
            token = self.take('"pips"', key)
        if token.text != "pips":
            raise RecordSyntaxError(token.at, f'"pips" expected, not {token.text!r}')
        pips = self.numbers("each seat's pips", token)
        label = self.take('"scores" or "totals"', key)
        if label.text not in ("scores", "totals"):
            raise RecordSyntaxError(label.at, f'"scores" or "totals" expected, not {label.text!r}')
        return HandEnd(reason.text, winner, points, pips, self.numbers(label.text, label), label.text, key.at)

    def match_end(self, key: Token) -> MatchEnd:
        token = self.take('"winner" or "winners"', key)
        if token.text == "winner":
            winners: tuple[int, ...] = (self.number("the winning side", token),)
        elif token.text == "winners":
            winners = self.numbers("the seats sharing the win", token)
        else:
            raise RecordSyntaxError(token.at, f'"winner" or "winners" expected, not {token.text!r}')
        scores = self.numbers("the scores", self.word("scores", key))
        return MatchEnd(winners, token.text == "winners", scores, key.at)


def _tile(token: Token) -> Tile:
    match = TILE.fullmatch(token.text)
    assert match is not None
    high, low = int(match[1]), int(match[2])
    if high < low:
        raise RecordSyntaxError(token.at, f"a tile is written high end first: {low}-{high}, not {token.text}")
    return high, low


def _move(token: Token) -> Move:
    match = MOVE.fullmatch(token.text)
    if match is None:
        if re.match(rf"{NUMBER}:", token.text):
            raise RecordSyntaxError(token.at, f"{token.text!r} is no move (docs/records.md, Moves)")
        raise RecordSyntaxError(
            token.at, f"a move (seat:action), a comment or {', '.join(KEYWORDS)} expected, not {token.text!r}"
        )
    seat, at = int(match["seat"]), token.at
    action_at = Position(at.line, at.column + len(match["seat"]) + 1)

    def tile(text: str) -> Tile:
        return _tile(Token(text, action_at))

    def whole(name: str) -> int | None:
        return None if match[name] is None else int(match[name])

    if match["tile"] is not None:
        place = LETTER_ENDS[match["end"]] if match["end"] else match["train"]
        return Move(seat, PLAY, tile(match["tile"]), place, bool(match["auto"]), whole("claim"), whole("points"), at=at)
    if token.text[len(match["seat"]) + 1] == "D":
        drawn = None if match["drawn"] is None else tile(match["drawn"])
        return Move(seat, DRAW, drawn, auto=bool(match["draw_auto"]), at=at)
    if match["letter"] is not None:
        return Move(seat, KNOCK if match["letter"] == "K" else PASS, auto=bool(match["letter_auto"]), at=at)
    if match["taken"] is not None:
        return Move(seat, MUGGINS, points=int(match["taken"]), at=at)
    if match["consecutive"] is not None:
        return Move(seat, TIME_OUT, consecutive=int(match["consecutive"]), at=at)
    return Move(seat, REPLACED, level=match["level"], at=at)
