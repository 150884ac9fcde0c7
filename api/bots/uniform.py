"""Exact uniform sampling of the deals consistent with what a seat knows, when each seat's hidden
tiles are all under one constraint (``Budget.exact_deals``).

In a game without drawing every hidden tile of a seat was held through the same knocks, so all of
its slots lack the same numbers, and the same bars (``Knowledge.barred``, ``Knowledge.shed``) apply
to each: seat ``s`` holds exactly ``n_s`` tiles, all from a set ``A_s`` of the unseen tiles, and the
boneyard takes the rest, unconstrained. Every such deal is equally likely in truth, and
``Knowledge.weighed_sample`` (slot by slot, most constrained first) does not draw them alike: its own
correction differs up to 100-fold between the deals of one decision.

Here the unseen tiles are grouped by *type*: which of the seats may hold them (at most ``2 ** 3``
types with four players). A deal is then, for each type, how many of its tiles go to each seat that
may hold it (the rest to the boneyard) and which ones. The number of deals is counted exactly (Python
integers) by a memoized recursion over the types and what each seat still needs, the last type in
closed form, and a deal is drawn backwards: at each type a split in proportion to the deals it
leaves, then the tiles of each part at random. No floats, so the draw is the same on every Python.
"""

from __future__ import annotations

import random
from math import comb

from api.rules.tiles import Tile

Needs = tuple[int, ...]  # what each seat (in ``UniformDeals.seats`` order) still needs
Split = tuple[int, ...]  # how many tiles of one type go to each seat (in the same order)


class UniformDeals:
    """The consistent deals of ``unseen``: seat ``seats[i]`` holds ``needs[i]`` tiles, each in
    ``allowed[i]`` (a set of tiles), the boneyard the rest. ``count`` is how many there are (0: none,
    and ``sample`` must not be called)."""

    def __init__(self, seats: list[int], needs: list[int], allowed: list[set[Tile]], unseen: list[Tile]) -> None:
        self.seats = seats
        self.needs: Needs = tuple(needs)
        groups: dict[int, list[Tile]] = {}
        for tile in unseen:  # canonical order, kept within each type
            kind = sum(1 << i for i, a in enumerate(allowed) if tile in a)
            groups.setdefault(kind, []).append(tile)
        # the largest type last: its split is forced (what each seat still needs), in closed form
        kinds = sorted(groups, key=lambda k: (len(groups[k]), k))
        self.types: list[tuple[int, list[Tile]]] = [(k, groups[k]) for k in kinds] or [(0, [])]
        self.spare = len(unseen) - sum(needs)  # the boneyard's tiles
        self._ways: dict[tuple[int, Needs], int] = {}
        self._splits: dict[tuple[int, Needs], tuple[list[Split], list[int]]] = {}
        self.count = self._count(0, self.needs) if self.spare >= 0 else 0

    def _last(self, needs: Needs) -> int:
        """The ways the last type fills ``needs`` exactly (each seat's part, the rest out of play)."""
        kind, tiles = self.types[-1]
        left = len(tiles)
        ways = 1
        for i, n in enumerate(needs):
            if n and not kind >> i & 1:
                return 0
            if n > left:
                return 0
            ways *= comb(left, n)
            left -= n
        return ways

    def _count(self, t: int, needs: Needs) -> int:
        """The deals of types ``t`` onward that fill ``needs``."""
        if t == len(self.types) - 1:
            return self._last(needs)
        key = (t, needs)
        found = self._ways.get(key)
        if found is None:
            _splits, cumulative = self._split_table(t, needs)
            found = cumulative[-1] if cumulative else 0
            self._ways[key] = found
        return found

    def _split_table(self, t: int, needs: Needs) -> tuple[list[Split], list[int]]:
        """Each split of type ``t``'s tiles that leaves a way to finish, with the cumulative number
        of deals through it (the split's own ways, a multinomial, times the deals after it)."""
        key = (t, needs)
        table = self._splits.get(key)
        if table is not None:
            return table
        kind, tiles = self.types[t]
        splits: list[Split] = []
        cumulative: list[int] = []
        total = 0
        part = [0] * len(needs)

        def place(i: int, left: int, ways: int) -> None:
            nonlocal total
            if i == len(needs):
                after = tuple(n - m for n, m in zip(needs, part))
                rest = self._count(t + 1, after)
                if rest:
                    total += ways * rest
                    splits.append(tuple(part))
                    cumulative.append(total)
                return
            top = min(needs[i], left) if kind >> i & 1 else 0
            for m in range(top + 1):
                part[i] = m
                place(i + 1, left - m, ways * comb(left, m))
            part[i] = 0

        place(0, len(tiles), 1)
        table = (splits, cumulative)
        self._splits[key] = table
        return table

    def sample(self, rng: random.Random) -> tuple[dict[int, list[Tile]], list[Tile]]:
        """One of the ``count`` deals, each as likely as any other: the hands (each in canonical
        order) and the boneyard (shuffled)."""
        hands: dict[int, list[Tile]] = {s: [] for s in self.seats}
        boneyard: list[Tile] = []
        needs = self.needs
        last = len(self.types) - 1
        for t, (_kind, tiles) in enumerate(self.types):
            if t < last:
                splits, cumulative = self._split_table(t, needs)
                point = rng.randrange(cumulative[-1])
                split = splits[_first_above(cumulative, point)]
            else:
                split = needs
            order = tiles[:]
            rng.shuffle(order)
            at = 0
            for i, m in enumerate(split):
                hands[self.seats[i]].extend(order[at : at + m])
                at += m
            boneyard.extend(order[at:])
            needs = tuple(n - m for n, m in zip(needs, split))
        for s in self.seats:
            hands[s].sort(key=lambda tile: tile.index)
        rng.shuffle(boneyard)
        return hands, boneyard


def _first_above(cumulative: list[int], point: int) -> int:
    """The index of the first cumulative count above ``point`` (a binary search)."""
    lo, hi = 0, len(cumulative) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if cumulative[mid] > point:
            hi = mid
        else:
            lo = mid + 1
    return lo
