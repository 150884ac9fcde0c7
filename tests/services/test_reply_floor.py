"""Computer players answer in constant time (api.services.pacing): every decision made for a
table takes at least its level's floor, so timing a reply tells nothing about the bot's hand.

The padding is checked on an injected clock; the last test times real expert decisions, with
one legal move and with several, with and without the floor.
"""

from __future__ import annotations

import math
import time

import pytest

from api.bots import choose_action
from api.bots.arena import BotMatch
from api.config import DEFAULT_BOT_REPLY_FLOOR_MS, parse_level_millis
from api.rules import resolve_rules
from api.services.pacing import ReplyFloor
from api.store.memory import MemoryStore

from .support import ANA, SeatSpec, create, tokens_of, wired
from .support import play_to_end as play_all


class FakeTime:
    """A monotonic clock that a decision moves by a set amount, and the pauses asked of it."""

    def __init__(self, decision_seconds: float) -> None:
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


@pytest.mark.parametrize(("decision", "pause"), [(0.010, 0.050), (0.0599, 0.0001), (0.060, None), (0.090, None)])
def test_a_decision_is_padded_up_to_its_levels_floor_and_never_cut(decision, pause):
    fake = FakeTime(decision)
    floor = ReplyFloor({"expert": 0.060}, clock=fake.clock, pause=fake.pause)
    assert floor.timed("expert", fake.decide) == "moved"
    assert fake.pauses == ([] if pause is None else [pytest.approx(pause)])
    assert fake.now - 100.0 == pytest.approx(max(decision, 0.060))


def test_a_level_without_a_floor_is_not_timed_at_all():
    fake = FakeTime(0.010)
    floor = ReplyFloor({"expert": 0.060, "greedy": 0.0}, clock=fake.clock, pause=fake.pause)
    assert floor.timed("greedy", fake.decide) == "moved"
    assert floor.timed("random", fake.decide) == "moved"
    assert fake.pauses == []


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


def expert_decisions(matches: int) -> tuple[list[tuple], list[tuple]]:
    """The expert's decisions in a few matches, as (view, log, seed): one legal move, and a choice
    between plays of different tiles (which it always weighs; two ends for one tile may leave the
    same table, which it sees at once)."""
    one, several = [], []
    for n in range(matches):
        match = BotMatch(resolve_rules("standard-draw", {"target": 60}, 2), f"floor-{n}", ["expert", "random"])
        while match.live:
            seat = match.state.turn
            if match.levels[seat] == "expert" and match.state.status == "playing":
                seat_view, log = match.inputs(seat)
                actions = seat_view.get("legal_actions") or []
                tiles = {tuple(a["tile"]) for a in actions if a["type"] == "play"}
                if len(actions) == 1:
                    one.append((seat_view, list(log), match.rng_seed()))
                elif len(tiles) > 1:
                    several.append((seat_view, list(log), match.rng_seed()))
            match.step()
    return one, several


def reply_times(floor: ReplyFloor, decisions: list[tuple]) -> list[float]:
    """Milliseconds each decision took through ``floor``, timed as a client would time it."""
    times = []
    for seat_view, log, seed in decisions:
        started = time.perf_counter()
        floor.timed("expert", lambda: choose_action("expert", seat_view, log, seed))  # noqa: B023
        times.append((time.perf_counter() - started) * 1000)
    return times


def thinking_ms(decisions: list[tuple]) -> list[float]:
    """Milliseconds of CPU each decision takes (not wall time: another process on the machine
    stretches a reply's wall time, not the thinking the floor must cover). A decision is the same
    work every time, so each is timed twice and the lesser kept: a one-off pause of this process
    (a garbage collection of what earlier tests left) is not thinking either."""
    times = []
    for seat_view, log, seed in decisions:
        runs = []
        for _ in range(2):
            started = time.process_time()
            choose_action("expert", seat_view, log, seed)
            runs.append((time.process_time() - started) * 1000)
        times.append(min(runs))
    return times


def best_cut(quick: list[float], slow: list[float]) -> float:
    """The reply time that best tells the two kinds of decision apart: quicker is one move."""
    times = sorted(set(quick + slow))
    return max([*times, times[-1] + 1], key=lambda cut: sum(t < cut for t in quick) + sum(t >= cut for t in slow))


def held_out_split(quick: list[float], slow: list[float]) -> float:
    """How well an observer timing the replies tells the two kinds of decision apart: the share a
    cut classifies right (0.5: a coin; 1.0: always). The cut is chosen on half the replies and
    scored on the other half, both ways round: the best cut on the very replies it is scored on
    would find a pattern in pure noise (on 25 + 25 replies alike, about 0.65, at times 0.76)."""
    shares = []
    for chosen in (0, 1):
        cut = best_cut(quick[chosen::2], slow[chosen::2])
        quick_rest, slow_rest = quick[1 - chosen :: 2], slow[1 - chosen :: 2]
        right = sum(t < cut for t in quick_rest) + sum(t >= cut for t in slow_rest)
        shares.append(right / (len(quick_rest) + len(slow_rest)))
    return sum(shares) / len(shares)


@pytest.mark.slow
def test_with_the_floor_a_reply_time_no_longer_tells_whether_the_expert_had_a_choice():
    one, several = expert_decisions(4)
    one, several = one[:50], several[:50]
    assert len(one) == len(several) == 50

    # without a floor the time tells: a choice costs milliseconds of thinking, one legal move none
    bare = ReplyFloor()
    assert held_out_split(reply_times(bare, one), reply_times(bare, several)) >= 0.9

    floor_ms = parse_level_millis(DEFAULT_BOT_REPLY_FLOOR_MS)["expert"]  # the floor the server ships
    with_floor = ReplyFloor({"expert": floor_ms / 1000})
    quick, slow = reply_times(with_floor, one), reply_times(with_floor, several)
    assert min(quick + slow) >= floor_ms
    # Both take the floor plus the pause's own overshoot (a few tenths of a millisecond): to the
    # millisecond, the finest a client across a network could hope to resolve, a cut is little
    # better than a coin. Finer than that, a loaded machine wakes a process that has just thought
    # a little differently from one that has not (0.72 once at a 300 ms floor with a busy second
    # core, no reply over the floor): tens of microseconds, not the hand. A reply pushed past the
    # floor by a slow decision is a whole millisecond or more, and counts.
    split = held_out_split([math.floor(t) for t in quick], [math.floor(t) for t in slow])
    over = sorted(round(t - floor_ms, 1) for t in slow if t >= floor_ms + 1)
    assert split <= 0.75, f"replies with a choice told apart ({split:.2f}); ms over the floor: {over}"
    # and few are pushed past it at all (a floor of 20 ms lets 18 of these 50 through)
    assert len(over) <= len(slow) // 10, f"ms over the floor: {over}"
    assert max(thinking_ms(several)) < floor_ms  # the floor is above the expert's slowest decision here
