"""A clock for the tests of waiting and turn clocks: time moves when the test says, never by sleeping.

One object stands for both clocks the service reads: called, it is the turn clocks' ``now``
(a datetime); as a :class:`WaitClock` it is what long-polls and streams measure and sleep on.
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

from api.services.waiting import WaitClock

from .helpers import auth, view

#: How long a wakeable sleeper waits for a notify before giving up: a bound on a broken test's
#: hang, never a measure (a passing test is woken long before).
FAILURE_BOUND = 10.0


class FakeClock(WaitClock):
    """Time that moves only by :meth:`advance` or by a waiter's sleep.

    A sleeper that nothing can wake (``wakeable`` False, the default) moves the time to the end of
    its sleep at once: a long-poll that times out answers as it would, without the wait. With
    ``wakeable`` True a sleeper really blocks until its condition is notified (by an append), and
    ``sleeping`` tells the test's other thread that a waiter is asleep and it may act. ``naps``
    records each sleep asked for and whether a notify ended it.
    """

    def __init__(self, start: datetime = datetime(2030, 1, 1, 12, 0, tzinfo=UTC), *, wakeable: bool = False):
        self.start = start
        self.elapsed = 0.0
        self.wakeable = wakeable
        self.sleeping = threading.Event()
        self.naps: list[tuple[float, bool]] = []  # (seconds asked for, woken by a notify)
        self._lock = threading.Lock()

    @property
    def now(self) -> datetime:
        return self.start + timedelta(seconds=self.elapsed)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        with self._lock:
            self.elapsed += seconds

    def monotonic(self) -> float:
        return self.elapsed

    def sleep_on(self, condition: threading.Condition, seconds: float) -> None:
        if not self.wakeable:
            self.naps.append((seconds, False))
            self.advance(seconds)
            return
        self.sleeping.set()
        woken = condition.wait(FAILURE_BOUND)
        self.naps.append((seconds, woken))
        if not woken:
            self.advance(seconds)  # nobody came: the sleep ran out, and the test's checks fail


def use_clock(app, clock: FakeClock) -> FakeClock:
    """Make ``clock`` the app's turn clock and its waiters' clock."""
    service = app.extensions["boneyard.bus"].flow
    service.now = clock
    service.waiter.clock = clock
    return clock


class ActWhenWaiting(threading.Thread):
    """Plays the seat's first legal action from another thread once a waiter sleeps on the clock."""

    def __init__(self, client, match_id: str, token: str, clock: FakeClock):
        super().__init__(daemon=True)
        self.client, self.match_id, self.token, self.clock = client, match_id, token, clock
        self.status: int | None = None  # the action's answer; None: no waiter ever slept

    def run(self) -> None:
        if not self.clock.sleeping.wait(FAILURE_BOUND):
            return
        action = view(self.client, self.match_id, self.token)["legal_actions"][0]
        self.status = self.client.post(
            f"/v1/matches/{self.match_id}/actions", json=action, headers=auth(self.token)
        ).status_code

    def finish(self) -> int | None:
        self.join(FAILURE_BOUND)
        return self.status
