"""The trains expert in Chicken Foot: every arm is everyone's, so it looks ahead.

A plan of its own train is worth little where anyone may play on any arm: the expert plays
each distinct candidate (a tile and the number it goes on) out to the round's end on guessed
deals of the tiles it cannot see (``trains_rollout.rollout_values``) and takes the one that
leaves it the fewest points against the others. Plays within ``NEAR`` of the best are told
apart by ``chicken_score``, in points (higher is better): the tile's own weight (a hand's
points at the round's end, 0-0 at ``double_blank_points``); a draw it will likely need next
turn when nothing left in its hand fits the ends the play leaves; a double, which grows a
chicken foot of three toes that must all be filled before anything else, scored by who can
fill them: its own tiles of that number count for it, the ones still unseen (the others may
hold them) against it, and each other seat known to lack the number for it (a seat that
cannot fill a toe draws, or passes). Who lacks what it reads from the log (``read_lacks``):
a seat that drew, or passed, could play on none of the numbers open then.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from api.rules.tiles import Tile
from api.rules.trains_board import TOES, ChickenFootBoard
from api.rules.trains_wire import place_from_wire

from .actions import Json
from .trains_rollout import rollout_values
from .trains_table import ListedPlay, TrainsTable

STUCK_NEXT = 8  # nothing left fits the ends it leaves: a draw is coming (about a tile's points)
FOOT_MINE = 3  # each toe it can fill itself from its hand
FOOT_THEIRS = 3  # each toe the unseen tiles may let the others fill
FOOT_LACKED = 4  # each other seat known to lack the foot's number
GUESSES = 12  # deals of the unseen tiles each candidate is played out on
NEAR = 1.0  # points of a guessed round's end within which two plays count as equal
CLOSE_TO_OUT = 2  # another seat with this many tiles or fewer may end the round on its next turn

Lacks = list[set[int]]  # per seat: numbers it showed it holds none of


def read_lacks(table: TrainsTable, log: Sequence[Json]) -> Lacks:
    """Per seat, the numbers it has shown it lacks since its last unseen draw: a seat that
    draws holds none of the numbers open then (a drawn tile played at once keeps what was
    known; one it keeps is unseen, so only the numbers it did not fit stay known)."""
    lacks: Lacks = [set() for _ in table.hand_counts]
    board: ChickenFootBoard | None = None
    drew: dict[int, set[int]] = {}  # a seat's draw not yet followed by its play or pass
    for event in log:
        kind, seat = event.get("type"), event.get("seat")
        if kind == "round_started":
            board = ChickenFootBoard(event["engine"])
            lacks = [set() for _ in table.hand_counts]
            drew.clear()
            continue
        if board is None or seat is None:
            continue
        if kind == "tile_drawn":
            drew[seat] = {n for _, n in board.open_places()}
            lacks[seat] |= drew[seat]
        elif kind == "passed":
            lacks[seat] = drew.pop(seat) if seat in drew else lacks[seat] | {n for _, n in board.open_places()}
        elif kind == "tile_placed":
            drew.pop(seat, None)
            board.put(Tile.from_json(event["tile"]), place_from_wire(event["train"]))
    return lacks


def _unseen_with(table: TrainsTable, number: int, rest: tuple[Tile, ...], seen_on_table: int) -> int:
    """How many tiles showing ``number`` (the double aside) neither lie on the table nor in ``rest``."""
    in_set = table.rules.top + 1  # number-x for every x, the double counted once
    return in_set - 1 - seen_on_table - sum(1 for t in rest if t.has(number))


def chicken_score(table: TrainsTable, play: ListedPlay, lacks: Lacks, on_table: dict[int, int]) -> int:
    """The heuristic worth of ``play`` in points (the module's docstring); ``on_table``: how
    many tiles on the table show each number."""
    tile = play.tile
    rest = list(table.hand)
    rest.remove(tile)
    score = table.points(tile)
    number = place_number(table, play)
    if tile.is_double:
        mine = sum(1 for t in rest if t.has(number))
        theirs = _unseen_with(table, number, tuple(rest), on_table.get(number, 0))
        lacking = sum(1 for s, lacked in enumerate(lacks) if s != table.seat and number in lacked)
        score += FOOT_MINE * min(mine, TOES) - FOOT_THEIRS * min(theirs, TOES) + FOOT_LACKED * lacking
        ends = {number}
    else:
        ends = {s.open for s in table.spots if s.open is not None and s.train != play.train}
        ends.add(tile.other(number))
        if table.toes_number is not None:
            ends = {table.toes_number} if _toes_left_after(table) else ends
    if rest and not any(t.high in ends or t.low in ends for t in rest):
        score -= STUCK_NEXT
    if table.fewest_tiles_elsewhere() <= CLOSE_TO_OUT:
        score += table.points(tile)
    return score


def _toes_left_after(table: TrainsTable) -> bool:
    """Whether the foot still needs toes after this one (the view's ``left`` counts this one)."""
    return table.toes_left > 1


def tiles_on_table(view: Json) -> set[Tile]:
    """Every tile on the table but the engine."""
    return {Tile(inner, outer) for arm in view["board"]["arms"] for inner, outer in arm["tiles"]}


def choose_chicken(
    table: TrainsTable, plays: list[ListedPlay], view: Json, log: Sequence[Json], rng: random.Random
) -> ListedPlay:
    """The play whose guessed round ends best (``rollout_values``); ties, and the lookahead's
    noise within ``NEAR``, by ``chicken_score``."""
    on_table = tiles_on_table(view)
    lacks = read_lacks(table, log)
    counts: dict[int, int] = {}
    for tile in on_table:
        for n in {tile.high, tile.low}:
            counts[n] = counts.get(n, 0) + 1
    number_of = {p.train: place_number(table, p) for p in plays}
    candidates = list(dict.fromkeys((p.tile, number_of[p.train]) for p in plays))
    if len(candidates) == 1:
        return plays[0]
    values = dict(zip(candidates, rollout_values(table, candidates, on_table, rng, GUESSES), strict=True))
    best = min(values.values())
    near = [p for p in plays if values[(p.tile, number_of[p.train])] <= best + NEAR]
    return max(near, key=lambda p: (chicken_score(table, p, lacks, counts), -values[(p.tile, number_of[p.train])]))


def place_number(table: TrainsTable, play: ListedPlay) -> int:
    """The number ``play``'s place shows: the required toes', else its arm's open end."""
    if table.toes_number is not None:
        return table.toes_number
    number = next(s.open for s in table.spots if s.train == play.train)
    assert number is not None
    return number


__all__ = ["Lacks", "chicken_score", "choose_chicken", "read_lacks", "tiles_on_table"]
