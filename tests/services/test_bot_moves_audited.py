"""/fairness asks every computer player again (api.bots.audit): a log in which one bot move is
not the bot's own choice is caught, although every move in it is legal and its chain is whole.

The forged log is made by the server itself: a match played through the use cases with an
offload that, once, hands back another legal move than the bot chose. The rest of the match is
then played honestly on top of it and appended as usual, hash chain and all: what someone who
can write to the database could produce by rewriting one bot move and regenerating the rest.
"""

from __future__ import annotations

from typing import Any

import pytest

from api.bots.audit import recheck_bot_moves
from api.bots.turns import BotTurn
from api.services.commands import CreateMatch, GetFairness, SeatSpec
from api.store.memory import MemoryStore

from .support import ANA, SEED, portal, tokens_of, wired
from .support import play_to_end as play_all

EXPERT = SeatSpec("Ex", "bot", "expert")
GREEDY = SeatSpec("Gr", "bot", "greedy")
TABLES = [
    pytest.param("standard-draw", {"target": 60}, (ANA, EXPERT, GREEDY), id="draw-3"),
    pytest.param("all-fives", {"target": 60, "muggins_calls": True}, (ANA, EXPERT), id="fives-muggins"),
    pytest.param("standard-block", {"target": 30, "partners": True}, (ANA, EXPERT, GREEDY, EXPERT), id="partners"),
]


class SwapOnce:
    """An offload that runs each bot as usual, except that the first decision with a choice
    answers another of the legal moves (the one a forger would have liked)."""

    def __init__(self) -> None:
        self.swapped: dict[str, Any] | None = None

    def __call__(self, fn: Any, *args: Any) -> Any:
        chosen = fn(*args)
        turn = getattr(fn, "__self__", None)  # the flow offloads a bot's thinking as BotTurn.choose
        if self.swapped is None and isinstance(turn, BotTurn):
            seat_view = turn.view
            others = [a for a in seat_view["legal_actions"] if a != chosen and a["type"] == chosen["type"] == "play"]
            if others:
                self.swapped = others[0]
                return others[0]
        return chosen


def ended_match(store: MemoryStore, clock: Any, preset: str, rules: dict, seats: tuple, offload: Any = None) -> tuple:
    bus = wired(store, clock, offload=offload)
    created = bus.handle(CreateMatch(preset, rules, seats, SEED, caller=portal(bus)))
    assert play_all(bus, created["id"], tokens_of(created))["status"] == "ended"
    with store.unit_of_work(readonly=True) as uow:
        record = uow.matches.get(created["id"])
        log = [event.to_dict() for event in uow.events.load(created["id"])]
    assert record is not None
    return bus, created["id"], record.seed, log


@pytest.mark.parametrize(("preset", "rules", "seats"), TABLES)
def test_an_honest_log_has_every_bot_move_confirmed(clock, preset, rules, seats):
    bus, match_id, seed, log = ended_match(MemoryStore(now=clock), clock, preset, rules, seats)
    recheck = recheck_bot_moves(log, seed)
    assert recheck.problems == []
    bot_seats = {i for i, s in enumerate(seats) if s.type == "bot"}
    own_moves = [e for e in log if e.get("seat") in bot_seats and e["type"] in ("tile_played", "knocked")]
    assert 0 < recheck.decisions_checked <= len(own_moves) + sum(1 for e in log if e["type"] == "tile_drawn")
    report = bus.handle(GetFairness(match_id))
    assert report["verified"] is True and report["problems"] == []


@pytest.mark.parametrize(("preset", "rules", "seats"), TABLES)
def test_one_bot_move_swapped_for_another_legal_one_is_caught_by_the_fairness_check(clock, preset, rules, seats):
    swap = SwapOnce()
    bus, match_id, seed, log = ended_match(MemoryStore(now=clock), clock, preset, rules, seats, offload=swap)
    assert swap.swapped is not None, "no bot had a choice to swap"
    swapped_at = next(i for i, e in enumerate(log) if e["type"] == "tile_played" and e["tile"] == swap.swapped["tile"])
    report = bus.handle(GetFairness(match_id))
    # every move is legal and the chain is whole: only asking the bot again shows the forgery
    assert report["chain_ok"] is True and report["commitment_ok"] is True
    assert report["verified"] is False
    assert len(report["problems"]) == 1
    level = seats[log[swapped_at]["seat"]].level
    assert report["problems"][0].startswith(f"seq {swapped_at + 1}: the {level} computer at seat ")
    assert recheck_bot_moves(log, seed).problems == report["problems"]
