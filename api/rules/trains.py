"""The trains games' match (issue 34): its state, the commands decided into events, the folds.

As the line games' engine does, a command is *decided* into events (``decide``, pure: the
state is left as it was) and every event is *folded* into the state by the one fold function
of its type (``apply``), so a state is its log folded from ``new_state`` (``replay``). The
server knows the whole deal, so a draw is decided into the tile it gives, and a command that
ends a round carries the rest of it: the round's end, then the next deal or the match's end.

The flow (the rule book's trains games, issue 34): the seat to move plays one tile on a place open to it; a
seat that cannot play draws one tile while the boneyard has any, and that tile alone may then
be played (if it fits nowhere, the seat passes at once); with the boneyard empty a stuck seat
passes. In Mexican Train a pass puts a marker on the seat's own train, and a double earns its
player one more tile (which must cover it, with ``double_must_be_covered``); in Chicken Foot
the board requires the engine's four sides and a double's three toes before anything else,
and the player of a double does not play again. A round ends when a seat goes out or when a
block is certain; after the last round the lowest total wins, shared on a tie.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from .board import Place, train_place
from .errors import (
    BoneyardEmpty,
    IllegalPlay,
    ImpossibleEvent,
    MatchNotStarted,
    MatchOver,
    MustDraw,
    MustPlay,
    NotYourTurn,
    TileNotInHand,
)
from .events import Event, MatchEnded, Passed, RoundEnded, RoundStarted, TileDrawn, TilePlaced
from .shuffle import deal_label, shuffled_tiles
from .tiles import Tile
from .trains_board import ChickenFootBoard, MexicanTrainBoard, TrainsBoard
from .trains_rules import TrainsGame, TrainsRules
from .trains_wire import place_from_wire, place_to_wire

DOUBLE_BLANK = Tile(0, 0)


# --- moves ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Play:
    tile: Tile
    place: Place


@dataclass(frozen=True)
class Draw:
    pass


@dataclass(frozen=True)
class Pass:
    pass


Move = Play | Draw | Pass
DRAW = Draw()
PASS = Pass()


# --- the state ------------------------------------------------------------------------------
@dataclass
class TrainsState:
    rules: TrainsRules
    round: int = 0  # 0: not dealt yet
    board: TrainsBoard | None = None
    hands: list[list[Tile]] = field(default_factory=list)
    boneyard: list[Tile] = field(default_factory=list)  # in draw order
    placed: list[tuple[Tile, Place]] = field(default_factory=list)  # this round's, in play order
    to_move: int | None = None  # None: no round in play
    drawn: Tile | None = None  # the tile the seat to move drew this turn: the only one it may play
    totals: list[int] = field(default_factory=list)
    round_pips: list[tuple[int, ...]] = field(default_factory=list)  # per round ended, per seat
    winners: tuple[int, ...] | None = None  # set when the match has ended
    last_round: RoundEnded | None = None  # the last round's end (the views' ``last_round``)

    @property
    def is_over(self) -> bool:
        return self.winners is not None

    @property
    def engine(self) -> Tile:
        """The engine double of the round in play (or last played)."""
        assert self.round, "no round dealt yet"
        number = self.rules.engine(self.round)
        return Tile(number, number)

    def copy(self) -> TrainsState:
        return TrainsState(
            self.rules,
            self.round,
            None if self.board is None else self.board.copy(),
            [list(hand) for hand in self.hands],
            list(self.boneyard),
            list(self.placed),
            self.to_move,
            self.drawn,
            list(self.totals),
            list(self.round_pips),
            self.winners,
            self.last_round,
        )

    def describe_board(self) -> dict[str, Any]:
        assert self.board is not None
        return self.board.describe(self.placed)


def new_state(rules: TrainsRules) -> TrainsState:
    return TrainsState(rules, totals=[0] * rules.players)


def _new_board(rules: TrainsRules, engine: int) -> TrainsBoard:
    if rules.game is TrainsGame.MEXICAN_TRAIN:
        return MexicanTrainBoard(rules.players, engine, cover_doubles=rules.double_must_be_covered)
    return ChickenFootBoard(engine)


# --- the folds: one per event type ----------------------------------------------------------
# A fold refuses an event the rules could not have given (``ImpossibleEvent``), so that a
# stored log is checked as it is replayed, as the line games' are.
def _require(condition: bool, event: Event, why: str) -> None:
    if not condition:
        raise ImpossibleEvent(f"{event.type}: {why}")


def _fold_round_started(state: TrainsState, event: RoundStarted) -> None:
    rules, number = state.rules, event.round
    _require(state.to_move is None and not state.is_over and number == state.round + 1, event, f"round {number} now")
    _require(number <= rules.rounds, event, f"the match plays {rules.rounds} rounds")
    _require((event.engine, event.leader) == (rules.engine(number), rules.leader(number)), event, "engine or leader")
    state.round = event.round
    state.board = _new_board(state.rules, event.engine)
    state.hands = [list(hand) for hand in event.hands]
    state.boneyard = list(event.boneyard)
    state.placed = []
    state.to_move = event.leader
    state.drawn = None


def _fold_tile_placed(state: TrainsState, event: TilePlaced) -> None:
    board = state.board
    _require(board is not None and state.to_move is not None, event, "no round is in play")
    assert board is not None
    seat, tile, place = event.seat, event.tile, place_from_wire(event.train)
    _require(seat == state.to_move, event, f"seat {state.to_move} is to move, not {seat}")
    _require(Play(tile, place) in legal_moves(state), event, f"{tile} may not go on train {event.train}")
    state.hands[seat].remove(tile)
    board.put(tile, place)
    state.placed.append((tile, place))
    state.drawn = None
    if isinstance(board, MexicanTrainBoard):
        if place == train_place(seat):
            board.unmark(seat)  # the owner played on its own train: the marker goes
        if tile.is_double:
            return  # a double earns its player one more tile: the same seat moves again
    state.to_move = (seat + 1) % state.rules.players


def _fold_tile_drawn(state: TrainsState, event: TileDrawn) -> None:
    _require(event.seat == state.to_move and legal_moves(state) == [DRAW], event, f"seat {event.seat} may not draw")
    _require(
        event.tile is None or state.boneyard[0] is event.tile, event, f"{event.tile} is not the boneyard's next tile"
    )
    tile = state.boneyard.pop(0)  # (a redacted copy names no tile: the boneyard's next is it)
    state.hands[event.seat].append(tile)
    state.drawn = tile


def _fold_passed(state: TrainsState, event: Passed) -> None:
    seat = event.seat
    stuck = legal_moves(state) == [PASS] or (state.drawn is not None and not legal_moves(state))
    _require(seat == state.to_move and stuck, event, f"seat {seat} may not pass")
    _require(event.marker == (state.rules.game is TrainsGame.MEXICAN_TRAIN), event, "a marker is Mexican Train's")
    if event.marker:
        assert isinstance(state.board, MexicanTrainBoard)
        state.board.mark(event.seat)
    state.drawn = None
    state.to_move = (event.seat + 1) % state.rules.players


def _fold_round_ended(state: TrainsState, event: RoundEnded) -> None:
    ended = is_certainly_blocked(state) if event.winner is None else not state.hands[event.winner]
    _require(state.to_move is not None and event.round == state.round and ended, event, "the round goes on")
    _require(event.pips == tuple(hand_pips(state.rules, hand) for hand in state.hands), event, "pips")
    _require(event.hands == tuple(tuple(hand) for hand in state.hands), event, "the hands are not those held")
    added = [total + pips for total, pips in zip(state.totals, event.pips, strict=True)]
    _require(list(event.totals) == added, event, "the totals are not the last totals plus the pips")
    state.totals = list(event.totals)
    state.round_pips.append(event.pips)
    state.last_round = event
    state.to_move = None
    state.drawn = None


def _fold_match_ended(state: TrainsState, event: MatchEnded) -> None:
    over = state.to_move is None and state.round == state.rules.rounds and list(event.scores) == state.totals
    winners = lowest_totals(state.totals)
    _require(over and event.winners == winners and event.winner == winners[0], event, "not the match's end")
    state.winners = winners


_FOLDS: dict[type[Event], Callable[[TrainsState, Any], None]] = {
    RoundStarted: _fold_round_started,
    TilePlaced: _fold_tile_placed,
    TileDrawn: _fold_tile_drawn,
    Passed: _fold_passed,
    RoundEnded: _fold_round_ended,
    MatchEnded: _fold_match_ended,
}


def apply(state: TrainsState, event: Event) -> None:
    """Fold one event into ``state`` (in place)."""
    _FOLDS[type(event)](state, event)


def replay(rules: TrainsRules, events: Iterable[Event]) -> TrainsState:
    state = new_state(rules)
    for event in events:
        apply(state, event)
    return state


# --- the questions --------------------------------------------------------------------------
def places_for(state: TrainsState, tile: Tile, seat: int) -> list[Place]:
    """Where ``seat`` may put ``tile`` now."""
    board = state.board
    assert board is not None
    if isinstance(board, MexicanTrainBoard):
        return board.places_for_seat(tile, seat)
    return board.places_for(tile)


def legal_moves(state: TrainsState) -> list[Move]:
    """Every move the seat to move may make (empty between rounds and after the match)."""
    seat = state.to_move
    if seat is None:
        return []
    if state.drawn is not None:
        return [Play(state.drawn, place) for place in places_for(state, state.drawn, seat)]
    plays: list[Move] = [Play(tile, place) for tile in state.hands[seat] for place in places_for(state, tile, seat)]
    if plays:
        return plays
    return [DRAW] if state.boneyard else [PASS]


def is_certainly_blocked(state: TrainsState) -> bool:
    """No one can play or draw, whatever anyone does: the boneyard is empty and no tile in any
    hand shows a number that play could still reach (``reachable_numbers`` of the board)."""
    if state.boneyard or state.board is None:
        return False
    reachable = state.board.reachable_numbers()
    return not any(tile.high in reachable or tile.low in reachable for hand in state.hands for tile in hand)


def hand_pips(rules: TrainsRules, hand: Iterable[Tile]) -> int:
    """What a hand left at a round's end adds to its seat's total (``double_blank_points``)."""
    return sum(rules.double_blank_points if tile is DOUBLE_BLANK else tile.pips for tile in hand)


def lowest_totals(totals: Iterable[int]) -> tuple[int, ...]:
    """The seats with the lowest total: the match's winners (a tie shares the win)."""
    totals = list(totals)
    best = min(totals)
    return tuple(seat for seat, total in enumerate(totals) if total == best)


# --- the commands ---------------------------------------------------------------------------
def deal(rules: TrainsRules, seed: str, round_number: int) -> RoundStarted:
    """Round r's deal: the set shuffled by the seed and the label ``hand:<r>``
    (``shuffle.deal_label``), the engine taken out of that order, then seat s takes the s-th
    run of ``hand_size`` and the rest is the boneyard in draw order."""
    engine = rules.engine(round_number)
    engine_tile = Tile(engine, engine)
    order = [t for t in shuffled_tiles(seed, deal_label(round_number), rules.tile_set) if t is not engine_tile]
    n = rules.hand_size
    hands = tuple(tuple(order[s * n : (s + 1) * n]) for s in range(rules.players))
    return RoundStarted(round_number, engine, rules.leader(round_number), hands, tuple(order[rules.players * n :]))


class _Decision:
    """The events of one command, each folded into a scratch copy as it is decided."""

    def __init__(self, state: TrainsState) -> None:
        self.state = state.copy()
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        apply(self.state, event)
        self.events.append(event)


def start(rules: TrainsRules, seed: str) -> list[Event]:
    """The events that begin a match: round 1's deal.

    No round starts blocked: every tile showing the engine's number is in a hand or the
    boneyard, and the engine's number is the one every place shows."""
    return [deal(rules, seed, 1)]


def _end_round(decision: _Decision, seed: str, server_seed: str, winner: int | None) -> None:
    state = decision.state
    rules = state.rules
    pips = tuple(hand_pips(rules, hand) for hand in state.hands)
    totals = tuple(total + p for total, p in zip(state.totals, pips, strict=True))
    decision.emit(RoundEnded(state.round, winner, pips, totals, tuple(tuple(hand) for hand in state.hands)))
    if state.round < rules.rounds:
        decision.emit(deal(rules, seed, state.round + 1))  # (never blocked at once: see ``start``)
    else:
        winners = lowest_totals(totals)
        decision.emit(MatchEnded(winners[0], totals, server_seed, (), winners))


def _check(state: TrainsState, seat: int, move: Move, legal: list[Move]) -> None:
    if not state.round:
        raise MatchNotStarted("no round has been dealt")
    if state.is_over:
        raise MatchOver("the match is over")
    if seat != state.to_move:
        raise NotYourTurn(f"seat {state.to_move} is to move")
    if move in legal:
        return
    if isinstance(move, Play):
        if move.tile not in state.hands[seat]:
            raise TileNotInHand(f"seat {seat} holds no {move.tile}")
        if state.drawn is not None:
            raise IllegalPlay(f"after a draw only the drawn tile {state.drawn} may be played")
        raise IllegalPlay(f"{move.tile} may not go on {move.place} now")
    if isinstance(move, Draw) and state.drawn is None and not state.boneyard:
        raise BoneyardEmpty("the boneyard is empty")
    if isinstance(move, Pass) and legal == [DRAW]:
        raise MustDraw(f"seat {seat} cannot play and must draw before passing")
    raise MustPlay(f"seat {seat} must play {'the tile it drew' if state.drawn is not None else 'a tile'}")


def decide(
    state: TrainsState, seat: int, move: Move, seed: str, *, server_seed: str = "", auto: bool = False
) -> list[Event]:
    """The events ``seat``'s ``move`` gives (``state`` is left as it was). ``seed`` deals the
    next round when this move ends one; ``server_seed`` is revealed when it ends the match;
    ``auto``: the server moves for the seat (a timed-out turn)."""
    _check(state, seat, move, legal_moves(state))
    decision = _Decision(state)
    marker = state.rules.game is TrainsGame.MEXICAN_TRAIN
    if isinstance(move, Play):
        decision.emit(TilePlaced(seat, move.tile, place_to_wire(move.place), auto))
        if not decision.state.hands[seat]:
            _end_round(decision, seed, server_seed, winner=seat)
            return decision.events
    elif isinstance(move, Draw):
        tile = decision.state.boneyard[0]
        decision.emit(TileDrawn(seat, tile, auto))
        if places_for(decision.state, tile, seat):
            return decision.events  # the drawn tile fits: the seat plays it next
        decision.emit(Passed(seat, marker, auto))
    else:
        decision.emit(Passed(seat, marker, auto))
    if is_certainly_blocked(decision.state):
        _end_round(decision, seed, server_seed, winner=None)
    return decision.events


def play(state: TrainsState, seat: int, move: Move, seed: str, *, server_seed: str = "") -> list[Event]:
    """Decide ``move`` and fold its events into ``state``; returns the events."""
    events = decide(state, seat, move, seed, server_seed=server_seed)
    for event in events:
        apply(state, event)
    return events


__all__ = [
    "DRAW",
    "PASS",
    "Draw",
    "Move",
    "Pass",
    "Play",
    "TrainsState",
    "apply",
    "deal",
    "decide",
    "hand_pips",
    "is_certainly_blocked",
    "legal_moves",
    "lowest_totals",
    "new_state",
    "places_for",
    "play",
    "replay",
    "start",
]
