"""Commands decide, events record, state is a fold.

``decide(state, command, seed)`` checks a command against a state and returns the
events it causes, consequences included (the hand end, the next deal and its forced
lead, automatic draws and knocks, the match end), or raises a precise ``RulesError``.
``apply`` and ``replay`` fold events into states. The flow of play after a move lives
in ``settle``, written once against a *sink*: the event sink here records events and
folds them; the fast simulation path (``simulate``) passes a sink that changes the
state directly, so bots' playouts run the same rules without building events.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Protocol, TypeVar

from . import errors, trains, trains_match
from .board import Place
from .errors import ImpossibleEvent, ReplayError
from .events import (
    Event,
    HandEnded,
    HandResult,
    HandStarted,
    Knocked,
    MatchCreated,
    MatchEnded,
    Passed,
    PointsScored,
    RoundEnded,
    RoundStarted,
    SeatClaimed,
    SeatReplaced,
    TileDrawn,
    TilePlaced,
    TilePlayed,
    TilesTurnedUp,
    TurnTimedOut,
)
from .layout import END_INDEX, END_NAMES, LEFT, RIGHT
from .ruleset import RuleSet
from .scoring import count_points, credited
from .shuffle import TURN_UP_LABEL, algorithm_for, deal_label, deal_seed, seed_commitment, shuffled_tiles
from .state import (
    DRAW,
    ENDED,
    MUGGINS,
    OPEN_SEAT,
    PLAY,
    PLAYING,
    WAITING,
    MatchState,
    Move,
    deal,
    turn_up_leader,
)
from .tiles import Tile, TileSet
from .trains_wire import place_from_wire
from .vocabulary import ActionType, DrawUntil, End, EndCountScoring, Lead, ScoredBy


# --- commands -------------------------------------------------------------------------
@dataclass(frozen=True)
class Play:
    """Place ``tile`` on ``end``. ``end`` may be None when the tile fits one end only;
    the first tile of a hand opens the line whichever of left/right (or None) is named."""

    seat: int
    tile: Tile
    end: End | None
    claim: int | None = None


@dataclass(frozen=True)
class Draw:
    seat: int
    until_playable: bool = False


@dataclass(frozen=True)
class Knock:
    seat: int


@dataclass(frozen=True)
class CallMuggins:
    seat: int


@dataclass(frozen=True)
class PlaceTile:
    """The trains games' play: ``tile`` on the train (or chicken-foot arm) ``place``."""

    seat: int
    tile: Tile
    place: Place


@dataclass(frozen=True)
class Pass:
    """The trains games: a seat that cannot play (and cannot draw) ends its turn."""

    seat: int


Command = Play | Draw | Knock | CallMuggins | PlaceTile | Pass

# The fields each action type may carry: the one home of the action shapes (the HTTP
# request schemas are checked against it).
ACTION_FIELDS: Mapping[ActionType, frozenset[str]] = MappingProxyType(
    {
        ActionType.PLAY: frozenset({"type", "tile", "end", "claim", "scores", "train"}),
        ActionType.DRAW: frozenset({"type", "until"}),
        ActionType.KNOCK: frozenset({"type"}),
        ActionType.MUGGINS: frozenset({"type", "scores"}),
        ActionType.PASS: frozenset({"type"}),
    }
)


def parse_action(seat: int, action: Any) -> Command:
    """Read an action in its JSON form (``{"type": "play", "tile": [6, 4], "end": "left"}``).

    A listed legal action is accepted verbatim: its ``scores`` hint (on a play or a muggins
    call) is read and ignored, since the server counts for itself; a play's ``claim`` is kept.
    """
    if not isinstance(action, dict):
        raise errors.InvalidAction("an action is an object with a 'type'")
    kind = _word(ActionType, action.get("type"))
    if kind is None:
        raise errors.InvalidAction(f"unknown action type {action.get('type')!r}; one of {', '.join(ActionType)}")
    unknown = set(action) - ACTION_FIELDS[kind]
    if unknown:
        raise errors.InvalidAction(f"unknown field(s) for {kind}: {', '.join(sorted(unknown))}")
    if kind == ActionType.PLAY:
        if "tile" not in action:
            raise errors.InvalidAction("a play names its 'tile'")
        tile = Tile.from_json(action["tile"])
        if "train" in action:  # the trains games' play
            for line_field in ("end", "claim", "scores"):
                if line_field in action:
                    raise errors.InvalidAction(f"a play on a train names no {line_field!r} (the line games' field)")
            return PlaceTile(seat, tile, place_from_wire(action["train"]))
        end = _word(End, action.get("end"))
        if end is None and action.get("end") is not None:
            raise errors.InvalidAction(f"unknown end {action.get('end')!r}; one of {', '.join(END_NAMES)}")
        claim = action.get("claim")
        if claim is not None and (not isinstance(claim, int) or isinstance(claim, bool) or claim < 0):
            raise errors.InvalidAction("a claim is a whole number of points")
        return Play(seat, tile, end, claim)
    if kind == ActionType.DRAW:
        until = action.get("until")
        if until is not None and _word(DrawUntil, until) is None:
            raise errors.InvalidAction("'until' may only be \"playable\"")
        return Draw(seat, until is not None)
    if kind == ActionType.KNOCK:
        return Knock(seat)
    if kind == ActionType.PASS:
        return Pass(seat)
    return CallMuggins(seat)


_Word = TypeVar("_Word", ActionType, End, DrawUntil)


def _word(words: type[_Word], value: object) -> _Word | None:
    """The member of ``words`` that ``value`` spells, or None (any other value, of any type)."""
    if not isinstance(value, str):
        return None
    try:
        return words(value)
    except ValueError:
        return None


def move_to_action(move: Move) -> dict[str, Any]:
    """The JSON form of a fast-path move tuple."""
    if move[0] == PLAY:
        return {"type": PLAY, "tile": move[1].to_json(), "end": END_NAMES[move[2]]}
    return {"type": move[0]}


# --- dealers: where the next hand's tiles come from ------------------------------------
class Dealer(Protocol):
    def shuffle(self, label: str) -> list[Tile]: ...


class SeedDealer:
    """The real thing: the seeded shuffle (``shuffle.algorithm_for`` the set) over the match seed."""

    def __init__(self, seed: str, tile_set: TileSet) -> None:
        self.seed = seed
        self.tile_set = tile_set

    def shuffle(self, label: str) -> list[Tile]:
        return shuffled_tiles(self.seed, label, self.tile_set)


class RandomDealer:
    """For simulations: any ``random.Random``."""

    def __init__(self, rng: random.Random, tile_set: TileSet) -> None:
        self.rng = rng
        self.tile_set = tile_set

    def shuffle(self, label: str) -> list[Tile]:
        tiles = list(self.tile_set.tiles)
        self.rng.shuffle(tiles)
        return tiles


# --- sinks: what happens to each consequence ------------------------------------------
class Sink(Protocol):
    def play(self, st: MatchState, seat: int, tile: Tile, end: int, claim: int | None, auto: bool) -> None: ...
    def draw(self, st: MatchState, seat: int, auto: bool) -> None: ...
    def knock(self, st: MatchState, seat: int, auto: bool) -> None: ...
    def points(self, st: MatchState, seat: int, points: int, how: ScoredBy) -> None: ...
    def turned_up(self, st: MatchState, tiles: list[Tile], leader: int) -> None: ...
    def hand_started(
        self, st: MatchState, number: int, leader: int, hands: list[list[Tile]], boneyard: list[Tile]
    ) -> None: ...
    def hand_ended(self, st: MatchState, result: HandResult) -> None: ...
    def match_ended(self, st: MatchState, side: int) -> None: ...


class EventSink:
    """Records each consequence as an event and folds it into the working state."""

    def __init__(self, seed: str | None) -> None:
        self.seed = seed
        self.events: list[Event] = []

    def emit(self, st: MatchState, event: Event) -> None:
        self.events.append(event)
        mutate(st, event)

    def play(self, st: MatchState, seat: int, tile: Tile, end: int, claim: int | None, auto: bool) -> None:
        ends = _ends_after(st, tile, end)
        self.emit(st, TilePlayed(seat, tile, END_NAMES[end], ends, auto, claim))

    def draw(self, st: MatchState, seat: int, auto: bool) -> None:
        self.emit(st, TileDrawn(seat, st.boneyard[0], auto))

    def knock(self, st: MatchState, seat: int, auto: bool) -> None:
        self.emit(st, Knocked(seat, st.layout.ends_dict(), auto))

    def points(self, st: MatchState, seat: int, points: int, how: ScoredBy) -> None:
        side = st.rules.side_of(seat)
        scores = st.scores[:]
        scores[side] += points
        self.emit(st, PointsScored(seat, side, points, st.layout.count(), how, tuple(scores)))

    def turned_up(self, st: MatchState, tiles: list[Tile], leader: int) -> None:
        self.emit(st, TilesTurnedUp(tuple(tiles), leader))

    def hand_started(
        self, st: MatchState, number: int, leader: int, hands: list[list[Tile]], boneyard: list[Tile]
    ) -> None:
        self.emit(st, HandStarted(number, leader, tuple(tuple(h) for h in hands), tuple(boneyard)))

    def hand_ended(self, st: MatchState, result: HandResult) -> None:
        self.emit(st, HandEnded.of(result))

    def match_ended(self, st: MatchState, side: int) -> None:
        self.emit(
            st,
            MatchEnded(
                side, tuple(st.scores), self.seed or "", tuple(tuple(h) for h in st.hands) if st.hand_live else ()
            ),
        )


def _ends_after(st: MatchState, tile: Tile, end: int) -> dict[str, int]:
    layout = st.layout.copy()
    layout.place(tile, end)
    return layout.ends_dict()


# --- the flow of play, written once ----------------------------------------------------
def perform_play(
    st: MatchState, sink: Sink, seat: int, tile: Tile, end: int, claim: int | None = None, auto: bool = False
) -> None:
    """Place a tile, then score the count under ``end_count_scoring`` (within an exact target)."""
    rules = st.rules
    if auto and rules.muggins_calls:
        claim = _count_after(st, tile, end) or None  # the server claims its own plays rightly
    sink.play(st, seat, tile, end, claim, auto)
    if rules.end_count_scoring is not _NO_COUNT:
        points = st.scoring_count()
        if points and (not rules.muggins_calls or claim == points):
            if rules.exact_target:
                points = credited(points, st.scores[rules.side_of(seat)], rules.target, True)
            if points:
                sink.points(st, seat, points, ScoredBy.PLAY)


_NO_COUNT = EndCountScoring.NONE


def _count_after(st: MatchState, tile: Tile, end: int) -> int:
    """What playing ``tile`` on ``end`` scores by the count (the listed ``scores`` hint, a claim)."""
    return count_points(st.layout.count_after(tile, end), st.rules.end_count_scoring)


def deal_next_hand(st: MatchState, sink: Sink, dealer: Dealer) -> None:
    number = st.hand_number + 1
    if number == 1 and st.rules.lead == Lead.ROTATE_ANY:
        turned = dealer.shuffle(TURN_UP_LABEL)[: st.players]
        sink.turned_up(st, turned, turn_up_leader(turned))
    hands, boneyard = deal(dealer.shuffle(deal_label(number)), st.rules)
    leader, forced = st.next_lead(hands)
    sink.hand_started(st, number, leader, hands, boneyard)
    if forced is not None:
        perform_play(st, sink, leader, forced, LEFT, auto=True)


def settle(st: MatchState, sink: Sink, dealer: Dealer | None, next_hands: bool = True) -> None:
    """Run every consequence that needs no decision, until a seat must act or the match ends.

    Without ``next_hands`` (or without a ``dealer``) it stops at the end of the hand.
    """
    rules = st.rules
    auto = rules.auto_draw or rules.auto_knock
    target = rules.target
    while st.status == PLAYING:
        if max(st.scores) >= target:  # st.side_at_target() is not None, cheaply
            sink.match_ended(st, st.side_at_target())  # type: ignore[arg-type]  # not None: a side is at the target
            return
        if not st.hand_live:
            if not next_hands or dealer is None:
                return
            deal_next_hand(st, sink, dealer)
            continue
        result = st.hand_outcome()
        if result is not None:
            sink.hand_ended(st, result)
            continue
        if st.layout.tiles == 0:
            return  # the leader chooses any tile
        seat: int = st.turn  # type: ignore[assignment]  # a seat: the hand is live and under way
        if auto and not st.can_play(seat):
            if st.boneyard_drawable():
                if rules.auto_draw:
                    sink.draw(st, seat, True)
                    continue
            elif rules.auto_knock:
                sink.knock(st, seat, True)
                continue
        return


# --- deciding commands ----------------------------------------------------------------
def create_match(
    rules: RuleSet, seats: Sequence[Mapping[str, Any]], seed: str, *, seeded_by_client: bool = False
) -> list[Event]:
    """The first event of every log. Seats are ``{"name", "type", "level"}`` dicts, with an
    optional ``client_seed``; ``seed`` is the secret server seed (only its hash is logged)."""
    if len(seats) != rules.players:
        raise errors.InvalidRules("seats", f"{len(seats)} seats for {rules.players} players")
    return [
        MatchCreated(
            rules.to_dict(),
            tuple(dict(s) for s in seats),
            seed_commitment(seed),
            algorithm_for(rules.set),
            seeded_by_client=seeded_by_client,
        )
    ]


def dealer_for(st: MatchState, server_seed: str) -> SeedDealer:
    """The match's deals: its server seed mixed with the seats' client seeds."""
    return SeedDealer(deal_seed(server_seed, st.client_seeds), st.rules.set)


def ready_to_start(st: MatchState) -> bool:
    return st.status == WAITING and all(s.get("type") != OPEN_SEAT for s in st.seats)


def start_match(st: MatchState, seed: str) -> list[Event]:
    """Deal the first hand (and whatever follows on its own) once every seat is taken."""
    if st.status != WAITING:
        raise errors.IllegalAction("the match has already started", code="match_started")
    if not ready_to_start(st):
        raise errors.MatchNotStarted("open seats are still waiting for players")
    if st.trains is not None:
        return trains_match.start(st, seed)
    work = st.copy()
    sink = EventSink(seed)
    dealer = dealer_for(work, seed)
    deal_next_hand(work, sink, dealer)
    settle(work, sink, dealer)
    return sink.events


def claim_seat(st: MatchState, seat: int, name: str, client_seed: str | None = None) -> list[Event]:
    if not 0 <= seat < st.players:
        raise errors.InvalidAction(f"no seat {seat}; seats are 0 to {st.players - 1}")
    if st.seats[seat].get("type") != OPEN_SEAT:
        raise errors.SeatTaken(f"seat {seat} is not open")
    return [SeatClaimed(seat, name, client_seed)]


def decide(state: MatchState, command: Command, seed: str) -> list[Event]:
    """The events ``command`` causes in ``state`` (consequences included), or a RulesError."""
    if state.trains is not None:
        return _decide_trains(state, command, seed)
    if isinstance(command, PlaceTile | Pass):
        check_live(state, command.seat)  # (an ended match answers so first, as for any command)
        if isinstance(command, PlaceTile):
            raise errors.InvalidAction("a play in the line games names an 'end' (or none), not a 'train'")
        raise errors.InvalidAction("the line games have no pass: a seat that cannot play knocks")
    if isinstance(command, Play):
        state.rules.set.check(command.tile)  # another set's tile is malformed here, not illegal
    st = state.copy()
    check_live(st, command.seat)
    sink = EventSink(seed)
    if isinstance(command, Play):
        _decide_play(st, sink, command)
    elif isinstance(command, Draw):
        _decide_draw(st, sink, command)
    elif isinstance(command, Knock):
        _decide_knock(st, command)
        sink.knock(st, command.seat, False)
    elif isinstance(command, CallMuggins):
        _decide_muggins(st, sink, command)
    else:  # pragma: no cover - the Command union is closed
        raise errors.InvalidAction(f"unknown command {command!r}")
    settle(st, sink, dealer_for(st, seed))
    return sink.events


def _decide_trains(state: MatchState, command: Command, seed: str) -> list[Event]:
    """A trains match's command, as ``trains`` names its moves (``trains_match.decide``)."""
    if isinstance(command, PlaceTile | Play):
        state.rules.set.check(command.tile)  # another set's tile is malformed, as in the line games
    check_live(state, command.seat)  # (an ended match answers so, whatever the command)
    move: trains.Move
    if isinstance(command, PlaceTile):
        move = trains.Play(command.tile, command.place)
    elif isinstance(command, Draw):
        if command.until_playable:
            raise errors.InvalidAction("the trains games draw one tile at a time: no 'until'")
        move = trains.DRAW
    elif isinstance(command, Pass):
        move = trains.PASS
    elif isinstance(command, Play):
        raise errors.InvalidAction("a play in the trains games names its 'train' (a seat, \"mexican\" or a toe)")
    else:
        word = "knock" if isinstance(command, Knock) else "muggins"
        raise errors.InvalidAction(f"the trains games have no {word}: a stuck seat draws, then passes")
    return trains_match.decide(state, command.seat, move, seed)


def check_live(st: MatchState, seat: int) -> None:
    if not isinstance(seat, int) or not 0 <= seat < st.players:
        raise errors.InvalidAction(f"no seat {seat!r}")
    if st.status == ENDED:
        raise errors.MatchOver("the match is over")
    if st.status == WAITING:
        raise errors.MatchNotStarted("the match has not started: seats are still open")


def check_turn(st: MatchState, seat: int) -> None:
    if st.turn != seat:
        raise errors.NotYourTurn(f"it is seat {st.turn}'s turn, not seat {seat}'s")


def _decide_play(st: MatchState, sink: EventSink, cmd: Play) -> None:
    check_turn(st, cmd.seat)
    hand = st.hands[cmd.seat]
    if cmd.tile not in hand:
        raise errors.TileNotInHand(f"{cmd.tile} is not in your hand")
    layout = st.layout
    name: Place | None = cmd.end
    if name is None:
        fits = layout.places_for(cmd.tile)
        if not fits:
            raise errors.IllegalPlay(f"{cmd.tile} matches no open end")
        if len(fits) > 1:
            raise errors.EndRequired(f"{cmd.tile} fits the {' and '.join(fits)} ends: name the 'end'")
        name = fits[0]
    end = END_INDEX[name]
    if layout.is_empty:
        if end not in (LEFT, RIGHT):  # up or down: no arm before the spinner
            raise errors.IllegalPlay("the first tile of a hand opens the line: end 'left'")
        end = LEFT
    else:
        number = layout.values[end]
        if number is None:
            raise errors.IllegalPlay(f"the {name} end is not open")
        if not cmd.tile.has(number):
            raise errors.IllegalPlay(f"{cmd.tile} does not match the {name} end ({number})")
    rules = st.rules
    if cmd.claim is not None:
        if not rules.muggins_calls:
            raise errors.ClaimNotAllowed(
                "this match's rules take no claims (muggins_calls is off): send the play without 'claim'"
            )
        if cmd.claim != _count_after(st, cmd.tile, end):
            raise errors.WrongClaim(f"the play does not score {cmd.claim}")
    perform_play(st, sink, cmd.seat, cmd.tile, end, cmd.claim or None)


def _decide_draw(st: MatchState, sink: EventSink, cmd: Draw) -> None:
    check_turn(st, cmd.seat)
    rules = st.rules
    if not rules.is_draw_game:
        raise errors.DrawingNotAllowed("the Block game has no drawing: play or knock")
    playable = st.can_play(cmd.seat)
    if playable and (cmd.until_playable or not rules.draw_at_will):
        raise errors.MustPlay("you hold a playable tile: play it")
    if not st.boneyard_drawable():
        if rules.boneyard_reserve and st.boneyard:
            raise errors.BoneyardReserved(f"the last {rules.boneyard_reserve} tiles of the boneyard are never drawn")
        raise errors.BoneyardEmpty("the boneyard is empty: knock")
    sink.draw(st, cmd.seat, False)
    if cmd.until_playable:
        while st.hand_live and not st.can_play(cmd.seat) and st.boneyard_drawable() and st.hand_outcome() is None:
            sink.draw(st, cmd.seat, False)


def _decide_knock(st: MatchState, cmd: Knock) -> None:
    check_turn(st, cmd.seat)
    if st.can_play(cmd.seat):
        raise errors.MustPlay("you hold a playable tile: play it")
    if st.boneyard_drawable():
        raise errors.MustDraw("you must draw before knocking")


def _decide_muggins(st: MatchState, sink: EventSink, cmd: CallMuggins) -> None:
    pending = st.pending_muggins
    if pending is None:
        raise errors.NothingToMuggins("there are no unclaimed points to take")
    if st.rules.side_of(pending[0]) == st.rules.side_of(cmd.seat):
        raise errors.NothingToMuggins("only an opponent may call muggins")
    sink.points(st, cmd.seat, pending[1], ScoredBy.MUGGINS)


def legal_actions(st: MatchState, seat: int | None) -> list[dict[str, Any]]:
    """The JSON actions ``seat`` may send now; each is accepted verbatim by ``decide``, and a
    client that only ever sends listed actions plays every rule set fully (claims included).

    The items (openapi ``LegalAction``; README, *Legal actions*):

    - ``{"type": "play", "tile": [high, low], "end": "left"|"right"|"up"|"down"}``, plus
      under ``end_count_scoring`` ``"scores": N`` when the play scores N > 0 (under
      ``exact_target`` nothing past the target), and under
      ``muggins_calls`` also ``"claim": N`` (the right claim) on that same play;
    - ``{"type": "draw"}`` and, when the seat has no play, ``{"type": "draw", "until": "playable"}``;
    - ``{"type": "knock"}``;
    - ``{"type": "muggins", "scores": N}`` for an opponent of a seat that left N points
      unclaimed (until the next tile is played), out of turn too.

    Spellings accepted besides the listed ones, for convenience: a play without ``end``
    when the tile fits one end only; ``"right"`` for the first tile of a hand; and under
    ``muggins_calls`` a scoring play without its ``claim`` (legal, but it scores nothing
    and leaves its points to a muggins call) or a non-scoring play with ``"claim": 0``.
    """
    if st.trains is not None:
        return trains_match.legal_actions(st, seat)
    if seat is None:
        return []
    moves = st.legal_moves(seat)
    actions = []
    rules = st.rules
    plays_exist = False
    for move in moves:
        action = move_to_action(move)
        if move[0] == PLAY:
            plays_exist = True
            if rules.scores_the_count:
                points = _count_after(st, move[1], move[2])
                if points and rules.exact_target:  # the hint is what the play scores: none past the target
                    points = credited(points, st.scores[rules.side_of(seat)], rules.target, True)
                if points:
                    action["scores"] = points
                    if rules.muggins_calls:
                        action["claim"] = points
        elif move[0] == MUGGINS:
            assert st.pending_muggins is not None  # a muggins move is listed only for pending points
            action["scores"] = st.pending_muggins[1]
        actions.append(action)
    if not plays_exist and any(m[0] == DRAW for m in moves):
        actions.append({"type": DRAW, "until": DrawUntil.PLAYABLE})
    return actions


# --- the fold -----------------------------------------------------------------------------
# The body of the fold: one effect per event class, in ``FOLDS`` (``mutate`` looks the class
# up). An event class without an entry cannot be folded: ``mutate`` raises ``ReplayError``
# for it, and a test holds the table to ``events.EVENT_TYPES``.
_E = TypeVar("_E", bound=Event)
_Fold = Callable[[MatchState, _E], None]
_FOLDS: dict[type[Event], Callable[[MatchState, Any], None]] = {}
FOLDS: Mapping[type[Event], Callable[[MatchState, Any], None]] = MappingProxyType(_FOLDS)


def _folds(cls: type[_E]) -> Callable[[_Fold[_E]], _Fold[_E]]:
    """Register the decorated function as the fold of ``cls`` (mypy checks it takes a ``cls``)."""

    def register(fold: _Fold[_E]) -> _Fold[_E]:
        _FOLDS[cls] = fold
        return fold

    return register


@_folds(MatchCreated)
def _fold_match_created(st: MatchState, event: MatchCreated) -> None:
    raise ImpossibleEvent("match_created may only be the first event")


@_folds(SeatClaimed)
def _fold_seat_claimed(st: MatchState, event: SeatClaimed) -> None:
    st.on_seat_claimed(event.seat, event.name, event.client_seed)


@_folds(TilesTurnedUp)
def _fold_tiles_turned_up(st: MatchState, event: TilesTurnedUp) -> None:
    st.on_tiles_turned_up(event.leader)


@_folds(HandStarted)
def _fold_hand_started(st: MatchState, event: HandStarted) -> None:
    st.on_hand_started(event.hand_number, event.leader, event.hands, event.boneyard)


@_folds(TilePlayed)
def _fold_tile_played(st: MatchState, event: TilePlayed) -> None:
    st.on_tile_played(event.seat, event.tile, END_INDEX[event.end], event.claim)
    if not event.auto:
        st.on_seat_acted(event.seat)


@_folds(TileDrawn)
def _fold_tile_drawn(st: MatchState, event: TileDrawn) -> None:
    drawn = st.on_tile_drawn(event.seat)
    if event.tile is not None and drawn is not event.tile:
        raise ImpossibleEvent(f"seat {event.seat} drew {event.tile} but the boneyard's next tile is {drawn}")
    if not event.auto:
        st.on_seat_acted(event.seat)


@_folds(Knocked)
def _fold_knocked(st: MatchState, event: Knocked) -> None:
    st.on_knocked(event.seat)
    if not event.auto:
        st.on_seat_acted(event.seat)


@_folds(PointsScored)
def _fold_points_scored(st: MatchState, event: PointsScored) -> None:
    st.on_points_scored(event.side, event.points)
    if event.how == ScoredBy.MUGGINS:
        st.on_seat_acted(event.seat)


@_folds(HandEnded)
def _fold_hand_ended(st: MatchState, event: HandEnded) -> None:
    st.on_hand_ended(event)  # the event is the hand's result


@_folds(MatchEnded)
def _fold_match_ended(st: MatchState, event: MatchEnded) -> None:
    st.on_match_ended(event.winner)


def _not_a_line_game_event(st: MatchState, event: Event) -> None:
    raise ImpossibleEvent(f"{event.type} is a trains game's event, and this match plays {st.rules.preset}")


for _trains_only in (RoundStarted, TilePlaced, Passed, RoundEnded):
    _FOLDS[_trains_only] = _not_a_line_game_event


@_folds(TurnTimedOut)
def _fold_turn_timed_out(st: MatchState, event: TurnTimedOut) -> None:
    st.on_turn_timed_out(event.seat, event.consecutive)


@_folds(SeatReplaced)
def _fold_seat_replaced(st: MatchState, event: SeatReplaced) -> None:
    st.on_seat_replaced(event.seat, event.level)


def mutate(st: MatchState, event: Event) -> None:
    """Change ``st`` in place by one event (the body of the fold)."""
    if st.trains is not None and type(event) in trains_match.FOLDS:
        trains_match.FOLDS[type(event)](st, event)
        return
    fold = _FOLDS.get(type(event))
    if fold is None:
        raise ReplayError(f"unknown event type {event.type!r}")
    fold(st, event)


def initial_state(created: MatchCreated) -> MatchState:
    rules = RuleSet.from_dict(created.rules)
    st = MatchState(rules, list(created.seats), created.seed_commitment)
    st.seeded_by_client = created.seeded_by_client
    return st


def apply(state: MatchState | None, event: Event) -> MatchState:
    """The state after ``event`` (a new object; ``state`` is left as it was)."""
    if state is None:
        if not isinstance(event, MatchCreated):
            raise ReplayError("a log starts with match_created")
        return initial_state(event)
    st = state.copy()
    mutate(st, event)
    return st


def replay(events: Iterable[Event], state: MatchState | None = None) -> MatchState:
    """Fold a log (or the part of it after ``state``) into the state it describes.

    A whole log's ``ImpossibleEvent`` names its seq (the log's count from match_created, 1)."""
    events = iter(events)
    if state is not None:
        st = state.copy()
        for event in events:
            mutate(st, event)
        return st
    first = next(events, None)
    if not isinstance(first, MatchCreated):
        raise ReplayError("a log starts with match_created")
    st = initial_state(first)
    for seq, event in enumerate(events, start=2):
        try:
            mutate(st, event)
        except ImpossibleEvent as exc:
            raise exc.at(seq) from None
    return st
