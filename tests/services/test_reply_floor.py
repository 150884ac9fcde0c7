"""Computer players answer in constant time (api.services.pacing): every decision made for a
table takes at least its level's floor, so timing a reply tells nothing about the bot's hand,
and a decision slower than its floor is logged and counted, never silent.

Everything here runs on an injected clock with injected decision durations: how long real
decisions take on a machine, and whether their reply times still tell anything through the
shipped floor, is measured by ``bench/reply_floor.py`` and ``bench/bot_timing.py``.
"""

from __future__ import annotations

import logging

import pytest

from api.config import DEFAULT_BOT_REPLY_FLOOR_MS, parse_level_millis
from api.services.pacing import ReplyFloor
from api.store.memory import MemoryStore

from .support import ANA, SeatSpec, create, tokens_of, wired
from .support import play_to_end as play_all

SHIPPED_MS = parse_level_millis(DEFAULT_BOT_REPLY_FLOOR_MS)


class FakeTime:
    """A monotonic clock that a decision moves by a set amount, and the pauses asked of it."""

    def __init__(self, decision_seconds: float = 0.0) -> None:
        self.now = 100.0
        self.decision_seconds = decision_seconds
        self.pauses: list[float] = []

    def clock(self) -> float:
        return self.now

    def pause(self, seconds: float) -> None:
        self.pauses.append(seconds)
        self.now += seconds

    def decide(self) -> str:
        self.now += self.decision_seconds
        return "moved"

    def reply_seconds(self, floor: ReplyFloor, level: str, decision_seconds: float) -> float:
        """How long a reply whose decision takes ``decision_seconds`` takes through ``floor``."""
        self.decision_seconds = decision_seconds
        started = self.now
        assert floor.timed(level, self.decide) == "moved"
        return self.now - started


@pytest.mark.parametrize(("decision", "pause"), [(0.010, 0.050), (0.0599, 0.0001), (0.060, None), (0.090, None)])
def test_a_decision_is_padded_up_to_its_levels_floor_and_never_cut(decision, pause):
    fake = FakeTime(decision)
    floor = ReplyFloor({"expert": 0.060}, clock=fake.clock, pause=fake.pause)
    assert floor.timed("expert", fake.decide) == "moved"
    assert fake.pauses == ([] if pause is None else [pytest.approx(pause)])
    assert fake.now - 100.0 == pytest.approx(max(decision, 0.060))


def test_at_the_shipped_floor_an_easy_and_a_hard_expert_decision_take_the_same_time():
    """One legal move (0.1 ms), a choice (3 ms) and the dearest choices bench/bot_timing.py has
    printed (140 to 171 ms of CPU on a busy machine): the same reply time, the expert's floor."""
    fake = FakeTime()
    floor = ReplyFloor.from_millis(SHIPPED_MS)
    floor = ReplyFloor(floor.seconds, clock=fake.clock, pause=fake.pause)
    replies = [fake.reply_seconds(floor, "expert", ms / 1000) for ms in (0.1, 3, 140, 171)]
    assert replies == [pytest.approx(SHIPPED_MS["expert"] / 1000)] * 4
    assert floor.overruns.total() == 0


def test_a_decision_over_its_floor_is_logged_and_counted_never_silent(caplog):
    fake = FakeTime()
    floor = ReplyFloor({"expert": 0.150, "intermediate": 0.030}, clock=fake.clock, pause=fake.pause)
    with caplog.at_level(logging.WARNING, logger="api.services.pacing"):
        assert fake.reply_seconds(floor, "expert", 0.0032) == pytest.approx(0.150)  # padded: nothing to say
        assert caplog.records == [] and floor.overruns.total() == 0
        assert fake.reply_seconds(floor, "expert", 0.2125) == pytest.approx(0.2125)  # over: not padded...
        assert fake.reply_seconds(floor, "intermediate", 0.041) == pytest.approx(0.041)
    assert fake.pauses == [pytest.approx(0.1468)]
    # ...but counted, per level, where operators (and a metrics endpoint) can read it
    assert floor.overruns.by_level() == {"expert": 1, "intermediate": 1}
    assert floor.overruns.total() == 2
    # and logged as a warning that says by how much, in words and in structured fields
    first, second = caplog.records
    assert first.levelno == logging.WARNING
    assert first.getMessage() == "bot decision over its reply floor: level=expert decision_ms=212.5 floor_ms=150.0"
    assert (first.bot_level, first.decision_ms, first.floor_ms) == ("expert", 212.5, 150.0)
    assert (second.bot_level, second.decision_ms, second.floor_ms) == ("intermediate", 41.0, 30.0)


def test_each_reply_floor_counts_its_own_overruns():
    fake = FakeTime()
    one = ReplyFloor({"expert": 0.010}, clock=fake.clock, pause=fake.pause)
    other = ReplyFloor({"expert": 0.010}, clock=fake.clock, pause=fake.pause)
    fake.reply_seconds(one, "expert", 0.020)
    assert (one.overruns.total(), other.overruns.total()) == (1, 0)


def test_a_level_without_a_floor_is_not_timed_at_all():
    fake = FakeTime(10.0)  # however long it takes: no floor, nothing to hide or to report
    floor = ReplyFloor({"expert": 0.060, "greedy": 0.0}, clock=fake.clock, pause=fake.pause)
    assert floor.timed("greedy", fake.decide) == "moved"
    assert floor.timed("random", fake.decide) == "moved"
    assert fake.pauses == [] and floor.overruns.total() == 0


def test_the_setting_is_level_equals_milliseconds_and_names_real_levels():
    assert parse_level_millis("random=5, greedy=0,expert=60") == {"random": 5.0, "greedy": 0.0, "expert": 60.0}
    assert parse_level_millis("") == {}
    for wrong in ("expert", "expert=soon", "=5", "expert=-1", "expert=20000"):
        with pytest.raises(ValueError, match="level=milliseconds"):
            parse_level_millis(wrong)
    assert ReplyFloor.from_millis({"expert": 60}).seconds == {"expert": 0.06}
    with pytest.raises(ValueError, match="no bot level"):
        ReplyFloor.from_millis({"experts": 60})


def test_every_bot_move_a_person_waits_for_is_padded_at_its_own_level(clock):
    """A whole match, a person against a greedy and a random computer: one pause per computer
    decision, each up to that level's floor (the fake decisions take no time at all)."""
    pauses: list[float] = []
    floor = ReplyFloor({"greedy": 0.030, "random": 0.005}, clock=lambda: 0.0, pause=pauses.append)
    bus = wired(MemoryStore(now=clock), clock, reply_floor=floor)
    created = create(bus, ANA, SeatSpec("Greedy", "bot", "greedy"), SeatSpec("Random", "bot", "random"))
    assert play_all(bus, created["id"], tokens_of(created))["status"] == "ended"
    # the fake decisions take no time: each pause is the whole floor of the level that decided
    assert sorted(set(pauses)) == [0.005, 0.030]
    assert pauses.count(0.030) >= 5 and pauses.count(0.005) >= 5
    assert floor.overruns.total() == 0
