"""Rewritten logs, as a hostile operator (or a corrupted copy) would hand them over.

``rewritten_deal``: hand 1's deal changed after the fact (a tile that seat 0 later plays moved
into seat 1's hand, swapped for one of seat 1's), the rest of the log left as played. Stored
through the store (``store_ended_log``) or re-chained (``api.tools.golden.audit_document``),
its hash chain is sound, so only a replay can tell: the deal is not the seed's (the first seq
that departs), and seat 0's later play is of a tile the rewritten deal never gave it (a fold
that trusts the log cannot take it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from api.tools.golden import Vector, generate, log_of

#: Seat 0 is a person (played by the golden driver), seat 1 a computer: seat 0's plays are not
#: a bot's decisions, so nothing but the fold itself meets the impossible play.
PERSON_AND_BOT = Vector(
    "tampered-deal-2p",
    "standard-draw",
    2,
    {"target": 50},
    ({"name": "Ana", "type": "remote"}, {"name": "Bot", "type": "bot", "level": "greedy"}),
)


@dataclass(frozen=True)
class RewrittenDeal:
    log: list[dict[str, Any]]  # every event, without seq (as ``log_of`` gives them)
    deal_seq: int  # the rewritten hand_started: the first seq that departs from the seed
    play_seq: int  # seat 0's play of the tile moved away: an event the state cannot take
    tile: list[int]  # that tile


def rewritten_deal(vector: Vector = PERSON_AND_BOT) -> RewrittenDeal:
    audit, _ = generate(vector)
    log = log_of(audit)
    deal = next(i for i, e in enumerate(log) if e["type"] == "hand_started")
    play = next(
        i
        for i, e in enumerate(log)
        if i > deal
        and e["type"] == "tile_played"
        and e["seat"] == 0
        and not e["auto"]
        and e["tile"] in log[deal]["hands"][0]
    )
    tile = log[play]["tile"]
    hands = log[deal]["hands"]
    given = hands[1][0]  # seat 1's first tile goes to seat 0 in its place
    hands[0] = [given if t == tile else t for t in hands[0]]
    hands[1] = [tile, *hands[1][1:]]
    return RewrittenDeal(log, deal + 1, play + 1, tile)
