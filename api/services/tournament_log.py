"""A tournament's log in the store: read and folded, appended with what follows from it.

The state is whatever the tournament's own hash-chained log folds to (``api.tournaments``);
this module is the one place the services read it from the store and append to it, and where
the tournament's row learns when the sweep next has work for it (``due_at``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from api import tournaments as core
from api.store.tournaments import TournamentRecord

from . import errors
from .ports import UnitOfWork

#: A tournament id: 32 hex digits.
ID_LENGTH = 32


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


def due_at(state: core.TournamentState, now: datetime) -> datetime | None:
    """When the sweep next has work: at once for a round to pair, at the start time for a
    tournament that opens then, never otherwise."""
    if core.is_due_for_pairing(state):
        return now
    if state.status == core.REGISTERING and state.settings.starts_at is not None:
        return datetime.fromisoformat(state.settings.starts_at)
    return None


def append(
    uow: UnitOfWork,
    record: TournamentRecord,
    state: core.TournamentState,
    events: Sequence[core.TournamentEvent],
    now: datetime,
) -> core.TournamentState:
    """Store ``events`` after ``record``'s head (the caller holds its lock) and answer the state
    they fold to."""
    for event in events:
        state = core.apply(state, event)
    uow.tournaments.append(
        record.id, record.head, [e.to_dict() for e in events], status=state.status, due_at=due_at(state, now)
    )
    return state
