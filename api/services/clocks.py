"""Turn clocks as a use case: deadlines, and playing the turns that ran out.

The rules decide what a timed-out turn is (``api.rules.clock.time_out``); this module
decides *when*. A match with ``turn_seconds`` keeps one deadline in the store
(``matches.deadline_at``): the time of its last append plus ``turn_seconds``, while a
seat that is not a computer player is to move; NULL otherwise. Nothing runs in the
background: the next request that touches the match (view, events, summary, action)
or the ``flask boneyard sweep`` command finds the deadline passed and plays the turn,
under the match lock and in a transaction of its own (so a refused action does not
undo it). One timeout per pass: the next seat's clock starts at that append.

The time comes from ``service.now`` (a callable), so tests move it without sleeping.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from api.rules.clock import time_out
from api.rules.state import PLAYING, MatchState

from .match_ids import is_match_id
from .snapshots import Snapshot, fold

if TYPE_CHECKING:  # pragma: no cover
    from api.store.records import MatchRecord

    from .matches import MatchService

SWEEP_BATCH = 200


def utcnow() -> datetime:
    return datetime.now(UTC)


def deadline_after(state: MatchState, now: datetime) -> datetime | None:
    """The deadline to store after an append at ``now`` (None: no clock is running)."""
    seconds = state.rules.turn_seconds
    if not seconds or state.status != PLAYING or state.turn is None:
        return None
    if state.seats[state.turn].get("type") == "bot":
        return None  # computer players move at once, never time out
    return now + timedelta(seconds=seconds)


def show_deadline(out: dict[str, Any], state: MatchState, deadline: datetime | None) -> dict[str, Any]:
    """Add ``deadline_at`` (ISO 8601, UTC) to a view or summary of a match with a clock."""
    if state.rules.turn_seconds:
        out["deadline_at"] = deadline.astimezone(UTC).isoformat() if deadline is not None else None
    return out


def is_overdue(record: MatchRecord, now: datetime) -> bool:
    return record.status == PLAYING and record.deadline_at is not None and now > record.deadline_at


def apply_timeouts(service: MatchService, uow, record: MatchRecord, snap: Snapshot, now: datetime) -> Snapshot:
    """Time out the seat to move (``record`` is locked in ``uow``); append and return the new state.

    Bots reply as after any move (a seat just handed to a bot included); the next
    deadline starts now.
    """
    seat = snap.state.turn
    rows = _rows(time_out(snap.state, seat, record.seed), snap.seq)
    snap, more = service.advance(record.seed, fold(snap, rows), [])
    rows += more
    for row in rows:
        if row["type"] == "seat_replaced":
            uow.seats.update(record.id, row["seat"], type="bot", level=row["level"])
    service.append(uow, record.id, record.last_seq, rows, snap)
    return snap


def run_due(service: MatchService, match_id: str) -> bool:
    """If the match's turn clock ran out, play that turn now; True when it did.

    Cheap when there is nothing to do: a cached state without a clock costs nothing,
    otherwise one read of the match row.
    """
    if not is_match_id(match_id):
        return False
    cached = service.cache.get(match_id)
    if cached is not None and not cached.state.rules.turn_seconds:
        return False
    now = service.now()
    with service.store.unit_of_work(readonly=True) as uow:
        record = uow.matches.get(match_id)
    if record is None or not is_overdue(record, now):
        return False
    with service.store.unit_of_work() as uow:
        record = uow.matches.get_for_update(match_id)
        if record is None or not is_overdue(record, now):
            return False  # another request got there first
        snap = service.snapshot(uow, record)
        state = snap.state
        if state.status != PLAYING or state.turn is None or state.seats[state.turn].get("type") == "bot":
            return False
        snap = apply_timeouts(service, uow, record, snap, now)
        uow.commit()
    service.committed(match_id, snap)
    return True


def sweep(service: MatchService) -> int:
    """Play every overdue turn once (``flask boneyard sweep``); answers how many."""
    done, seen = 0, set()
    while True:
        with service.store.unit_of_work(readonly=True) as uow:
            due = [m for m in uow.matches.list_stale_clocks(service.now(), SWEEP_BATCH) if m not in seen]
        if not due:
            return done
        for match_id in due:
            seen.add(match_id)  # each table once per sweep: its next deadline is ahead
            done += run_due(service, match_id)


def _rows(events, after_seq: int) -> list[dict]:
    return [{"seq": after_seq + i, **e.to_dict()} for i, e in enumerate(events, start=1)]
