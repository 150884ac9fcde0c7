"""What one seat knows: its view and its redacted log, read into a compact record.

``Knowledge.read(view, log)`` is the only door from the outside into a bot's head, and
it takes dicts (``api.rules.view`` output and ``api.rules.redact_event`` output), never
a ``MatchState``. From them it derives:

- the seat's own hand and the tiles already on the table this hand;
- the unseen tiles (not in the seat's hand, not on the table): these are spread over the
  other hands and the boneyard;
- for every other seat, one *slot* per hidden tile, each with the set of numbers that
  tile cannot carry. A seat that knocks, or draws when drawing is allowed only to a
  stuck player, shows that no tile it holds matches the open ends. Tiles drawn later
  may carry those numbers, so each slot remembers only what applied while it was held.

``Knowledge.sample(rng)`` deals the unseen tiles into the hidden slots and the boneyard,
respecting every constraint, and ``Knowledge.state(deal)`` builds a ``MatchState`` of
that imagined deal through the engine's own effects (``on_hand_started``,
``on_tile_played``…), so simulations share the rules code.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from api.rules.events import HandStarted, Knocked, PointsScored, TileDrawn, TilePlayed
from api.rules.layout import END_INDEX, Layout
from api.rules.ruleset import RuleSet
from api.rules.state import PLAYING, MatchState
from api.rules.tiles import ALL_TILES, Tile

from .actions import Json

NUMBERS = range(7)
_RETRIES = 30


def tile_mask(tile: Tile) -> int:
    """The numbers on a tile, as a bit mask over 0..6."""
    return (1 << tile.high) | (1 << tile.low)


def ends_mask(values: Iterable[int | None]) -> int:
    mask = 0
    for v in values:
        if v is not None:
            mask |= 1 << v
    return mask


def numbers_of(mask: int) -> list[int]:
    return [n for n in NUMBERS if mask >> n & 1]


def _tile(value: Any) -> Tile:
    return Tile.from_json(value)


@dataclass
class Knowledge:
    """One seat's picture of the current hand (see the module docstring)."""

    rules: RuleSet
    view: Json
    seat: int
    hand: list[Tile]  # the seat's own tiles
    played: list[Tile]  # on the table this hand, in order
    events: list[Json]  # this hand's events (redacted), in order
    slots: dict[int, list[int]]  # other seat -> one lacks mask per hidden tile
    unseen: list[Tile]  # canonical order
    boneyard: int  # tiles in the boneyard (drawable or not)
    layout: Layout  # the table now, rebuilt from the log

    # --- reading -------------------------------------------------------------------
    @classmethod
    def read(cls, view: Json, log: list[Json]) -> Knowledge:
        rules = RuleSet.from_dict(view["rules"])
        seat = view["seat"]
        start = max((i for i, e in enumerate(log) if e.get("type") == HandStarted.type), default=None)
        events = [] if start is None else log[start + 1 :]
        counts = list(view["hand_counts"])
        slots: dict[int, list[int]] = {s: [] for s in range(rules.players) if s != seat}
        if start is not None:
            dealt = log[start]["hand_counts"]
            for s in slots:
                slots[s] = [0] * dealt[s]
        layout = Layout(rules.uses_spinner)
        played: list[Tile] = []
        informative_draws = rules.is_draw_game and not rules.draw_at_will
        drew_last: dict[int, bool] = {s: False for s in slots}
        for e in events:
            kind = e.get("type")
            who = e.get("seat")
            if kind == TilePlayed.type:
                tile = _tile(e["tile"])
                if who in slots:
                    _remove_slot(slots[who], tile, newest=informative_draws and drew_last[who])
                    drew_last[who] = False
                layout.place(tile, END_INDEX[e["end"]])
                played.append(tile)
            elif kind == TileDrawn.type and who in slots:
                if informative_draws:
                    _lack(slots[who], ends_mask(layout.values))
                slots[who].append(0)
                drew_last[who] = True
            elif kind == Knocked.type and who in slots:
                _lack(slots[who], ends_mask(e.get("ends", {}).values()))
                drew_last[who] = False
        # The counts in the view are the truth; a log that disagrees loses its inferences.
        for s, masks in slots.items():
            if len(masks) != counts[s]:
                slots[s] = [0] * counts[s]
        hand = [_tile(t) for t in view.get("hand", [])]
        known = set(hand) | set(played)
        unseen = [t for t in ALL_TILES if t not in known]
        return cls(rules, view, seat, hand, played, events, slots, unseen, view["boneyard"], layout)

    # --- questions -------------------------------------------------------------------
    def lacks(self, seat: int) -> set[int]:
        """Numbers ``seat`` surely holds none of now (every hidden tile of it lacks them)."""
        masks = self.slots.get(seat, [])
        if not masks:
            return set()
        common = (1 << 7) - 1
        for m in masks:
            common &= m
        return set(numbers_of(common))

    # --- imagining the hidden tiles ----------------------------------------------------
    def sample(self, rng: random.Random) -> tuple[dict[int, list[Tile]], list[Tile]]:
        """A deal of the unseen tiles consistent with all the seat knows: hands and boneyard."""
        holders: list[tuple[int, int]] = []  # (seat or -1 for the boneyard, mask)
        for s in sorted(self.slots):
            holders.extend((s, m) for m in self.slots[s])
        holders.extend((-1, 0) for _ in range(self.boneyard))
        pool = self.unseen
        if len(holders) != len(pool):  # inconsistent input: be lenient
            holders = holders[: len(pool)] + [(-1, 0)] * max(0, len(pool) - len(holders))
        # Most constrained slots first; each takes a random tile it may hold.
        order = sorted(range(len(holders)), key=lambda i: -bin(holders[i][1]).count("1"))
        for attempt in range(_RETRIES + 1):
            remaining = pool[:]
            rng.shuffle(remaining)
            got: list[Tile | None] = [None] * len(holders)
            ok = True
            for i in order:
                mask = holders[i][1] if attempt < _RETRIES else 0
                for j, t in enumerate(remaining):
                    if not tile_mask(t) & mask:
                        got[i] = remaining.pop(j)
                        break
                else:
                    ok = False
                    break
            if ok:
                break
        hands: dict[int, list[Tile]] = {s: [] for s in self.slots}
        boneyard: list[Tile] = []
        for (s, _m), taken in zip(holders, got):
            assert taken is not None  # the last attempt ignores the masks: every slot got a tile
            (boneyard if s == -1 else hands[s]).append(taken)
        return hands, boneyard

    def state(self, hands: dict[int, list[Tile]], boneyard: list[Tile]) -> MatchState:
        """The match as it would be with these hidden tiles, built by the engine's effects."""
        view = self.view
        rules = self.rules
        st = MatchState(rules, [dict(s) for s in view["seats"]])
        full = [list(hands.get(s, ())) for s in range(rules.players)]
        full[self.seat] = list(self.hand)
        for e in self.events:
            if e.get("type") == TilePlayed.type:
                full[e["seat"]].append(_tile(e["tile"]))
        st.on_hand_started(view["hand_number"], view["leader"], full, boneyard)
        for e in self.events:
            kind = e.get("type")
            if kind == TilePlayed.type:
                st.on_tile_played(e["seat"], _tile(e["tile"]), END_INDEX[e["end"]], e.get("claim"))
            elif kind == PointsScored.type:
                st.on_points_scored(e["side"], 0)
            elif kind == Knocked.type:
                st.on_knocked(e["seat"])
        st.status = PLAYING
        st.scores = list(view["scores"])
        st.drawn = list(view["drawn"])
        st.turn = view["turn"]
        return st


def _lack(masks: list[int], mask: int) -> None:
    for i in range(len(masks)):
        masks[i] |= mask


def _remove_slot(masks: list[int], tile: Tile, newest: bool) -> None:
    """A hidden tile was played: drop the slot it came from (or the safest guess).

    After a forced draw the played tile is the one just drawn. Otherwise the played tile
    came from some slot that allows it; dropping the most constrained such slot never
    claims more than is known (the lacks of held tiles are nested by age).
    """
    if not masks:
        return
    if newest:
        masks.pop()
        return
    tm = tile_mask(tile)
    best = None
    for i, m in enumerate(masks):
        if not m & tm and (best is None or bin(m).count("1") > bin(masks[best]).count("1")):
            best = i
    masks.pop(best if best is not None else len(masks) - 1)
