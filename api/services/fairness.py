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
from dataclasses import dataclass
from typing import Any

from api.bots.audit import BotRecheck, recheck_bot_moves
from api.rules.audit import AuditReport, verify_log
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


@dataclass(frozen=True)
class LogCheck:
    """What each check found in one whole log: its hash chain, the rules' audit (deals, moves,
    scores, the seed against its commitment) and the computer players asked again."""

    chain_problems: list[str]
    rules: AuditReport
    bots: BotRecheck

    @property
    def problems(self) -> list[str]:
        return self.chain_problems + self.rules.problems + self.bots.problems

    @property
    def verified(self) -> bool:
        return self.rules.ok and not self.chain_problems and not self.bots.problems


def check_log(stored: Sequence[StoredEvent], seed: str) -> LogCheck:
    """Every check of a whole log (its rows in seq order) against its revealed seed. No store:
    ``boneyard verify`` (api/verify.py) runs it on an audit document read from a file."""
    log = [e.to_dict() for e in stored]
    # legal is not enough: each computer move must be the one that computer makes (api.bots.audit)
    return LogCheck(verify_chain(stored), verify_log(log, seed), recheck_bot_moves(log, seed))


def report_of(
    match_id: str, seed: str, seed_commitment: str, stored: Sequence[StoredEvent], found: LogCheck
) -> dict[str, Any]:
    """The report of a whole log's checks, as ``GET /fairness`` shows it."""
    return {
        "match_id": match_id,
        "verified": found.verified,
        "seed": seed,
        "seed_commitment": seed_commitment,
        "commitment_ok": found.rules.commitment_ok,
        "chain_ok": not found.chain_problems,
        "deals_checked": found.rules.deals_checked,
        "moves_checked": found.rules.moves_checked,
        "events_checked": len(stored),
        "problems": found.problems,
    }


def check(record: MatchRecord, stored: Sequence[StoredEvent]) -> dict[str, Any]:
    """The report of one ended match's whole stored log, as ``GET /fairness`` shows it."""
    found = check_log(stored, record.seed)
    return report_of(record.id, record.seed, record.seed_commitment, stored, found)


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
