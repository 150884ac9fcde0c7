"""The fairness check of an ended match: re-derive every deal, re-decide every move, verify
the hash chain. An ended match's log never changes, so the check runs once per match and its
report is stored (``uow.fairness``); ``MatchService.fairness_report`` reads it or makes it.

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

from api.rules.audit import verify_log
from api.store.chain import verify_chain
from api.store.records import MatchRecord, StoredEvent

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
    report = verify_log([e.to_dict() for e in stored], record.seed)
    return {
        "match_id": record.id,
        "verified": report.ok and not chain_problems,
        "seed": record.seed,
        "seed_commitment": record.seed_commitment,
        "commitment_ok": report.commitment_ok,
        "chain_ok": not chain_problems,
        "deals_checked": report.deals_checked,
        "moves_checked": report.moves_checked,
        "events_checked": len(stored),
        "problems": chain_problems + report.problems,
    }
