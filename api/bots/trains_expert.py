"""The trains games' expert: it plans its own train, keeps it private, and reads the table.

In Mexican Train no playouts: one pass over the listed plays, each scored by what it leaves
in hand, cheap enough for the ~800 decisions of a 13-round match (``bench/trains_strength.py``
prints the time per decision). The scores count in points, the unit a round's end charges.

Mexican Train. The plan is the chain its own train can take: the run of tiles from its own
train's open number through its hand that leaves the fewest points off it (``best_chain``, a
depth-first search over its tiles, doubles included, counted in steps). The tiles off the
chain (its *orphans*) can only go on the Mexican train or a marked train, while those are open
to it; the chain needs nothing from anyone. So a play is scored by the orphans left after it
(their points and their number): an orphan shed on a public train scores best, heaviest first;
a chain tile on its own train keeps the plan whole; a chain tile elsewhere breaks it. Its own
train carrying a marker is open to everyone, and a tile put on it there changes its open number
under the plan: playing on it, which lifts the marker, scores a bonus. A double it cannot
cover from its hand leaves it drawing for the cover and likely marked: scored down, unless it
is the last tile. When another seat is down to a tile or two the round is about to end, and
what counts is the points left in hand now: the tile's own weight scores on top.

Chicken Foot has no private train: every arm is everyone's, and the expert looks ahead
instead (``trains_chicken``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from api.rules.tiles import Tile

from .actions import Action, Json
from .trains_chicken import choose_chicken
from .trains_table import ListedPlay, TrainsTable, listed_plays, no_play_action, read_table

ORPHAN_COST = 4  # what each tile off the plan costs beyond its points: a turn spent on a public train
MARKER_LIFT = 6  # playing on its own marked train shuts it to the others before they spoil the plan
UNCOVERED_DOUBLE = 10  # a double it cannot cover: a draw, most likely a marker, the table's spare turn
DOUBLE_TEMPO = 2  # a double it can cover sheds two tiles in one turn
CLOSE_TO_OUT = 2  # another seat with this many tiles or fewer may end the round on its next turn
SEARCH_STEPS = 4000  # the chain search's work, counted (never timed): enough for a full 15-tile hand


def best_chain(hand: Sequence[Tile], start: int, points: dict[Tile, int]) -> tuple[Tile, ...]:
    """The run of tiles from ``start`` through ``hand`` worth the most (``points`` plus
    ``ORPHAN_COST`` per tile: the orphans it leaves cost the least). Depth first, at most
    ``SEARCH_STEPS`` extensions (the best run found by then)."""
    tiles = list(hand)
    used = [False] * len(tiles)
    path: list[Tile] = []
    best: tuple[int, tuple[Tile, ...]] = (0, ())
    steps = 0

    def extend(end: int, value: int) -> None:
        nonlocal best, steps
        if value > best[0]:
            best = (value, tuple(path))
        for i, tile in enumerate(tiles):
            if used[i] or not tile.has(end) or steps >= SEARCH_STEPS:
                continue
            steps += 1
            used[i] = True
            path.append(tile)
            extend(tile.other(end), value + points[tile] + ORPHAN_COST)
            path.pop()
            used[i] = False

    extend(start, 0)
    return best[1]


def _without(hand: Sequence[Tile], tile: Tile) -> tuple[Tile, ...]:
    rest = list(hand)
    rest.remove(tile)
    return tuple(rest)


class _Planner:
    """The orphans' cost of a hand with its own train's open number, each asked once."""

    def __init__(self, table: TrainsTable) -> None:
        self.points = {t: table.points(t) for t in table.hand}
        self.cache: dict[tuple[tuple[Tile, ...], int], int] = {}

    def orphans_cost(self, hand: tuple[Tile, ...], end: int) -> int:
        key = (hand, end)
        if key not in self.cache:
            chain = best_chain(hand, end, self.points)
            self.cache[key] = sum(self.points[t] + ORPHAN_COST for t in hand) - sum(
                self.points[t] + ORPHAN_COST for t in chain
            )
        return self.cache[key]


def planner_of(table: TrainsTable) -> _Planner:
    """The plan's costs for ``table``'s seat, for :func:`mexican_score` (the analysis scores each play)."""
    return _Planner(table)


def mexican_score(table: TrainsTable, play: ListedPlay, planner: _Planner) -> int:
    """How good ``play`` is for the plan, in points (higher is better)."""
    own = table.own_train()
    assert own.open is not None
    tile = play.tile
    on_own = play.train == table.seat
    rest = _without(table.hand, tile)
    score = -planner.orphans_cost(rest, tile.other(own.open) if on_own else own.open)
    if tile.is_double and rest:
        covered = any(t.has(tile.high) for t in rest)
        score += DOUBLE_TEMPO if covered else -UNCOVERED_DOUBLE
    if on_own and own.marker:
        score += MARKER_LIFT
    if table.fewest_tiles_elsewhere() <= CLOSE_TO_OUT:
        score += planner.points[tile]
    return score


def choose_trains_expert(view: Json, log: Sequence[Json], rng: random.Random) -> Action:
    """The expert's action for the seat of ``view``. Only Chicken Foot's guesses draw from ``rng``
    (seeded per decision by ``choose_action``): the same question gets the same answer."""
    plays = listed_plays(view)
    if not plays:
        return no_play_action(view)
    table = read_table(view)
    if not table.is_mexican_train:
        return choose_chicken(table, plays, view, log, rng).action
    planner = _Planner(table)
    return max(plays, key=lambda p: (mexican_score(table, p, planner), table.points(p.tile))).action


__all__ = ["best_chain", "choose_trains_expert", "mexican_score", "planner_of"]
