"""The end of a trains match (issue 34) as the ratings and the players' figures read it: a
free-for-all of 2 to 8 seats ranked by the final totals, lower first, a tie for the lowest a
shared win (``api.services.standings``, ``api.services.ratings``, ``api.services.results``)."""

from __future__ import annotations

from datetime import UTC, datetime
from itertools import pairwise, permutations
from types import SimpleNamespace
from typing import Any

import pytest
from openskill.models import PlackettLuce

from api.bots.ratings import bot_rating
from api.rules import create_match, replay, resolve_rules
from api.rules.vocabulary import Family
from api.services.bus import MessageBus
from api.services.commands import (
    MAX_AUDIT_PAGE,
    CreateMatch,
    GetAudit,
    GetPlayerRatings,
    GetPlayerStats,
    GetRatingHistory,
    GetSummary,
    SeatSpec,
    SweepClocks,
)
from api.services.ratings import NEWCOMER, rate, record_ratings
from api.services.standings import Standing, standing
from api.store.records import SeatRecord

from .conftest import Clock
from .support import SEED, play_to_end, portal, tokens_of

MODEL = PlackettLuce()
NOW = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)


def trains_end(totals: list[int]) -> dict[str, Any]:
    """A trains ``match_ended`` as the contract writes it: the lowest seat among the winners."""
    winners = [seat for seat, total in enumerate(totals) if total == min(totals)]
    return {"type": "match_ended", "winner": winners[0], "scores": totals, "winners": winners, "hands": []}


# --- the standing -----------------------------------------------------------------------------------
def test_a_trains_match_ranks_lower_totals_first_and_equal_totals_tie():
    assert standing(trains_end([41, 7, 88, 41, 19])) == Standing(frozenset({1}), (2, 0, 4, 2, 1), 12)


def test_equal_lowest_totals_share_the_win_and_the_first_rank():
    shared = standing(trains_end([30, 12, 12, 55, 30, 12, 90, 31]))
    assert shared == Standing(frozenset({1, 2, 5}), (1, 0, 0, 4, 1, 0, 5, 3), 18)


def test_every_seat_tied_is_every_seat_a_winner_by_no_margin():
    assert standing(trains_end([20, 20, 20])) == Standing(frozenset({0, 1, 2}), (0, 0, 0), 0)


def test_a_line_match_still_ranks_higher_scores_first_behind_its_one_winner():
    line_end = {"type": "match_ended", "winner": 2, "scores": [80, 95, 101, 80]}
    assert standing(line_end) == Standing(frozenset({2}), (2, 1, 0, 2), 6)


# --- the ratings ------------------------------------------------------------------------------------
def test_a_tie_is_rated_as_the_mean_of_every_order_it_could_be_broken_in():
    """openskill's own tie rule would rate the lone third with the two winners (25.93 each)."""
    first, second = (
        MODEL.rate([[MODEL.rating()] for _ in range(4)], ranks=order) for order in ([0, 1, 2, 3], [1, 0, 2, 3])
    )
    after = [side[0] for side in rate([[NEWCOMER]] * 4, [0, 0, 1, 2])]
    assert [s.mu for s in after] == pytest.approx(
        [(first[0][0].mu + second[0][0].mu) / 2] * 2 + [24.69, 20.96], abs=0.01
    )
    assert after[0].mu == pytest.approx(27.17, abs=0.01) and after[2].mu == pytest.approx(first[2][0].mu)


def test_ratings_rise_with_the_finish_however_the_seats_tie():
    for ranks in ([0, 0, 1, 2], [0, 0, 0, 1, 1, 2, 3, 4], [0, 1, 1, 2, 3], [0, 1, 2, 2, 3, 3, 3, 4]):
        after = [side[0].mu for side in rate([[NEWCOMER]] * len(ranks), ranks)]
        by_finish = [mu for _rank, mu in sorted(zip(ranks, after, strict=True), key=lambda pair: pair[0])]
        assert all(ahead > behind - 1e-9 for ahead, behind in pairwise(by_finish)), ranks
        for rank in set(ranks):
            tied = [mu for r, mu in zip(ranks, after, strict=True) if r == rank]
            assert max(tied) - min(tied) < 1e-9, (ranks, rank)
        assert len({round(mu, 6) for mu in after}) == len(set(ranks)), ranks  # a rank apart, a rating apart


class SeatsStandIn:
    """The seats' rows as the store keeps them (the tokens' hashes are what mark a player's seat)."""

    def __init__(self, records: list[SeatRecord]):
        self.records = records

    def list_for_match(self, match_id: str) -> list[SeatRecord]:
        return [r for r in self.records if r.match_id == match_id]


def rate_end(bus: MessageBus, refs: list[str | None], totals: list[int], match_id: str = "m1") -> None:
    """Rate the end of a Mexican Train match whose seats are players ``refs`` (None: a greedy
    computer player) with these final ``totals``, as the transaction that appends it does."""
    records = [
        SeatRecord(match_id, n, f"P{n}", "remote", token_hash=f"hash{n}", player_ref=ref)
        if ref
        else SeatRecord(match_id, n, f"Bot {n}", "bot", level="greedy")
        for n, ref in enumerate(refs)
    ]
    seats = [
        {"name": f"P{n}", "type": "remote"} if ref else {"name": f"Bot {n}", "type": "bot", "level": "greedy"}
        for n, ref in enumerate(refs)
    ]
    state = replay(create_match(resolve_rules("mexican-train", {}, len(refs)), seats, SEED))
    snap = SimpleNamespace(state=state)
    portal_id = portal(bus).portal_id
    assert portal_id is not None
    with bus.flow.store.unit_of_work() as uow:
        stand_in = SimpleNamespace(seats=SeatsStandIn(records), ratings=uow.ratings)
        record_ratings(stand_in, portal_id, match_id, [trains_end(totals)], snap, NOW)  # type: ignore[arg-type]
        uow.commit()


def rated(bus: MessageBus, ref: str) -> tuple[float, float, int]:
    (found,) = bus.handle(GetPlayerRatings(ref, portal(bus)))["ratings"]
    assert found["family"] == "mexican_train"
    return found["mu"], found["sigma"], found["matches"]


def outcome(bus: MessageBus, ref: str) -> str:
    (change,) = bus.handle(GetRatingHistory(ref, "mexican_train", portal(bus)))["items"]
    return str(change["outcome"])


def test_eight_seats_are_rated_as_a_free_for_all_by_their_totals_ties_shared(bus: MessageBus):
    refs = ["ana", "ben", "cy", "dee", "eve", "fay", "gus", "hal"]
    totals = [30, 12, 12, 55, 30, 12, 90, 31]
    rate_end(bus, list(refs), totals)
    # the ties (seats 1, 2, 5 first; 0, 4 next) broken every way: 3! * 2! orders, each strict
    orders = [
        [next(i for i, s in enumerate(order) if s == seat) for seat in range(8)]
        for first in permutations((1, 2, 5))
        for second in permutations((0, 4))
        for order in [(*first, *second, 7, 3, 6)]
    ]
    runs = [MODEL.rate([[MODEL.rating()] for _ in refs], ranks=order) for order in orders]
    for seat, ref in enumerate(refs):
        mean_mu = sum(run[seat][0].mu for run in runs) / 12
        mean_sigma = sum(run[seat][0].sigma for run in runs) / 12
        assert rated(bus, ref) == pytest.approx((mean_mu, mean_sigma, 1)), ref
    assert [outcome(bus, ref) for ref in refs] == ["won" if t == 12 else "lost" for t in totals]


def test_a_computer_seat_counts_at_its_fixed_rating_for_the_trains_family(bus: MessageBus):
    rate_end(bus, ["ana", None, "ben"], [40, 10, 40])
    fixed = bot_rating(Family.MEXICAN_TRAIN, "greedy")
    expected = MODEL.rate(
        [[MODEL.rating()], [MODEL.rating(mu=fixed.mu, sigma=fixed.sigma)], [MODEL.rating()]], ranks=[1, 0, 1]
    )
    assert rated(bus, "ana") == pytest.approx((expected[0][0].mu, expected[0][0].sigma, 1))
    assert rated(bus, "ben") == pytest.approx((expected[2][0].mu, expected[2][0].sigma, 1))
    assert rated(bus, "ana")[0] < MODEL.mu
    assert [outcome(bus, "ana"), outcome(bus, "ben")] == ["lost", "lost"]


def test_a_rated_match_played_to_its_end_shares_the_win_in_the_ratings_and_the_figures(bus: MessageBus):
    """Six seats, one round, dealt from this seed: seat 0 goes out and seat 4 is left holding
    only the 0-0 (worth 0 in Mexican Train), so both finish on 0 and share the win."""
    refs = [f"p{n}" for n in range(6)]
    seats = [SeatSpec(f"P{n}", "remote", player_ref=ref) for n, ref in enumerate(refs)]
    created = bus.handle(CreateMatch("mexican-train", {"rounds": 1}, seats, "0" * 64, caller=portal(bus), rated=True))
    play_to_end(bus, created["id"], tokens_of(created))
    audit = bus.handle(GetAudit(created["id"], limit=MAX_AUDIT_PAGE))
    assert audit["next_after"] is None  # the whole log
    (round_end,) = [e for e in audit["events"] if e["type"] == "round_ended"]
    final = audit["events"][-1]
    assert (round_end["winner"], round_end["totals"]) == (0, [0, 19, 33, 1, 0, 16])
    assert round_end["hands"][4] == [[0, 0]]
    assert (final["type"], final["scores"], final["winners"], final["winner"]) == (
        "match_ended",
        [0, 19, 33, 1, 0, 16],
        [0, 4],
        0,
    )
    # ranked 0, 3, 5, 1, 0, 2: the two winners' tie broken both ways
    orders = [[0, 4, 5, 2, 1, 3], [1, 4, 5, 2, 0, 3]]
    runs = [MODEL.rate([[MODEL.rating()] for _ in refs], ranks=order) for order in orders]
    for seat, ref in enumerate(refs):
        expected = (sum(r[seat][0].mu for r in runs) / 2, sum(r[seat][0].sigma for r in runs) / 2, 1)
        assert rated(bus, ref) == pytest.approx(expected), ref
        assert outcome(bus, ref) == ("won" if seat in (0, 4) else "lost")
    mu = [rated(bus, ref)[0] for ref in refs]
    assert mu[0] == pytest.approx(mu[4]) and mu[0] > mu[3] > mu[5] > mu[1] > mu[2]
    stats = {ref: bus.handle(GetPlayerStats(ref, portal(bus))) for ref in refs}
    assert [stats[ref]["matches_won"] for ref in refs] == [1, 0, 0, 0, 1, 0]
    assert [stats[ref]["hands_won"] for ref in refs] == [1, 0, 0, 0, 0, 0]  # the round seat 0 went out of
    assert (stats["p0"]["best_margin"], stats["p4"]["best_margin"]) == (1, 1)  # ahead of seat 3's 1
    assert [stats[ref]["current_streak"] for ref in refs] == [1, 0, 0, 0, 1, 0]


def test_a_trains_forfeit_is_rated_at_once_and_the_end_against_the_bot_that_took_the_seat(
    bus: MessageBus, clock: Clock
):
    ana, ben = (SeatSpec(name, "remote", player_ref=name.lower()) for name in ("Ana", "Ben"))
    rules = {"rounds": 1, "turn_seconds": 30, "timeout_limit": 1}
    seats = [ana, ben, SeatSpec("Greedy", "bot", "greedy")]
    created = bus.handle(CreateMatch("mexican-train", rules, seats, "0" * 64, caller=portal(bus), rated=True))
    stalled = bus.handle(GetSummary(created["id"]))["turn"]
    assert stalled in (0, 1)
    gone, stayed = ("ana", "ben") if stalled == 0 else ("ben", "ana")
    clock.advance(31)
    assert bus.handle(SweepClocks()) == 1
    greedy = bot_rating(Family.MEXICAN_TRAIN, "greedy")
    at_table = [[MODEL.rating()], [MODEL.rating()], [MODEL.rating(mu=greedy.mu, sigma=greedy.sigma)]]
    lost = MODEL.rate(at_table, ranks=[1 if seat == stalled else 0 for seat in range(3)])  # below both as they stand
    assert rated(bus, gone) == pytest.approx((lost[stalled][0].mu, lost[stalled][0].sigma, 1))
    assert outcome(bus, gone) == "forfeited"
    assert bus.handle(GetPlayerRatings(stayed, portal(bus)))["ratings"] == []  # not rated until the end

    final = play_to_end(bus, created["id"], {n: t for n, t in tokens_of(created).items() if n != stalled})
    audit = bus.handle(GetAudit(created["id"], limit=MAX_AUDIT_PAGE))["events"]
    level = next(e["level"] for e in audit if e["type"] == "seat_replaced")
    took_over = bot_rating(Family.MEXICAN_TRAIN, level)
    totals = audit[-1]["scores"]
    ranks = [sum(1 for other in totals if other < total) for total in totals]  # lowest first, no tie here
    assert sorted(ranks) == [0, 1, 2] and final["status"] == "ended"
    sides = [[MODEL.rating()], [MODEL.rating()], [MODEL.rating(mu=greedy.mu, sigma=greedy.sigma)]]
    sides[stalled] = [MODEL.rating(mu=took_over.mu, sigma=took_over.sigma)]  # the seat is the bot's now
    end = MODEL.rate(sides, ranks=ranks)
    kept = 1 - stalled
    assert rated(bus, stayed) == pytest.approx((end[kept][0].mu, end[kept][0].sigma, 1))
    assert outcome(bus, stayed) == ("won" if ranks[kept] == 0 else "lost")
    assert rated(bus, gone)[2] == 1  # its forfeit only: the bot's end is not its player's
