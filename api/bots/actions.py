"""Small helpers shared by the levels: seeding, reading listed actions."""

from __future__ import annotations

import hashlib
import random
from typing import Any

from api.rules.layout import END_INDEX
from api.rules.state import DRAW, KNOCK, MUGGINS, PLAY, Move
from api.rules.tiles import Tile
from api.rules.vocabulary import ActionType, DrawUntil

Json = dict[str, Any]  # a JSON object as the API writes it: a view, a redacted event
Action = dict[str, Any]  # one of a view's ``legal_actions``: {"type": ..., ...}


def bot_seed(seed: str, seq: int, seat: int) -> str:
    """A bot's ``rng_seed`` for one decision: the seat about to act after event ``seq`` of
    the match whose secret server seed is ``seed``. Derived from the seed, which the audit
    reveals, so anyone can re-derive and re-check every decision; the services and the
    golden vectors both seed the bots with it."""
    return hashlib.sha256(f"bot:{seed}:{seq}:{seat}".encode()).hexdigest()


def make_rng(rng_seed: str | bytes, salt: str = "") -> random.Random:
    """A ``random.Random`` that depends only on ``rng_seed`` (and ``salt``), on every platform."""
    if isinstance(rng_seed, str):
        rng_seed = rng_seed.encode("utf-8")
    digest = hashlib.sha256(salt.encode("utf-8") + b"\x00" + bytes(rng_seed)).digest()
    return random.Random(int.from_bytes(digest, "big"))


def is_play(action: Action) -> bool:
    return action.get("type") == ActionType.PLAY


def plays_of(actions: list[Action]) -> list[Action]:
    return [a for a in actions if is_play(a)]


def find(actions: list[Action], kind: str) -> Action | None:
    for a in actions:
        if a.get("type") == kind:
            return a
    return None


def action_tile(action: Action) -> Tile:
    return Tile.from_json(action["tile"])


def to_move(action: Action) -> Move:
    """The fast-path move tuple of a listed action (draw-until-playable maps to one draw)."""
    kind = action["type"]
    if kind == PLAY:
        return (PLAY, action_tile(action), END_INDEX[action.get("end", "left")])
    return {DRAW: (DRAW,), KNOCK: (KNOCK,), MUGGINS: (MUGGINS,)}[kind]


def without_claim(action: Action) -> Action:
    """A listed action as a seat that does not count sends it: a scoring play without its
    ``claim`` under ``muggins_calls`` (still legal; it scores nothing and leaves the points
    to a muggins call). Any other action is returned unchanged."""
    if "claim" not in action:
        return action
    return {k: v for k, v in action.items() if k != "claim"}


def no_play_choice(actions: list[Action]) -> Action:
    """With nothing to play: draw until a tile fits when allowed, else the listed draw/knock."""
    for a in actions:
        if a.get("type") == DRAW and a.get("until") == DrawUntil.PLAYABLE:
            return a
    return find(actions, DRAW) or find(actions, KNOCK) or actions[0]
