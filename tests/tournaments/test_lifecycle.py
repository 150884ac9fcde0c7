"""The lifecycle: commands decide events or refuse precisely; the log folds back to the state."""

from __future__ import annotations

import pytest

from api import tournaments as t

from .support import fold, play_round, settings, tournament


def test_every_event_round_trips_through_its_json_form_and_the_log_replays():
    state = fold(None, t.create("tour-1", settings(rounds=2, side_size=2, rated=True, rules={"target": 50})))
    log: list[t.TournamentEvent] = list(t.create("tour-1", state.settings))
    for number in range(1, 5):
        members = [t.Member(t.PLAYER, player_ref=f"p{number}a"), t.Member(t.BOT, level="expert")]
        events = t.register(state, f"Team {number}", members, rating=1500.0 + number)
        state, log = fold(state, events), log + events
    for command in (t.start, t.pair_round, t.pause, t.resume):
        events = command(state)
        state, log = fold(state, events), log + events
    paired = state.current
    assert paired is not None
    events = t.withdraw(state, paired.tables[0].sides[0], "portal")
    events += t.record_result(fold(state, events), 1, 2, 1, (12, 100))
    state, log = fold(state, events), log + events
    events = t.cancel(state, "the club closed early")
    state, log = fold(state, events), log + events
    assert {e.type for e in log} == set(t.EVENT_TYPES) - {"tournament_ended", "arena_closed"}  # test_arena
    assert [t.event_from_dict(e.to_dict()) for e in log] == log
    assert t.replay(t.event_from_dict(e.to_dict()) for e in log) == state
    assert state.status == t.CANCELLED and state.order == ("e4", "e3", "e2", "e1")  # by rating


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"format": "ladder"}, "format"),
        ({"format": t.ARENA, "rounds": None}, "duration_minutes"),
        ({"format": t.ARENA, "rounds": None, "duration_minutes": 0}, "duration_minutes"),
        ({"format": t.ARENA, "duration_minutes": 60, "rounds": 3}, "rounds"),
        ({"duration_minutes": 60}, "duration_minutes"),
        ({"rounds": 0}, "rounds"),
        ({"format": t.ROUND_ROBIN, "rounds": 3}, "rounds"),
        ({"tiebreaks": ("buchholz", "buchholz")}, "tiebreaks"),
        ({"tiebreaks": ("median",)}, "tiebreaks"),
        ({"turn_seconds": 0}, "turn_seconds"),
        ({"side_size": 3}, "side_size"),
        ({"rating_min": 1600.0, "rating_max": 1500.0}, "rating_max"),
    ],
)
def test_settings_that_cannot_work_are_refused_by_field(overrides, field):
    with pytest.raises(t.InvalidTournament) as refused:
        t.create("x", settings(**overrides))
    assert refused.value.field == field and refused.value.code == "invalid_tournament"


def test_registration_refusals():
    state = tournament(2, max_entrants=3, rounds=2)
    ada = [t.Member(t.PLAYER, player_ref="ada")]
    state = fold(state, t.register(state, "Ada", ada))
    with pytest.raises(t.AlreadyRegistered):
        t.register(state, "Ada again", ada)
    with pytest.raises(t.TournamentFull):
        t.register(state, "Bob", [t.Member(t.PLAYER, player_ref="bob")])
    with pytest.raises(t.InvalidTournament, match="members"):
        t.register(state, "Team", [t.Member(t.BOT, level="greedy")] * 2)
    state = fold(state, t.withdraw(state, "e3", "entrant"))
    state = fold(state, t.register(state, "Ada back", ada))  # a withdrawn player may enter again
    assert state.active == ("e1", "e2", "e4")
    state = fold(state, t.start(state))
    with pytest.raises(t.RegistrationClosed):
        t.register(state, "Late", [t.Member(t.PLAYER, player_ref="late")])
    with pytest.raises(t.TournamentAlreadyStarted):
        t.start(state)


def test_a_swiss_needs_more_entrants_than_rounds():
    state = tournament(3, rounds=3)
    with pytest.raises(t.TooFewEntrants):
        t.start(state)


def test_rounds_are_paired_one_at_a_time_and_results_once():
    state = tournament(4, rounds=2)
    with pytest.raises(t.TournamentNotRunning):
        t.pair_round(state)
    state = fold(state, t.start(state))
    state = fold(state, t.pair_round(state))
    with pytest.raises(t.RoundInPlay):
        t.pair_round(state)
    state = fold(state, t.record_result(state, 1, 1, 0, (100, 0)))
    with pytest.raises(t.UnknownTable):
        t.record_result(state, 1, 1, 1, (0, 100))
    with pytest.raises(t.UnknownTable):
        t.record_result(state, 2, 1, 1, (0, 100))
    events = t.record_result(state, 1, 2, 1, (3, 100))
    assert [e.type for e in events] == ["match_result", "round_ended"]
    state = fold(state, events)
    assert t.is_due_for_pairing(state)


def test_a_paused_tournament_pairs_no_round_but_takes_results():
    state = tournament(4, rounds=2)
    state = fold(state, t.start(state))
    state = fold(state, t.pair_round(state))
    state = fold(state, t.pause(state))
    with pytest.raises(t.TournamentIsPaused):
        t.pause(state)
    state = play_round_results(state)
    assert not t.is_due_for_pairing(state)
    with pytest.raises(t.TournamentIsPaused):
        t.pair_round(state)
    state = fold(state, t.resume(state))
    with pytest.raises(t.TournamentIsNotPaused):
        t.resume(state)
    assert t.is_due_for_pairing(state)


def play_round_results(state: t.TournamentState) -> t.TournamentState:
    current = state.current
    assert current is not None
    for table in current.pending():
        state = fold(state, t.record_result(state, current.number, table.number, 0, (100, 10)))
    return state


def test_withdrawing_mid_round_forfeits_the_table_and_leaves_the_pairings():
    state = tournament(4, rounds=3)
    state = fold(state, t.start(state))
    state = fold(state, t.pair_round(state))
    events = t.withdraw(state, "e3", "portal")  # e3 sits at table 1 against e1
    assert [e.to_dict() for e in events[1:]] == [
        {"type": "match_result", "round": 1, "table": 1, "winner": 0, "scores": [0, 0], "forfeit": True}
    ]
    state = play_round_results(fold(state, events))
    state = fold(state, t.pair_round(state))
    current = state.current
    assert (
        current is not None and current.bye is not None and "e3" not in {s for tb in current.tables for s in tb.sides}
    )
    assert current.bye != "e3"


def test_a_round_robin_forfeits_a_withdrawn_entrants_later_tables_at_pairing():
    state = tournament(4, format=t.ROUND_ROBIN, rounds=None)
    state = fold(state, t.start(state))
    state = play_round(state, lambda _: (0, (100, 0)))
    state = fold(state, t.withdraw(state, "e1", "entrant"))
    events = t.pair_round(state)  # round 2: e4-e3, e1-e2
    assert [e.type for e in events] == ["round_paired", "match_result"]
    assert events[1].to_dict()["winner"] == 1


def test_cancelled_takes_nothing_more():
    state = tournament(2)
    state = fold(state, t.cancel(state, "no interest"))
    with pytest.raises(t.TournamentOver):
        t.register(state, "x", [t.Member(t.BOT, level="random")])
    with pytest.raises(t.ImpossibleTournamentEvent):
        t.apply(state, t.TournamentPaused())


def test_a_partner_team_swiss_plays_to_its_end_without_rematches():
    state = tournament(8, side_size=2, rounds=3)
    state = fold(state, t.start(state))
    for _ in range(3):
        state = play_round(state, lambda table: (0, (100, 40)))
    met = [frozenset(tb.sides) for r in state.rounds for tb in r.tables]
    assert len(met) == len(set(met)) == 12 and state.status == t.ENDED
    assert t.standings(state)[0].match_points == 6
