"""Trains games' audit logs for the replayer tests (issue 34), played by the pure engine
(api/rules/trains.py) and written in the contract's wire form (/work/briefs/trains-contract.md:
``tile_placed`` with the place's ``train`` value, ``round_ended`` with the hands, ``match_ended``
with the seed and every winner), each row chained as the store chains it.

A stand-in until the server writes these logs itself: the moves are chosen by a seeded
``random.Random`` of the test's own, and the seats are bots with no client seed, so the deal
seed is the server seed."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from api.rules import trains
from api.rules.board import Place
from api.rules.events import Event
from api.rules.shuffle import algorithm_for, seed_commitment
from api.rules.trains_events import MatchEnded, Passed, RoundEnded, RoundStarted, TileDrawn, TilePlayed
from api.rules.trains_rules import TrainsRules, trains_rules
from api.store.chain import GENESIS, row_hash

SCHEMA_VERSION = 1


def place_to_wire(place: Place) -> int | str:
    """A place as the log names it: a seat's train by the seat, the others by their id."""
    return int(place.split(":")[1]) if place.startswith("train:") else place


def rules_json(rules: TrainsRules) -> dict[str, Any]:
    return {
        "preset": str(rules.game),
        "players": rules.players,
        "set": str(rules.tile_set),
        "rounds": rules.rounds,
        "hand_size": rules.hand_size,
        "double_blank_points": rules.double_blank_points,
        "double_must_be_covered": rules.double_must_be_covered,
        "turn_seconds": None,
        "timeout_limit": None,
    }


def _wire(event: Event, state: trains.TrainsState, seed: str) -> dict[str, Any]:
    """``event`` as the log writes it; ``state``: the state the event was folded into."""
    tiles = [[[t.high, t.low] for t in hand] for hand in state.hands]
    if isinstance(event, TilePlayed):
        tile = [event.tile.high, event.tile.low]
        return {
            "type": "tile_placed",
            "seat": event.seat,
            "tile": tile,
            "train": place_to_wire(event.place),
            "auto": False,
        }
    if isinstance(event, TileDrawn):
        return {"type": "tile_drawn", "seat": event.seat, "tile": [event.tile.high, event.tile.low], "auto": False}
    if isinstance(event, Passed):
        return {"type": "passed", "seat": event.seat, "marker": event.marker, "auto": False}
    if isinstance(event, RoundEnded):
        return {**event.to_dict(), "hands": tiles}
    if isinstance(event, MatchEnded):
        winners = list(event.winners)
        return {
            "type": "match_ended",
            "winner": winners[0],
            "scores": list(event.totals),
            "seed": seed,
            "hands": [],
            "winners": winners,
        }
    assert isinstance(event, RoundStarted)
    return event.to_dict()


@dataclass
class Played:
    """A whole match: its rules, the engine's final state, its log (event dicts) and audit, and
    the engine's events (``events[i]`` is logged as ``log[i + 1]``, after match_created)."""

    rules: TrainsRules
    state: trains.TrainsState
    log: list[dict[str, Any]]
    audit: dict[str, Any]
    events: list[Event]

    def states(self) -> Iterator[tuple[int, trains.TrainsState, Event]]:
        """Each event's index in the log, the state before it (a copy) and the event."""
        state = trains.new_state(self.rules)
        for i, event in enumerate(self.events, start=1):
            yield i, state.copy(), event
            trains.apply(state, event)


def play_match(game: str, players: int, seed: str, choices: int = 0, **options: Any) -> Played:
    """A match of ``game`` played to its end by random legal moves (``choices`` seeds them)."""
    rules = trains_rules(game, players, **options)
    pick = random.Random(choices)
    created = {
        "type": "match_created",
        "rules": rules_json(rules),
        "seats": [{"name": f"Bot {s}", "type": "bot", "level": "random"} for s in range(players)],
        "seed_commitment": seed_commitment(seed),
        "seed_algorithm": algorithm_for(rules.tile_set),
        "seeded_by_client": False,
    }
    log: list[dict[str, Any]] = [created]
    played: list[Event] = []
    state = trains.new_state(rules)

    def fold(events: list[Event]) -> None:
        for event in events:
            trains.apply(state, event)
            log.append(_wire(event, state, seed))
            played.append(event)

    fold(trains.start(rules, seed))
    while not state.is_over:
        seat = state.to_move
        assert seat is not None
        move = pick.choice(trains.legal_moves(state))
        fold(trains.decide(state, seat, move, seed))
    return Played(rules, state, log, audit_document(f"trains-{game}-{players}p", seed, log), played)


def audit_document(match_id: str, seed: str, log: list[dict[str, Any]]) -> dict[str, Any]:
    """The whole ``/audit`` document of a log: every row with its seq and hash chain."""
    rows, prev = [], GENESIS
    for seq, event in enumerate(log, start=1):
        data = {k: v for k, v in event.items() if k != "type"}
        digest = row_hash(prev, seq, event["type"], SCHEMA_VERSION, data)
        rows.append(
            {
                "seq": seq,
                "type": event["type"],
                **data,
                "schema_version": SCHEMA_VERSION,
                "prev_hash": prev,
                "hash": digest,
            }
        )
        prev = digest
    created = log[0]
    return {
        "match_id": match_id,
        "seed": seed,
        "seed_commitment": created["seed_commitment"],
        "shuffle_algorithm": created["seed_algorithm"],
        "seq": len(rows),
        "chain_head": {"seq": len(rows), "hash": prev},
        "events": rows,
    }
