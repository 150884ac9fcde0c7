"""Rated play on the in-memory store: the same updates as on the databases (tests/api/test_ratings.py)."""

from __future__ import annotations

import pytest
from openskill.models import PlackettLuce

from api.bots.ratings import bot_rating
from api.rules import resolve_rules
from api.rules.vocabulary import Family
from api.services import errors
from api.services.bus import MessageBus
from api.services.commands import (
    CreateMatch,
    GetPlayerRatings,
    GetRatingHistory,
    GetSummary,
    SeatSpec,
    SweepClocks,
)

from .conftest import Clock
from .support import ANA, SEED, create, play_to_end, portal, tokens_of

MODEL = PlackettLuce()
BEN = SeatSpec("Ben", "remote", player_ref="ben")


def rating(bus: MessageBus, ref: str) -> tuple[float, float, int] | None:
    found = bus.handle(GetPlayerRatings(ref, portal(bus)))["ratings"]
    return None if not found else (found[0]["mu"], found[0]["sigma"], found[0]["matches"])


def test_a_forfeit_is_rated_at_once_and_the_end_against_the_bot_that_took_the_seat(bus: MessageBus, clock: Clock):
    created = create(bus, ANA, BEN, rules={"turn_seconds": 30, "timeout_limit": 1, "target": 10}, rated=True)
    match_id = created["id"]
    stalled = bus.handle(GetSummary(match_id))["turn"]
    clock.advance(31)
    assert bus.handle(SweepClocks()) == 1
    gone, stayed = ("ana", "ben") if stalled == 0 else ("ben", "ana")
    lost = MODEL.rate([[MODEL.rating()], [MODEL.rating()]], ranks=[1 if s == stalled else 0 for s in (0, 1)])
    assert rating(bus, gone) == pytest.approx((lost[stalled][0].mu, lost[stalled][0].sigma, 1))
    assert rating(bus, stayed) is None
    final = play_to_end(bus, match_id, {n: t for n, t in tokens_of(created).items() if n != stalled})
    level = bus.handle(GetSummary(match_id))["seats"][stalled]["level"]
    fixed = bot_rating(Family.DRAW, level)
    sides = [[MODEL.rating()], [MODEL.rating()]]
    sides[stalled] = [MODEL.rating(mu=fixed.mu, sigma=fixed.sigma)]
    end = MODEL.rate(sides, ranks=[0 if s == final["winner"] else 1 for s in (0, 1)])
    assert rating(bus, stayed) == pytest.approx((end[1 - stalled][0].mu, end[1 - stalled][0].sigma, 1))
    history = bus.handle(GetRatingHistory(gone, "draw", portal(bus)))["items"]
    assert [(h["match_id"], h["outcome"]) for h in history] == [(match_id, "forfeited")]


def test_a_rated_match_is_refused_without_a_portal_or_a_named_player(bus: MessageBus):
    with pytest.raises(errors.RatedNeedsPortal):
        create(bus, SeatSpec("A", "remote"), SeatSpec("B", "remote"), rated=True)
    with pytest.raises(errors.InvalidRatedSeats):
        create(bus, ANA, SeatSpec("B", "remote"), rated=True)


@pytest.mark.parametrize(
    ("preset", "players", "rules"),
    [
        ("standard-block", 2, {"target": 10}),
        ("all-fives", 2, {"target": 20}),
        ("fives-and-threes", 2, {"target": 10}),
        ("double-nine-partners", 4, {"target": 30}),
    ],
)
def test_a_rated_match_against_computer_players_ends_and_rates_the_person_in_every_family(
    bus: MessageBus, preset: str, players: int, rules: dict
):
    """The end of a rated match reads each computer seat's fixed rating for the match's family:
    a family without one would fail the last move, and the match could never end."""
    bots = [SeatSpec(f"Bot {n}", "bot", "greedy") for n in range(1, players)]
    created = bus.handle(CreateMatch(preset, rules, [ANA, *bots], SEED, caller=portal(bus), rated=True))
    final = play_to_end(bus, created["id"], tokens_of(created))
    assert final["status"] == "ended"
    family = resolve_rules(preset, rules, players).family
    assert [r["family"] for r in bus.handle(GetPlayerRatings("ana", portal(bus)))["ratings"]] == [family]
