"""Turn clocks in the engine: a timed-out turn is played by the rules, and audited like any move."""

import pytest

from api.rules import InvalidRules, NotYourTurn, legal_actions, parse_action, replay, resolve_rules
from api.rules.audit import verify_log
from api.rules.clock import time_out
from api.rules.engine import Play, create_match, decide, start_match
from api.rules.games import presets_of
from api.rules.ruleset import RuleSet
from tests.rules.support import SEED, T, Table


def kinds(events):
    return [e.type for e in events]


def clocked(**more):
    return {"turn_seconds": 30, **more}


# --- the rule options ------------------------------------------------------------------------
def test_every_preset_leaves_the_clock_off():
    for name, preset in presets_of("line").items():
        rules = resolve_rules(name, {}, preset.players[0])
        assert (rules.turn_seconds, rules.timeout_limit) == (None, None)


@pytest.mark.parametrize(
    "overrides, field",
    [
        ({"turn_seconds": 0}, "turn_seconds"),
        ({"turn_seconds": 4}, "turn_seconds"),
        ({"turn_seconds": 86_401}, "turn_seconds"),
        ({"turn_seconds": True}, "turn_seconds"),
        ({"turn_seconds": "30"}, "turn_seconds"),
        ({"turn_seconds": 30, "timeout_limit": 0}, "timeout_limit"),
        ({"timeout_limit": 3}, "timeout_limit"),
    ],
)
def test_clock_options_that_cannot_work_are_refused_naming_the_field(overrides, field):
    with pytest.raises(InvalidRules) as info:
        resolve_rules("standard-draw", overrides, 2)
    assert info.value.field == field


def test_a_stored_rule_set_without_the_clock_options_still_loads_with_the_clock_off():
    stored = resolve_rules("pagat-draw", {}, 3).to_dict()
    assert stored["turn_seconds"] is None and stored["timeout_limit"] is None  # shown, off
    for name in ("turn_seconds", "timeout_limit"):
        del stored[name]  # as stored before clocks existed
    rules = RuleSet.from_dict(stored)
    assert rules.turn_seconds is None and rules.timeout_limit is None and rules.boneyard_reserve == 2
    clocked_rules = resolve_rules("pagat-draw", {"turn_seconds": 20, "timeout_limit": 3}, 3)
    assert clocked_rules.to_dict()["turn_seconds"] == 20
    assert RuleSet.from_dict(clocked_rules.to_dict()) == clocked_rules


# --- the forced turn ----------------------------------------------------------------------------
def test_a_timed_out_seat_draws_one_at_a_time_until_a_tile_fits_then_plays_it():
    t = Table("standard-draw", ["6-6 2-0 2-2", "6-1 3-3 4-4"], "0-0 5-2 5-1 4-3", overrides=clocked())
    t.do(Play(0, T("6-6"), "left"))
    t.do(Play(1, T("6-1"), "left"))  # ends 1 | 6: seat 0 holds nothing that fits
    events = t.feed(time_out(t.state, 0, SEED))
    assert kinds(events) == ["turn_timed_out", "tile_drawn", "tile_drawn", "tile_drawn", "tile_played"]
    assert (events[0].seat, events[0].consecutive) == (0, 1)
    assert [str(e.tile) for e in events[1:4]] == ["0-0", "5-2", "5-1"]
    assert all(e.auto for e in events[1:])
    assert (str(events[-1].tile), events[-1].end) == ("5-1", "left")
    assert t.state.turn == 1 and t.state.timeouts == [1, 0]


def test_a_timed_out_seat_plays_its_heaviest_tile_preferring_a_double_then_the_first_end():
    t = Table("standard-block", ["3-3 0-0 1-0", "5-3 6-3 3-2 1-1"], overrides=clocked())
    t.do(Play(0, T("3-3"), "left"))  # ends 3 | 3: 6-3 is heaviest, and fits both
    [_timed, played] = t.feed(time_out(t.state, 1, SEED))
    assert (str(played.tile), played.end, played.auto) == ("6-3", "left", True)
    t = Table("standard-block", ["4-2 0-0 1-0", "6-2 4-4 2-1"], overrides=clocked())
    t.do(Play(0, T("4-2"), "left"))  # ends 4 | 2: 6-2 and 4-4 both weigh 8
    [_timed, played] = t.feed(time_out(t.state, 1, SEED))
    assert (str(played.tile), played.end) == ("4-4", "left")


def test_a_stuck_timed_out_seat_knocks_in_the_block_game():
    t = Table("standard-block", ["6-6 1-0", "5-5 2-2", "4-4 6-1"], overrides=clocked())
    t.do(Play(0, T("6-6"), "left"))
    events = t.feed(time_out(t.state, 1, SEED))
    assert kinds(events) == ["turn_timed_out", "knocked"]
    assert events[1].auto is True and t.state.turn == 2


def test_only_the_seat_to_move_can_time_out():
    t = Table("standard-block", ["6-6 1-0", "5-5 6-2"], overrides=clocked())
    t.do(Play(0, T("6-6"), "left"))
    with pytest.raises(NotYourTurn):
        time_out(t.state, 0, SEED)


def test_a_seat_that_times_out_the_limit_in_a_row_is_handed_to_a_greedy_bot():
    t = Table(
        "standard-draw", ["6-6 6-5 6-4 6-3", "5-5 5-4 5-3 5-2"], "0-0 1-1 1-0 2-1", overrides=clocked(timeout_limit=2)
    )
    t.do(Play(0, T("6-6"), "left"))
    t.feed(time_out(t.state, 1, SEED))  # seat 1 stuck: draws the whole boneyard, knocks
    t.feed(time_out(t.state, 0, SEED))  # seat 0: first timeout
    assert t.state.timeouts[0] == 1 and t.state.seats[0]["type"] != "bot"
    t.feed(time_out(t.state, 1, SEED))
    events = t.feed(time_out(t.state, 0, SEED))  # second in a row: replaced
    assert events[0].consecutive == 2
    replaced = [e for e in events if e.type == "seat_replaced"]
    assert [(e.seat, e.level) for e in replaced] == [(0, "greedy")]
    assert t.state.seats[0]["type"] == "bot" and t.state.seats[0]["level"] == "greedy"
    assert replay(t.log).seats[0] == t.state.seats[0]


def test_moving_by_itself_resets_the_seats_count_of_timeouts_in_a_row():
    t = Table("standard-block", ["6-6 6-5 6-4 1-0", "5-5 5-4 6-1 0-0"], overrides=clocked(timeout_limit=2))
    t.do(Play(0, T("6-6"), "left"))
    t.feed(time_out(t.state, 1, SEED))  # plays 6-1: ends 1 | 6
    t.feed(time_out(t.state, 0, SEED))  # plays 6-5: ends 1 | 5
    assert t.state.timeouts == [1, 1]
    t.do(Play(1, T("5-5"), "right"))  # seat 1 is back
    assert t.state.timeouts == [1, 0]
    events = t.feed(time_out(t.state, 0, SEED))
    assert kinds(events) == ["turn_timed_out", "tile_played", "seat_replaced"]
    assert events[0].consecutive == 2 and str(events[1].tile) == "1-0"
    assert t.state.timeouts == [2, 0] and t.state.seats[0]["type"] == "bot"


# --- replay and audit ------------------------------------------------------------------------
def test_a_match_with_timed_out_turns_folds_back_and_passes_the_audit():
    rules = resolve_rules("standard-draw", clocked(timeout_limit=3, target=30), 2)
    log = list(
        create_match(
            rules,
            [{"name": "Ana", "type": "remote", "level": None}, {"name": "Ben", "type": "remote", "level": None}],
            SEED,
        )
    )
    state = replay(log)
    log += start_match(state, SEED)
    state = replay(log)
    moves = 0
    while state.status != "ended":
        seat = state.turn
        if moves % 3 == 2 or state.seats[seat]["type"] == "bot":  # the seat (or its bot) moves itself
            new = decide(state, parse_action(seat, legal_actions(state, seat)[0]), SEED)
        else:
            new = time_out(state, seat, SEED)
        log += new
        state = replay(new, state)
        moves += 1
        assert moves < 2000
    assert "turn_timed_out" in kinds(log) and "seat_replaced" in kinds(log) and state.status == "ended"
    report = verify_log([e.to_dict() for e in log], SEED)
    assert report.ok, report.problems
    assert report.moves_checked == moves
    tampered = [e.to_dict() for e in log]
    first = next(i for i, e in enumerate(tampered) if e["type"] == "turn_timed_out")
    tampered[first]["consecutive"] = 5
    assert not verify_log(tampered, SEED).ok


def test_a_match_without_a_turn_clock_cannot_time_out():
    from api.rules import IllegalAction
    from api.rules.clock import time_out

    t = Table("standard-draw", ["6-6 2-0 2-2", "6-1 3-3 4-4"], "0-0 5-2 5-1 4-3")
    with pytest.raises(IllegalAction) as refused:
        time_out(t.state, t.state.turn, "seed")
    assert refused.value.code == "no_turn_clock"
