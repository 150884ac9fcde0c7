"""The analysis after a match (issue 38): made by the runner once a match has ended, stored, read.

No request makes one: a match's analysis costs seconds of CPU (``bench/analysis.py``), so the
autoplay runner makes them in the background (``AnalysisRunner``), at most one at a time per
core it is given, and a reader gets ``analysis_not_ready`` until it is stored. An ended match's
log never changes, so neither does its analysis: made once, kept (``uow.analyses``). One that
fails is made again, ``ANALYSIS_ATTEMPTS`` times in all; then a reader gets ``analysis_failed``
and the runner's log says so (a deterministic analysis that failed thrice will fail again).

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

from api.bots.analysis import analyse, choice_name, hint
from api.rules import BOT_SEAT, ENDED, PLAYING, redact_event, view
from api.rules.errors import MatchOver, NotYourTurn
from api.store.records import MatchRecord

from . import errors
from .clocks import run_due
from .commands import (
    AnalysisAttemptFailed,
    AnalysisJob,
    Answer,
    ClaimDueAnalyses,
    GetAnalysis,
    GetHint,
    StoreAnalysis,
)
from .flow import MatchFlow
from .ports import UnitOfWork
from .snapshots import without_seq

log = logging.getLogger(__name__)

#: How long a runner's claim on a match's analysis lasts: far longer than one takes (a minute at
#: most, ``bench/analysis.py``); a dead runner's claims lapse after it and another makes them.
ANALYSIS_LEASE = timedelta(minutes=10)
#: How many times a match's analysis is claimed before it is given up (``analysis_failed``): the
#: analysis is deterministic, so a second failure is rarely luck; the third covers a runner killed
#: twice while making it.
ANALYSIS_ATTEMPTS = 3
WHAT = "the analysis (it shows every hand)"


def stored_analysis(uow: UnitOfWork, flow: MatchFlow, record: MatchRecord) -> dict[str, Any]:
    """An ended match's stored analysis; ``analysis_not_ready`` while a runner may still make it,
    ``analysis_failed`` once it has failed ``ANALYSIS_ATTEMPTS`` times."""
    analysis = uow.analyses.get(record.id)
    if analysis is not None:
        return analysis
    claim = uow.analyses.claim_of(record.id)
    if claim.given_up(flow.now(), ANALYSIS_ATTEMPTS):
        raise errors.AnalysisFailed(
            f"the analysis of this match failed each of the {claim.attempts} times it was made and will not be made "
            "again (the server's log names the match)",
            match_status=record.status,
            attempts=claim.attempts,
        )
    raise errors.AnalysisNotReady(
        "the analysis of this match is being made (the runner makes one after each match ends): ask again soon",
        match_status=record.status,
    )


def analysis_handler(command: GetAnalysis, flow: MatchFlow) -> Answer:
    """An ended match's stored analysis with the match's id, seq and chain head (its ETag's parts),
    or ``analysis_not_ready`` while the runner has not stored it (``analysis_failed``: never will)."""
    with flow.store.unit_of_work(readonly=True) as uow:
        record = flow.ended_record(uow, command.match_id, WHAT)
        analysis = stored_analysis(uow, flow, record)
    return {"match_id": record.id, **analysis, "seq": record.last_seq, "chain_head": record.head.to_dict()}


def hint_handler(command: GetHint, flow: MatchFlow) -> Answer:
    """The token's seat's choices now, best first, each with the expert's value of it from what the
    seat knows (its view and its log of the hand, as a computer player is asked: nothing hidden).
    Only in an unrated match where every other seat is a computer player (``hint_not_offered``),
    and only for the seat to move (``not_your_turn``)."""
    run_due(flow, command.match_id)
    with flow.store.unit_of_work(readonly=True) as uow:
        record = flow.record(uow, command.match_id)
        seat = flow.authenticate(uow, command.match_id, command.token, required=True)
        snap = flow.snapshot(uow, record)
    assert seat is not None  # required=True: a missing token is refused above
    state = snap.state
    others = [s for i, s in enumerate(state.seats) if i != seat]
    if record.rated or any(s.get("type") != BOT_SEAT for s in others):
        raise errors.HintNotOffered("hints are offered in unrated matches against the computer only")
    if state.status == ENDED:
        raise MatchOver("the match has ended: its analysis is at /analysis")
    shown = view(state, seat)
    if state.status != PLAYING or not shown.get("legal_actions") or state.next_to_act([seat]) != seat:
        raise NotYourTurn("a hint is for the seat to move")
    log = [redact_event(without_seq(row), seat) for row in snap.hand_log]
    # the decision's randomness from what the seat may know (not the secret seed): the same hint
    # for the same question
    rng_seed = f"hint:{record.id}:{snap.seq}:{seat}"
    choices = flow.offload(hint, shown, log, rng_seed)
    return {
        "match_id": record.id,
        "seq": snap.seq,
        "seat": seat,
        "choices": [{"choice": choice_name(a), "action": a, "value": v} for a, v in choices],
    }


def claim_due_analyses_handler(command: ClaimDueAnalyses, flow: MatchFlow) -> list[AnalysisJob]:
    """Up to ``limit`` ended matches without an analysis and claimed fewer than
    ``ANALYSIS_ATTEMPTS`` times, claimed for ``ANALYSIS_LEASE``, each with its whole log, revealed
    seed and the attempt this is."""
    now = flow.now()
    with flow.store.unit_of_work() as uow:
        claimed = uow.analyses.claim_due(now, now + ANALYSIS_LEASE, command.limit, ANALYSIS_ATTEMPTS)
        uow.commit()
    jobs = []
    for match_id in claimed:
        with flow.store.unit_of_work(readonly=True) as uow:
            record = flow.ended_record(uow, match_id, WHAT)
            stored = uow.events.load(match_id, limit=record.last_seq)
            attempt = uow.analyses.claim_of(match_id).attempts
        jobs.append(AnalysisJob(match_id, [e.to_dict() for e in stored], record.seed, attempt))
    return jobs


def store_analysis_handler(command: StoreAnalysis, flow: MatchFlow) -> None:
    with flow.store.unit_of_work() as uow:
        uow.analyses.store(command.match_id, command.analysis, flow.now())
        uow.commit()


def analysis_attempt_failed_handler(command: AnalysisAttemptFailed, flow: MatchFlow) -> None:
    with flow.store.unit_of_work() as uow:
        uow.analyses.release(command.match_id)
        uow.commit()


def analyse_job(job: AnalysisJob) -> dict[str, Any]:
    """The analysis of one claimed match, as stored (a pure function: a worker process runs it)."""
    return analyse(job.log, job.seed).to_json()


@dataclass
class AnalysisRunner:
    """The runner's analyses: at most ``slots`` at once, each in ``pool`` (a process pool of that
    many workers: one analysis per core), or made here, one per round, without a pool (tests).

    ``run_once`` stores what has finished and claims as many matches as there are free slots; it
    never waits for an analysis. A failed one is logged and its claim given back: a later round
    makes it again, up to ``ANALYSIS_ATTEMPTS`` times in all; the last failure is logged as the
    match's analysis given up (``analysis_failed``)."""

    handle: Callable[[Any], Any]  # the message bus's ``handle``
    slots: int = 1
    pool: Executor | None = None
    running: dict[Future[dict[str, Any]], AnalysisJob] = field(default_factory=dict)

    def run_once(self) -> int:
        """Store the finished analyses, start new ones; answers how many were stored."""
        stored = 0
        for future in [f for f in self.running if f.done()]:
            job = self.running.pop(future)
            try:
                self.handle(StoreAnalysis(job.match_id, future.result()))
                stored += 1
            except Exception:  # one broken match must not stop the others
                self._failed(job)
        free = self.slots - len(self.running)
        if free <= 0:
            return stored
        for job in self.handle(ClaimDueAnalyses(free if self.pool is not None else 1)):
            if self.pool is not None:
                self.running[self.pool.submit(analyse_job, job)] = job
                continue
            try:
                self.handle(StoreAnalysis(job.match_id, analyse_job(job)))
                stored += 1
            except Exception:
                self._failed(job)
        return stored

    def _failed(self, job: AnalysisJob) -> None:
        """Log the failure (with its traceback: called in an ``except``) and give the claim back."""
        extra = {"match_id": job.match_id, "attempt": job.attempt}
        if job.attempt >= ANALYSIS_ATTEMPTS:
            log.exception(
                "analysis of match %s failed (attempt %d of %d): given up, GET .../analysis answers analysis_failed",
                job.match_id,
                job.attempt,
                ANALYSIS_ATTEMPTS,
                extra=extra,
            )
        else:
            log.exception(
                "analysis of match %s failed (attempt %d of %d): it will be made again",
                job.match_id,
                job.attempt,
                ANALYSIS_ATTEMPTS,
                extra=extra,
            )
        try:
            self.handle(AnalysisAttemptFailed(job.match_id))
        except Exception:  # the lease runs out instead
            log.exception("analysis of match %s: its claim could not be given back", job.match_id, extra=extra)

    def drain(self, max_rounds: int = 10_000) -> int:
        """Make every analysis due (tests, without a pool); answers how many were stored."""
        total = 0
        for _ in range(max_rounds):
            stored = self.run_once()
            if not stored and not self.running:
                return total
            total += stored
        raise RuntimeError(f"analyses still due after {max_rounds} rounds")
