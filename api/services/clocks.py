"""Turn clocks as a use case: playing the turns that ran out.

The rules decide what a timed-out turn is (``api.rules.clock.time_out``); deadlines are values
(``api.services.deadlines``); this module decides *when*. A match with ``turn_seconds`` keeps
one deadline in the store (``matches.deadline_at``): the time of its last append plus
``turn_seconds``, while a seat that is not a computer player is to move; NULL otherwise.
Nothing runs on a timer of its own: the next request that touches the match (view, events,
summary, action), the autoplay runner's sweep every second, or ``flask boneyard sweep`` finds
the deadline passed and plays the turn, under the match lock and in a transaction of its own
(so a refused action does not undo it). One timeout per pass: the next seat's clock starts at
that append.

The time comes from ``flow.now`` (a callable), so tests move it without sleeping.
"""

from __future__ import annotations

from datetime import datetime

from api import metrics
from api.rules import BOT_SEAT, PLAYING
from api.rules.clock import time_out
from api.rules.events import SeatReplaced
from api.store.records import MatchRecord

from .commands import SweepClocks
from .deadlines import is_overdue
from .flow import MatchFlow
from .match_ids import is_match_id
from .ports import UnitOfWork
from .snapshots import Snapshot

SWEEP_BATCH = 200


def apply_timeouts(flow: MatchFlow, uow: UnitOfWork, record: MatchRecord, snap: Snapshot) -> Snapshot:
    """Time out the seat to move (``record`` is locked in ``uow``); append and return the new state.

    Bots reply as after any move (a seat just handed to a bot included); the next
    deadline starts now.
    """
    seat = snap.state.turn
    assert seat is not None  # only called while a seat is to move
    snap, appended = flow.advance(record.seed, snap, time_out(snap.state, seat, record.seed))
    for row in appended:
        if row["type"] == SeatReplaced.type:
            uow.seats.update(record.id, row["seat"], type=BOT_SEAT, level=row["level"])
    flow.append(uow, record.id, record.last_seq, appended, snap)
    return snap


def run_due(flow: MatchFlow, match_id: str) -> bool:
    """If the match's turn clock ran out, play that turn now; True when it did.

    Cheap when there is nothing to do: a cached state without a clock costs nothing,
    otherwise one read of the match row.
    """
    if not is_match_id(match_id):
        return False
    cached = flow.cache.get(match_id)
    if cached is not None and not cached.state.rules.turn_seconds:
        return False
    now: datetime = flow.now()
    with flow.store.unit_of_work(readonly=True) as uow:
        record = uow.matches.get(match_id)
    if record is None or not is_overdue(record, now):
        return False
    with flow.store.unit_of_work() as uow:
        record = uow.matches.get_for_update(match_id)
        if record is None or not is_overdue(record, now):
            return False  # another request got there first
        snap = flow.snapshot(uow, record)
        state = snap.state
        if state.status != PLAYING or state.turn is None or state.seats[state.turn].get("type") == BOT_SEAT:
            return False
        snap = apply_timeouts(flow, uow, record, snap)
        uow.commit()
    flow.committed(match_id, snap)
    metrics.TURN_TIMEOUTS.inc()
    return True


def sweep_handler(command: SweepClocks, flow: MatchFlow) -> int:
    """Play every overdue turn once (``flask boneyard sweep``, the autoplay runner); how many."""
    done, seen = 0, set()
    while True:
        with flow.store.unit_of_work(readonly=True) as uow:
            due = [m for m in uow.matches.list_stale_clocks(flow.now(), SWEEP_BATCH) if m not in seen]
        if not due:
            return done
        for match_id in due:
            seen.add(match_id)  # each table once per sweep: its next deadline is ahead
            done += run_due(flow, match_id)
