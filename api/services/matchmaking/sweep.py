"""The sweep: what time alone changes in matchmaking, done every second by the autoplay runner.

Seeks past their expiry are expired and those past their fill time filled with bots
(:func:`.seeks.expire_or_fill`); pending challenges past their expiry are closed
(:func:`.challenges.expire_challenge`). A read of a seek or challenge does the same for it at
once, so the sweep only bounds how late a change nobody reads is made and announced.
"""

from __future__ import annotations

import logging

from ..commands import SweepMatchmaking
from ..flow import MatchFlow
from .challenges import expire_challenge
from .seeks import expire_or_fill

log = logging.getLogger(__name__)

#: Rows the sweep handles per round (it runs every second).
SWEEP_BATCH = 50


def sweep_handler(command: SweepMatchmaking, flow: MatchFlow) -> int:
    """Expire seeks and challenges past their time and fill due seeks with bots (the autoplay
    runner calls this every second); answers how many changed."""
    now = flow.now()
    with flow.store.unit_of_work(readonly=True) as uow:
        due = uow.matchmaking.due_seeks(now, SWEEP_BATCH)
        stale = uow.matchmaking.expired_challenges(now, SWEEP_BATCH)
    changed = 0
    for seek in due:
        try:
            changed += expire_or_fill(flow, seek)
        except Exception:  # one seek that cannot be expired or filled must not hold up the others
            log.exception("seek %s not expired or filled; retried by the next sweep", seek.id)
    for challenge in stale:
        changed += expire_challenge(flow, challenge.id)
    return changed
