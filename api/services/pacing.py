"""Computer players answer in constant time: each decision takes at least its level's floor.

Why: a bot that thinks longer when it has a choice tells anyone who times the server's answer
something about its hidden hand. The expert decides in about 0.1 ms when one move is legal
and 5 to 20 ms when it must weigh several, so an opponent timing ``POST .../actions`` could
tell the two apart most of the time. Every decision made for a table is therefore padded up
to the level's floor (``BOT_REPLY_FLOOR_MS``), and a timed reply says only that the bot
moved. A decision slower than its floor is not padded and still stands out: the floor must
be above the level's slowest decision on the machine (``bench/bot_timing.py`` prints them).

The pause is taken outside any transaction (the services decide before they write), on
gevent a yield to the worker's other requests.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TypeVar

from api.bots import LEVELS

T = TypeVar("T")


def sleep(seconds: float) -> None:
    """``time.sleep`` as it is when called: gevent's workers patch it after this module may have
    been imported (a preloaded app), and a pause must yield to the worker's other requests."""
    time.sleep(seconds)


@dataclass(frozen=True)
class ReplyFloor:
    """The shortest time, in seconds, one decision of each bot level takes (absent: none)."""

    seconds: Mapping[str, float] = field(default_factory=dict)
    #: A monotonic clock, and a pause of that many seconds (tests inject both).
    clock: Callable[[], float] = time.monotonic
    pause: Callable[[float], None] = sleep

    @classmethod
    def from_millis(cls, millis: Mapping[str, float]) -> ReplyFloor:
        """The floors of ``BOT_REPLY_FLOOR_MS`` (level -> ms); an unknown level is a mistake."""
        unknown = sorted(set(millis) - set(LEVELS))
        if unknown:
            raise ValueError(f"BOT_REPLY_FLOOR_MS names no bot level {unknown}; the levels are {', '.join(LEVELS)}")
        return cls({level: ms / 1000 for level, ms in millis.items()})

    def timed(self, level: str, decide: Callable[[], T]) -> T:
        """``decide()``, taking at least the floor of ``level`` in all."""
        floor = self.seconds.get(level, 0.0)
        if floor <= 0:
            return decide()
        started = self.clock()
        decided = decide()
        left = floor - (self.clock() - started)
        if left > 0:
            self.pause(left)
        return decided


NO_FLOOR = ReplyFloor()
