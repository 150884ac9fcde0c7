"""Arena: whoever is free is paired again at once, by score; wins in a row earn a streak bonus.

An arena runs for a set duration (its ``ends_at`` is fixed at the start). Whenever two or more
active entrants sit at no undecided table, the free pool is paired: by networkx's maximum-weight
matching (Edmonds' blossom algorithm, with ``maxcardinality``: as many tables as the pool allows,
then the best of those), as a Swiss is (:mod:`api.tournaments.swiss`). The weights rank what a
pairing avoids, each far above the next:

1. an **immediate rematch**: two entrants whose last games were against each other meet again
   only when no pairing of the pool with as many tables avoids it (two free entrants alone do meet);
2. meeting another **score**: the squared difference of arena points;
3. meeting someone far in **rank** (arena points, then the seeding order): the distance in ranks.

With an odd pool the one the matching leaves out waits for the next entrant to be free. Pools of
more than :data:`BLOCK` are paired in blocks of consecutive ranks (the blossom algorithm is cubic),
whoever a block leaves out joining the next.

**Scoring** (:func:`arena_points`, one home): a win 2 points, a draw 1, a loss 0, as match points
are; an entrant's third and every further win in an unbroken run of wins (its games in the order
they were paired) counts double, 4 points; a draw or a loss ends the run (and scores as usual).
A forfeit scores as the result it gives (a win for the side present, a loss for the absent one).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import networkx as nx

from .errors import PairingImpossible

BLOCK = 64
#: Wins in a row after which wins count double (Lichess's arena: "on fire" after two).
STREAK_AFTER = 2
STREAK_FACTOR = 2


def arena_points(base: int, won: bool, wins_before: int) -> int:
    """A game's arena points: its match points ``base``, doubled for a win when the entrant's
    run of wins before it is at least :data:`STREAK_AFTER` long."""
    return base * STREAK_FACTOR if won and wins_before >= STREAK_AFTER else base


@dataclass(frozen=True, slots=True)
class ArenaContender:
    """What arena pairing reads of a free entrant."""

    id: str
    points: int
    seed: int  # its place in the seeding order, 0 first
    last_opponent: str | None = None
    firsts: int = 0  # games it sat first


def pair_arena(pool: Sequence[ArenaContender]) -> tuple[tuple[str, str], ...]:
    """Tables (first seat, second seat) for the free pool, best ranked first; who is left out
    waits."""
    if len(pool) < 2:
        raise PairingImpossible("an arena pairs two free entrants at least")
    ranked = sorted(pool, key=lambda c: (-c.points, c.seed))
    rank = {c.id: position for position, c in enumerate(ranked)}
    pairs: list[tuple[ArenaContender, ArenaContender]] = []
    left: list[ArenaContender] = []
    for start in range(0, len(ranked), BLOCK):
        found, left = _pair_block(left + ranked[start : start + BLOCK])
        pairs += found
    pairs.sort(key=lambda pair: min(rank[pair[0].id], rank[pair[1].id]))
    return tuple(_seated(a, b, rank) for a, b in pairs)


def _seated(a: ArenaContender, b: ArenaContender, rank: dict[str, int]) -> tuple[str, str]:
    """Who sits first: the one that sat first less often, else the better ranked."""
    first, second = sorted((a, b), key=lambda c: (c.firsts, rank[c.id]))
    return first.id, second.id


Pairs = list[tuple[ArenaContender, ArenaContender]]


def _pair_block(block: list[ArenaContender]) -> tuple[Pairs, list[ArenaContender]]:
    size = len(block)
    spread = block[0].points - block[-1].points if block else 0
    rank_unit = 1
    score_unit = rank_unit * (size * size + 1)  # above every rank term of a whole pairing
    rematch_unit = score_unit * ((size // 2 + 1) * spread * spread + 1)  # above every score term
    base = 2 * rematch_unit  # every weight positive
    graph: nx.Graph[str] = nx.Graph()
    graph.add_nodes_from(c.id for c in block)
    for i, a in enumerate(block):
        for j in range(i + 1, size):
            b = block[j]
            penalty = score_unit * (a.points - b.points) ** 2 + rank_unit * (j - i)
            if a.last_opponent == b.id or b.last_opponent == a.id:
                penalty += rematch_unit
            graph.add_edge(a.id, b.id, weight=base - penalty)
    matched: set[tuple[str, str]] = nx.max_weight_matching(graph, maxcardinality=True)
    by_id = {c.id: c for c in block}
    paired = {node for pair in matched for node in pair}
    return [(by_id[a], by_id[b]) for a, b in matched], [c for c in block if c.id not in paired]
