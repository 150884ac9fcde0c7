"""The autoplay runner: the computer players' moves that no request plays.

A request plays at most the inline budget of computer moves in its own answer, and
none at an all-bot table (``WorkLimits``); its append then leaves ``matches.bots_due_at``
set. This runner — ``flask --app wsgi boneyard autoplay``, started beside the web server
by ``scripts/run`` and docker-compose — claims the due matches, plays one bounded step of
each (``acting.play_bots_handler``: decided outside any transaction, appended in a short
one by compare-and-set) and so schedules the next step after the pace.

Everything it needs is in the database, so a restarted runner resumes where the last
one stopped, and several runners (one beside each app server) share the work: a claim
is a lease the others skip (``FOR UPDATE SKIP LOCKED`` on PostgreSQL), and a step that
finds the match moved on appends nothing — the ``(match, seq)`` key makes a move
appended twice impossible anyway. It also plays the turns whose clock ran out
(``clocks.sweep_handler``) and expires or bot-fills due seeks and challenges
(``matchmaking.sweep_handler``), so no cron job is needed, and makes the fairness report of each match
it ends, so no reader waits for it.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from datetime import timedelta

from . import errors, matchmaking
from .acting import play_bots_handler
from .clocks import sweep_handler
from .commands import GetFairness, PlayBots, SweepClocks, SweepMatchmaking
from .fairness import fairness_handler
from .flow import MatchFlow

log = logging.getLogger(__name__)

LEASE = timedelta(seconds=30)  # a claim outlives any step; a dead runner's claims lapse after it
BATCH = 20  # matches claimed per round


@dataclass
class Autoplay:
    flow: MatchFlow
    step_moves: int = 1  # computer moves per step (each step: its own short transaction)
    batch: int = BATCH

    def run_once(self) -> int:
        """Claim the due matches and play one step of each; answers the events appended."""
        now = self.flow.now()
        with self.flow.store.unit_of_work(readonly=True) as uow:
            if not uow.matches.any_due_bots(now):
                return 0  # idle: no write transaction at all
        with self.flow.store.unit_of_work() as uow:
            claimed = uow.matches.claim_due_bots(now, now + LEASE, self.batch)
            uow.commit()
        appended = 0
        for match_id in claimed:
            try:
                moved, ended = play_bots_handler(PlayBots(match_id, self.step_moves), self.flow)
                appended += moved
                log.debug("autoplay: match %s +%d events%s", match_id, moved, " (ended)" if ended else "")
                if ended:
                    fairness_handler(GetFairness(match_id), self.flow)  # made once now; readers find it stored
            except errors.EventLimitReached:
                log.warning("match %s reached the event limit; the runner leaves it", match_id)
                continue
            except Exception:  # one broken match must not stop every other table
                log.exception("autoplay step of match %s failed; retried after its lease", match_id)
                continue
        return appended

    def drain(self, max_rounds: int = 100_000) -> int:
        """Play until nothing is due now (tests, with a clock they move); answers the events."""
        total = 0
        for _ in range(max_rounds):
            appended = self.run_once()
            if not appended:
                return total
            total += appended
        raise RuntimeError(f"autoplay still busy after {max_rounds} rounds")

    def run(self, stop: threading.Event, *, idle_seconds: float = 0.05, sweep_seconds: float = 1.0) -> None:
        """Serve until ``stop`` is set: steps while there is work, a short nap when there is
        none, the turn-clock sweep every ``sweep_seconds``."""
        next_sweep = 0.0
        while not stop.is_set():
            try:
                appended = self.run_once()
                if time.monotonic() >= next_sweep:
                    sweep_handler(SweepClocks(), self.flow)
                    matchmaking.sweep_handler(SweepMatchmaking(), self.flow)  # seeks' expiry and bot fill
                    next_sweep = time.monotonic() + sweep_seconds
            except Exception:  # the database went away: keep trying, slowly
                log.exception("autoplay round failed")
                appended = 0
                stop.wait(1.0)
            if not appended:
                stop.wait(idle_seconds)
