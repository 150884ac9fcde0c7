"""Whole hands scripted move by move through ``decide``, from deals chosen by the test."""

import pytest

from api.rules import (
    BoneyardEmpty,
    BoneyardReserved,
    ClaimNotAllowed,
    DrawingNotAllowed,
    IllegalAction,
    IllegalPlay,
    InvalidAction,
    MatchNotStarted,
    MatchOver,
    MustDraw,
    MustPlay,
    NothingToMuggins,
    NotYourTurn,
    TileNotInHand,
    WrongClaim,
    create_match,
    legal_actions,
    parse_action,
    redact_event,
    replay,
    resolve_rules,
    start_match,
)
from api.rules.engine import CallMuggins, Draw, Knock, Play, decide
from api.rules.errors import EndRequired, InvalidTile
from api.rules.shuffle import shuffled_tiles
from tests.rules.support import SEED, FixedDealer, T, Table, deal_with, order_for, seats, tiles


def kinds(events):
    return [e.type for e in events]


def hand_ended(t):
    return [e for e in t.log if e.type == "hand_ended"][-1]


# --- the Draw game -----------------------------------------------------------------------
def test_standard_draw_hand_draw_until_a_tile_fits_then_play_it_knock_when_stuck():
    t = Table("standard-draw", ["6-6 2-0 2-2", "6-1 3-3 4-4"], "0-0 5-2 5-1 4-3")
    t.do(Play(0, T("6-6"), "left"))
    # seat 1 holds the playable 6-1: drawing and knocking are refused
    t.refuse(Draw(1), MustPlay)
    t.refuse(Knock(1), MustPlay)
    t.refuse(Draw(1, until_playable=True), MustPlay)
    t.refuse(Play(0, T("2-0"), "left"), NotYourTurn)
    t.do(Play(1, T("6-1"), "left"))
    assert t.state.layout.ends_dict() == {"left": 1, "right": 6}
    # seat 0 is stuck with tiles to draw: knocking is refused
    t.refuse(Knock(0), MustDraw)
    drawn = []
    for _ in range(3):
        [event] = t.do(Draw(0))
        assert (event.type, event.seat, event.auto) == ("tile_drawn", 0, False)
        drawn.append(str(event.tile))
        other = redact_event(event.to_dict(), 1)
        assert "tile" not in other and other["seat"] == 0
        assert redact_event(event.to_dict(), 0)["tile"] == event.tile.to_json()
    assert drawn == ["0-0", "5-2", "5-1"]
    assert t.state.drawn == [3, 0]
    # the drawn 5-1 fits: it must be played now
    t.refuse(Draw(0), MustPlay)
    t.refuse(Knock(0), MustPlay)
    t.refuse(Play(0, T("2-2"), "left"), IllegalPlay)
    t.do(Play(0, T("5-1"), "left"))
    # seat 1 is stuck: draws the last tile, then may only knock
    [event] = t.do(Draw(1))
    assert str(event.tile) == "4-3" and t.state.boneyard == []
    t.refuse(Draw(1), BoneyardEmpty)
    [knock] = t.do(Knock(1))
    assert (knock.type, knock.seat, knock.ends, knock.auto) == ("knocked", 1, {"left": 5, "right": 6}, False)
    t.do(Play(0, T("5-2"), "left"))
    t.do(Knock(1))
    t.do(Play(0, T("2-2"), "left"))
    t.do(Knock(1))
    t.do(Play(0, T("2-0"), "left"))
    t.do(Knock(1))
    events = t.do(Play(0, T("0-0"), "left"))
    assert kinds(events)[:3] == ["tile_played", "hand_ended", "hand_started"]
    result = hand_ended(t)
    assert (result.reason, result.winner, result.points, result.pips) == ("domino", 0, 21, (0, 21))
    assert [[str(x) for x in h] for h in result.hands] == [[], ["3-3", "4-4", "4-3"]]


def test_a_tile_that_matches_both_ends_goes_on_either_as_the_player_chooses():
    t = Table("standard-draw", ["6-3 1-1", "6-6 3-3"], "0-0")
    t.do(Play(0, T("6-3"), "left"))
    acts = legal_actions(t.state, 1)
    assert {"type": "play", "tile": [6, 6], "end": "left"} in acts
    assert {"type": "play", "tile": [3, 3], "end": "right"} in acts
    t.do(Play(1, T("3-3"), "right"))
    assert t.state.layout.ends_dict() == {"left": 6, "right": 3}


def test_the_hand_ends_as_soon_as_a_block_is_certain_without_knocks():
    t = Table("standard-draw", ["6-6 1-1", "6-5 0-0"], "")
    t.do(Play(0, T("6-6"), "left"))
    events = t.do(Play(1, T("6-5"), "left"))
    assert kinds(events)[:2] == ["tile_played", "hand_ended"]
    assert "knocked" not in kinds(t.log)
    result = hand_ended(t)
    assert (result.reason, result.pips, result.winner, result.points) == ("blocked", (2, 0), 1, 2)


def test_refused_commands_name_their_reason_and_change_nothing():
    t = Table("standard-draw", ["6-6 2-0", "6-1 3-3"], "0-0 5-2")
    t.refuse(Play(0, T("3-3"), "left"), TileNotInHand)
    t.refuse(Play(1, T("6-1"), "left"), NotYourTurn)
    t.refuse(Play(0, T("6-6"), "up"), IllegalPlay)
    t.do(Play(0, T("6-6"), "left"))
    t.refuse(Play(1, T("3-3"), "left"), IllegalPlay)
    t.refuse(Play(1, T("6-1"), "up"), IllegalPlay)
    t.refuse(Play(1, T("6-1"), "left", claim=0), ClaimNotAllowed)  # claims only under muggins_calls
    t.refuse(CallMuggins(0), NothingToMuggins)
    with pytest.raises(InvalidAction):
        decide(t.state, Play(7, T("6-1"), "left"), SEED)
    # A tile of a larger set is well written but not of this match's set: malformed, not illegal.
    with pytest.raises(InvalidTile, match="no tile 7-1 in a double-6 set"):
        decide(t.state, Play(1, T("7-1"), "left"), SEED)


@pytest.mark.parametrize(
    "action",
    [
        {"type": "fold"},
        {"type": "play"},
        {"type": "play", "tile": [6, 1], "end": "middle"},
        {"type": "play", "tile": [13, 1], "end": "left"},
        {"type": "draw", "until": "forever"},
        {"type": "knock", "now": True},
        {"type": "play", "tile": [6, 1], "end": "left", "claim": -5},
        "draw",
        None,
    ],
)
def test_malformed_actions_are_invalid_not_illegal(action):
    with pytest.raises(InvalidAction):
        parse_action(0, action)


def test_a_waiting_match_refuses_commands_and_an_ended_one_too():
    rules = resolve_rules("standard-draw", {}, 2)
    log = create_match(rules, [{"name": "a", "type": "human"}, {"name": None, "type": "open"}], SEED)
    waiting = replay(log)
    with pytest.raises(MatchNotStarted):
        decide(waiting, Draw(0), SEED)
    with pytest.raises(MatchNotStarted):
        start_match(waiting, SEED)
    t = Table("standard-draw", ["1-1", "6-5"], "", overrides={"target": 5})
    events = t.do(Play(0, T("1-1"), "left"))
    assert kinds(events)[-1] == "match_ended"
    t.refuse(Play(1, T("6-5"), "left"), MatchOver)
    t.refuse(Knock(1), MatchOver)


# --- the Block game, the reserve, drawing at will --------------------------------------
def test_block_game_refuses_drawing_and_lets_a_stuck_player_knock():
    t = Table("standard-block", ["6-6 6-1 1-1", "6-5 3-3"], "0-0 4-4 2-2")
    t.do(Play(0, T("6-6"), "left"))
    t.refuse(Draw(1), DrawingNotAllowed)
    t.do(Play(1, T("6-5"), "left"))
    t.refuse(Draw(0), DrawingNotAllowed)
    t.do(Play(0, T("6-1"), "right"))
    t.refuse(Draw(1), DrawingNotAllowed)
    t.refuse(Draw(1, until_playable=True), DrawingNotAllowed)
    assert legal_actions(t.state, 1) == [{"type": "knock"}]
    [event] = t.do(Knock(1))
    assert event.type == "knocked"
    assert t.state.turn == 0 and t.state.boneyard == tiles("0-0 4-4 2-2")


def test_boneyard_reserve_keeps_the_last_two_tiles_and_then_a_stuck_player_knocks():
    t = Table("pagat-draw", ["6-6 1-1", "6-5 3-3 5-1"], "0-0 4-4 2-2")
    t.do(Play(0, T("6-6"), "left"))
    t.do(Play(1, T("6-5"), "left"))
    t.refuse(Knock(0), MustDraw)
    [event] = t.do(Draw(0))
    assert str(event.tile) == "0-0" and len(t.state.boneyard) == 2
    err = t.refuse(Draw(0), BoneyardReserved)
    assert err.code == "boneyard_reserved"
    assert legal_actions(t.state, 0) == [{"type": "knock"}]
    t.do(Knock(0))
    assert t.state.turn == 1


def test_draw_at_will_allows_drawing_while_able_to_play_and_after_a_tile_fits():
    t = Table("standard-draw", ["6-6 6-1", "6-5 3-3"], "0-0 5-4 4-4", overrides={"draw_at_will": True})
    t.do(Play(0, T("6-6"), "left"))
    assert {"type": "draw"} in legal_actions(t.state, 1)
    t.do(Draw(1))  # 0-0, while 6-5 is playable
    t.do(Draw(1))  # 5-4
    t.refuse(Draw(1, until_playable=True), MustPlay)
    t.do(Draw(1))  # 4-4, after a fitting tile was drawn
    t.refuse(Draw(1), BoneyardEmpty)
    t.refuse(Knock(1), MustPlay)
    assert t.state.drawn == [0, 3]


def test_draw_until_playable_draws_every_tile_needed_in_one_command():
    t = Table("standard-draw", ["6-6 1-1", "6-5 3-3"], "0-0 2-2 5-4 4-4")
    t.do(Play(0, T("6-6"), "left"))
    t.do(Play(1, T("6-5"), "left"))
    assert {"type": "draw", "until": "playable"} in legal_actions(t.state, 0)
    events = t.do(parse_action(0, {"type": "draw", "until": "playable"}))
    assert [(e.type, str(e.tile), e.auto) for e in events] == [
        ("tile_drawn", "0-0", False),
        ("tile_drawn", "2-2", False),
        ("tile_drawn", "5-4", False),
    ]
    assert t.state.turn == 0 and len(t.state.boneyard) == 1


# --- automatic draws and knocks -------------------------------------------------------------
def test_auto_draw_draws_for_a_stuck_player_until_a_tile_fits():
    t = Table("standard-draw", ["6-6 1-1", "6-5 3-3"], "0-0 2-2 5-4 4-4", overrides={"auto_draw": True})
    t.do(Play(0, T("6-6"), "left"))
    events = t.do(Play(1, T("6-5"), "left"))
    assert [(e.type, e.seat, e.auto) for e in events] == [
        ("tile_played", 1, False),
        ("tile_drawn", 0, True),
        ("tile_drawn", 0, True),
        ("tile_drawn", 0, True),
    ]
    assert [str(e.tile) for e in events[1:]] == ["0-0", "2-2", "5-4"]
    for e in events[1:]:
        assert "tile" not in redact_event(e.to_dict(), 1)
        assert "tile" not in redact_event(e.to_dict(), None)
        assert redact_event(e.to_dict(), 0)["tile"] == e.tile.to_json()
    assert t.state.turn == 0


def test_auto_knock_knocks_for_a_stuck_player_with_nothing_to_draw():
    t = Table("standard-block", ["6-6 6-1 1-0", "6-5 3-3"], "4-4", overrides={"auto_knock": True})
    t.do(Play(0, T("6-6"), "left"))
    t.do(Play(1, T("6-5"), "left"))
    events = t.do(Play(0, T("6-1"), "right"))
    assert [(e.type, e.seat, e.auto) for e in events] == [("tile_played", 0, False), ("knocked", 1, True)]
    assert t.state.turn == 0


# --- leads -----------------------------------------------------------------------------------
def waiting(preset, players=2, overrides=None):
    rules = resolve_rules(preset, overrides or {}, players)
    return replay(create_match(rules, seats(players), SEED))


def test_the_highest_double_is_played_for_its_holder_as_an_auto_lead():
    st = waiting("standard-draw")
    order = order_for(["6-5 4-4 3-1 2-0 1-0 6-0 6-1", "5-5 6-2 5-4 3-0 2-1 4-0 4-1"])
    events = deal_with(st, FixedDealer({"hand:1": order}))
    assert kinds(events) == ["hand_started", "tile_played"]
    assert (events[0].leader, events[1].seat, str(events[1].tile), events[1].auto) == (1, 1, "5-5", True)
    after = replay(events, st)
    assert after.turn == 0 and after.layout.ends_dict() == {"left": 5, "right": 5}


def test_with_no_double_dealt_the_heaviest_tile_leads():
    st = waiting("standard-draw")
    order = order_for(["6-4 6-3 5-4 6-2 5-3 6-1 5-2", "6-5 4-3 6-0 5-1 4-2 5-0 4-1"])
    events = deal_with(st, FixedDealer({"hand:1": order}))
    assert (events[0].leader, str(events[1].tile), events[1].auto) == (1, "6-5", True)


def test_equal_weight_leads_by_the_higher_end_6_3_before_5_4():
    st = waiting("standard-draw", overrides={"hand_size": 2})
    order = order_for(["5-4 1-0", "6-3 2-1"])
    events = deal_with(st, FixedDealer({"hand:1": order}))
    assert (events[0].leader, str(events[1].tile)) == (1, "6-3")


def test_the_first_deal_from_the_seed_is_the_shuffle_and_its_forced_lead():
    st = waiting("standard-draw")
    events = start_match(st, "boneyard-test-vector-1")
    order = shuffled_tiles("boneyard-test-vector-1", "hand:1")
    assert [list(h) for h in events[0].hands] == [order[:7], order[7:14]]
    assert list(events[0].boneyard) == order[14:]
    # seat 1 holds 3-3, the highest double dealt
    assert (events[0].leader, events[1].seat, str(events[1].tile), events[1].auto) == (1, 1, "3-3", True)


def test_winner_any_the_previous_winner_leads_any_tile():
    t = Table("winner-leads", ["6-6 6-1", "1-1"], "4-4 3-3", leader=1)
    t.do(Play(1, T("1-1"), "left"))  # seat 1 goes out
    start = t.log[-1]
    assert (start.type, start.hand_number, start.leader) == ("hand_started", 2, 1)
    assert t.state.turn == 1 and t.state.layout.is_empty
    assert len(legal_actions(t.state, 1)) == 7 and all(a["end"] == "left" for a in legal_actions(t.state, 1))
    order = shuffled_tiles(SEED, "hand:2")
    assert [list(h) for h in start.hands] == [order[:7], order[7:14]]
    lightest = min(t.state.hands[1], key=lambda x: x.pips)
    t.do(Play(1, lightest, "left"))  # not the highest double: any tile
    assert t.state.placements[0] == (1, lightest, 0)


def test_winner_any_after_a_tie_the_seat_with_fewer_tiles_leads():
    t = Table("winner-leads", ["6-6 3-2 0-0", "4-1"], "", leader=0)
    t.do(Play(0, T("6-6"), "left"))  # blocked: 5 pips each, seat 1 holds fewer tiles
    result = hand_ended(t)
    assert (result.winner, result.points) == (None, 0)
    assert t.log[-1].type == "hand_started" and t.log[-1].leader == 1


def test_winner_any_after_a_tie_with_equal_tiles_the_same_seat_leads_again():
    t = Table("winner-leads", ["3-2", "6-6 4-1"], "", leader=1)
    t.do(Play(1, T("6-6"), "left"))
    assert hand_ended(t).winner is None
    assert t.log[-1].type == "hand_started" and t.log[-1].leader == 1


def test_rotate_any_turns_up_tiles_then_the_heaviest_leads_any_tile():
    st = waiting("dominorules-draw", 3)
    events = start_match(st, "boneyard-test-vector-1")
    assert kinds(events) == ["tiles_turned_up", "hand_started"]
    assert [str(x) for x in events[0].tiles] == ["3-0", "2-1", "5-1"] and events[0].leader == 2
    assert events[1].leader == 2
    order = shuffled_tiles("boneyard-test-vector-1", "hand:1")  # reshuffled for the deal
    assert [list(h) for h in events[1].hands] == [order[:7], order[7:14], order[14:21]]
    after = replay(events, st)
    assert after.turn == 2 and after.layout.is_empty


def test_rotate_any_later_hands_are_led_by_the_next_seat_to_the_left():
    t = Table("dominorules-block", ["6-6", "5-5", "1-0"], leader=2)
    t.do(Play(2, T("1-0"), "left"))
    assert t.log[-1].type == "hand_started" and (t.log[-1].hand_number, t.log[-1].leader) == (2, 0)
    t2 = Table("dominorules-block", ["6-6", "5-5", "1-0"], leader=1)
    t2.do(Play(1, T("5-5"), "left"))
    assert (t2.log[-1].hand_number, t2.log[-1].leader) == (2, 2)


# --- partners and targets -----------------------------------------------------------------
def test_partners_turns_pass_left_and_points_go_to_the_side():
    t = Table("standard-draw", ["6-6 1-1", "6-5 2-2", "5-5", "4-4 3-3"], "", overrides={"partners": True})
    t.do(Play(0, T("6-6"), "left"))
    t.do(Play(1, T("6-5"), "left"))
    t.do(Play(2, T("5-5"), "left"))  # seat 2 goes out
    result = hand_ended(t)
    assert (result.reason, result.winner, result.side, result.points) == ("domino", 2, 0, 4 + 14)
    assert t.state.scores == [18, 0]


TARGET_CASES = [
    (p, n)
    for p in (
        "standard-draw",
        "standard-block",
        "pagat-draw",
        "pagat-block",
        "dominorules-draw",
        "dominorules-block",
        "winner-leads",
        "all-fives",
        "muggins",
    )
    for n in (2, 3)
    if not (p == "winner-leads" and n == 3)
]


@pytest.mark.parametrize("preset,players", TARGET_CASES)
@pytest.mark.parametrize("missing", [1, 0])
def test_the_match_ends_exactly_when_a_side_reaches_the_target(preset, players, missing):
    rules = resolve_rules(preset, {}, players)
    hands = ["1-0", "6-4 6-1", "3-2"][:players]  # seat 0 goes out
    points = {(False, 2): 17, (False, 3): 22, (True, 2): 15, (True, 3): 20}[(rules.round_to_five, players)]
    start = rules.target - points - missing
    t = Table(preset, hands, "", scores=[start] + [0] * (players - 1))
    t.do(Play(0, T("1-0"), "left"))
    assert hand_ended(t).points == points
    if missing:
        assert t.state.status == "playing" and t.log[-1].type != "match_ended"
        assert t.state.scores[0] == rules.target - 1
    else:
        last = t.log[-1]
        assert (last.type, last.winner, last.seed) == ("match_ended", 0, SEED)
        assert t.state.scores[0] == rules.target and t.state.status == "ended" and t.state.winner == 0


def test_a_fives_match_ends_mid_hand_by_a_scoring_play():
    t = Table("all-fives", ["5-5 1-0", "6-6 2-1"], "3-3 4-4", scores=[195, 0])
    events = t.do(Play(0, T("5-5"), "left"))
    assert kinds(events) == ["tile_played", "points_scored", "match_ended"]
    end = events[-1]
    assert (end.winner, list(end.scores), end.seed) == (0, [205, 0], SEED)
    assert [[str(x) for x in h] for h in end.hands] == [["1-0"], ["6-6", "2-1"]]
    assert t.state.status == "ended" and t.state.hand_live is False


# --- muggins calls ---------------------------------------------------------------------------
CALLS = {"muggins_calls": True}


def test_a_right_claim_scores():
    t = Table("all-fives", ["5-5 1-0", "6-6 2-1"], "3-3", overrides=CALLS)
    events = t.do(Play(0, T("5-5"), "left", claim=10))
    assert [(e.type, getattr(e, "points", None)) for e in events] == [("tile_played", None), ("points_scored", 10)]
    assert events[0].claim == 10 and t.state.scores == [10, 0]


def test_a_wrong_claim_is_refused():
    t = Table("all-fives", ["5-5 1-0", "6-6 2-1"], "3-3", overrides=CALLS)
    t.refuse(Play(0, T("5-5"), "left", claim=5), WrongClaim)
    t.refuse(Play(0, T("1-0"), "left", claim=5), WrongClaim)
    t.refuse(Play(0, T("5-5"), "left", claim=0), WrongClaim)


def test_a_missing_claim_leaves_the_points_to_an_opponents_muggins():
    t = Table("all-fives", ["5-5 1-0", "6-6 2-1"], "3-3", overrides=CALLS)
    events = t.do(Play(0, T("5-5"), "left"))
    assert kinds(events) == ["tile_played"] and t.state.scores == [0, 0]
    t.refuse(CallMuggins(0), NothingToMuggins)  # not your own points
    assert {"type": "muggins", "scores": 10} in legal_actions(t.state, 1)
    [event] = t.do(parse_action(1, {"type": "muggins", "scores": 10}))  # as listed: the hint is ignored
    assert (event.type, event.seat, event.side, event.points, event.how) == ("points_scored", 1, 1, 10, "muggins")
    assert t.state.scores == [0, 10]
    t.refuse(CallMuggins(1), NothingToMuggins)  # first caller only


def test_unclaimed_points_expire_when_the_next_tile_is_played():
    t = Table("all-fives", ["5-5 1-0", "5-1 2-1"], "3-3", overrides=CALLS)
    t.do(Play(0, T("5-5"), "left"))
    t.do(Play(1, T("5-1"), "left"))  # count 1 + 10 = 11
    t.refuse(CallMuggins(1), NothingToMuggins)
    t.refuse(CallMuggins(0), NothingToMuggins)


def test_a_partner_cannot_muggins():
    t = Table("all-fives", ["5-5 1-0", "5-1 2-1", "4-4 3-1", "0-0 2-0"], "", overrides={**CALLS, "partners": True})
    t.do(Play(0, T("5-5"), "left"))
    t.refuse(CallMuggins(2), NothingToMuggins)
    assert not [a for a in legal_actions(t.state, 2) if a["type"] == "muggins"]
    assert {"type": "muggins", "scores": 10} in legal_actions(t.state, 3)
    [event] = t.do(CallMuggins(3))
    assert (event.side, event.points) == (1, 10) and t.state.scores == [0, 10]


def test_scoring_plays_are_listed_with_their_points_and_under_muggins_calls_with_their_claim():
    t = Table("all-fives", ["5-5 4-1", "6-6 2-1"], "3-3")
    assert legal_actions(t.state, 0) == [
        {"type": "play", "tile": [5, 5], "end": "left", "scores": 10},
        {"type": "play", "tile": [4, 1], "end": "left", "scores": 5},
    ]
    t2 = Table("all-fives", ["5-5 4-1 2-1", "6-6 2-2"], "3-3", overrides=CALLS)
    listed = legal_actions(t2.state, 0)
    assert listed == [
        {"type": "play", "tile": [5, 5], "end": "left", "scores": 10, "claim": 10},
        {"type": "play", "tile": [4, 1], "end": "left", "scores": 5, "claim": 5},
        {"type": "play", "tile": [2, 1], "end": "left"},
    ]
    events = t2.do(parse_action(0, listed[0]))  # verbatim, claim and hint together
    assert [(e.type, getattr(e, "points", None)) for e in events] == [("tile_played", None), ("points_scored", 10)]
    assert events[0].claim == 10 and t2.state.scores == [10, 0] and t2.state.pending_muggins is None


def test_a_claim_without_muggins_calls_is_refused_by_the_rules_not_as_malformed():
    t = Table("all-fives", ["5-5 1-0", "6-6 2-1"], "3-3")
    with pytest.raises(ClaimNotAllowed) as refused:
        decide(t.state, parse_action(0, {"type": "play", "tile": [5, 5], "end": "left", "claim": 10}), SEED)
    assert isinstance(refused.value, IllegalAction) and refused.value.code == "claim_not_allowed"


def test_unlisted_spellings_under_muggins_calls_a_play_without_its_claim_and_a_claim_of_zero():
    t = Table("all-fives", ["5-5 1-0 2-1", "5-1 2-2 1-1"], "3-3", overrides=CALLS)
    [played] = t.do(parse_action(0, {"type": "play", "tile": [5, 5], "end": "left", "scores": 10}))
    assert played.claim is None and t.state.scores == [0, 0] and t.state.pending_muggins == (0, 10)
    t.do(CallMuggins(1))
    [played] = t.do(parse_action(1, {"type": "play", "tile": [5, 1], "end": "left", "claim": 0}))  # 1 + 10 = 11
    assert played.claim is None and t.state.scores == [0, 10] and t.state.pending_muggins is None


# --- convenient spellings of a play --------------------------------------------------------
def test_a_play_without_an_end_goes_on_the_only_end_it_fits_and_is_refused_when_ambiguous():
    t = Table("standard-draw", ["6-6 2-0 2-2", "6-1 1-1 4-4"], "0-0 5-2 5-1 4-3")
    t.do(Play(0, T("6-6"), "left"))
    t.refuse(parse_action(1, {"type": "play", "tile": [6, 1]}), EndRequired)  # fits left and right (both 6)
    [played] = t.do(parse_action(1, {"type": "play", "tile": [6, 1], "end": "right"}))[:1]
    assert played.end == "right" and t.state.layout.ends_dict() == {"left": 6, "right": 1}
    t.refuse(parse_action(0, {"type": "play", "tile": [2, 2]}), IllegalPlay)  # fits nowhere
    t.do(Draw(0))  # 0-0: fits nothing
    t.do(Draw(0))  # 5-2: fits nothing
    t.do(Draw(0))  # 5-1: fits the right end only
    [played] = t.do(parse_action(0, {"type": "play", "tile": [1, 5]}))[:1]
    assert played.end == "right" and played.tile == T("5-1")


def test_the_first_tile_of_a_hand_may_be_named_on_the_right_and_opens_the_line_on_the_left():
    t = Table("winner-leads", ["6-4 2-0 2-2", "6-1 1-1 4-4"], "0-0 5-2 5-1 4-3")
    if t.state.layout.tiles:
        pytest.skip("this table's lead is forced")
    leader = t.state.turn
    tile = t.state.hands[leader][0]
    [played] = t.do(Play(leader, tile, "right"))[:1]
    assert played.end == "left"
