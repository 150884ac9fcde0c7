"""Trains games' audit logs for the verifier tests (issue 34), written by the engine itself
(``api.rules``: ``create_match``, ``claim_seat``, ``start_match``, ``decide``, and the turn
clock's ``time_out``), each row chained as the store chains it (``api.tools.golden.audit_document``).

The seats are people ("remote", or open seats claimed with a client seed) whose moves a seeded
``random.Random`` of the test's own picks among the legal actions, and who may let turns run
out; computer players are asked as the server asks them (``api.bots.turns.bot_turn``)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from api.rules import (
    PLAYING,
    REMOTE_SEAT,
    MatchState,
    claim_seat,
    create_match,
    decide,
    legal_actions,
    parse_action,
    ready_to_start,
    replay,
    resolve_rules,
    start_match,
)
from api.rules.clock import time_out
from api.rules.engine import mutate
from api.rules.events import DEAL_TYPES, Event, event_from_dict
from api.rules.trains import TrainsState
from api.tools.golden import audit_document


def people(players: int) -> list[dict[str, Any]]:
    return [{"name": f"Player {s}", "type": REMOTE_SEAT, "level": None} for s in range(players)]


@dataclass
class Played:
    """A whole match: its final state, its log (event dicts, as ``to_dict`` writes them) and audit."""

    state: MatchState
    log: list[dict[str, Any]]
    audit: dict[str, Any]
    seed: str
    before: list[TrainsState | None] = field(default_factory=list)  # the game before each row
    swapped_at: int | None = None  # the log index of the bot move swapped (``play_match(swap=True)``)

    @property
    def players(self) -> int:
        return self.state.players

    @property
    def game(self) -> str:
        return str(self.state.rules.preset)

    def states(self) -> Iterator[tuple[int, TrainsState, dict[str, Any]]]:
        """Each row's index in the log, the game before it (once dealt) and the row."""
        for i, row in enumerate(self.log):
            state = self.before[i]
            if state is not None:
                yield i, state, row


def play_match(
    game: str,
    players: int,
    seed: str,
    choices: int = 0,
    *,
    seats: list[dict[str, Any]] | None = None,
    claims: tuple[tuple[int, str, str | None], ...] = (),
    timeout_rate: float = 0.0,
    swap: bool = False,
    **options: Any,
) -> Played:
    """A match of ``game`` played to its end. ``choices`` seeds the people's picks; ``claims``:
    (seat, name, client_seed) for the open seats, in order; ``timeout_rate``: how often a
    person lets a turn run out (with ``turn_seconds`` among the options); ``swap``: the first
    bot move with a choice is another legal one than the bot's (a forger's log, honest after it)."""
    from api.bots.turns import bot_turn

    rules = resolve_rules(game, options, players)
    pick = random.Random(choices)
    created, *more = create_match(rules, seats or people(players), seed, seeded_by_client=True)
    log: list[dict[str, Any]] = []
    before: list[TrainsState | None] = []
    state = replay([created])
    hand_log: list[dict[str, Any]] = []
    swapped_at: int | None = None

    def add(events: list[Event]) -> None:
        for event in events:
            data = event.to_dict()
            before.append(None if state.trains is None or not state.trains.round else state.trains.copy())
            mutate(state, event_from_dict(data))
            log.append(data)
            if data["type"] in DEAL_TYPES:  # a deal begins the log a bot is shown, as the server keeps it
                hand_log.clear()
            hand_log.append(data)

    log.append(created.to_dict())
    before.append(None)
    add(more)
    for seat, name, client_seed in claims:
        add(claim_seat(state, seat, name, client_seed))
    if ready_to_start(state):
        add(start_match(state, seed))
    while state.status == PLAYING:
        turn = bot_turn(state, hand_log, seed, len(log))
        if turn is not None:
            action = turn.choose()
            others = [a for a in turn.view["legal_actions"] if a != action]
            if swap and swapped_at is None and others:
                action, swapped_at = others[0], len(log)
            add(turn.events(state, action, seed))
            continue
        seat = state.turn
        assert seat is not None
        if timeout_rate and pick.random() < timeout_rate:
            add(time_out(state, seat, seed))
            continue
        action = pick.choice(legal_actions(state, seat))
        add(decide(state, parse_action(seat, action), seed))
    return Played(state, log, audit_document(f"trains-{game}-{players}p", seed, log), seed, before, swapped_at)
