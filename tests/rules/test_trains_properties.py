"""Whole trains matches played by random legal moves: they end, every tile is accounted for at
every step, the totals are the sums of the rounds' pips, the log replays and reads back, and
an 8-seat 13-round Mexican Train match fits the server's event limit."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import fields

import pytest

from api.rules.errors import InvalidAction
from api.rules.events import Event, RoundEnded, RoundStarted, event_from_dict
from api.rules.trains import Play, TrainsState, apply, hand_pips, legal_moves, new_state, play, replay, start
from api.rules.trains_board import MexicanTrainBoard
from api.rules.trains_rules import TrainsGame, trains_rules
from api.services.limits import WorkLimits


def _check_every_tile_accounted_for(state: TrainsState) -> None:
    on_table = [tile for tile, _ in state.placed]
    held = [tile for hand in state.hands for tile in hand]
    engine = state.engine
    counts = Counter([engine, *on_table, *held, *state.boneyard])
    assert counts == Counter(state.rules.tile_set.tiles)


def _check_the_cover_rule(state: TrainsState) -> None:
    board = state.board
    if isinstance(board, MexicanTrainBoard) and board.uncovered is not None:
        for move in legal_moves(state):
            if isinstance(move, Play):
                assert move.place == board.uncovered and not move.tile.is_double


def playout(game: TrainsGame, players: int, seed: int, **options: object) -> tuple[TrainsState, list[Event]]:
    rules = trains_rules(game, players, **options)  # type: ignore[arg-type]
    rng = random.Random(seed)
    deal_seed = f"playout-{seed}"
    state = new_state(rules)
    log = start(rules, deal_seed)
    for event in log:
        apply(state, event)
    while not state.is_over:
        moves = legal_moves(state)
        assert moves, "the seat to move always has a legal move"
        assert state.to_move is not None
        log += play(state, state.to_move, rng.choice(moves), deal_seed)
        if state.to_move is not None:
            _check_every_tile_accounted_for(state)
            _check_the_cover_rule(state)
        assert len(log) < 100_000, "a match ends"
    return state, log


@pytest.mark.parametrize("game", list(TrainsGame))
@pytest.mark.parametrize("players", [2, 4, 8])
@pytest.mark.parametrize("seed", [1, 2])
def test_random_matches_end_with_every_tile_accounted_for_and_totals_summed(game, players, seed):
    state, log = playout(game, players, seed)
    rules = state.rules
    started = [e for e in log if isinstance(e, RoundStarted)]
    ended = [e for e in log if isinstance(e, RoundEnded)]
    assert [e.engine for e in started] == [rules.top - r for r in range(rules.rounds)]
    assert [e.leader for e in started] == [r % players for r in range(rules.rounds)]
    assert len(ended) == rules.rounds
    assert state.totals == [sum(e.pips[s] for e in ended) for s in range(players)]
    assert state.winners == tuple(s for s in range(players) if state.totals[s] == min(state.totals))
    for e in ended:  # a round's winner went out: it adds 0
        assert e.winner is None or e.pips[e.winner] == 0


@pytest.mark.parametrize("players", [2, 4, 8])
def test_random_mexican_train_matches_without_the_cover_rule_end_and_sum_their_totals(players):
    state, log = playout(TrainsGame.MEXICAN_TRAIN, players, 11, double_must_be_covered=False)
    ended = [e for e in log if isinstance(e, RoundEnded)]
    assert len(ended) == 13
    assert state.totals == [sum(e.pips[s] for e in ended) for s in range(players)]


@pytest.mark.parametrize("game", list(TrainsGame))
def test_a_log_replays_to_the_same_state_and_reads_back_from_its_json(game):
    state, log = playout(game, 4, 3, rounds=3)
    assert [event_from_dict(e.to_dict()) for e in log] == log
    with pytest.raises(InvalidAction, match="malformed passed event"):
        event_from_dict({"type": "passed", "seat": True, "marker": False})
    with pytest.raises(InvalidAction, match="'train' is a seat number"):
        event_from_dict({"type": "tile_placed", "seat": 0, "tile": [1, 0], "train": "train:1"})
    again = replay(state.rules, log)
    assert (again.totals, again.round_pips, again.winners) == (state.totals, state.round_pips, state.winners)


@pytest.mark.parametrize("game", list(TrainsGame))
def test_event_by_event_every_tile_is_accounted_for_and_a_round_adds_the_pips_left_in_each_hand(game):
    played, log = playout(game, 3, 7, rounds=4, double_blank_points=50)
    rules = played.rules
    state = new_state(rules)
    for event in log:
        if isinstance(event, RoundEnded):
            assert event.pips == tuple(hand_pips(rules, hand) for hand in state.hands)
        apply(state, event)
        _check_every_tile_accounted_for(state)


EIGHT_SEAT_SEEDS = range(5)


def test_an_8_seat_13_round_mexican_train_match_takes_about_1300_events_far_below_the_20000_limit():
    counts = [len(playout(TrainsGame.MEXICAN_TRAIN, 8, seed)[1]) for seed in EIGHT_SEAT_SEEDS]
    limit = next(f.default for f in fields(WorkLimits) if f.name == "max_events_per_match")  # the server's default
    print(f"8 seats, 13 rounds, random play: {counts} events; the limit is {limit}")
    assert limit == 20_000
    assert all(800 <= count <= 2_500 for count in counts), counts
