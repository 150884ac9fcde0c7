"""Turn clocks, as rules: what happens when a seat lets its turn run out.

The engine knows no time. The services decide *that* a turn has timed out (the rule
set's ``turn_seconds`` has passed since the last event); ``time_out`` decides *what*
follows, deterministically, so an audit can re-run it from the log:

1. ``turn_timed_out`` (the seat, its timeouts in a row);
2. the seat's forced turn, as ordinary events marked ``auto``: draw one tile at a time
   while nothing fits and the rules allow drawing, then play the heaviest playable tile
   (equal weight: a double first, then the higher end; then the first end listed), or
   knock when still stuck;
3. with ``timeout_limit``, after that many timeouts in a row, ``seat_replaced``: a
   greedy bot plays the seat for the rest of the match;
4. the usual consequences (``settle``): the hand's end, the next deal, the match end.

A seat that moves by itself resets its count (``MatchState.on_seat_acted``).
"""

from __future__ import annotations

from . import errors, trains_match
from .engine import EventSink, check_live, check_turn, dealer_for, perform_play, settle
from .events import Event, SeatReplaced, TurnTimedOut
from .state import BOT_SEAT, MatchState
from .tiles import Tile
from .vocabulary import BotLevel

REPLACEMENT_LEVEL = BotLevel.GREEDY  # (the trains games' too: ``trains_match.REPLACEMENT_LEVEL``)


def forced_choice(st: MatchState, seat: int) -> tuple[Tile, int] | None:
    """The play a timed-out seat makes: the heaviest playable tile, or None when stuck."""
    options = st.playable(seat)
    if not options:
        return None
    # max keeps the first of equal keys, and ``playable`` lists each tile's ends in order.
    return max(options, key=lambda option: (option[0].pips, option[0].is_double, option[0].high))


def time_out(state: MatchState, seat: int, seed: str) -> list[Event]:
    """The events of ``seat``'s timed-out turn (consequences included)."""
    st = state.copy()
    check_live(st, seat)
    if not st.rules.turn_seconds:
        raise errors.IllegalAction("this match has no turn clock", code="no_turn_clock")
    check_turn(st, seat)
    if st.seats[seat].get("type") == BOT_SEAT:
        raise errors.IllegalAction("a computer player moves at once: its turn cannot time out", code="bot_seat")
    if st.trains is not None:
        return trains_match.time_out(st, seat, seed)
    rules = st.rules
    sink = EventSink(seed)
    consecutive = st.timeouts[seat] + 1
    sink.emit(st, TurnTimedOut(seat, consecutive))
    choice = forced_choice(st, seat)
    while choice is None and st.boneyard_drawable() and st.hand_outcome() is None:
        sink.draw(st, seat, True)
        choice = forced_choice(st, seat)
    if choice is not None:
        perform_play(st, sink, seat, choice[0], choice[1], auto=True)
    elif st.hand_outcome() is None:
        sink.knock(st, seat, True)
    # (else: the last draw left nobody able to move; settle ends the hand, as after any draw)
    if rules.timeout_limit is not None and consecutive >= rules.timeout_limit:
        sink.emit(st, SeatReplaced(seat, REPLACEMENT_LEVEL))
    settle(st, sink, dealer_for(st, seed))
    return sink.events


__all__ = ["REPLACEMENT_LEVEL", "forced_choice", "time_out"]
