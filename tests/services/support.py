"""Driving the use cases in tests: seats, creating, playing to the end."""

from __future__ import annotations

from typing import Any

from api.bootstrap import bootstrap
from api.services.bus import MessageBus
from api.services.commands import Act, Caller, CreateMatch, CreatePortal, GetSummary, GetView, PlayBots, SeatSpec
from api.services.ports import Store
from api.services.waiting import WaitClock

ANA = SeatSpec("Ana", "remote", player_ref="ana")
BO = SeatSpec("Bo", "remote")
GREEDY = SeatSpec("Greedy", "bot", "greedy")
RANDOM = SeatSpec("Random", "bot", "random")
OPEN = SeatSpec("Open", "open")
SEED = "7" * 64


def wired(store: Store, clock: Any = None, config: dict[str, Any] | None = None, **options: Any) -> MessageBus:
    """The use cases over ``store``, wired as every process wires them (``api.bootstrap``), with
    client-chosen seeds allowed (the tests fix the deals) and ``config`` on top; ``clock`` (the
    ``clock`` fixture), where given, is their every clock: turn clocks, waiter slots and waits."""
    if clock is not None:
        options = {"clock": clock, "wait_clock": clock if isinstance(clock, WaitClock) else None, **options}
    return bootstrap(store, {"ALLOW_CLIENT_SEED": True, **(config or {})}, **options)


def portal(bus: MessageBus) -> Caller:
    """The tests' portal on this bus's store (made on first use): player ids are a portal's."""
    made: Caller | None = getattr(bus, "tests_portal", None)
    if made is None:
        made = Caller(bus.handle(CreatePortal("tests"))["id"])
        bus.tests_portal = made  # type: ignore[attr-defined]
    return made


def create(bus: MessageBus, *seats: SeatSpec, rules: dict[str, Any] | None = None, **options: Any) -> dict:
    """A match of these seats (``standard-draw``, the server's seed fixed: the same deals each run);
    the tests' portal creates it when a seat names a player."""
    if "caller" not in options and any(seat.player_ref for seat in seats):
        options["caller"] = portal(bus)
    return bus.handle(CreateMatch("standard-draw", rules or {}, seats, options.pop("seed", SEED), **options))


def tokens_of(created: dict) -> dict[int, str]:
    return {s["seat"]: s["token"] for s in created["seats"] if "token" in s}


def play_to_end(bus: MessageBus, match_id: str, tokens: dict[int, str], max_actions: int = 3000) -> dict:
    """Every remote seat plays its first legal action until the match ends; computer players
    move inline (a person sits at the table), or through PlayBots at an all-bot table."""
    for _ in range(max_actions):
        summary = bus.handle(GetSummary(match_id))
        if summary["status"] == "ended":
            return summary
        if not tokens:
            bus.handle(PlayBots(match_id, 100))
            continue
        token = tokens[summary["turn"]]
        action = bus.handle(GetView(match_id, token))["legal_actions"][0]
        bus.handle(Act(match_id, token, action))
    raise AssertionError("the match did not end")
