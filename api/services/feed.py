"""The event feed: a seat's page of the log, and waiting for the next event.

A long-poll (``GetEvents`` with ``wait``) and a stream between two events both sleep here,
on the match's slot in the process's waiter (``api.services.waiting``): no query while they
sleep, unless a turn clock runs — then the turn that runs out meanwhile is played by the
waiter itself (the waiting client is often the one owed it).
"""

from __future__ import annotations

from collections.abc import Hashable
from datetime import datetime
from itertools import pairwise
from typing import cast

from api.rules import ENDED, redact_event
from api.store.records import MatchRecord

from .clocks import run_due
from .commands import MAX_EVENTS_PAGE, Answer, GetEvents
from .flow import MatchFlow
from .ports import UnitOfWork
from .rendered import EventKey, VisibleEvent
from .snapshots import Row
from .waiting import Subscription

#: Seconds: a waiter re-checks an overdue turn clock at most this often.
MIN_CLOCK_NAP = 0.2


def events_handler(command: GetEvents, flow: MatchFlow) -> Answer:
    """The log after ``after`` as the seat (or a spectator) sees it; with ``wait``, held up to
    that many seconds for an event. A wait counts against the client's cap only while it waits."""
    match_id, after, wait, client = command.match_id, command.after, command.wait, command.client
    limit = max(1, min(command.limit, MAX_EVENTS_PAGE))
    # Subscribed before the read below, so an append just after that read still wakes it.
    sub = flow.waiter.subscribe(match_id, client) if wait > 0 else None
    try:
        run_due(flow, match_id)
        with flow.store.unit_of_work(readonly=True) as uow:
            record, seat = flow.record_and_seat(uow, match_id, command.token)
            items = visible_page(flow, uow, record, seat, after, limit)
        if sub is not None and not items and record.status != ENDED:
            sub.saw(record.last_seq)
            with flow.waiter.hold(client, wait, "match_events"):
                seq = sleep_until_event(flow, match_id, record.deadline_at, after, wait, sub)
            if seq > after and not sub.left:
                with flow.store.unit_of_work(readonly=True) as uow:
                    record = flow.record(uow, match_id)
                    items = visible_page(flow, uow, record, seat, after, limit)
    finally:
        if sub is not None:
            sub.close()
    last = items[-1]["seq"] if items else after
    return {
        "match_id": match_id,
        "seat": seat,
        "seq": record.last_seq,
        "chain_head": record.head.to_dict(),
        "events": items,
        "next_after": last if last < record.last_seq else None,
    }


def visible_page(
    flow: MatchFlow, uow: UnitOfWork, record: MatchRecord, seat: int | None, after: int, limit: int
) -> list[Row]:
    """The events after ``after`` (at most ``limit``, none past ``record``'s seq: a later commit
    may be visible to this read on PostgreSQL, and a page never shows more than its chain head)
    as ``seat`` sees them: those kept for this seat repeated (``flow.visible_events``), the rest
    read from the first not kept on, redacted and kept. A page with kept events must be one
    chain (each row's ``prev_hash`` the hash before it) ending at ``record``'s head when it
    reaches it; if not, it is read whole. Copies are answered: what is kept is never handed out."""
    last = min(record.last_seq, after + limit)
    if last <= after:
        return []
    keys: list[Hashable] = [EventKey(record.id, seq, seat) for seq in range(after + 1, last + 1)]
    kept: list[VisibleEvent | None] = flow.visible_events.get_many(keys)
    known = next((i for i, event in enumerate(kept) if event is None), len(kept))
    shown = cast(list[VisibleEvent], kept[:known])
    if known < len(kept):
        shown += _read(flow, uow, record, seat, after + known, len(kept) - known)
    if known and not _one_chain(shown, record):  # a kept event that does not fit: read them all
        shown = _read(flow, uow, record, seat, after, len(kept))
    return [dict(event.item) for event in shown]


def _read(
    flow: MatchFlow, uow: UnitOfWork, record: MatchRecord, seat: int | None, after: int, limit: int
) -> list[VisibleEvent]:
    """Rows after ``after`` read (committed: a read-only unit of work), redacted for ``seat`` and kept."""
    read = [
        VisibleEvent({"seq": e.seq, **redact_event(e.to_dict(), seat)}, e.prev_hash, e.hash)
        for e in uow.events.load(record.id, after=after, limit=limit)
    ]
    flow.visible_events.put_many([(EventKey(record.id, event.item["seq"], seat), event) for event in read])
    return read


def _one_chain(events: list[VisibleEvent], record: MatchRecord) -> bool:
    """Each event's ``prev_hash`` is the hash of the one before it, and the last is ``record``'s
    head if it is at the head's seq."""
    if any(later.prev_hash != earlier.hash for earlier, later in pairwise(events)):
        return False
    return not events or events[-1].item["seq"] != record.last_seq or events[-1].hash == record.last_hash


def wait_for_event(flow: MatchFlow, match_id: str, after: int, wait: float, sub: Subscription) -> int:
    """Hold a subscribed waiter (a stream between events) until the match is past ``after``,
    ``wait`` seconds pass or its client goes; the seq then. No query unless a turn clock runs."""
    cached = flow.cache.get(match_id)
    deadline_at = None
    if cached is None or cached.state.rules.turn_seconds:
        with flow.store.unit_of_work(readonly=True) as uow:
            record = flow.record(uow, match_id)
        sub.saw(record.last_seq)
        deadline_at = record.deadline_at
    return sleep_until_event(flow, match_id, deadline_at, after, wait, sub)


def sleep_until_event(
    flow: MatchFlow, match_id: str, deadline_at: datetime | None, after: int, wait: float, sub: Subscription
) -> int:
    """Sleep until an event after ``after`` exists, ``wait`` seconds pass or the client goes;
    the seq then. A turn clock that runs out meanwhile is played here; the deadline moves only
    with an append, which ends the wait."""
    clock = flow.waiter.clock  # the waiters' clock: tests move it without sleeping
    give_up = clock.monotonic() + wait
    seq = sub.seq
    while (remaining := give_up - clock.monotonic()) > 0:
        nap = remaining
        if deadline_at is not None:
            until_deadline = (deadline_at - flow.now()).total_seconds()
            nap = min(remaining, max(MIN_CLOCK_NAP, until_deadline + MIN_CLOCK_NAP))
        seq = sub.wait(after, nap)
        if seq > after or sub.left or deadline_at is None:
            return seq
        if run_due(flow, match_id):
            return sub.seq  # the timeout was announced by this process's commit
        with flow.store.unit_of_work(readonly=True) as uow:
            record = flow.record(uow, match_id)
        sub.saw(record.last_seq)
        deadline_at = record.deadline_at
    return seq
