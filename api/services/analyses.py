"""The analysis after a match (issue 38): made by the runner once a match has ended, stored, read.

No request makes one: a match's analysis costs seconds of CPU (``bench/analysis.py``), so the
autoplay runner makes them in the background (``AnalysisRunner``), at most one at a time per
core it is given, and a reader gets ``analysis_not_ready`` until it is stored. An ended match's
log never changes, so neither does its analysis: made once, kept (``uow.analyses``).

Same opening as the match's record after the end: anyone may read it then, and no one before
(it shows every hand), whatever token it brings.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import Executor, Future
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from api.bots.analysis import analyse

from . import errors
from .commands import AnalysisJob, Answer, ClaimDueAnalyses, GetAnalysis, StoreAnalysis
from .flow import MatchFlow

log = logging.getLogger(__name__)

#: How long a runner's claim on a match's analysis lasts: far longer than one takes (a minute at
#: most, ``bench/analysis.py``); a dead runner's claims lapse after it and another makes them.
ANALYSIS_LEASE = timedelta(minutes=10)
WHAT = "the analysis (it shows every hand)"


def analysis_handler(command: GetAnalysis, flow: MatchFlow) -> Answer:
    """An ended match's stored analysis with the match's id, seq and chain head (its ETag's parts),
    or ``analysis_not_ready`` while the runner has not stored it."""
    with flow.store.unit_of_work(readonly=True) as uow:
        record = flow.ended_record(uow, command.match_id, WHAT)
        analysis = uow.analyses.get(command.match_id)
    if analysis is None:
        raise errors.AnalysisNotReady(
            "the analysis of this match is being made (the runner makes one after each match ends): ask again soon",
            match_status=record.status,
        )
    return {"match_id": record.id, **analysis, "seq": record.last_seq, "chain_head": record.head.to_dict()}


def claim_due_analyses_handler(command: ClaimDueAnalyses, flow: MatchFlow) -> list[AnalysisJob]:
    """Up to ``limit`` ended matches without an analysis, claimed for ``ANALYSIS_LEASE``, each with
    its whole log and revealed seed."""
    now = flow.now()
    with flow.store.unit_of_work() as uow:
        claimed = uow.analyses.claim_due(now, now + ANALYSIS_LEASE, command.limit)
        uow.commit()
    jobs = []
    for match_id in claimed:
        with flow.store.unit_of_work(readonly=True) as uow:
            record = flow.ended_record(uow, match_id, WHAT)
            stored = uow.events.load(match_id, limit=record.last_seq)
        jobs.append(AnalysisJob(match_id, [e.to_dict() for e in stored], record.seed))
    return jobs


def store_analysis_handler(command: StoreAnalysis, flow: MatchFlow) -> None:
    with flow.store.unit_of_work() as uow:
        uow.analyses.store(command.match_id, command.analysis, flow.now())
        uow.commit()


def analyse_job(job: AnalysisJob) -> dict[str, Any]:
    """The analysis of one claimed match, as stored (a pure function: a worker process runs it)."""
    return analyse(job.log, job.seed).to_json()


@dataclass
class AnalysisRunner:
    """The runner's analyses: at most ``slots`` at once, each in ``pool`` (a process pool of that
    many workers: one analysis per core), or made here, one per round, without a pool (tests).

    ``run_once`` stores what has finished and claims as many matches as there are free slots; it
    never waits for an analysis. A failed one is logged and left: its claim lapses and a later
    round makes it again."""

    handle: Callable[[Any], Any]  # the message bus's ``handle``
    slots: int = 1
    pool: Executor | None = None
    running: dict[Future[dict[str, Any]], str] = field(default_factory=dict)

    def run_once(self) -> int:
        """Store the finished analyses, start new ones; answers how many were stored."""
        stored = 0
        for future in [f for f in self.running if f.done()]:
            match_id = self.running.pop(future)
            try:
                self.handle(StoreAnalysis(match_id, future.result()))
                stored += 1
            except Exception:  # one broken match must not stop the others
                log.exception("analysis of match %s failed", match_id, extra={"match_id": match_id})
        free = self.slots - len(self.running)
        if free <= 0:
            return stored
        for job in self.handle(ClaimDueAnalyses(free if self.pool is not None else 1)):
            if self.pool is not None:
                self.running[self.pool.submit(analyse_job, job)] = job.match_id
                continue
            try:
                self.handle(StoreAnalysis(job.match_id, analyse_job(job)))
                stored += 1
            except Exception:
                log.exception("analysis of match %s failed", job.match_id, extra={"match_id": job.match_id})
        return stored

    def drain(self, max_rounds: int = 10_000) -> int:
        """Make every analysis due (tests, without a pool); answers how many were stored."""
        total = 0
        for _ in range(max_rounds):
            stored = self.run_once()
            if not stored and not self.running:
                return total
            total += stored
        raise RuntimeError(f"analyses still due after {max_rounds} rounds")
