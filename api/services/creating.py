"""Creating a match: resolve the rules, seat the players, deal if every seat is taken."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from api import bots, metrics
from api.rules import BOT_SEAT, REMOTE_SEAT, create_match, ready_to_start, resolve_requested_rules, start_match
from api.rules.events import MatchCreated
from api.store.records import MatchRecord

from . import errors, tokens
from .commands import Answer, CreateMatch
from .deadlines import show_deadline
from .flow import MatchFlow
from .ports import UnitOfWork
from .ratings import check_rated_seats
from .seats import attach_refs
from .snapshots import Row, Snapshot, fold, rows


@dataclass
class NewMatch:
    """A match decided before any transaction (its log, its seats, its first deal): what
    :func:`insert_match` writes inside a caller's unit of work (matchmaking creates one in the
    transaction that pairs its seekers) and :func:`shown` answers after the commit."""

    command: CreateMatch
    players: int
    seed: str
    seed_commitment: str
    seat_rows: list[dict[str, Any]]
    issued: dict[int, str]  # each remote seat's token, shown once
    all_bots: bool
    creator_key: str | None
    appended: list[Row]
    snap: Snapshot


def create_match_handler(command: CreateMatch, flow: MatchFlow) -> Answer:
    """The new match's summary, with each remote seat's token (shown this once)."""
    new = prepare_match(command, flow)
    with flow.store.unit_of_work() as uow:
        record, deadline = insert_match(uow, new, flow)
        uow.commit()
    return shown(new, record, deadline, flow)


def prepare_match(command: CreateMatch, flow: MatchFlow) -> NewMatch:
    """Resolve the rules, seat the players and deal if every seat is taken: all decided
    before the transaction, so the write lock is held for the inserts only."""
    seats = command.seats
    rules = resolve_requested_rules(command.preset, command.overrides or {}, len(seats))
    if command.rated and rules.turn_seconds is None:
        # A rated match always has a clock: a player who walks away times out, a bot takes the
        # seat and the player's rating counts it as a loss (api.services.ratings).
        clock = {"turn_seconds": flow.limits.rated_turn_seconds, "timeout_limit": flow.limits.rated_timeout_limit}
        rules = resolve_requested_rules(command.preset, {**(command.overrides or {}), **clock}, len(seats))
    if command.seed is not None and not flow.allow_client_seed:
        raise errors.ClientSeedNotAllowed("this server does not accept client-chosen server seeds")
    seeded_by_client = command.seed is not None
    seed = command.seed if command.seed is not None else (command.server_seed or secrets.token_hex(32))
    seat_rows: list[dict[str, Any]] = []
    issued: dict[int, str] = {}
    for number, spec in enumerate(seats):
        level = spec.level or (bots.DEFAULT_LEVEL if spec.type == BOT_SEAT else None)
        token_hash = None
        if spec.type == REMOTE_SEAT:
            issued[number] = tokens.new_token()
            token_hash = tokens.hash_token(issued[number])
        seat_rows.append(
            {
                "seat": number,
                "name": spec.name,
                "type": spec.type,
                "level": level,
                "token_hash": token_hash,
                "player_ref": spec.player_ref,
                "reserved_for": spec.reserved_for,
            }
        )
    created = create_match(
        rules,
        [
            {
                "name": row["name"],
                "type": row["type"],
                "level": row["level"],
                **({"client_seed": spec.client_seed} if spec.client_seed else {}),
            }
            for row, spec in zip(seat_rows, seats)
        ],
        seed,
        seeded_by_client=seeded_by_client,
    )
    opening = created[0]
    assert isinstance(opening, MatchCreated)  # a match's log opens with its creation
    all_bots = all(spec.type == BOT_SEAT for spec in seats)
    portal_id = command.caller.portal_id
    if portal_id is None and any(spec.player_ref for spec in seats):
        raise errors.PlayerRefNeedsPortal(
            "a seat's player_ref is the portal's id for its player: only a portal's key (X-API-Key) may set one"
        )
    if command.rated:
        check_rated_seats(seats, portal_id)
    # The all-bot cap counts per portal for a portal (its players share its few addresses).
    creator = command.creator if portal_id is None else f"portal:{portal_id}"
    creator_key = creator_hash(creator) if creator and command.capped else None
    appended = rows(created, 0)
    snap = fold(None, appended)
    if ready_to_start(snap.state):
        snap, more = flow.advance(seed, snap, start_match(snap.state, seed))
        appended += more
    return NewMatch(
        command, rules.players, seed, opening.seed_commitment, seat_rows, issued, all_bots, creator_key, appended, snap
    )


def insert_match(uow: UnitOfWork, new: NewMatch, flow: MatchFlow) -> tuple[MatchRecord, datetime | None]:
    """Write a prepared match in ``uow`` (the caller commits); answers its row and turn deadline."""
    command, portal_id = new.command, new.command.caller.portal_id
    if new.all_bots and new.creator_key is not None:
        uow.matches.lock_creator(new.creator_key)
        running = uow.matches.count_running_all_bots(new.creator_key)
        cap = flow.limits.bot_matches_per_creator
        if running >= cap:
            raise errors.TooManyBotMatches(
                f"{'this address' if portal_id is None else 'this portal'} already runs {running} "
                "unfinished all-bot matches "
                f"(at most {cap}); wait for one to end",
                limit=cap,
            )
    record = uow.matches.add(
        {
            "preset": command.preset,
            "players": new.players,
            "seed": new.seed,
            "seed_commitment": new.seed_commitment,
            "summary": {},
            "creator_key": new.creator_key,
            "all_bots": new.all_bots,
            "portal_id": portal_id,
            "rated": command.rated,
            **({"rematch_of": command.rematch_of} if command.rematch_of else {}),
        }
    )
    for row in new.seat_rows:
        uow.seats.add({"match_id": record.id, **row})
    deadline = flow.append(uow, record.id, 0, new.appended, new.snap)
    return record, deadline


def shown(new: NewMatch, record: MatchRecord, deadline: datetime | None, flow: MatchFlow) -> Answer:
    """After the commit: cache the state, wake its waiters, answer the summary with the tokens."""
    flow.committed(record.id, new.snap)
    metrics.MATCHES_CREATED.labels(new.snap.state.rules.preset).inc()
    seats, portal_id = new.command.seats, new.command.caller.portal_id
    summary = show_deadline(flow.summary(record, new.snap), new.snap.state, deadline)
    attach_refs(summary["seats"], {n: s.player_ref for n, s in enumerate(seats) if s.player_ref and portal_id})
    for seat in summary["seats"]:
        if seat["seat"] in new.issued:
            seat["token"] = new.issued[seat["seat"]]
    return summary


def creator_hash(address: str) -> str:
    """What the store keeps of a creating client's address (for the all-bot cap): a hash."""
    return hashlib.sha256(f"creator:{address}".encode()).hexdigest()
