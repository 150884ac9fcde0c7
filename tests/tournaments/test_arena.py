"""The arena: free entrants paired at once by score, no immediate rematch while avoidable, the
streak bonus, and the end: no pairing after the close, the matches in play finishing and counting."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from api import tournaments as t

from .support import fold, settings, tournament

START = datetime(2026, 12, 4, 18, 0, tzinfo=UTC)


def arena(count: int, minutes: int = 30) -> t.TournamentState:
    state = tournament(count, format=t.ARENA, rounds=None, duration_minutes=minutes)
    return fold(state, t.start(state, START))


def pair(state: t.TournamentState) -> tuple[t.TournamentState, tuple[t.Table, ...]]:
    state = fold(state, t.pair_round(state))
    assert state.current is not None
    return state, state.current.tables


def decide(state: t.TournamentState, table: t.Table, winner: int | None) -> t.TournamentState:
    round_ = next(r for r in reversed(state.rounds) if table in r.pending())
    return fold(state, t.record_result(state, round_.number, table.number, winner, (50, 10)))


def test_wins_after_two_in_a_row_count_double_until_a_non_win():
    results = ["win", "win", "win", "win", "draw", "win", "win", "win", "loss", "win"]
    earned, run = [], 0
    for outcome in results:
        base = {"win": t.WIN_POINTS, "draw": t.DRAW_POINTS, "loss": t.LOSS_POINTS}[outcome]
        earned.append(t.arena_points(base, outcome == "win", run))
        run = run + 1 if outcome == "win" else 0
    assert earned == [2, 2, 4, 4, 1, 2, 2, 4, 0, 2]


def test_an_arena_starts_with_its_end_of_pairing_in_the_log_and_pairs_everyone_free():
    state = arena(5, minutes=45)
    assert state.ends_at == "2026-12-04T18:45:00+00:00" and state.planned_rounds == 0
    assert t.is_due_for_pairing(state)
    state, tables = pair(state)
    assert len(tables) == 2 and state.current is not None and state.current.bye is None
    assert state.free() == state.current.waiting and len(state.free()) == 1  # the fifth waits: no bye
    assert not t.is_due_for_pairing(state)


def test_whoever_ends_is_paired_again_at_once_while_the_others_play_on():
    state, (first, second) = pair(arena(4))
    state = decide(state, first, 0)
    assert set(state.free()) == set(first.sides) and t.is_due_for_pairing(state)
    state, (again,) = pair(state)  # only the two of them are free: they meet again
    assert set(again.sides) == set(first.sides) and state.current is not None and state.current.number == 2
    assert second.number not in state.rounds[0].results  # round 1's second table still plays on
    state = decide(state, second, 1)
    assert [r.ended for r in state.rounds] == [True, False]


def test_no_immediate_rematch_while_another_free_opponent_allows_it():
    state, tables = pair(arena(6))
    state = decide(state, tables[0], 0)
    state = decide(state, tables[1], 0)
    state, new = pair(state)
    last = {frozenset(tables[0].sides), frozenset(tables[1].sides)}
    assert len(new) == 2 and not last & {frozenset(x.sides) for x in new}


def test_the_free_pool_is_paired_by_score():
    state, tables = pair(arena(8))
    for table in tables:
        state = decide(state, table, 0)
    winners = {table.sides[0] for table in tables}
    state, new = pair(state)
    assert {frozenset(x.sides) for x in new[:2]} <= {frozenset(p) for p in _pairs(winners)}


def _pairs(ids: set[str]) -> list[tuple[str, str]]:
    ordered = sorted(ids)
    return [(a, b) for i, a in enumerate(ordered) for b in ordered[i + 1 :]]


def test_standings_rank_by_arena_points_with_the_streak_bonus():
    state, (table,) = pair(arena(2))
    hero = table.sides[0]
    for game in range(4):  # the same two, again and again: four wins for the hero
        state = decide(state, table, table.sides.index(hero))
        if game < 3:
            state, (table,) = pair(state)
    state = fold(state, t.close_arena(state, "clock"))
    first, second = t.standings(state)
    assert (first.entrant_id, first.match_points, first.wins, first.streak) == (hero, 2 + 2 + 4 + 4, 4, 4)
    assert (second.match_points, second.losses, second.streak) == (0, 4, 0)
    assert state.status == t.ENDED  # nothing in play: closed and ended at once


def test_after_the_close_matches_in_play_finish_and_count_and_nothing_is_paired():
    state, (first, second) = pair(arena(4))
    state = decide(state, first, 0)
    assert not t.is_due_to_close(state, datetime(2026, 12, 4, 18, 29, 59, tzinfo=UTC))
    assert t.is_due_to_close(state, datetime(2026, 12, 4, 18, 30, tzinfo=UTC))
    events = t.close_arena(state, "clock")
    assert [e.type for e in events] == ["arena_closed"]  # a table is still in play
    state = fold(state, events)
    assert not t.is_due_for_pairing(state) and not t.is_due_to_close(state, START.replace(hour=19))
    with pytest.raises(t.TournamentOver):
        t.pair_round(state)
    with pytest.raises(t.TournamentOver):
        t.close_arena(state, "portal")
    events = t.record_result(state, 1, second.number, 1, (20, 61))
    assert [e.type for e in events] == ["match_result", "round_ended", "tournament_ended"]
    state = fold(state, events)
    assert state.status == t.ENDED
    assert sum(row.match_points for row in t.standings(state)) == 4  # both results counted


def test_an_arena_log_round_trips_and_replays():
    log: list[t.TournamentEvent] = list(t.create("tour-1", settings(format=t.ARENA, rounds=None, duration_minutes=10)))
    state = fold(None, log)
    for number in range(1, 4):
        events = t.register(state, f"P{number}", [t.Member(t.BOT, level="greedy")])
        state, log = fold(state, events), log + events
    for command in (lambda s: t.start(s, START), t.pair_round, lambda s: t.close_arena(s, "portal")):
        events = command(state)
        state, log = fold(state, events), log + events
    events = t.withdraw(state, sorted(state.busy())[0], "portal")  # its table forfeited: the last in play
    state, log = fold(state, events), log + events
    assert [e.type for e in events] == ["entrant_withdrawn", "match_result", "round_ended", "tournament_ended"]
    assert state.status == t.ENDED
    assert [t.event_from_dict(e.to_dict()) for e in log] == log
    assert t.replay(t.event_from_dict(e.to_dict()) for e in log) == state


def test_only_an_arena_is_closed_and_an_arena_cannot_start_without_a_time():
    swiss = tournament(4)
    with pytest.raises(t.InvalidTournament):
        t.close_arena(fold(swiss, t.start(swiss)), "portal")
    waiting = tournament(3, format=t.ARENA, rounds=None, duration_minutes=10)
    with pytest.raises(t.InvalidTournament):
        t.start(waiting)


def test_a_large_free_pool_is_paired_in_blocks_without_leaving_anyone_out():
    pool = [t.ArenaContender(f"e{n}", points=n % 7, seed=n) for n in range(1, 202)]
    tables = t.pair_arena(pool)
    seated = [side for table in tables for side in table]
    assert len(tables) == 100 and len(set(seated)) == 200
