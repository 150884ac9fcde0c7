"""Swiss pairing: within score groups, no rematch while one is avoidable, at most one bye each.

The matching itself is networkx's maximum-weight matching (Edmonds' blossom algorithm, with
``maxcardinality``: as many pairs as possible, then the best of those). What is ours is only the
graph and its weights, which rank what a pairing should avoid, each far above the next:

1. a rematch (an edge between two entrants who have met weighs less than any other pairing);
2. a bye to anyone but the lowest-ranked entrant who has not had one (an entrant who has is
   never given another);
3. meeting someone of another score (the squared difference of match points);
4. within a score group, leaving the Dutch order: the top half meets the bottom half, first
   against first (``|distance - half|`` between ranks).

Ranks are by match points, then the seeding order (rating, then registration).

Small fields (:data:`ONE_MATCHING_UP_TO` entrants) are paired by one matching over everyone, whose
weights make it exact: no rematch unless every pairing of the field has one. Large fields are
paired score group by score group, top down (whoever cannot be paired in its group floats down
into the next), a large group in blocks of :data:`BLOCK` entrants along the Dutch order (the
blossom algorithm is cubic: 2,000 entrants at once take seconds, blocks of 64 a fraction of one);
if that leaves anyone unpaired, or the bye to no one allowed one, the field is paired by the one
exact matching after all.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import groupby

import networkx as nx

from .errors import PairingImpossible

ONE_MATCHING_UP_TO = 64
BLOCK = 64
_BYE = "\x00bye"  # the node standing for the bye: no entrant id starts with NUL


@dataclass(frozen=True, slots=True)
class Contender:
    """What pairing reads of an active entrant."""

    id: str
    match_points: int
    seed: int  # its place in the seeding order, 0 first
    opponents: frozenset[str]
    had_bye: bool
    firsts: int = 0  # rounds it sat first


@dataclass(frozen=True, slots=True)
class Pairing:
    tables: tuple[tuple[str, str], ...]  # (first seat, second seat), best ranked table first
    bye: str | None

    def rematches(self, contenders: Sequence[Contender]) -> int:
        met = {c.id: c.opponents for c in contenders}
        return sum(1 for a, b in self.tables if b in met[a])


def ranked(contenders: Sequence[Contender]) -> list[Contender]:
    return sorted(contenders, key=lambda c: (-c.match_points, c.seed))


def pair_swiss(contenders: Sequence[Contender]) -> Pairing:
    """The next round's tables and bye for the active entrants."""
    field = ranked(contenders)
    if len(field) < 2:
        raise PairingImpossible("fewer than two active entrants")
    pairs: list[tuple[Contender, Contender]] | None = None
    bye: Contender | None = None
    if len(field) > ONE_MATCHING_UP_TO:
        pairs, bye = _by_score_groups(field)
    if pairs is None:
        pairs, bye = _one_matching(field)
    rank = {c.id: position for position, c in enumerate(field)}
    pairs.sort(key=lambda pair: min(rank[pair[0].id], rank[pair[1].id]))
    return Pairing(tuple(_seated(a, b, rank) for a, b in pairs), bye.id if bye else None)


def _seated(a: Contender, b: Contender, rank: dict[str, int]) -> tuple[str, str]:
    """Who sits first: the one that sat first less often, else the better ranked."""
    first, second = sorted((a, b), key=lambda c: (c.firsts, rank[c.id]))
    return first.id, second.id


def _dutch(i: int, j: int, half: int) -> int:
    return abs(abs(j - i) - half)


def _matching(graph: nx.Graph[str]) -> set[tuple[str, str]]:
    found: set[tuple[str, str]] = nx.max_weight_matching(graph, maxcardinality=True)
    return found


def _one_matching(field: list[Contender]) -> tuple[list[tuple[Contender, Contender]], Contender | None]:
    """The exact pairing: one matching over the whole field (and the bye, for an odd one)."""
    size = len(field)
    odd = size % 2 == 1
    group_size: dict[int, int] = {}
    place: dict[str, int] = {}  # each entrant's place in its score group
    for c in field:
        place[c.id] = group_size.get(c.match_points, 0)
        group_size[c.match_points] = place[c.id] + 1
    spread = field[0].match_points - field[-1].match_points
    dutch_unit = 1
    score_unit = dutch_unit * (size * size + 1)  # above every Dutch term of a whole pairing
    bye_unit = score_unit * ((size // 2 + 1) * spread * spread + 1)  # above every score term
    rematch_unit = bye_unit * size  # above every bye term
    base = 2 * rematch_unit  # above every edge's penalty: every weight positive
    graph: nx.Graph[str] = nx.Graph()
    for i, a in enumerate(field):
        for j in range(i + 1, size):
            b = field[j]
            penalty = score_unit * (a.match_points - b.match_points) ** 2
            if b.id in a.opponents:
                penalty += rematch_unit
            if a.match_points == b.match_points:
                half = group_size[a.match_points] // 2
                penalty += dutch_unit * _dutch(place[a.id], place[b.id], half)
            graph.add_edge(a.id, b.id, weight=base - penalty)
    by_id = {c.id: c for c in field}
    if odd:
        allowed = [(i, c) for i, c in enumerate(field) if not c.had_bye]
        if not allowed:
            raise PairingImpossible("an odd field in which every active entrant has had its bye")
        for i, c in allowed:
            graph.add_edge(c.id, _BYE, weight=base - bye_unit * (size - 1 - i))
    matched = _matching(graph)
    if len(matched) * 2 != size + odd:
        raise PairingImpossible("no pairing of the field gives the bye to an entrant allowed one")
    pairs: list[tuple[Contender, Contender]] = []
    bye: Contender | None = None
    for one, other in matched:
        if _BYE in (one, other):
            bye = by_id[other if one == _BYE else one]
        else:
            pairs.append((by_id[one], by_id[other]))
    return pairs, bye


def _by_score_groups(field: list[Contender]) -> tuple[list[tuple[Contender, Contender]] | None, Contender | None]:
    """Group by group, top down, in blocks; None when it leaves anyone unpaired or has a rematch
    it could not avoid (then the exact matching decides)."""
    groups = [list(members) for _, members in groupby(field, key=lambda c: c.match_points)]
    pairs: list[tuple[Contender, Contender]] = []
    bye: Contender | None = None
    carried: list[Contender] = []
    for number, group in enumerate(groups):
        members = carried + group
        last = number == len(groups) - 1
        carried = []
        if len(members) % 2:
            if last:
                bye = next((c for c in reversed(members) if not c.had_bye), None)
                if bye is None:
                    return None, None
                members.remove(bye)
            else:
                carried.append(members.pop())  # the lowest ranked floats down
        found, unpaired = _pair_group(members)
        pairs += found
        carried = unpaired + carried
    if carried:
        return None, None
    return pairs, bye


def _pair_group(members: list[Contender]) -> tuple[list[tuple[Contender, Contender]], list[Contender]]:
    """A score group (its floaters first), even in number: top half against bottom half, block
    by block; who is left unpaired in a block joins the next, and after the last floats down."""
    half = len(members) // 2
    top, bottom = members[:half], members[half:]
    step = BLOCK // 2
    pairs: list[tuple[Contender, Contender]] = []
    left: list[Contender] = []
    for start in range(0, half, step):
        block = left + top[start : start + step] + bottom[start : start + step]
        found, left = _pair_block(block)
        pairs += found
    return pairs, left


def _pair_block(block: list[Contender]) -> tuple[list[tuple[Contender, Contender]], list[Contender]]:
    """One block: a matching without rematch edges, Dutch order as the weights."""
    size = len(block)
    half = size // 2
    spread = block[0].match_points - block[-1].match_points
    score_unit = size * size + 1
    base = score_unit * (spread * spread + 1) + size + 1
    graph: nx.Graph[str] = nx.Graph()
    graph.add_nodes_from(c.id for c in block)
    for i, a in enumerate(block):
        for j in range(i + 1, size):
            b = block[j]
            if b.id not in a.opponents:
                penalty = score_unit * (a.match_points - b.match_points) ** 2 + _dutch(i, j, half)
                graph.add_edge(a.id, b.id, weight=base - penalty)
    by_id = {c.id: c for c in block}
    matched = _matching(graph)
    paired = {node for pair in matched for node in pair}
    return [(by_id[a], by_id[b]) for a, b in matched], [c for c in block if c.id not in paired]
