"""A tournament's log in the store: read and folded, appended with what follows from it.

The state is whatever the tournament's own hash-chained log folds to (``api.tournaments``);
this module is the one place the services read it from the store and append to it, and where
the tournament's row learns when the sweep next has work for it (``due_at``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from api import tournaments as core
from api.store.tournaments import TournamentRecord

from . import errors
from .ports import UnitOfWork
from .webhooks import record_tournament_webhooks

#: A tournament id: 32 hex digits.
ID_LENGTH = 32

#: A line of a player's own event stream to write: its player, its type, its members.
PlayerEvent = tuple[str, str, dict[str, Any]]
#: A waiter key and its new seq, announced after the commit (``matchmaking.player_events.Note``).
Note = tuple[str, int]


def load(
    uow: UnitOfWork, tournament_id: str, portal_id: str | None, *, for_update: bool = False, any_portal: bool = False
) -> tuple[TournamentRecord, core.TournamentState]:
    """The tournament's row and folded state, seen by ``portal_id`` (its own portal's only;
    ``any_portal``: the services' own reads, which act for no caller)."""
    record = uow.tournaments.get(tournament_id, for_update=for_update) if len(tournament_id) == ID_LENGTH else None
    if record is None or (record.portal_id != portal_id and not any_portal):
        raise errors.UnknownTournament(f"no tournament {tournament_id}")
    return record, fold(uow, record)


def fold(uow: UnitOfWork, record: TournamentRecord) -> core.TournamentState:
    stored = uow.tournaments.load(record.id, limit=record.last_seq)
    return core.replay(core.event_from_dict(e.to_dict()) for e in stored)


def deals_sealed(uow: UnitOfWork, match_id: str) -> bool:
    """Whether an ended match's seed is still withheld: it is a duplicate round's, whose matches
    all share it, and the round is still in play (revealing it would show the deals of the
    tables still playing). It opens when the round ends, or the tournament is over."""
    played = uow.tournaments.match(match_id)
    if played is None:
        return False
    record = uow.tournaments.get(played.tournament_id)
    if record is None:
        return False
    created = core.event_from_dict(uow.tournaments.load(record.id, limit=1)[0].to_dict())
    if not isinstance(created, core.TournamentCreated) or not created.settings.duplicate:
        return False
    state = fold(uow, record)
    round_ = state.round_numbered(played.round)
    return round_ is not None and not round_.ended and not state.is_over


def due_at(state: core.TournamentState, now: datetime) -> datetime | None:
    """When the sweep next has work: at once for a round to pair (an arena's free entrants), at
    the start time for a tournament that opens then, at its end of pairing for an arena that
    still pairs, never otherwise."""
    if core.is_due_for_pairing(state):
        return now
    if state.status == core.REGISTERING and state.settings.starts_at is not None:
        return datetime.fromisoformat(state.settings.starts_at)
    if state.is_arena and state.status == core.RUNNING and not state.closed and state.ends_at is not None:
        return datetime.fromisoformat(state.ends_at)
    return None


def append(
    uow: UnitOfWork,
    record: TournamentRecord,
    state: core.TournamentState,
    events: Sequence[core.TournamentEvent],
    now: datetime,
    *,
    also_heard: Sequence[PlayerEvent] = (),
) -> tuple[core.TournamentState, list[Note]]:
    """Store ``events`` after ``record``'s head (the caller holds its lock), write the outbox
    rows of the portal's webhooks that want them, and tell the tournament's players what they
    hear of them on their own streams (with ``also_heard``, the
    caller's own lines: every head is locked in player order, as matchmaking locks them); answers
    the state they fold to and the notes to announce after the commit."""
    for event in events:
        state = core.apply(state, event)
    stored = [e.to_dict() for e in events]
    uow.tournaments.append(record.id, record.head, stored, status=state.status, due_at=due_at(state, now))
    logged = list(enumerate(stored, start=record.last_seq + 1))
    record_tournament_webhooks(uow, record.portal_id, record.id, logged, now)
    heard = [*also_heard, *(line for event in events for line in lines_heard(state, event))]
    order = {ref: position for position, ref in enumerate(sorted({ref for ref, _, _ in heard}))}
    heard.sort(key=lambda line: order[line[0]])  # stable: each player's lines in the log's order
    notes = [uow.matchmaking.add_player_event(record.portal_id, ref, kind, data, now) for ref, kind, data in heard]
    return state, notes


#: The tournament's events its players hear of on their own streams (``GET /v1/me/events``).
HEARD = (core.TournamentStarted.type, core.RoundPaired.type, core.RoundEnded.type, core.TournamentEnded.type)


def lines_heard(after: core.TournamentState, event: core.TournamentEvent) -> list[PlayerEvent]:
    """What each player of an active entrant hears of ``event``: ``tournament_id`` and ``round``
    (null for the start), and for ``round_paired`` its ``match_id`` and ``seat`` (null for a bye,
    or a table decided by a forfeit). In an arena a pairing, and its end, are heard by the
    entrants seated in it alone (the others are still playing, or waiting)."""
    if event.type not in HEARD:
        return []
    heard_by: frozenset[str] | None = None
    if after.is_arena and isinstance(event, core.RoundPaired | core.RoundEnded):
        paired = after.round_numbered(event.round)
        heard_by = frozenset(side for t in paired.tables for side in t.sides) if paired is not None else frozenset()
    number = getattr(event, "round", None)
    if isinstance(event, core.TournamentEnded):
        number = event.rounds_played or None
    base = {"tournament_id": after.id, "round": number}
    lines: list[PlayerEvent] = []
    for entrant_id in after.active:
        if heard_by is not None and entrant_id not in heard_by:
            continue
        for index, member in enumerate(after.entrants[entrant_id].members):
            if member.player_ref is None:
                continue
            data: dict[str, Any] = dict(base)
            if isinstance(event, core.RoundPaired):
                table = next((t for t in event.tables if entrant_id in t.sides), None)
                seated = table is not None and table.match_id is not None
                data["match_id"] = table.match_id if seated and table is not None else None
                data["seat"] = 2 * index + table.sides.index(entrant_id) if seated and table is not None else None
            lines.append((member.player_ref, event.type, data))
    return lines
