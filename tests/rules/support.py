"""Shared helpers for the rules tests: build states with chosen hands and drive ``decide``."""

from __future__ import annotations

import json

from api.rules import Tile, replay, resolve_rules
from api.rules.engine import EventSink, create_match, deal_next_hand, decide, settle
from api.rules.events import HandStarted
from api.rules.views import view

SEED = "scripted-hand-seed"


def T(text: str) -> Tile:
    return Tile.parse(text)


def tiles(text: str) -> list[Tile]:
    """``tiles("6-6 5-3 1-0")``."""
    return [Tile.parse(t) for t in text.split()]


def seats(n: int) -> list[dict]:
    return [{"name": f"p{i}", "type": "human", "level": None} for i in range(n)]


class Table:
    """A match whose current hand was dealt by the test, driven through ``decide``.

    ``log`` is the whole event log (``match_created``, the chosen ``hand_started``, then
    every event ``decide`` returns); ``state`` is always ``replay(log)``.
    """

    def __init__(
        self,
        preset: str,
        hands: list[str],
        boneyard: str = "",
        *,
        players: int | None = None,
        leader: int = 0,
        hand_number: int = 1,
        overrides: dict | None = None,
        seed: str = SEED,
        scores: list[int] | None = None,
    ):
        players = players or len(hands)
        self.rules = resolve_rules(preset, overrides or {}, players)
        self.seed = seed
        self.log = list(create_match(self.rules, seats(players), seed))
        self.state = replay(self.log)
        if scores is not None:
            self.state.scores = list(scores)  # a match already under way
        hand_tiles = tuple(tuple(tiles(h)) for h in hands)
        self.feed([HandStarted(hand_number, leader, hand_tiles, tuple(tiles(boneyard)))])

    def feed(self, events):
        events = list(events)
        self.log.extend(events)
        self.state = replay(events, self.state)
        return events

    def do(self, command):
        return self.feed(decide(self.state, command, self.seed))

    def refuse(self, command, error):
        """``command`` is refused with ``error`` (class) and leaves the state as it was."""
        import pytest

        before = snapshot(self.state)
        with pytest.raises(error) as info:
            decide(self.state, command, self.seed)
        assert snapshot(self.state) == before
        assert info.value.code == error.code
        return info.value

    def types(self, events):
        return [e.type for e in events]


def snapshot(st) -> str:
    """Everything about a state that matters, as one comparable string."""
    views = [view(st, s) for s in [None, *range(st.players)]]
    raw = dict(
        hands=[[str(t) for t in h] for h in st.hands],
        boneyard=[str(t) for t in st.boneyard],
        placements=[(s, str(t), e) for s, t, e in st.placements],
        scores=st.scores,
        turn=st.turn,
        pending=st.pending_muggins,
        status=st.status,
        live=st.hand_live,
        winner=st.winner,
        leader=st.leader,
        drawn=st.drawn,
    )
    return json.dumps([views, raw], sort_keys=True, default=str)


class FixedDealer:
    """A dealer (the engine's ``Dealer`` seam) that hands out orders chosen by the test."""

    seed = None

    def __init__(self, orders: dict[str, list[Tile]]):
        self.orders = orders

    def shuffle(self, label: str) -> list[Tile]:
        return list(self.orders[label])


def deal_with(state, dealer, seed: str = SEED):
    """Deal the next hand of ``state`` from ``dealer`` through the event sink; returns events."""
    work = state.copy()
    sink = EventSink(seed)
    deal_next_hand(work, sink, dealer)
    settle(work, sink, dealer)
    return sink.events


def order_for(hands: list[str], rest: list[Tile] | None = None) -> list[Tile]:
    """A full 28-tile order whose deal gives ``hands`` (equal sizes); the rest follows canonically."""
    from api.rules import ALL_TILES

    chosen = [t for h in hands for t in tiles(h)]
    rest = [t for t in ALL_TILES if t not in chosen] if rest is None else rest
    return chosen + rest
