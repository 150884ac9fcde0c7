"""Computer players answer in constant time: each decision takes at least its level's floor.

Why: a bot that thinks longer when it has a choice tells anyone who times the server's answer
something about its hidden hand. The expert decides in about 0.1 ms when one move is legal
and 5 to 50 ms (at worst some 185 ms of CPU on a busy machine) when it must weigh several, so
an opponent timing ``POST .../actions`` could tell the two apart most of the time. Every
decision made for a table is therefore padded up to the level's floor (``BOT_REPLY_FLOOR_MS``),
and a timed reply says only that the bot moved.

A decision slower than its floor cannot be padded and still stands out, so it is never
silent: it is logged (a warning with the level, the decision's milliseconds and the floor) and
counted per level in :attr:`ReplyFloor.overruns` (the app's floor is ``MatchFlow.reply_floor``)
and in ``boneyard_bot_decision_seconds{over_floor="true"}`` (``api.metrics``, which times every
decision by level). The floors must be above each level's slowest decision on the machine
(``bench/bot_timing.py`` prints them; ``bench/reply_floor.py`` times replies through the shipped
floor and counts the overruns).

The pause is taken outside any transaction (the services decide before they write), on
gevent a yield to the worker's other requests.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TypeVar

from api import metrics
from api.bots import LEVELS

T = TypeVar("T")
log = logging.getLogger(__name__)


def sleep(seconds: float) -> None:
    """``time.sleep`` as it is when called: gevent's workers patch it after this module may have
    been imported (a preloaded app), and a pause must yield to the worker's other requests."""
    time.sleep(seconds)


class Overruns:
    """How many decisions took longer than their level's floor, per level, since the process
    started: each is a reply whose time may tell what the bot's hand allowed."""

    def __init__(self) -> None:
        self._lock = threading.Lock()  # the autoplay runner and offloaded decisions use threads
        self._by_level: Counter[str] = Counter()

    def add(self, level: str) -> None:
        with self._lock:
            self._by_level[level] += 1

    def by_level(self) -> dict[str, int]:
        """``{level: count}`` of the levels that passed their floor at least once."""
        with self._lock:
            return dict(self._by_level)

    def total(self) -> int:
        with self._lock:
            return sum(self._by_level.values())


@dataclass(frozen=True)
class ReplyFloor:
    """The shortest time, in seconds, one decision of each bot level takes (absent: none)."""

    seconds: Mapping[str, float] = field(default_factory=dict)
    #: A monotonic clock, and a pause of that many seconds (tests inject both).
    clock: Callable[[], float] = time.monotonic
    pause: Callable[[float], None] = sleep
    #: The decisions that passed their floor (one count per process; exported as the histogram's
    #: ``over_floor="true"`` series).
    overruns: Overruns = field(default_factory=Overruns, compare=False)

    @classmethod
    def from_millis(cls, millis: Mapping[str, float]) -> ReplyFloor:
        """The floors of ``BOT_REPLY_FLOOR_MS`` (level -> ms); an unknown level is a mistake."""
        unknown = sorted(set(millis) - set(LEVELS))
        if unknown:
            raise ValueError(f"BOT_REPLY_FLOOR_MS names no bot level {unknown}; the levels are {', '.join(LEVELS)}")
        return cls({level: ms / 1000 for level, ms in millis.items()})

    def timed(self, level: str, decide: Callable[[], T]) -> T:
        """``decide()``, taking at least the floor of ``level`` in all; a decision that took
        longer is logged and counted in :attr:`overruns` (its reply time shows)."""
        floor = self.seconds.get(level, 0.0)
        started = self.clock()
        decided = decide()
        took = self.clock() - started
        over = 0 < floor < took
        metrics.BOT_DECISION.labels(level, metrics.bool_label(over)).observe(took)
        if floor <= 0:
            return decided
        if took < floor:
            self.pause(floor - took)
        elif took > floor:
            self.overruns.add(level)
            log.warning(
                "bot decision over its reply floor: level=%s decision_ms=%.1f floor_ms=%.1f",
                level,
                took * 1000,
                floor * 1000,
                extra={"bot_level": level, "decision_ms": round(took * 1000, 1), "floor_ms": round(floor * 1000, 1)},
            )
        return decided


NO_FLOOR = ReplyFloor()
