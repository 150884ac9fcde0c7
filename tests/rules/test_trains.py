"""The trains games' rules (the rule book's trains games, issue 34): options, deals, the worked examples,
markers, doubles to cover, chicken feet, draws, blocks, scoring and the match's end."""

from __future__ import annotations

import dataclasses

import pytest

from api.rules.board import MEXICAN, toe_place
from api.rules.errors import (
    BoneyardEmpty,
    IllegalPlay,
    ImpossibleEvent,
    InvalidRules,
    MatchNotStarted,
    MatchOver,
    MustDraw,
    MustPlay,
    NotYourTurn,
    TileNotInHand,
)
from api.rules.events import MatchEnded, Passed, RoundEnded, RoundStarted, TileDrawn, TilePlaced
from api.rules.shuffle import deal_label, shuffled_tiles
from api.rules.tiles import Tile
from api.rules.trains import (
    DRAW,
    PASS,
    Play,
    TrainsState,
    apply,
    deal,
    decide,
    hand_pips,
    is_certainly_blocked,
    legal_moves,
    lowest_totals,
    new_state,
    play,
    start,
)
from api.rules.trains_board import MexicanTrainBoard
from api.rules.trains_rules import TrainsGame, TrainsRules, trains_rules

MT, CF = TrainsGame.MEXICAN_TRAIN, TrainsGame.CHICKEN_FOOT
SEED = "trains-seed"


def match_end(totals: tuple[int, ...], winners: tuple[int, ...]) -> MatchEnded:
    """The match_ended a trains match writes (no server seed in these tests)."""
    return MatchEnded(winners[0], totals, "", (), winners)


def round_end(number: int, winner: int | None, pips: tuple[int, ...], totals: tuple[int, ...]) -> RoundEnded:
    """A round_ended without its hands, to compare with ``bare``."""
    return RoundEnded(number, winner, pips, totals, ())


def bare(events: list) -> list:
    """Round ends with their hands left out (each test checks the pips they give)."""
    return [dataclasses.replace(e, hands=()) if isinstance(e, RoundEnded) else e for e in events]


# --- helpers: a round dealt by hand, moves written briefly -------------------------------
def tiles(*texts: str) -> tuple[Tile, ...]:
    return tuple(Tile.parse(t) for t in texts)


def dealt(
    rules: TrainsRules, hands: list[tuple[Tile, ...]], boneyard: tuple[Tile, ...] = (), round_number: int = 1
) -> TrainsState:
    """A state at the start of a round dealt exactly as given (hands and boneyard)."""
    state = new_state(rules)
    engine = rules.engine(round_number)
    apply(state, RoundStarted(round_number, engine, rules.leader(round_number), tuple(hands), boneyard))
    return state


def filled(
    rules: TrainsRules, hands: list[tuple[Tile, ...]], boneyard_first: tuple[Tile, ...], avoid: dict[int, int]
) -> tuple[list[tuple[Tile, ...]], tuple[Tile, ...]]:
    """A whole deal of round 1: the given tiles, each hand filled up to ``hand_size`` in the
    set's canonical order (seat s skipping every tile showing ``avoid[s]``), the rest the
    boneyard after ``boneyard_first``."""
    engine = Tile(rules.top, rules.top)
    taken = {engine, *boneyard_first, *(t for hand in hands for t in hand)}
    rest = [t for t in rules.tile_set.tiles if t not in taken]
    full = []
    for seat, given in enumerate(hands):
        hand = list(given)
        for t in list(rest):
            if len(hand) == rules.hand_size:
                break
            if seat in avoid and t.has(avoid[seat]):
                continue
            hand.append(t)
            rest.remove(t)
        full.append(tuple(hand))
    return full, (*boneyard_first, *rest)


def mexican_board(state: TrainsState) -> MexicanTrainBoard:
    assert isinstance(state.board, MexicanTrainBoard)
    return state.board


def P(tile: str, place: str) -> Play:
    return Play(Tile.parse(tile), place)


# --- options -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("game", "hand_sizes"),
    [
        (MT, {2: 15, 3: 15, 4: 15, 5: 12, 6: 12, 7: 10, 8: 10}),
        (CF, {2: 15, 3: 11, 4: 11, 5: 8, 6: 8, 7: 6, 8: 6}),
    ],
)
def test_hand_sizes_by_player_count_are_the_rule_books(game, hand_sizes):
    assert {n: trains_rules(game, n).hand_size for n in range(2, 9)} == hand_sizes


def test_defaults_every_double_counted_down_and_the_presets_double_blank():
    mt, cf = trains_rules(MT, 4), trains_rules(CF, 4)
    assert (mt.rounds, mt.double_blank_points, mt.double_must_be_covered) == (13, 0, True)
    assert (cf.rounds, cf.double_blank_points) == (10, 50)
    assert [mt.engine(r) for r in (1, 2, 13)] == [12, 11, 0]
    assert [cf.engine(r) for r in (1, 10)] == [9, 0]
    assert [mt.leader(r) for r in (1, 2, 4, 5)] == [0, 1, 3, 0]


@pytest.mark.parametrize(
    ("game", "players", "options", "field"),
    [
        (MT, 1, {}, "players"),
        (MT, 9, {}, "players"),
        (MT, 4, {"rounds": 14}, "rounds"),
        (CF, 4, {"rounds": 11}, "rounds"),
        (MT, 4, {"rounds": 0}, "rounds"),
        (MT, 8, {"hand_size": 12}, "hand_size"),  # 96 tiles from the 90 dealt
        (MT, 2, {"hand_size": 0}, "hand_size"),
        (MT, 2, {"double_blank_points": 25}, "double_blank_points"),
        (CF, 2, {"double_must_be_covered": False}, "double_must_be_covered"),
    ],
)
def test_options_outside_the_rules_are_refused_by_field(game, players, options, field):
    with pytest.raises(InvalidRules) as refused:
        trains_rules(game, players, **options)
    assert refused.value.field == field


def test_fewer_rounds_play_the_top_engines():
    rules = trains_rules(MT, 2, rounds=3)
    assert [rules.engine(r) for r in range(1, rules.rounds + 1)] == [12, 11, 10]


# --- deals ---------------------------------------------------------------------------------
def test_a_round_deals_the_seeded_shuffle_with_the_engine_taken_out():
    rules = trains_rules(MT, 4)
    event = deal(rules, SEED, 2)
    order = [t for t in shuffled_tiles(SEED, deal_label(2), rules.tile_set) if t is not Tile(11, 11)]
    assert (event.round, event.engine, event.leader) == (2, 11, 1)
    assert [t for hand in event.hands for t in hand] + list(event.boneyard) == order
    assert [len(hand) for hand in event.hands] == [15, 15, 15, 15]
    assert len(event.boneyard) == 90 - 60
    assert deal(rules, SEED, 2) == event
    assert deal(rules, "another seed", 2) != event


def test_a_marked_train_is_open_to_all_an_unmarked_one_to_its_owner_and_mexican_to_all():
    rules = trains_rules(MT, 3)
    state = dealt(rules, [tiles("12-1", "2-3"), tiles("12-2", "1-4"), tiles("12-3", "4-5")])
    board = state.board
    assert isinstance(board, MexicanTrainBoard)
    assert legal_moves(state) == [P("12-1", "train:0"), P("12-1", MEXICAN)]
    assert [p for p, _ in board.places_open_to(1)] == ["train:1", MEXICAN]
    board.mark(0)
    assert [p for p, _ in board.places_open_to(1)] == ["train:0", "train:1", MEXICAN]


def test_a_pass_with_the_boneyard_empty_puts_a_marker_too():
    rules = trains_rules(MT, 2)
    state = dealt(rules, [tiles("12-1", "7-7"), tiles("12-2", "1-9")])
    play(state, 0, P("12-1", "train:0"), SEED)
    play(state, 1, P("12-2", "train:1"), SEED)
    assert legal_moves(state) == [PASS]
    assert play(state, 0, PASS, SEED) == [Passed(0, marker=True)]
    assert legal_moves(state) == [P("1-9", "train:0")]  # seat 0's train is open to seat 1 now


# --- doubles to cover ----------------------------------------------------------------------
def _uncovered_six(boneyard):
    """Three seats; seat 0 starts its train with 12-6 and, next turn, plays 6-6 holding no other 6."""
    rules = trains_rules(MT, 3)
    state = dealt(
        rules,
        [tiles("12-6", "6-6", "2-2", "1-0"), tiles("12-1", "6-3", "1-5", "8-8"), tiles("12-2", "6-4", "2-7")],
        tiles(*boneyard),
    )
    play(state, 0, P("12-6", "train:0"), SEED)
    play(state, 1, P("12-1", "train:1"), SEED)
    play(state, 2, P("12-2", MEXICAN), SEED)
    play(state, 0, P("6-6", "train:0"), SEED)
    return state


def test_the_player_of_a_double_who_cannot_cover_draws_and_plays_the_drawn_tile_if_it_covers():
    state = _uncovered_six(["6-0", "3-2"])
    assert state.to_move == 0 and legal_moves(state) == [DRAW]
    assert play(state, 0, DRAW, SEED) == [TileDrawn(0, Tile(6, 0))]
    assert legal_moves(state) == [P("6-0", "train:0")]  # the drawn tile, on the double only
    with pytest.raises(IllegalPlay):
        decide(state, 0, P("2-2", MEXICAN), SEED)
    play(state, 0, P("6-0", "train:0"), SEED)
    assert mexican_board(state).uncovered is None and state.to_move == 1


def test_an_uncovered_double_is_every_players_only_play_until_covered():
    state = _uncovered_six(["3-2", "9-9"])
    assert play(state, 0, DRAW, SEED) == [TileDrawn(0, Tile(3, 2)), Passed(0, marker=True)]
    # seat 1 could play 1-5 on its own train, but covering is its only legal play
    assert legal_moves(state) == [P("6-3", "train:0")]
    with pytest.raises(IllegalPlay):
        decide(state, 1, P("1-5", "train:1"), SEED)
    play(state, 1, P("6-3", "train:0"), SEED)
    board = state.board
    assert board.uncovered is None and board.trains["train:0"].marked  # seat 0's marker stays
    assert P("2-7", MEXICAN) in legal_moves(state)


def test_a_seat_that_cannot_cover_draws_then_passes_with_a_marker():
    """Two seats; seat 1 holds no 6 to cover seat 0's 6-6."""
    rules = trains_rules(MT, 2)
    state = dealt(rules, [tiles("12-6", "6-6", "0-1"), tiles("12-1", "1-5")], tiles("3-3", "9-2", "4-4"))
    play(state, 0, P("12-6", "train:0"), SEED)
    play(state, 1, P("12-1", "train:1"), SEED)
    play(state, 0, P("6-6", "train:0"), SEED)
    assert play(state, 0, DRAW, SEED) == [TileDrawn(0, Tile(3, 3)), Passed(0, marker=True)]
    assert legal_moves(state) == [DRAW]  # seat 1 may not play 1-5 on its own train
    assert play(state, 1, DRAW, SEED) == [TileDrawn(1, Tile(9, 2)), Passed(1, marker=True)]
    assert mexican_board(state).uncovered == "train:0"


def test_without_the_cover_rule_a_double_earns_one_more_tile_anywhere_open():
    rules = trains_rules(MT, 2, double_must_be_covered=False)
    state = dealt(rules, [tiles("12-6", "6-6", "12-3", "0-1"), tiles("12-1", "1-5")])
    play(state, 0, P("12-6", "train:0"), SEED)
    play(state, 1, P("12-1", "train:1"), SEED)
    play(state, 0, P("6-6", "train:0"), SEED)
    assert state.to_move == 0 and mexican_board(state).uncovered is None
    assert legal_moves(state) == [P("12-3", MEXICAN)]
    play(state, 0, P("12-3", MEXICAN), SEED)
    assert legal_moves(state) == [P("1-5", "train:1")]  # nobody must cover the 6-6


def test_a_double_as_the_last_tile_ends_the_round():
    rules = trains_rules(MT, 2, rounds=1)
    state = dealt(rules, [tiles("12-6", "6-6"), tiles("12-1", "1-5")])
    play(state, 0, P("12-6", "train:0"), SEED)
    play(state, 1, P("12-1", "train:1"), SEED)
    events = play(state, 0, P("6-6", "train:0"), SEED)
    assert bare(events)[1:] == [round_end(1, 0, (0, 6), (0, 6)), match_end((0, 6), (0,))]


# --- draws ---------------------------------------------------------------------------------
def test_a_drawn_tile_that_fits_is_played_at_once_where_the_player_chooses_and_only_it():
    rules = trains_rules(MT, 2)
    state = dealt(rules, [tiles("3-4", "5-6"), tiles("1-2")], tiles("12-7", "8-9"))
    assert legal_moves(state) == [DRAW]
    with pytest.raises(MustDraw):
        decide(state, 0, PASS, SEED)
    assert play(state, 0, DRAW, SEED) == [TileDrawn(0, Tile(12, 7))]
    assert legal_moves(state) == [P("12-7", "train:0"), P("12-7", MEXICAN)]
    with pytest.raises(IllegalPlay):
        decide(state, 0, P("3-4", "train:0"), SEED)
    with pytest.raises(MustPlay):
        decide(state, 0, DRAW, SEED)
    play(state, 0, P("12-7", MEXICAN), SEED)
    assert state.to_move == 1 and state.drawn is None


def test_refusals_name_what_is_wrong():
    rules = trains_rules(MT, 2)
    with pytest.raises(MatchNotStarted):
        decide(new_state(rules), 0, PASS, SEED)
    state = dealt(rules, [tiles("12-4", "7-7"), tiles("4-2")])
    with pytest.raises(NotYourTurn):
        decide(state, 1, PASS, SEED)
    with pytest.raises(TileNotInHand):
        decide(state, 0, P("12-5", "train:0"), SEED)
    with pytest.raises(IllegalPlay):
        decide(state, 0, P("12-4", "train:1"), SEED)  # seat 1's train carries no marker
    play(state, 0, P("12-4", "train:0"), SEED)
    with pytest.raises(BoneyardEmpty):
        decide(state, 1, DRAW, SEED)


def test_chicken_foot_passes_carry_no_marker():
    rules = trains_rules(CF, 2)
    state = dealt(rules, [tiles("9-1", "2-3"), tiles("5-6", "9-4")], tiles("0-0"))
    play(state, 0, P("9-1", "toe:9:0"), SEED)
    play(state, 1, P("9-4", "toe:9:1"), SEED)
    events = play(state, 0, DRAW, SEED)
    assert events[:2] == [TileDrawn(0, Tile(0, 0)), Passed(0, marker=False)]
    assert bare(events)[2] == round_end(1, None, (55, 11), (55, 11))  # no 9 left anywhere: blocked


# --- round ends, scoring, the match's end --------------------------------------------------
def test_a_certain_block_ends_the_round_at_once_without_a_winner():
    rules = trains_rules(MT, 2, rounds=1)
    state = dealt(rules, [tiles("12-3", "1-2"), tiles("4-5")])
    events = play(state, 0, P("12-3", "train:0"), SEED)
    assert bare(events)[1:] == [round_end(1, None, (3, 9), (3, 9)), match_end((3, 9), (0,))]
    assert state.is_over and legal_moves(state) == []
    with pytest.raises(MatchOver):
        decide(state, 1, PASS, SEED)


def test_a_stuck_table_is_not_blocked_while_a_pass_would_open_a_train_that_someone_can_play_on():
    rules = trains_rules(MT, 2, rounds=1)
    state = dealt(rules, [tiles("12-3", "1-2"), tiles("3-4")])
    play(state, 0, P("12-3", "train:0"), SEED)
    assert not is_certainly_blocked(state) and legal_moves(state) == [PASS]
    play(state, 1, PASS, SEED)
    play(state, 0, PASS, SEED)  # seat 0's train gets a marker: seat 1's 3-4 fits it
    events = play(state, 1, P("3-4", "train:0"), SEED)
    assert bare(events)[1] == round_end(1, 1, (3, 0), (3, 0))


def test_chicken_foot_blocks_when_no_hand_holds_the_toes_number():
    rules = trains_rules(CF, 2, rounds=1)
    state = dealt(rules, [tiles("9-1", "9-2", "1-1", "2-3"), tiles("9-4", "9-3", "2-5")])
    for seat, tile, side in ((0, "9-1", 0), (1, "9-4", 1), (0, "9-2", 2), (1, "9-3", 3)):
        play(state, seat, P(tile, toe_place(9, side)), SEED)
    events = play(state, 0, P("1-1", "toe:9:0"), SEED)  # its toes need 1s that nobody holds
    assert bare(events)[1] == round_end(1, None, (5, 7), (5, 7))


def test_equal_lowest_totals_share_the_win():
    assert lowest_totals([12, 7, 30, 7]) == (1, 3)
    rules = trains_rules(MT, 2, rounds=1)
    state = dealt(rules, [tiles("12-11", "1-2"), tiles("3-0")])
    events = play(state, 0, P("12-11", "train:0"), SEED)
    assert bare(events)[1:] == [round_end(1, None, (3, 3), (3, 3)), match_end((3, 3), (0, 1))]


@pytest.mark.parametrize(("points", "pips"), [(0, (2, 0)), (50, (52, 0))])
def test_double_blank_points_counts_a_double_blank_left_in_hand(points, pips):
    rules = trains_rules(MT, 2, rounds=1, double_blank_points=points)
    assert hand_pips(rules, tiles("0-0", "2-0")) == pips[0]
    state = dealt(rules, [tiles("0-0", "2-0", "12-4"), tiles("12-1")])
    play(state, 0, P("12-4", "train:0"), SEED)
    events = play(state, 1, P("12-1", "train:1"), SEED)
    assert bare(events)[1:] == [round_end(1, 1, pips, pips), match_end(pips, (1,))]


def test_a_round_ended_deals_the_next_with_the_next_engine_and_leader():
    rules = trains_rules(MT, 3, rounds=2)
    state = dealt(rules, [tiles("12-1"), tiles("2-2"), tiles("3-3")])
    events = play(state, 0, P("12-1", "train:0"), SEED)
    assert bare(events)[1] == round_end(1, 0, (0, 4, 6), (0, 4, 6))
    assert events[2] == deal(rules, SEED, 2)
    assert isinstance(events[2], RoundStarted) and (events[2].engine, events[2].leader) == (11, 1)
    assert state.round == 2 and state.to_move == 1 and state.totals == [0, 4, 6]


def test_start_deals_round_one():
    rules = trains_rules(CF, 4)
    assert start(rules, SEED) == [deal(rules, SEED, 1)]


# --- replaying a stored log checks it ----------------------------------------------------------
@pytest.mark.parametrize(
    ("forged", "why"),
    [
        (TilePlaced(0, Tile(12, 1), 1), "may not go on train 1"),  # seat 1's train is not marked
        (TilePlaced(1, Tile(12, 2), 1), "seat 0 is to move"),
        (TileDrawn(0, Tile(8, 9)), "may not draw"),  # seat 0 can play
        (Passed(0, marker=True), "may not pass"),
        (round_end(1, None, (13, 2), (13, 2)), "the round goes on"),
        (RoundStarted(2, 11, 1, ((), ()), ()), "round 2 now"),
    ],
)
def test_a_replayed_event_the_rules_could_not_have_given_is_refused(forged, why):
    rules = trains_rules(MT, 2)
    state = dealt(rules, [tiles("12-1", "7-6"), tiles("12-2")], tiles("8-9"))
    with pytest.raises(ImpossibleEvent, match=why):
        apply(state, forged)


def test_a_replayed_draw_must_be_the_boneyards_next_tile():
    rules = trains_rules(MT, 2)
    state = dealt(rules, [tiles("1-2"), tiles("12-2")], tiles("8-9", "3-3"))
    with pytest.raises(ImpossibleEvent, match="next tile"):
        apply(state, TileDrawn(0, Tile(3, 3)))
    apply(state, TileDrawn(0, Tile(8, 9)))
    with pytest.raises(ImpossibleEvent, match="a marker is Mexican Train's"):
        apply(state, Passed(0, marker=False))


HELD = ((Tile(1, 2),), (Tile(5, 4),))  # the hands left in the round these forgeries end


@pytest.mark.parametrize(
    ("forged", "why"),
    [
        (RoundEnded(1, None, (3, 9), (3, 8), HELD), "totals"),
        (RoundEnded(1, None, (3, 8), (3, 8), HELD), "pips"),
        (RoundEnded(1, None, (3, 9), (3, 9), ((Tile(1, 2),), ())), "the hands are not those held"),
        (round_end(1, 0, (3, 9), (3, 9)), "the round goes on"),  # seat 0 did not go out
    ],
)
def test_a_replayed_round_end_must_be_the_rounds_own(forged, why):
    rules = trains_rules(MT, 2, rounds=1)
    state = dealt(rules, [tiles("12-3", "1-2"), tiles("4-5")])
    apply(state, TilePlaced(0, Tile(12, 3), 0))  # a certain block
    with pytest.raises(ImpossibleEvent, match=why):
        apply(state, forged)
    apply(state, RoundEnded(1, None, (3, 9), (3, 9), HELD))
    with pytest.raises(ImpossibleEvent, match="not the match's end"):
        apply(state, match_end((3, 9), (0, 1)))
    apply(state, match_end((3, 9), (0,)))
    assert state.winners == (0,)
