"""Every worked example of the rule book (docs/rules.md, section 16), reproduced through the engine.

Each test of an example cites it with ``@example("E<n>", *figures)``: the figures are the
results the rule book prints in bold for that example, and the last tests of this file hold
the book and the tests to each other (every example cited, every bold figure tested).
"""

import re
from pathlib import Path

import pytest

from api.rules import HandEndReason, HandResult, IllegalPlay, NothingToMuggins, WrongClaim, legal_actions, resolve_rules
from api.rules.board import toe_place, train_place
from api.rules.clock import time_out
from api.rules.engine import CallMuggins, Draw, Play
from api.rules.events import Passed, RoundEnded, TileDrawn, TilePlaced
from api.rules.scoring import round_to_five
from api.rules.state import MatchState
from api.rules.tiles import Tile
from api.rules.trains import DRAW, hand_pips, legal_moves, lowest_totals
from api.rules.trains import Play as TrainsPlay
from api.rules.trains import play as trains_play
from api.rules.trains_board import ChickenFootBoard, MexicanTrainBoard
from api.rules.trains_rules import trains_rules
from tests.rules.support import SEED, T, Table, tiles
from tests.rules.test_trains import CF, MT, P, dealt, filled
from tests.rules.test_trains import tiles as train_tiles

RULE_BOOK = Path(__file__).resolve().parents[2] / "docs" / "rules.md"
CITED: dict[str, set[str]] = {}  # example label -> the figures its tests check


def example(label: str, *figures):
    """Cite the rule book's worked example ``label``; ``figures`` are the results it states."""

    def cite(test):
        CITED.setdefault(label, set()).update(str(f) for f in figures)
        return test

    return cite


def ended(events):
    [hand_ended] = [e for e in events if e.type == "hand_ended"]
    return hand_ended


def last_hand_started(t):
    return [e for e in t.log if e.type == "hand_started"][-1]


def scored(events):
    return [(e.seat, e.points, e.count, e.how) for e in events if e.type == "points_scored"]


# --- going out -------------------------------------------------------------------------
@example("E1", 22)
def test_maya_goes_out_and_scores_leo_15_plus_ana_7_is_22():
    # seat 0 Maya, seat 1 Leo (5-5 4-1: 15 pips), seat 2 Ana (3-0 2-2: 7 pips)
    t = Table("standard-draw", ["1-1", "5-5 4-1", "3-0 2-2"], "6-6 6-5")
    events = t.do(Play(0, T("1-1"), "left"))
    result = ended(events)
    assert (result.reason, result.winner, result.side, result.points) == ("domino", 0, 0, 22)
    assert result.pips == (0, 15, 7)
    assert t.state.scores == [22, 0, 0]


@example("E4", 30)
def test_cal_goes_out_ana_7_ben_23_scores_30():
    # seat 0 Ana, seat 1 Ben, seat 2 Cal; Cal's 5-3 makes the ends 5 | 3
    t = Table("dominorules-draw", ["5-2 1-1 5-0", "6-6 4-1", "5-3 4-3"], "6-0 4-2 0-0", leader=2)
    t.do(Play(2, T("5-3"), "left"))
    t.do(Play(0, T("5-2"), "left"))
    assert t.state.layout.ends_dict() == {"left": 2, "right": 3}
    drawn = [t.do(Draw(1))[0].tile for _ in range(2)]
    assert [str(x) for x in drawn] == ["6-0", "4-2"]
    t.do(Play(1, T("4-2"), "left"))
    assert t.state.layout.ends_dict() == {"left": 4, "right": 3}
    result = ended(t.do(Play(2, T("4-3"), "left")))
    assert (result.reason, result.winner, result.points, result.pips) == ("domino", 2, 30, (7, 23, 0))


@example("E9", 20)
def test_going_out_with_round_to_five_rounds_22_down_to_20():
    t = Table("standard-draw", ["1-1", "5-5 4-1", "3-0 2-2"], overrides={"round_to_five": True})
    assert ended(t.do(Play(0, T("1-1"), "left"))).points == 20


@example("E9", 25)
def test_going_out_with_round_to_five_rounds_23_up_to_25():
    t = Table("standard-draw", ["1-1", "5-5 4-1", "5-3"], overrides={"round_to_five": True})
    assert ended(t.do(Play(0, T("1-1"), "left"))).points == 25


@pytest.mark.parametrize(
    "points,rounded",
    [(0, 0), (1, 0), (2, 0), (3, 5), (4, 5), (5, 5), (7, 5), (8, 10), (22, 20), (23, 25), (30, 30), (32, 30), (33, 35)],
)
def test_round_to_five_takes_2_down_and_3_up(points, rounded):
    assert round_to_five(points) == rounded


# --- blocked hands ---------------------------------------------------------------------
@example("E2", 6)
def test_two_player_block_2_against_8_scores_6():
    # Maya keeps 1-1 (2 pips), Leo holds 2-2 3-1 (8 pips); nobody can follow the 6-6
    t = Table("standard-block", ["6-6 1-1", "2-2 3-1"], "4-4 2-0")
    result = ended(t.do(Play(0, T("6-6"), "left")))
    assert t.log[t.log.index(result) + 1].type == "hand_started"  # the next hand follows at once
    assert (result.reason, result.winner, result.side, result.points, result.pips) == ("blocked", 0, 0, 6, (2, 8))
    assert t.state.scores == [6, 0]


@example("E3", 19)
def test_three_player_block_1_13_7_scores_19():
    t = Table("standard-block", ["6-6 1-0", "5-4 3-1", "4-3"])
    result = ended(t.do(Play(0, T("6-6"), "left")))
    assert (result.reason, result.winner, result.points, result.pips) == ("blocked", 0, 19, (1, 13, 7))


@example("E5", 32, 25)
@pytest.mark.parametrize("scoring,points", [("others", 32), ("others_minus_own", 25)])
def test_blocked_7_23_9_scores_32_under_others_or_25_under_others_minus_own(scoring, points):
    # seat 0 Ana keeps 4-3 (7), seat 1 Ben 5-5 5-4 3-1 (23), seat 2 Cal 5-3 1-0 (9); the 6-6 blocks at once
    t = Table("standard-block", ["6-6 4-3", "5-5 5-4 3-1", "5-3 1-0"], overrides={"blocked_scoring": scoring})
    result = ended(t.do(Play(0, T("6-6"), "left")))
    assert (result.winner, result.side, result.points, result.pips) == (0, 0, points, (7, 23, 9))


def test_blocked_hand_scores_others_minus_own_by_default():
    t = Table("standard-block", ["6-6 4-3", "5-5 5-4 3-1", "5-3 1-0"])
    assert t.rules.blocked_scoring == "others_minus_own"
    assert ended(t.do(Play(0, T("6-6"), "left"))).points == 25


@example("E6", 0)
def test_a_tie_for_lowest_means_nobody_scores():
    t = Table("standard-block", ["6-6 4-0", "3-1", "5-4"])
    result = ended(t.do(Play(0, T("6-6"), "left")))
    assert (result.reason, result.winner, result.side, result.points, result.pips) == (
        "blocked",
        None,
        None,
        0,
        (4, 4, 9),
    )
    assert t.state.scores == [0, 0, 0]


def test_a_tie_between_two_players_scores_nothing():
    t = Table("standard-block", ["6-6 4-1", "3-2"])
    result = ended(t.do(Play(0, T("6-6"), "left")))
    assert (result.winner, result.points) == (None, 0)


# --- partners --------------------------------------------------------------------------
PARTNERS = {"partners": True}


@example("E7", 13)
def test_partners_domino_scores_both_opponents_pips_and_not_the_partners():
    # seat 2 (partner of 0) goes out: opponents 1 and 3 hold 9 + 4 = 13; seat 0's 12 do not count
    t2 = Table("standard-block", ["6-6", "5-4", "3-3", "4-0"], overrides=PARTNERS, leader=2)
    result = ended(t2.do(Play(2, T("3-3"), "left")))
    assert (result.reason, result.winner, result.side, result.points) == ("domino", 2, 0, 13)
    assert t2.state.scores == [13, 0]


@example("E8", 12)
def test_partners_blocked_lower_combined_pips_wins_minus_own_under_others_minus_own():
    # side 0: seats 0 (5) + 2 (3) = 8; side 1: seats 1 (9) + 3 (11) = 20 → 20 - 8 = 12
    t = Table("standard-block", ["6-6 4-1", "5-4", "2-1", "5-3 3-0"], overrides=PARTNERS)
    result = ended(t.do(Play(0, T("6-6"), "left")))
    assert (result.reason, result.side, result.points, result.pips) == ("blocked", 0, 12, (5, 9, 3, 11))
    assert result.winner == 2  # the winning side's partner with fewer pips
    assert t.state.scores == [12, 0]


@example("E8", 20)
def test_partners_blocked_scores_all_opponents_pips_under_others():
    t = Table(
        "standard-block", ["6-6 4-1", "5-4", "2-1", "5-3 3-0"], overrides={**PARTNERS, "blocked_scoring": "others"}
    )
    assert ended(t.do(Play(0, T("6-6"), "left"))).points == 20


def test_partners_blocked_equal_partner_pips_credit_the_lower_seat():
    t = Table("standard-block", ["6-6 2-1", "5-4", "3-0", "5-3 4-2"], overrides=PARTNERS)
    result = ended(t.do(Play(0, T("6-6"), "left")))
    assert (result.side, result.winner, result.pips) == (0, 0, (3, 9, 3, 14))


@example("E8")
def test_partners_blocked_equal_sides_means_nobody_scores():
    # side 0: 5 + 4 = 9; side 1: 6 + 3 = 9
    t = Table("standard-block", ["6-6 4-1", "5-1", "4-0", "2-1"], overrides=PARTNERS)
    result = ended(t.do(Play(0, T("6-6"), "left")))
    assert (result.reason, result.winner, result.side, result.points) == ("blocked", None, None, 0)


# --- winner_any: who leads after a tied hand ------------------------------------------------
WINNER_ANY = {"lead": "winner_any"}


@example("E10", "seat 2")
def test_winner_any_after_a_tie_the_one_seat_with_fewest_tiles_leads_even_outside_the_tie():
    t = Table("standard-block", ["6-6 2-0 1-1", "3-0 1-0", "5-4"], overrides=WINNER_ANY)
    result = ended(t.do(Play(0, T("6-6"), "left")))
    assert (result.winner, result.points, result.pips) == (None, 0, (4, 4, 9))
    assert [len(h) for h in result.hands] == [2, 2, 1]
    start = last_hand_started(t)
    assert (start.hand_number, start.leader) == (2, 2)
    assert t.state.turn == 2 and t.state.layout.is_empty  # no forced tile: seat 2 leads any


@example("E11", "seat 0")
def test_winner_any_after_a_tie_fewest_tiles_shared_the_tied_hands_leader_leads_again():
    t = Table("standard-block", ["6-6 3-0 1-0 0-0", "2-2", "5-4"], overrides=WINNER_ANY)
    result = ended(t.do(Play(0, T("6-6"), "left")))
    assert (result.winner, result.pips) == (None, (4, 4, 9))
    assert [len(h) for h in result.hands] == [3, 1, 1]
    assert last_hand_started(t).leader == 0


@example("E12", "seat 1")
def test_winner_any_after_a_tied_partners_hand_tiles_count_seat_by_seat():
    t = Table(
        "standard-block", ["6-6 3-0 2-1", "4-1", "1-1 0-0", "2-0 1-0"], overrides={**WINNER_ANY, "partners": True}
    )
    result = ended(t.do(Play(0, T("6-6"), "left")))
    assert (result.winner, result.side, result.pips) == (None, None, (6, 5, 2, 3))
    assert [len(h) for h in result.hands] == [2, 1, 2, 2]
    assert last_hand_started(t).leader == 1


# --- All Fives --------------------------------------------------------------------------
@example("E13", 10)
def test_lead_5_5_alone_scores_10():
    t = Table("all-fives", ["5-5 1-0", "6-6"], "2-2")
    assert scored(t.do(Play(0, T("5-5"), "left"))) == [(0, 10, 10, "play")]
    assert t.state.scores == [10, 0]


@example("E13", 10, 5)
@pytest.mark.parametrize("lead,points", [("6-4", 10), ("5-0", 5), ("4-1", 5), ("3-2", 5), ("5-5", 10)])
def test_scoring_leads_alone_on_the_table(lead, points):
    t = Table("all-fives", [lead + " 1-0", "6-6"], "2-2")
    events = t.do(Play(0, T(lead), "left"))
    assert scored(events) == [(0, points, points, "play")]
    assert t.state.layout.count() == points


@example("E13")
@pytest.mark.parametrize("lead", ["6-6", "6-3", "4-4", "2-1", "0-0"])
def test_leads_that_are_no_multiple_of_five_score_nothing(lead):
    t = Table("all-fives", [lead + " 1-0", "5-5"], "2-2")
    assert scored(t.do(Play(0, T(lead), "left"))) == []


@example("E14", 10, 13, 5)
def test_spinner_example_13_then_5_then_5():
    t = Table("all-fives", ["5-5 5-2 1-1", "5-3 5-0 2-2"], "6-6 4-4")
    assert scored(t.do(Play(0, T("5-5"), "left"))) == [(0, 10, 10, "play")]
    events = t.do(Play(1, T("5-3"), "left"))
    assert scored(events) == [] and t.state.layout.count() == 3 + 10
    assert events[0].ends == {"left": 3, "right": 5}
    # the arms stay shut until both sides of the spinner hold a tile
    t.refuse(Play(0, T("5-2"), "up"), IllegalPlay)
    t.refuse(Play(0, T("5-2"), "down"), IllegalPlay)
    events = t.do(Play(0, T("5-2"), "right"))
    assert events[0].ends == {"left": 3, "right": 2, "up": 5, "down": 5}
    assert scored(events) == [(0, 5, 5, "play")]
    events = t.do(Play(1, T("5-0"), "up"))
    assert events[0].ends == {"left": 3, "right": 2, "up": 0, "down": 5}
    assert scored(events) == [(1, 5, 5, "play")]
    assert t.state.scores == [15, 5]


def test_a_double_at_an_end_counts_both_halves():
    # muggins (no spinner): 6-2 lead counts 8; 2-2 on the right: 6 + 4 = 10
    t = Table("muggins", ["6-2 1-0", "2-2 4-4"], "3-3")
    assert scored(t.do(Play(0, T("6-2"), "left"))) == []
    assert scored(t.do(Play(1, T("2-2"), "right"))) == [(1, 10, 10, "play")]


def test_a_double_ending_an_arm_counts_both_halves():
    # spinner 6-6; 6-1 left, 6-3 right (count 4); 6-4 up → 1 + 3 + 4 = 8; 4-4 on up → 1 + 3 + 8 = 12;
    # 6-5 down → 1 + 3 + 8 + 5 = 17
    t = Table("all-fives", ["6-6 6-3 4-4 1-0", "6-1 6-4 6-5 2-0"], "0-0")
    for seat, tile, end, count in [
        (0, "6-6", "left", 12),
        (1, "6-1", "left", 13),
        (0, "6-3", "right", 4),
        (1, "6-4", "up", 8),
        (0, "4-4", "up", 12),
        (1, "6-5", "down", 17),
    ]:
        t.do(Play(seat, T(tile), end))
        assert t.state.layout.count() == count
    assert t.state.scores == [0, 0]


def test_the_spinner_can_come_later_in_the_line():
    # lead 6-5 (11); 5-5 on the right becomes the spinner: 6 + 10 = 16; 5-4 on its free side opens
    # up/down: 6 + 4 = 10 scores; 5-0 on up: 6 + 4 + 0 = 10 scores
    t = Table("all-fives", ["6-5 5-4 1-1", "5-5 5-0 2-2"], "3-3")
    t.do(Play(0, T("6-5"), "left"))
    assert scored(t.do(Play(1, T("5-5"), "right"))) == []
    assert t.state.layout.count() == 16 and t.state.layout.spinner is T("5-5")
    t.refuse(Play(0, T("5-4"), "up"), IllegalPlay)
    events = t.do(Play(0, T("5-4"), "right"))
    assert events[0].ends == {"left": 6, "right": 4, "up": 5, "down": 5}
    assert scored(events) == [(0, 10, 10, "play")]
    assert scored(t.do(Play(1, T("5-0"), "up"))) == [(1, 10, 10, "play")]


def test_muggins_preset_has_no_spinner_so_up_and_down_never_open():
    t = Table("muggins", ["6-5 5-4 1-1", "5-5 5-0 2-2"], "3-3")
    t.do(Play(0, T("6-5"), "left"))
    t.do(Play(1, T("5-5"), "right"))
    assert t.state.layout.spinner is None
    events = t.do(Play(0, T("5-4"), "right"))
    assert events[0].ends == {"left": 6, "right": 4}
    assert scored(events) == [(0, 10, 10, "play")]
    t.refuse(Play(1, T("5-0"), "up"), IllegalPlay)


def test_the_views_draw_the_spinner_arms_tile_by_tile():
    t = Table("all-fives", ["5-5 5-2 1-1", "5-3 5-0 2-2"], "6-6 4-4")
    for seat, tile, end in [(0, "5-5", "left"), (1, "5-3", "left"), (0, "5-2", "right"), (1, "5-0", "up")]:
        t.do(Play(seat, T(tile), end))
    from api.rules import view

    v = view(t.state, 0)
    assert v["line"] == [[3, 5], [5, 5], [5, 2]]
    assert v["spinner"] == [5, 5]
    assert v["arms"] == {"up": [[5, 0]], "down": []}
    assert v["ends"] == [
        {"end": "left", "value": 3},
        {"end": "right", "value": 2},
        {"end": "up", "value": 0},
        {"end": "down", "value": 5},
    ]
    assert v["count"] == 5


@example("E15", 10, 25)
def test_fives_going_out_scores_opponents_pips_rounded_to_five():
    # seat 0 goes out with 6-4 (count 10 scores too); seat 1 holds 6-6 5-4 2-1 = 24 → 25
    t = Table("all-fives", ["6-4", "6-6 5-4 2-1"], "3-3")
    events = t.do(Play(0, T("6-4"), "left"))
    assert scored(events) == [(0, 10, 10, "play")]
    assert (ended(events).reason, ended(events).points) == ("domino", 25)
    assert t.state.scores == [35, 0]


@example("E16", 5)
def test_fives_blocked_hand_scores_others_rounded_without_subtraction():
    # empty boneyard: the 6-6 lead (12, no score) blocks; seat 0 holds 4, seat 1 7 → 7 rounds to 5
    t = Table("all-fives", ["6-6 3-1", "4-3"], "")
    result = ended(t.do(Play(0, T("6-6"), "left")))
    assert (result.reason, result.winner, result.points, result.pips) == ("blocked", 0, 5, (4, 7))


@example("E17", 10)
def test_a_missed_claim_is_taken_by_the_opponents_muggins_call():
    calls = {"muggins_calls": True}
    t = Table("all-fives", ["5-5 1-0", "6-6 2-1"], "3-3", overrides=calls)
    assert scored(t.do(Play(0, T("5-5"), "left"))) == [] and t.state.pending_muggins == (0, 10)
    assert scored(t.do(CallMuggins(1))) == [(1, 10, 10, "muggins")]
    assert t.state.scores == [0, 10]
    t.refuse(CallMuggins(1), NothingToMuggins)  # taken once
    claimed = Table("all-fives", ["5-5 1-0", "6-6 2-1"], "3-3", overrides=calls)
    claimed.refuse(Play(0, T("5-5"), "left", claim=5), WrongClaim)
    assert scored(claimed.do(Play(0, T("5-5"), "left", claim=10))) == [(0, 10, 10, "play")]


@example("E18", "4-4")
def test_a_timed_out_seat_plays_the_heaviest_tile_a_double_first():
    t = Table("standard-block", ["4-3 0-0", "5-3 4-4 6-2 4-1"], overrides={"turn_seconds": 30})
    t.do(Play(0, T("4-3"), "left"))
    assert t.state.layout.ends_dict() == {"left": 4, "right": 3}
    timed_out, played = t.feed(time_out(t.state, 1, SEED))
    assert (timed_out.type, played.type, str(played.tile), played.end, played.auto) == (
        "turn_timed_out",
        "tile_played",
        "4-4",
        "left",
        True,
    )


# --- Fives and Threes ----------------------------------------------------------------------------
@example("E19", 2, 8)
def test_fives_and_threes_scores_a_point_per_five_and_per_three():
    t = Table("fives-and-threes", ["4-2 5-2 1-1", "5-4 5-5 6-6"])
    assert scored(t.do(Play(0, T("4-2"), "left"))) == [(0, 2, 6, "play")]  # two threes
    assert scored(t.do(Play(1, T("5-4"), "left"))) == [] and t.state.layout.count() == 7
    assert scored(t.do(Play(0, T("5-2"), "right"))) == [(0, 2, 10, "play")]  # two fives
    assert scored(t.do(Play(1, T("5-5"), "left"))) == [(1, 8, 15, "play")]  # 5-5 at an end counts 10
    assert t.state.scores == [4, 8]


@example("E19", 3)
def test_fives_and_threes_a_lead_of_6_3_scores_3():
    t = Table("fives-and-threes", ["6-3 1-1", "2-2 4-4"])
    assert scored(t.do(Play(0, T("6-3"), "left"))) == [(0, 3, 9, "play")]


@example("E20", 59)
def test_fives_and_threes_points_past_61_are_not_scored_and_the_play_stands():
    t = Table("fives-and-threes", ["6-6 1-0", "6-2 3-3"], scores=[59, 0])
    listed = [a for a in legal_actions(t.state, 0) if a["type"] == "play" and a["tile"] == [6, 6]]
    assert listed == [{"type": "play", "tile": [6, 6], "end": "left"}]  # no "scores": it would pass 61
    events = t.do(Play(0, T("6-6"), "left"))
    assert scored(events) == [] and t.types(events) == ["tile_played"]
    assert t.state.scores == [59, 0] and t.state.layout.count() == 12


@example("E20", 61)
def test_fives_and_threes_chipping_out_scores_1_and_61_exactly_wins():
    t = Table("fives-and-threes", ["4-3", "2-2 6-6"], scores=[60, 0])
    events = t.do(Play(0, T("4-3"), "left"))
    assert t.types(events) == ["tile_played", "hand_ended", "match_ended"]
    result = ended(events)
    assert (result.reason, result.winner, result.side, result.points) == ("domino", 0, 0, 1)
    assert t.state.scores == [61, 0] and t.state.winner == 0


@example("E20", 61)
def test_fives_and_threes_a_count_reaching_61_ends_the_match_before_the_chip_out_point():
    t = Table("fives-and-threes", ["5-5", "2-2 6-6"], scores=[59, 0])
    events = t.do(Play(0, T("5-5"), "left"))
    assert t.types(events) == ["tile_played", "points_scored", "match_ended"]
    assert t.state.scores == [61, 0] and t.state.winner == 0


@example("E20")
def test_fives_and_threes_a_blocked_hand_scores_nothing():
    t = Table("fives-and-threes", ["6-6 1-0", "2-2"])
    result = ended(t.do(Play(0, T("6-6"), "left")))
    assert (result.reason, result.winner, result.side, result.points, result.pips) == ("blocked", None, None, 0, (1, 4))
    assert t.state.scores == [4, 0]  # the lead's count of 12 scored 4; the block adds nothing


# --- the double-nine partnership game --------------------------------------------------------------
@example("E21", 37)
def test_double_nine_going_out_scores_every_other_hand_the_partners_too():
    hands = ["9-9", "8-7", "6-5", "4-0"]
    t = Table("double-nine-partners", hands, leader=2, hand_number=2)
    result = ended(t.do(Play(2, T("6-5"), "left")))
    assert (result.reason, result.winner, result.side, result.points) == ("domino", 2, 0, 18 + 15 + 4)
    opponents = Table("double-nine-partners", hands, leader=2, hand_number=2, overrides={"hand_points": "opponents"})
    assert ended(opponents.do(Play(2, T("6-5"), "left"))).points == 19


@example("E22", 28)
def test_double_nine_blocked_the_lighter_side_scores_all_four_hands():
    t = Table("double-nine-partners", ["9-9 3-2", "5-4", "2-1", "6-5"], hand_number=2)
    result = ended(t.do(Play(0, T("9-9"), "left")))
    assert (result.reason, result.winner, result.side, result.points) == ("blocked", 2, 0, 28)
    assert result.pips == (5, 9, 3, 11)


@example("E22")
def test_double_nine_blocked_with_equal_sides_scores_nothing():
    t = Table("double-nine-partners", ["9-9 6-2", "5-4", "4-2", "5-0"], hand_number=2)
    result = ended(t.do(Play(0, T("9-9"), "left")))
    assert (result.reason, result.winner, result.side, result.points) == ("blocked", None, None, 0)


@example("E23", "8-8")
def test_double_nine_the_highest_double_dealt_leads_when_9_9_is_out_of_play():
    rules = resolve_rules("double-nine-partners", {}, 4)
    state = MatchState(rules, [{"name": f"p{i}", "type": "bot", "level": "random"} for i in range(4)])
    hands = [tiles("9-8 7-7"), tiles("6-6 5-5"), tiles("0-0"), tiles("8-8 9-0")]
    assert state.next_lead(hands) == (3, T("8-8"))  # forced: the server plays it


# --- the trains games (docs/rules.md, section 18) -------------------------------------------
@example("E24", 5, 2)
def test_mexican_train_worked_example_three_players_round_one():
    rules = trains_rules(MT, 3)
    hands, boneyard = filled(
        rules,
        [train_tiles("12-5", "5-5", "5-2"), train_tiles("9-4"), train_tiles("12-9")],
        train_tiles("3-1"),
        avoid={1: 12},
    )
    state = dealt(rules, hands, boneyard)
    board = state.board
    assert isinstance(board, MexicanTrainBoard)

    # seat 0 plays 12-5, starting its own train (open end 5)
    assert trains_play(state, 0, P("12-5", train_place(0)), SEED) == [TilePlaced(0, Tile(12, 5), 0)]
    assert board.trains["train:0"].end == 5
    # seat 1 holds no 12: draws 3-1, which fits nowhere, and passes: its train gets a marker
    assert legal_moves(state) == [DRAW]
    assert trains_play(state, 1, DRAW, SEED) == [TileDrawn(1, Tile(3, 1)), Passed(1, marker=True)]
    assert board.trains["train:1"].marked
    # seat 2 plays 12-9 on seat 1's marked train (open end 9)
    assert P("12-9", train_place(1)) in legal_moves(state)
    trains_play(state, 2, P("12-9", train_place(1)), SEED)
    assert board.trains["train:1"].end == 9
    # seat 0 plays 5-5 on its own train and must cover it: every legal play covers the double
    trains_play(state, 0, P("5-5", train_place(0)), SEED)
    assert state.to_move == 0 and board.uncovered == "train:0"
    moves = legal_moves(state)
    assert P("5-2", "train:0") in moves
    assert all(isinstance(m, TrainsPlay) and m.place == "train:0" and m.tile.has(5) for m in moves)
    trains_play(state, 0, P("5-2", train_place(0)), SEED)
    assert board.trains["train:0"].end == 2 and board.uncovered is None and state.to_move == 1
    # seat 1 later plays 9-4 on its own train, and its marker goes
    trains_play(state, 1, P("9-4", train_place(1)), SEED)
    assert board.trains["train:1"].end == 4 and not board.trains["train:1"].marked


@example("E25", "four")
def test_chicken_foot_worked_example_engine_sides_then_the_toes_of_a_4_4():
    rules = trains_rules(CF, 2)
    state = dealt(
        rules,
        [train_tiles("9-1", "9-2", "4-4", "4-7", "1-8"), train_tiles("9-4", "9-3", "4-5", "4-6", "1-7", "2-0")],
        train_tiles("0-0"),
    )
    board = state.board
    assert isinstance(board, ChickenFootBoard)
    # the first four tiles are 9-x tiles, one per side of the engine
    assert legal_moves(state) == [P("9-1", "toe:9:0"), P("9-2", "toe:9:0")]
    for seat, tile, side in ((0, "9-1", 0), (1, "9-4", 1), (0, "9-2", 2)):
        trains_play(state, seat, P(tile, toe_place(9, side)), SEED)
    assert legal_moves(state) == [P("9-3", "toe:9:3")]  # 1-7 would fit the 1, but the sides come first
    trains_play(state, 1, P("9-3", "toe:9:3"), SEED)
    assert board.open_places() == [("toe:9:0", 1), ("toe:9:1", 4), ("toe:9:2", 2), ("toe:9:3", 3)]
    # a 4-4 on the arm ending in 4 needs three 4-x toes before anything else
    trains_play(state, 0, P("4-4", "toe:9:1"), SEED)
    assert state.to_move == 1  # the player of a double does not play again
    assert board.toes_needed() == 3
    assert legal_moves(state) == [P("4-5", "toe:4:0"), P("4-6", "toe:4:0")]  # not 1-7, not 2-0
    trains_play(state, 1, P("4-5", "toe:4:0"), SEED)
    trains_play(state, 0, P("4-7", "toe:4:1"), SEED)
    trains_play(state, 1, P("4-6", "toe:4:2"), SEED)
    assert board.toes_needed() == 0
    assert board.open_places() == [
        ("toe:9:0", 1),
        ("toe:9:2", 2),
        ("toe:9:3", 3),
        ("toe:4:0", 5),
        ("toe:4:1", 7),
        ("toe:4:2", 6),
    ]
    assert board.describe(state.placed)["arms"][1] == {"id": "toe:9:1", "open": None, "tiles": [[9, 4], [4, 4]]}


@example("E26", 52, "[1, 3]")
def test_the_trains_games_count_the_pips_left_and_the_lowest_totals_share_the_win():
    fifty = trains_rules(MT, 2, rounds=1, double_blank_points=50)
    state = dealt(fifty, [train_tiles("0-0", "2-0", "12-4"), train_tiles("12-1")])
    trains_play(state, 0, P("12-4", "train:0"), SEED)
    [ended] = [e for e in trains_play(state, 1, P("12-1", "train:1"), SEED) if isinstance(e, RoundEnded)]
    assert (ended.winner, ended.pips) == (1, (52, 0))
    assert hand_pips(trains_rules(MT, 2), train_tiles("0-0", "2-0")) == 2
    assert list(lowest_totals([37, 12, 60, 12])) == [1, 3]


# --- the rule book and these tests hold each other ----------------------------------------------
def rule_book_examples() -> dict[str, str]:
    """docs/rules.md's worked examples by label ("E1" ...): the text under each heading."""
    text = RULE_BOOK.read_text()
    parts = re.split(r"^### (E\d+)\. .*$", text, flags=re.MULTILINE)
    examples = dict(zip(parts[1::2], parts[2::2]))
    last = parts[-2]
    examples[last] = examples[last].split("\n## ")[0]  # the last example ends at the next section
    return examples


def test_every_worked_example_of_the_rule_book_is_cited_by_a_test_and_every_citation_exists():
    assert sorted(rule_book_examples(), key=lambda label: int(label[1:])) == sorted(CITED, key=lambda x: int(x[1:]))


def test_the_figures_the_rule_book_prints_in_bold_are_the_ones_the_tests_check():
    for label, text in rule_book_examples().items():
        assert set(re.findall(r"\*\*([^*]+)\*\*", text)) == CITED[label], label


def test_hand_result_is_plain_data():
    r = HandResult(1, HandEndReason.DOMINO, 0, 0, 22, (0, 15, 7), ((), (T("6-6"),), ()), (22, 0, 0))
    assert r == HandResult(1, "domino", 0, 0, 22, (0, 15, 7), ((), (T("6-6"),), ()), (22, 0, 0))
    with pytest.raises(AttributeError):
        r.points = 0  # type: ignore[misc]  # frozen: the point of the test
