"""The fast path: play moves and whole hands without building event objects.

Bots run thousands of playouts per decision. They copy a ``MatchState`` once and push
moves (plain tuples from ``MatchState.legal_moves``) into it; the consequences run
through the same ``settle`` as the event-sourced engine, with a sink that changes the
state directly. Same rule code, no events, no JSON.
"""

from __future__ import annotations

import random

from .engine import Dealer, RandomDealer, deal_next_hand, perform_play, settle
from .events import HandResult
from .ruleset import RuleSet
from .state import DRAW, KNOCK, MUGGINS, PLAY, PLAYING, MatchState, Move
from .tiles import Tile
from .vocabulary import BotLevel, ScoredBy, SeatKind


class DirectSink:
    """Applies each consequence straight to the state (the fold's effects, minus events)."""

    def play(self, st: MatchState, seat: int, tile: Tile, end: int, claim: int | None, auto: bool) -> None:
        st.on_tile_played(seat, tile, end, claim)

    def draw(self, st: MatchState, seat: int, auto: bool) -> None:
        st.on_tile_drawn(seat)

    def knock(self, st: MatchState, seat: int, auto: bool) -> None:
        st.on_knocked(seat)

    def points(self, st: MatchState, seat: int, points: int, how: ScoredBy) -> None:
        st.on_points_scored(st.rules.side_of(seat), points)

    def turned_up(self, st: MatchState, tiles: list[Tile], leader: int) -> None:
        st.on_tiles_turned_up(leader)

    def hand_started(
        self, st: MatchState, number: int, leader: int, hands: list[list[Tile]], boneyard: list[Tile]
    ) -> None:
        st.on_hand_started(number, leader, hands, boneyard)

    def hand_ended(self, st: MatchState, result: HandResult) -> None:
        st.on_hand_ended(result)

    def match_ended(self, st: MatchState, side: int) -> None:
        st.on_match_ended(side)


SINK = DirectSink()


def push(st: MatchState, move: Move, dealer: Dealer | None = None, seat: int | None = None) -> None:
    """Make ``move`` in place (trusted: it came from ``legal_moves``), then its consequences.

    Without a ``dealer`` the simulation stops at the end of the hand.
    """
    kind = move[0]
    mover: int = st.turn if seat is None else seat  # type: ignore[assignment]  # a legal move: a seat moves
    if kind == PLAY:
        if st.rules.scores_the_count:
            perform_play(st, SINK, mover, move[1], move[2], auto=True)
        else:
            # perform_play without end_count_scoring (and so without muggins_calls) is exactly
            # the sink's play; calling the effect directly saves two calls per move.
            st.on_tile_played(mover, move[1], move[2], None)
    elif kind == DRAW:
        st.on_tile_drawn(mover)  # = SINK.draw
    elif kind == KNOCK:
        st.on_knocked(mover)  # = SINK.knock
        if not (st.rules.auto_draw or st.rules.auto_knock):
            return  # a knock changes nothing that could end the hand
    elif kind == MUGGINS:
        pending = st.pending_muggins
        assert pending is not None  # a legal muggins move: points are pending
        SINK.points(st, mover, pending[1], ScoredBy.MUGGINS)
    settle(st, SINK, dealer, dealer is not None)


def start(st: MatchState, rng: random.Random) -> RandomDealer:
    """Deal the first hand of a waiting state from ``rng``; returns the dealer to continue with."""
    dealer = RandomDealer(rng, st.rules.set)
    deal_next_hand(st, SINK, dealer)
    settle(st, SINK, dealer)
    return dealer


def random_playout(st: MatchState, rng: random.Random, *, whole_match: bool = False) -> MatchState:
    """Play uniformly random legal moves until the hand (or the match) ends; ``st`` changes."""
    dealer = RandomDealer(rng, st.rules.set) if whole_match else None
    if st.rules.scores_the_count:
        choice = rng.choice
        legal_moves = st.legal_moves
        while st.status == PLAYING and (st.hand_live or whole_match):
            push(st, choice(legal_moves()), dealer)
        return st
    # Line games score nothing during play: push's body, inlined (one call fewer per move).
    # ``turn_moves`` is ``legal_moves()`` minus the checks that the hand is live, which
    # ``live`` already answers; it only changes after ``settle``.
    on_tile_played, on_knocked, on_tile_drawn = st.on_tile_played, st.on_knocked, st.on_tile_drawn
    turn_moves, hand_outcome = st.turn_moves, st.hand_outcome
    next_hands = dealer is not None
    # A knock only passes the turn: the hand cannot end by it, so settle has nothing to do
    # unless automatic draws or knocks may follow for the next seat.
    auto = st.rules.auto_draw or st.rules.auto_knock
    uniform = rng.random  # moves[int(uniform() * n)]: choice() without its checks
    live = st.status == PLAYING and (st.hand_live or whole_match)
    while live:
        moves = turn_moves()
        move = moves[int(uniform() * len(moves))]
        kind = move[0]
        # (st.turn is a seat while the hand is live; read in each branch, not kept in a local:
        # one store and load fewer a move, which the playout benchmark can tell.)
        if kind == PLAY:
            on_tile_played(st.turn, move[1], move[2], None)  # type: ignore[arg-type]
        elif kind == KNOCK:
            on_knocked(st.turn)  # type: ignore[arg-type]
            if not auto:
                continue
        else:
            on_tile_drawn(st.turn)  # type: ignore[arg-type]
        if auto:
            settle(st, SINK, dealer, next_hands)
        else:
            # settle's first question, asked here: most moves end nothing and need no settling.
            # (No side can be at the target here: line games score only when a hand ends.)
            result = hand_outcome()
            if result is None:
                continue
            SINK.hand_ended(st, result)
            settle(st, SINK, dealer, next_hands)
        live = st.status == PLAYING and (st.hand_live or whole_match)
    return st


def random_match(rules: RuleSet, rng: random.Random) -> MatchState:
    """A whole match of random moves, from the first deal to the winner."""
    seats = [{"name": f"p{i}", "type": SeatKind.BOT, "level": BotLevel.RANDOM} for i in range(rules.players)]
    st = MatchState(rules, seats)
    start(st, rng)
    return random_playout(st, rng, whole_match=True)
