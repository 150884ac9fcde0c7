"""The event feed: a seat's page of the log, and waiting for the next event.

A long-poll (``GetEvents`` with ``wait``) and a stream between two events both sleep here,
on the match's slot in the process's waiter (``api.services.waiting``): no query while they
sleep, unless a turn clock runs — then the turn that runs out meanwhile is played by the
waiter itself (the waiting client is often the one owed it).
"""

from __future__ import annotations

from datetime import datetime

from api.rules import ENDED, redact_event
from api.store.records import MatchRecord, StoredEvent

from .clocks import run_due
from .commands import MAX_EVENTS_PAGE, Answer, GetEvents
from .flow import MatchFlow
from .ports import UnitOfWork
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
            record = flow.record(uow, match_id)
            seat = flow.authenticate(uow, match_id, command.token)
            stored = load_through_head(uow, record, after, limit)
        if sub is not None and not stored and record.status != ENDED:
            sub.saw(record.last_seq)
            with flow.waiter.hold(client, wait, "match_events"):
                seq = sleep_until_event(flow, match_id, record.deadline_at, after, wait, sub)
            if seq > after and not sub.left:
                with flow.store.unit_of_work(readonly=True) as uow:
                    record = flow.record(uow, match_id)
                    stored = load_through_head(uow, record, after, limit)
    finally:
        if sub is not None:
            sub.close()
    items = [{"seq": e.seq, **redact_event(e.to_dict(), seat)} for e in stored]
    last = items[-1]["seq"] if items else after
    return {
        "match_id": match_id,
        "seat": seat,
        "seq": record.last_seq,
        "chain_head": record.head.to_dict(),
        "events": items,
        "next_after": last if last < record.last_seq else None,
    }


def load_through_head(uow: UnitOfWork, record: MatchRecord, after: int, limit: int) -> list[StoredEvent]:
    """At most ``limit`` events after ``after`` and none past ``record``'s seq (a later commit
    may be visible to this read on PostgreSQL), so a page never shows more than its chain head."""
    return uow.events.load(record.id, after=after, limit=max(0, min(limit, record.last_seq - after)))


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
