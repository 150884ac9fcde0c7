"""The state of a match, and the effects that change it.

``MatchState`` is the one place where the rules change data. Each ``on_*`` method is
the effect of one event type; the event-sourced fold (``engine.apply``) and the fast
simulation path (``simulate``) both call these same methods, so there is one copy of
the rules. The questions (``legal_moves``, ``hand_outcome``…) are shared the same way.

Outside the engine a state is treated as immutable: ``engine.apply`` copies first.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from typing import Any

from .errors import ImpossibleEvent
from .events import HandResult
from .layout import EMPTY_KEY, END_NAMES, LEFT, OPEN_FIELDS, TILE_COUNT, Layout, ends_of_key
from .ruleset import RuleSet
from .scoring import count_points, credited, hand_award
from .tiles import EVERY_TILE, Tile, TileSet, weight_key
from .trains import TrainsState
from .trains import new_state as new_trains_state
from .vocabulary import ActionType, BotLevel, Game, HandEndReason, Lead, SeatKind, Status, values

# Short names for the members the engine and its callers use most (and, in the hot paths,
# module globals: reading ``Status.PLAYING`` off the enum class costs some 60 ns a time). A
# ``RuleSet`` holds members (``RuleSet.__post_init__``), so its words compare by identity.
WAITING, PLAYING, ENDED = Status.WAITING, Status.PLAYING, Status.ENDED
REMOTE_SEAT, BOT_SEAT, OPEN_SEAT = SeatKind.REMOTE, SeatKind.BOT, SeatKind.OPEN
DOMINO, BLOCKED = HandEndReason.DOMINO, HandEndReason.BLOCKED
_DRAW_GAME, _ROTATE_ANY, _WINNER_ANY = Game.DRAW, Lead.ROTATE_ANY, Lead.WINNER_ANY
_HIGHEST_DOUBLE = Lead.HIGHEST_DOUBLE
# As stored: plain strings, for what writes them out itself (the database's check constraints).
STATUSES = values(Status)
SEAT_TYPES = values(SeatKind)

# Moves in the fast path are plain tuples: (PLAY, tile, end), (DRAW,), (KNOCK,), (MUGGINS,), tagged
# with the action types' strings as plain ``str``: the interpreter specialises ``kind == PLAY`` for
# exact strings, not for members, and the playouts ask it once a move.
PLAY: str = ActionType.PLAY.value
DRAW: str = ActionType.DRAW.value
KNOCK: str = ActionType.KNOCK.value
MUGGINS: str = ActionType.MUGGINS.value
Move = tuple[Any, ...]  # (PLAY, Tile, end index) | (DRAW,) | (KNOCK,) | (MUGGINS,)
_DRAW_MOVE, _KNOCK_MOVE, _MUGGINS_MOVE = (DRAW,), (KNOCK,), (MUGGINS,)


# Every tile's plays on the open ends of one ``Layout.ends_key``, by tile index (the tiles of
# every set: a row serves whichever set's hands ask it): (PLAY, tile, end) in end order, ()
# when it fits none. A row is built the first time its key is met, so listing the plays
# costs one lookup per tile in hand and builds no tuple.
# Rows share their move tuples (``_PLAYS_OF``), so even all ~2,450 keys a double-six game can
# reach would take a few MB. Rows never change once built; racing builders agree.
_PLAY_ROWS: list[tuple[tuple[Move, ...], ...] | None] = [None] * (EMPTY_KEY + 1)
_PLAYS_OF: dict[tuple[Tile, tuple[int, ...]], tuple[Move, ...]] = {}  # (tile, ends) -> its plays there


def _plays_row(key: int) -> tuple[tuple[Move, ...], ...]:
    fits: list[tuple[Tile, tuple[int, ...]]]
    if key == EMPTY_KEY:  # the first tile of a hand: any, opening the line
        fits = [(t, (LEFT,)) for t in EVERY_TILE]
    else:
        ends = [(i, v) for i, v in enumerate(ends_of_key(key)) if v is not None]
        fits = [(t, tuple(i for i, v in ends if t.high == v or t.low == v)) for t in EVERY_TILE]
    row: list[tuple[Move, ...]] = []
    for tile, at in fits:
        plays = _PLAYS_OF.get((tile, at))
        if plays is None:
            plays = _PLAYS_OF[(tile, at)] = tuple((PLAY, tile, i) for i in at)
        row.append(plays)
    built = _PLAY_ROWS[key] = tuple(row)
    return built


class MatchState:
    __slots__ = (
        "boneyard",
        "drawn",
        "hand_live",
        "hand_number",
        "hands",
        "held",
        "last_result",
        "layout",
        "leader",
        "pending_muggins",
        "placements",
        "rules",
        "scores",
        "seats",
        "seed_commitment",
        "seeded_by_client",
        "status",
        "timeouts",
        "trains",
        "turn",
        "turn_up_leader",
        "winner",
    )

    def __init__(self, rules: RuleSet, seats: Iterable[dict[str, Any]], seed_commitment: str = ""):
        self.rules = rules
        self.seats: list[dict[str, Any]] = [dict(s) for s in seats]  # {"name", "type", "level"[, "client_seed"]}
        self.seed_commitment = seed_commitment
        self.status: Status = WAITING
        self.hand_number = 0
        self.leader: int | None = None
        self.turn: int | None = None
        self.hands: list[list[Tile]] = [[] for _ in range(rules.players)]
        self.boneyard: list[Tile] = []
        self.layout = Layout(rules.uses_spinner)
        self.placements: list[tuple[int, Tile, int]] = []  # (seat, tile, end) this hand
        self.scores = [0] * rules.sides
        self.hand_live = False
        self.last_result: HandResult | None = None  # the last hand's (a hand_ended event, when folded)
        self.winner: int | None = None  # winning side once the match is over
        self.turn_up_leader: int | None = None
        self.pending_muggins: tuple[int, int] | None = None  # (seat that missed them, points)
        self.drawn = [0] * rules.players  # tiles drawn this hand, per seat (public)
        self.seeded_by_client = False
        self.timeouts = [0] * rules.players  # turns timed out in a row, per seat (turn clocks)
        self.held = 0  # every hand's tiles counted by number (TILE_COUNT)
        # A trains match's game (``trains_match`` plays it; the fields above hold its life's
        # turn, round and totals), None for the line games.
        self.trains: TrainsState | None = None if rules.trains is None else new_trains_state(rules.trains)

    def copy(self) -> MatchState:
        other = MatchState.__new__(MatchState)
        other.rules = self.rules
        other.seats = self.seats  # replaced, never mutated in place
        other.seed_commitment = self.seed_commitment
        other.status = self.status
        other.hand_number = self.hand_number
        other.leader = self.leader
        other.turn = self.turn
        other.hands = list(map(list.copy, self.hands))
        other.boneyard = self.boneyard[:]
        other.layout = self.layout.copy()
        other.placements = self.placements[:]
        other.scores = self.scores[:]
        other.hand_live = self.hand_live
        other.last_result = self.last_result
        other.winner = self.winner
        other.turn_up_leader = self.turn_up_leader
        other.pending_muggins = self.pending_muggins
        other.drawn = self.drawn[:]
        other.seeded_by_client = self.seeded_by_client
        other.timeouts = self.timeouts[:]
        other.held = self.held
        other.trains = None if self.trains is None else self.trains.copy()
        return other

    # --- questions ---------------------------------------------------------------
    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def is_over(self) -> bool:
        return self.status == ENDED

    def boneyard_drawable(self) -> int:
        """How many tiles may still be drawn (0 in the Block game)."""
        rules = self.rules
        if rules.game is not _DRAW_GAME:  # rules.is_draw_game, without the property call
            return 0
        return max(0, len(self.boneyard) - rules.boneyard_reserve)

    def can_play(self, seat: int) -> bool:
        return self.layout.accepts_any(self.hands[seat])

    def playable(self, seat: int) -> list[tuple[Tile, int]]:
        """Every (tile, end) the seat could place now."""
        layout = self.layout
        if layout.tiles == 0:
            return [(t, LEFT) for t in self.hands[seat]]
        ends = layout.open_ends()
        return [(t, i) for t in self.hands[seat] for i, v in ends if t.high == v or t.low == v]

    def legal_moves(self, seat: int | None = None) -> list[Move]:
        """The moves ``seat`` (default: the seat to move) may make, as fast-path tuples."""
        if self.status != PLAYING or not self.hand_live:
            return []
        if seat is None:
            return self.turn_moves()
        moves: list[Move] = []
        pending = self.pending_muggins
        if pending is not None and self.rules.side_of(seat) != self.rules.side_of(pending[0]):
            moves.append(_MUGGINS_MOVE)
        if seat == self.turn:
            moves += self.turn_moves()
        return moves

    def turn_moves(self) -> list[Move]:
        """The seat to move's moves while the hand is live (``legal_moves()``, for playouts).

        Plays in hand order, then end order (the order of ``playable``); then a draw when
        the rules allow one; a knock only when there is neither.
        """
        key = self.layout.ends_key
        row = _PLAY_ROWS[key] or _plays_row(key)
        moves: list[Move] = []
        for t in self.hands[self.turn]:  # type: ignore[index]  # turn is a seat while the hand is live
            moves += row[t.index]
        rules = self.rules
        if moves and not rules.draw_at_will:
            return moves  # the usual answer: plays, and no drawing instead
        if rules.game is _DRAW_GAME and len(self.boneyard) > rules.boneyard_reserve:  # boneyard_drawable() > 0
            moves.append(_DRAW_MOVE)
        elif not moves:
            moves.append(_KNOCK_MOVE)
        return moves

    def next_to_act(self, among: Collection[int]) -> int | None:
        """Which of the seats ``among`` acts next: one that may call muggins on pending
        points first (out of turn), else the seat to move if it is one of them."""
        pending = self.pending_muggins
        if pending is not None:
            side_of = self.rules.side_of
            for seat in among:
                if side_of(seat) != side_of(pending[0]):
                    return seat
        return self.turn if self.turn in among else None

    def is_blocked(self) -> bool:
        """Nobody can play and nobody can draw: certain, so the hand ends now."""
        layout = self.layout
        if layout.tiles and self.held & OPEN_FIELDS[layout.ends_key]:
            return False  # some hand holds a tile that fits (the usual answer)
        rules = self.rules
        if rules.game is _DRAW_GAME and len(self.boneyard) > rules.boneyard_reserve:  # boneyard_drawable() > 0
            return False
        return layout.tiles > 0 or not any(self.hands)

    def hand_outcome(self) -> HandResult | None:
        """The result if the hand is over now, else None."""
        if not self.hand_live:
            return None
        layout = self.layout
        if layout.tiles:
            if not all(self.hands):
                for seat, hand in enumerate(self.hands):
                    if not hand:
                        return self._score(DOMINO, seat)
            if self.held & OPEN_FIELDS[layout.ends_key]:
                return None  # is_blocked()'s usual answer, without the call
        if self.is_blocked():
            return self._score(BLOCKED, None)
        return None

    def _score(self, reason: HandEndReason, went_out: int | None) -> HandResult:
        rules = self.rules
        side_of = rules.side_of
        side_pips = [0] * rules.sides
        counts = []
        for seat, hand in enumerate(self.hands):  # pip_count of each hand, as plain loops (once a hand)
            n = 0
            for t in hand:
                n += t.pips
            counts.append(n)
            side_pips[side_of(seat)] += n
        pips = tuple(counts)
        hands = tuple(map(tuple, self.hands))
        out_side = side_of(went_out) if reason == DOMINO and went_out is not None else None
        side, points = hand_award(side_pips, out_side, rules.hand_scoring)
        if side is None:
            return HandResult(self.hand_number, BLOCKED, None, None, 0, pips, hands, tuple(self.scores))
        points = credited(points, self.scores[side], rules.target, rules.exact_target)
        winner: int | None = went_out if out_side is not None else None
        if winner is None:  # blocked: the side's lightest hand; on equal pips the lower seat
            for seat, p in enumerate(pips):
                if side_of(seat) == side and (winner is None or p < pips[winner]):
                    winner = seat
        scores = self.scores[:]
        scores[side] += points
        return HandResult(self.hand_number, reason, winner, side, points, pips, hands, tuple(scores))

    def scoring_count(self) -> int:
        """Points the last play makes under ``end_count_scoring`` (0 when it makes none; before
        the exact target's ``credited``)."""
        return count_points(self.layout.count(), self.rules.end_count_scoring)

    def side_at_target(self) -> int | None:
        target = self.rules.target
        if max(self.scores) < target:  # the usual answer, in one C call
            return None
        for side, score in enumerate(self.scores):
            if score >= target:
                return side
        return None

    def next_lead(self, hands: list[list[Tile]]) -> tuple[int, Tile | None]:
        """Who leads the hand about to be dealt, and the tile if the lead is forced."""
        rules = self.rules
        first_hand = self.hand_number == 0
        if lead_is_forced(rules, self.hand_number + 1):
            return forced_lead(hands, rules.set)
        if rules.lead == _ROTATE_ANY:
            if first_hand:
                assert self.turn_up_leader is not None  # tiles_turned_up comes before the first deal
                return self.turn_up_leader, None
            assert self.leader is not None  # a hand was dealt
            return (self.leader + 1) % rules.players, None
        # winner_any after the first hand: the last hand's winner, or who was left with fewest tiles
        last = self.last_result
        assert last is not None and self.leader is not None  # a hand was played
        if last.winner is not None:
            return last.winner, None
        sizes = [len(h) for h in last.hands]
        fewest = [s for s, n in enumerate(sizes) if n == min(sizes)]
        return (fewest[0] if len(fewest) == 1 else self.leader), None

    # --- effects, one per event type ---------------------------------------------
    @property
    def client_seeds(self) -> list[str | None]:
        return [s.get("client_seed") for s in self.seats]

    def on_seat_claimed(self, seat: int, name: str, client_seed: str | None = None) -> None:
        seats = [dict(s) for s in self.seats]
        seats[seat].update(name=name, type=REMOTE_SEAT)
        if client_seed is not None:
            seats[seat]["client_seed"] = client_seed
        self.seats = seats

    def on_tiles_turned_up(self, leader: int) -> None:
        self.turn_up_leader = leader

    def on_hand_started(
        self, hand_number: int, leader: int, hands: Iterable[Iterable[Tile]], boneyard: Iterable[Tile]
    ) -> None:
        self.status = PLAYING
        self.hand_number = hand_number
        self.leader = leader
        self.turn = leader
        self.hands = [list(h) for h in hands]
        self.held = sum(TILE_COUNT[t] for h in self.hands for t in h)
        self.boneyard = list(boneyard)
        self.layout = Layout(self.rules.uses_spinner)
        self.placements = []
        self.hand_live = True
        self.pending_muggins = None
        self.drawn = [0] * self.rules.players

    def on_tile_played(self, seat: int, tile: Tile, end: int, claim: int | None = None) -> None:
        try:
            self.hands[seat].remove(tile)
        except (ValueError, IndexError):  # only a rewritten log gets here: the engine plays held tiles
            raise ImpossibleEvent(f"seat {seat} plays {tile}, which it does not hold") from None
        self.held -= TILE_COUNT[tile]
        self.layout.place(tile, end)
        self.placements.append((seat, tile, end))
        rules = self.rules
        self.turn = (seat + 1) % rules.players
        self.pending_muggins = None
        if rules.muggins_calls and claim is None:
            # An unclaimed count stays open to a muggins call until the next tile is played.
            points = self.scoring_count()
            if points:
                self.pending_muggins = (seat, points)

    def on_tile_drawn(self, seat: int) -> Tile:
        try:
            tile = self.boneyard.pop(0)
        except IndexError:  # only a rewritten log gets here: the engine draws from what is left
            raise ImpossibleEvent(f"seat {seat} draws from an empty boneyard") from None
        self.hands[seat].append(tile)
        self.held += TILE_COUNT[tile]
        self.drawn[seat] += 1
        return tile

    def on_knocked(self, seat: int) -> None:
        self.turn = (seat + 1) % self.rules.players

    def on_points_scored(self, side: int, points: int) -> None:
        """Credit points during play (a scoring play, or a muggins call taking them)."""
        self.scores[side] += points
        self.pending_muggins = None

    def on_hand_ended(self, result: HandResult) -> None:
        side = result.side
        if side is not None:
            self.scores[side] += result.points
        self.hand_live = False
        self.turn = None
        self.pending_muggins = None
        self.last_result = result

    def on_seat_acted(self, seat: int) -> None:
        """A seat moved by itself (not ``auto``): its run of timed-out turns is over."""
        if self.timeouts[seat]:
            self.timeouts[seat] = 0

    def on_turn_timed_out(self, seat: int, consecutive: int) -> None:
        self.timeouts[seat] = consecutive

    def on_seat_replaced(self, seat: int, level: BotLevel) -> None:
        seats = [dict(s) for s in self.seats]
        seats[seat].update(type=BOT_SEAT, level=level)
        self.seats = seats

    def on_match_ended(self, winner: int) -> None:
        self.status = ENDED
        self.hand_live = False
        self.turn = None
        self.winner = winner
        self.pending_muggins = None


def lead_is_forced(rules: RuleSet, hand_number: int) -> bool:
    """Whether hand ``hand_number`` (from 1) opens with the forced lead (``forced_lead``): always
    under ``highest_double``, the first hand under ``winner_any``, never under ``rotate_any``."""
    return rules.lead == _HIGHEST_DOUBLE or (rules.lead == _WINNER_ANY and hand_number == 1)


def forced_lead(hands: Sequence[Sequence[Tile]], tile_set: TileSet) -> tuple[int, Tile]:
    """Highest double of ``tile_set`` dealt sets; with no double dealt, the heaviest tile
    (higher end on ties)."""
    holder = {t: seat for seat, hand in enumerate(hands) for t in hand}
    for double in reversed(tile_set.doubles):
        if double in holder:
            return holder[double], double
    tile = max(holder, key=weight_key)
    return holder[tile], tile


def deal(order: list[Tile], rules: RuleSet) -> tuple[list[list[Tile]], list[Tile]]:
    """Split a shuffled set: seat s takes the s-th run of ``hand_size``; the rest is the boneyard."""
    n = rules.hand_size
    hands = [order[s * n : (s + 1) * n] for s in range(rules.players)]
    return hands, order[rules.players * n :]


def turn_up_leader(tiles: list[Tile]) -> int:
    """``rotate_any``: the seat that turned up the heaviest tile (higher end on ties)."""
    return max(range(len(tiles)), key=lambda s: weight_key(tiles[s]))


__all__ = [
    "BLOCKED",
    "BOT_SEAT",
    "DOMINO",
    "DRAW",
    "ENDED",
    "END_NAMES",
    "KNOCK",
    "MUGGINS",
    "OPEN_SEAT",
    "PLAY",
    "PLAYING",
    "REMOTE_SEAT",
    "SEAT_TYPES",
    "STATUSES",
    "WAITING",
    "HandResult",
    "MatchState",
    "deal",
    "forced_lead",
    "turn_up_leader",
]
