"""The fairness check of an ended match: re-derive every deal, re-decide every move, ask every
computer player again, verify the hash chain. An ended match's log never changes, so the check
runs once per match and its report is stored (``uow.fairness``); ``fairness_handler`` reads it or makes it.

The first check of a long match is the one expensive read in the API (every event loaded and
re-decided), so within a process one request at a time makes a given match's report; the
others wait for it and read what it stored. Across processes the database decides: the
report is inserted if absent, and a server that lost the race reads the winner's.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from api.bots.audit import recheck_bot_moves
from api.rules.audit import verify_log
from api.store.chain import verify_chain
from api.store.records import MatchRecord, StoredEvent

from .commands import Answer, GetFairness
from .flow import MatchFlow

_guard = threading.Lock()
_making: dict[str, tuple[threading.RLock, int]] = {}  # match id -> (its lock, how many hold or wait)


@contextmanager
def one_at_a_time(match_id: str) -> Iterator[None]:
    """Hold this process's lock on making ``match_id``'s report (re-entrant in one thread)."""
    with _guard:
        lock, users = _making.get(match_id, (threading.RLock(), 0))
        _making[match_id] = (lock, users + 1)
    try:
        with lock:
            yield
    finally:
        with _guard:
            lock, users = _making[match_id]
            if users == 1:
                del _making[match_id]
            else:
                _making[match_id] = (lock, users - 1)


def check(record: MatchRecord, stored: Sequence[StoredEvent]) -> dict[str, Any]:
    """The report of one ended match's whole stored log, as ``GET /fairness`` shows it."""
    chain_problems = verify_chain(stored)
    log = [e.to_dict() for e in stored]
    report = verify_log(log, record.seed)
    # legal is not enough: each computer move must be the one that computer makes (api.bots.audit)
    bots = recheck_bot_moves(log, record.seed)
    return {
        "match_id": record.id,
        "verified": report.ok and not chain_problems and not bots.problems,
        "seed": record.seed,
        "seed_commitment": record.seed_commitment,
        "commitment_ok": report.commitment_ok,
        "chain_ok": not chain_problems,
        "deals_checked": report.deals_checked,
        "moves_checked": report.moves_checked,
        "events_checked": len(stored),
        "problems": chain_problems + report.problems + bots.problems,
    }


def fairness_handler(command: GetFairness, flow: MatchFlow) -> Answer:
    """The fairness check of an ended match (deals re-derived from the revealed seeds, moves
    re-decided, the chain verified): read if stored, else made now and stored, once.

    The autoplay runner asks for it when a match ends, so readers find it made."""
    match_id, what = command.match_id, "the fairness check (it needs the revealed seed)"
    with flow.store.unit_of_work(readonly=True) as uow:
        flow.ended_record(uow, match_id, what)
        report = uow.fairness.get(match_id)
    if report is not None:
        return report
    with one_at_a_time(match_id):
        with flow.store.unit_of_work(readonly=True) as uow:
            record = flow.ended_record(uow, match_id, what)
            report = uow.fairness.get(match_id)  # made while this request waited
            stored = uow.events.load(match_id) if report is None else []
        if report is not None:
            return report
        report = flow.offload(check, record, stored)
        with flow.store.unit_of_work() as uow:
            if not uow.fairness.add_if_absent(match_id, report, flow.now()):
                report = uow.fairness.get(match_id)  # another server stored it first
            uow.commit()
    assert report is not None
    return report
