"""A trains game inside a match's life: its commands, folds, legal actions and forced turns.

A match's life is the line games' and the trains games' alike (``match_created``, seats
claimed, turn clocks, a seat handed to a computer player, ``MatchState``'s status, turn and
scores); the game played is ``trains.py``'s, held in ``MatchState.trains``. Here the two meet:
the engine (``engine.py``) and the turn clocks (``clock.py``) hand a trains match's commands,
events and timed-out turns to these functions, which play them on ``MatchState.trains`` and
then mirror into the match what its life reads: whose turn it is, the round (as
``hand_number``), the totals (as ``scores``) and, at the end, the winner.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import errors, trains
from .events import (
    Event,
    MatchEnded,
    Passed,
    RoundEnded,
    RoundStarted,
    SeatReplaced,
    TileDrawn,
    TilePlaced,
    TurnTimedOut,
)
from .shuffle import deal_seed
from .state import ENDED, OPEN_SEAT, PLAYING, MatchState
from .trains_wire import place_to_wire
from .vocabulary import ActionType, BotLevel

REPLACEMENT_LEVEL = BotLevel.GREEDY  # a greedy player takes a seat over, as in the line games


def game(st: MatchState) -> trains.TrainsState:
    """The trains game of ``st`` (a trains match's, never None)."""
    assert st.trains is not None, "not a trains match"
    return st.trains


# --- commands -------------------------------------------------------------------------------
def start(st: MatchState, seed: str) -> list[Event]:
    """Round one's deal, once every seat is taken."""
    return trains.start(game(st).rules, deal_seed(seed, st.client_seeds))


def decide(st: MatchState, seat: int, move: trains.Move, seed: str, *, auto: bool = False) -> list[Event]:
    """The events ``seat``'s ``move`` causes (the round's end and the next deal or the match's
    end included), or a ``RulesError``; ``seed`` is the server's (revealed at the end)."""
    if isinstance(move, trains.Play):
        st.rules.set.check(move.tile)  # another set's tile is malformed here, not illegal
    return trains.decide(game(st), seat, move, deal_seed(seed, st.client_seeds), server_seed=seed, auto=auto)


def legal_actions(st: MatchState, seat: int | None) -> list[dict[str, Any]]:
    """The JSON actions ``seat`` may send now (openapi ``LegalAction``): plays naming their
    ``train`` as the view does, ``draw``, ``pass``; none for another seat than the one to move."""
    if seat is None or st.status != PLAYING or seat != st.turn:
        return []
    return [_action(move) for move in trains.legal_moves(game(st))]


def _action(move: trains.Move) -> dict[str, Any]:
    if isinstance(move, trains.Play):
        return {"type": ActionType.PLAY.value, "tile": move.tile.to_json(), "train": place_to_wire(move.place)}
    if isinstance(move, trains.Draw):
        return {"type": ActionType.DRAW.value}
    return {"type": ActionType.PASS.value}


# --- a timed-out turn -------------------------------------------------------------------------
def forced_move(state: trains.TrainsState) -> trains.Move:
    """What the server plays for a timed-out seat: the heaviest playable tile (equal weight: a
    double first, then the higher end; then the first place listed), else draw, else pass."""
    moves = trains.legal_moves(state)
    plays = [m for m in moves if isinstance(m, trains.Play)]
    if plays:
        # max keeps the first of equal keys: the first place listed
        return max(plays, key=lambda m: (m.tile.pips, m.tile.is_double, m.tile.high))
    return moves[0]  # draw, or pass


def time_out(st: MatchState, seat: int, seed: str) -> list[Event]:
    """The events of ``seat``'s timed-out turn: ``turn_timed_out``, the forced move (a drawn
    tile that fits is played at once, as any seat's; one that fits nowhere passes), and
    ``seat_replaced`` at the rule set's ``timeout_limit``. A Mexican Train double played so is
    covered on the seat's next turn, which has its own clock."""
    work = st.copy()
    events: list[Event] = []

    def emit(event: Event) -> None:
        if isinstance(event, TurnTimedOut):
            work.on_turn_timed_out(event.seat, event.consecutive)
        elif isinstance(event, SeatReplaced):
            work.on_seat_replaced(event.seat, event.level)
        else:
            FOLDS[type(event)](work, event)
        events.append(event)

    consecutive = work.timeouts[seat] + 1
    emit(TurnTimedOut(seat, consecutive))
    while True:
        decided = decide(work, seat, forced_move(game(work)), seed, auto=True)
        for event in decided:
            emit(event)
        if not isinstance(decided[-1], TileDrawn):
            break  # (after a draw that fits, the drawn tile is played now)
    limit = work.rules.timeout_limit
    if limit is not None and consecutive >= limit and work.status == PLAYING:
        emit(SeatReplaced(seat, REPLACEMENT_LEVEL))
    return events


# --- the folds --------------------------------------------------------------------------------
def _mirror(st: MatchState) -> None:
    """What the match's life reads of the game: status, turn, round, totals, the winner."""
    state = game(st)
    st.turn = state.to_move
    st.hand_number = state.round
    st.leader = state.rules.leader(state.round) if state.round else None
    st.scores = list(state.totals)
    if state.winners is not None:
        st.status = ENDED
        st.winner = state.winners[0]
        st.turn = None
    elif state.round:
        st.status = PLAYING
    st.hand_live = state.to_move is not None


def _played_by_seat(st: MatchState, event: Event) -> None:
    trains.apply(game(st), event)
    _mirror(st)
    if not getattr(event, "auto", True):
        st.on_seat_acted(event.seat)  # type: ignore[attr-defined]  # a seat's own move


def _fold_game(st: MatchState, event: Event) -> None:
    trains.apply(game(st), event)
    _mirror(st)


def _fold_round_started(st: MatchState, event: Event) -> None:
    if st.status == ENDED or any(s.get("type") == OPEN_SEAT for s in st.seats):
        raise errors.ImpossibleEvent("round_started: the match is not under way with every seat taken")
    _fold_game(st, event)


FOLDS: dict[type[Event], Callable[[MatchState, Any], None]] = {
    RoundStarted: _fold_round_started,
    TilePlaced: _played_by_seat,
    TileDrawn: _played_by_seat,
    Passed: _played_by_seat,
    RoundEnded: _fold_game,
    MatchEnded: _fold_game,
}


__all__ = [
    "FOLDS",
    "REPLACEMENT_LEVEL",
    "decide",
    "forced_move",
    "legal_actions",
    "start",
    "time_out",
]
