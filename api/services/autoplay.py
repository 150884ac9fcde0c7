"""The autoplay runner: the computer players' moves that no request plays.

A request plays at most the inline budget of computer moves in its own answer, and
none at an all-bot table (``WorkLimits``); its append then leaves ``matches.bots_due_at``
set. This runner — ``flask --app wsgi boneyard autoplay``, started beside the web server
by ``scripts/run`` and docker-compose — claims the due matches (``ClaimDueBots``), plays one
bounded step of each (``PlayBots``: decided outside any transaction, appended in a short one
by compare-and-set) and so schedules the next step after the pace. It does all of it by
sending commands to the message bus that ``api.bootstrap`` wires, as every other caller does.

Everything it needs is in the database, so a restarted runner resumes where the last
one stopped, and several runners (one beside each app server) share the work: a claim
is a lease the others skip (``FOR UPDATE SKIP LOCKED`` on PostgreSQL), and a step that
finds the match moved on appends nothing — the ``(match, seq)`` key makes a move
appended twice impossible anyway. It also plays the turns whose clock ran out
(``SweepClocks``) and expires or bot-fills due seeks and challenges (``SweepMatchmaking``),
so no cron job is needed, and makes the fairness report of each match it ends
(``GetFairness``), so no reader waits for it. Given an ``AnalysisRunner`` (the ``autoplay``
command gives it one process per core), it also makes the analysis after each ended match
(issue 38) in the background, one at a time per core.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass

from api import traces

from . import errors
from .analyses import AnalysisRunner
from .bus import MessageBus
from .commands import ClaimDueBots, GetFairness, PlayBots, SweepClocks, SweepMatchmaking, SweepTournaments

log = logging.getLogger(__name__)

BATCH = 20  # matches claimed per round


@dataclass
class Autoplay:
    bus: MessageBus
    step_moves: int = 1  # computer moves per step (each step: its own short transaction)
    batch: int = BATCH
    analyses: AnalysisRunner | None = None  # None: no analyses made here (the tests' runners)

    def run_once(self) -> int:
        """Claim the due matches and play one step of each; answers the events appended."""
        appended = 0
        for match_id in self.bus.handle(ClaimDueBots(self.batch)):
            try:
                with traces.span("autoplay step", boneyard__match_id=match_id):
                    moved, ended = self.bus.handle(PlayBots(match_id, self.step_moves))
                    traces.annotate(boneyard__events_appended=moved, boneyard__match_ended=ended)
                appended += moved
                log.debug(
                    "autoplay: match %s +%d events%s",
                    match_id,
                    moved,
                    " (ended)" if ended else "",
                    extra={"match_id": match_id},
                )
                if ended:
                    try:
                        self.bus.handle(GetFairness(match_id))  # made once now; readers find it stored
                    except errors.MatchNotOver:  # a duplicate round's, sealed until the round ends
                        log.debug("fairness of match %s waits for its round", match_id, extra={"match_id": match_id})
            except errors.EventLimitReached:
                log.warning(
                    "match %s reached the event limit; the runner leaves it", match_id, extra={"match_id": match_id}
                )
                continue
            except Exception:  # one broken match must not stop every other table
                log.exception(
                    "autoplay step of match %s failed; retried after its lease", match_id, extra={"match_id": match_id}
                )
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
                if self.analyses is not None:
                    self.analyses.run_once()  # never waits: finished ones stored, free slots filled
                if time.monotonic() >= next_sweep:
                    self.bus.handle(SweepClocks())
                    self.bus.handle(SweepMatchmaking())  # seeks' expiry and bot fill
                    self.bus.handle(SweepTournaments())  # start times, rounds to pair
                    next_sweep = time.monotonic() + sweep_seconds
            except Exception:  # the database went away: keep trying, slowly
                log.exception("autoplay round failed")
                appended = 0
                stop.wait(1.0)
            if not appended:
                stop.wait(idle_seconds)
