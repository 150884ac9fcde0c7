"""Helpers for the trains games' tests: a round dealt by hand, and moves written briefly."""

from __future__ import annotations

from api.rules.tiles import Tile
from api.rules.trains import Play, TrainsState, apply, new_state
from api.rules.trains_events import RoundStarted
from api.rules.trains_rules import TrainsRules


def tiles(*texts: str) -> tuple[Tile, ...]:
    return tuple(Tile.parse(t) for t in texts)


def dealt(
    rules: TrainsRules, hands: list[tuple[Tile, ...]], boneyard: tuple[Tile, ...] = (), round_number: int = 1
) -> TrainsState:
    """A state at the start of a round dealt exactly as given (hands and boneyard)."""
    state = new_state(rules)
    engine = rules.engine(round_number)
    apply(state, RoundStarted(round_number, engine, rules.leader(round_number), tuple(hands), boneyard))
    return state


def filled(
    rules: TrainsRules, hands: list[tuple[Tile, ...]], boneyard_first: tuple[Tile, ...], avoid: dict[int, int]
) -> tuple[list[tuple[Tile, ...]], tuple[Tile, ...]]:
    """A whole deal of round 1: the given tiles, each hand filled up to ``hand_size`` in the
    set's canonical order (seat s skipping every tile showing ``avoid[s]``), the rest the
    boneyard after ``boneyard_first``."""
    engine = Tile(rules.top, rules.top)
    taken = {engine, *boneyard_first, *(t for hand in hands for t in hand)}
    rest = [t for t in rules.tile_set.tiles if t not in taken]
    full = []
    for seat, hand in enumerate(hands):
        hand = list(hand)
        for t in list(rest):
            if len(hand) == rules.hand_size:
                break
            if seat in avoid and t.has(avoid[seat]):
                continue
            hand.append(t)
            rest.remove(t)
        full.append(tuple(hand))
    return full, (*boneyard_first, *rest)


def P(tile: str, place: str) -> Play:
    return Play(Tile.parse(tile), place)
