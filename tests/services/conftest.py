"""The use cases run on the in-memory store: no app, no HTTP, no database."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest

from api.services.bus import MessageBus
from api.services.flow import MatchFlow
from api.services.waiting import WaitClock
from api.store.memory import MemoryStore

from .support import wired


class Clock(WaitClock):
    """The turn clocks' ``now`` and the waiters' clock in one: it moves only when told, and a
    waiter's sleep moves it to the sleep's end at once (nothing here can be woken mid-sleep)."""

    def __init__(self) -> None:
        self.start = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)
        self.elapsed = 0.0
        self.naps: list[float] = []

    def __call__(self) -> datetime:
        return self.start + timedelta(seconds=self.elapsed)

    def advance(self, seconds: float) -> None:
        self.elapsed += seconds

    def monotonic(self) -> float:
        return self.elapsed

    def sleep_on(self, condition: threading.Condition, seconds: float) -> None:
        self.naps.append(seconds)
        self.advance(seconds)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def store(clock: Clock) -> MemoryStore:
    return MemoryStore(now=clock)


@pytest.fixture
def bus(store: MemoryStore, clock: Clock) -> MessageBus:
    """The use cases as ``api.bootstrap`` wires them, on the memory store and the fake clock."""
    return wired(store, clock)


@pytest.fixture
def flow(bus: MessageBus) -> MatchFlow:
    """The bus's match flow (tests change its settings: limits, client seeds)."""
    return bus.flow
