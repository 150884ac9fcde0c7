"""Round robin by Berger tables (FIDE's, as printed in its Handbook, C.05 Annex 1).

Entrants are numbered 1..n in seeding order; an odd field adds a number n + 1 that is nobody,
and whoever meets it has the round off. In round ``r`` the highest number meets the first of a
circle of the others turned by ``n / 2`` places a round, and the rest of the circle meets itself
from both ends. The first number of each pair takes the first seat.
"""

from __future__ import annotations


def table_size(entrants: int) -> int:
    """The Berger table's size: the field, made even."""
    return entrants + entrants % 2


def rounds_for(entrants: int) -> int:
    """Rounds of a single round robin: everyone meets everyone once."""
    return table_size(entrants) - 1


def berger_round(entrants: int, round_: int) -> list[tuple[int, int]]:
    """Round ``round_``'s pairs (1-based numbers, the first seated first), table 1 first. With an
    odd field one pair holds the number ``entrants + 1``: the round off."""
    n = table_size(entrants)
    if n < 2 or not 1 <= round_ <= n - 1:
        raise ValueError(f"a round robin of {entrants} has rounds 1 to {n - 1}, not {round_}")
    half = n // 2
    circle = [(i + (round_ - 1) * half) % (n - 1) + 1 for i in range(n - 1)]
    first = (circle[0], n) if round_ % 2 else (n, circle[0])
    return [first] + [(circle[t - 1], circle[n - t]) for t in range(2, half + 1)]
