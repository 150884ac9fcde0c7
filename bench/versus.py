"""Head to head: Boneyard's bots against two public dominoes AIs, on the same deals.

    pip install -e '.[bench]'
    python bench/versus.py --quick --jobs 2                  # 40 hands per row
    python bench/versus.py --rows alphabeta32 --hands 400 --level expert --jobs 2
    python bench/versus.py --rows alphabeta32 --seed 777 --budget inference=8 --jobs 2   # a tuning run

Every hand is played on Boneyard's own engine, the rules authority; the public AIs only
choose moves. Each seat is a *player*: a Boneyard level (``api.bots.choose_action``, the
level named by ``--level``) or an anchor adapter. Like ``api.bots.arena.BotMatch``, the
driver asks the seat ``next_actor`` names and gives it only ``view(state, seat)`` and its
redacted log (``redact_event``); the engine plays the forced lead itself, and a seat whose
only legal action is a knock or a single play is not asked (its one action is applied for
it, for both kinds of player alike). Each deal seed is played twice, Boneyard's bot on
side 0 and then on side 1, and every hand is scored on its own (one hand per match, target
1,000: no hand can end a match), so the table compares hands, not matches.

Rows (the anchors):

* ``alphabeta8``, ``alphabeta32``: abw333's ``dominoes`` (PyPI, 6.1.0),
  ``players.probabilistic_alphabeta(start_move=8, sample_size=N)``, 4 players, partners.
  The player is ``bota_gorda`` (heaviest tile first), then ``probabilistic_alphabeta``,
  whose sort by how often a move is optimal over N sampled deals is stable; the move is
  ``valid_moves[0]``. So before move 8 (``len(game.moves)``, passes included) and in ties
  it plays heaviest first. The adapter builds a ``dominoes.Game`` from the seat's view and
  redacted log only: its true hand; the other three hands a random placeholder split of
  the unseen tiles (right counts, never the truth: the anchor resamples them itself with
  ``Game.random_possible_hands``, which reads only their union and the passes); the
  board's moves replayed in order, a knock recorded as ``None`` exactly where ``dominoes``
  records a pass (between moves, for each player skipped); ``starting_player`` Boneyard's
  leader, ``turn`` the seat. Seats map to ``dominoes`` players one to one (both turn
  0, 1, 2, 3 and both pair seats 0+2 against 1+3, ``dominoes``' team 0 the maximiser).
  Ends: ``dominoes``' left (``True``) is Boneyard's ``left``: both put the first tile's
  first number on the left. ``dominoes`` lists a tile that fits two equal ends once, on
  the left; Boneyard lists both ends, which lead to the same table. ``dominoes`` samples
  with the global ``random`` module: it is seeded before every decision from that
  decision's seed, so runs are reproducible.
* ``ismcts``: OpenSpiel (2.0.2) ``algorithms.ismcts.ISMCTSBot`` on
  ``python_block_dominoes``, 2 players, ``--ismcts-sims`` simulations (500),
  ``RandomRolloutEvaluator`` (one rollout), UCT constant ``--ismcts-uct-c`` (2, OpenSpiel's
  MCTS example default; returns are in pips, so exploration is small), the default final
  policy (most visits), one ``np.random.RandomState`` per decision seeded from its seed.
  The game cannot resample its own information states, so a resampler
  (``bot.set_resampler``) re-deals the opponent's hidden tiles from the unseen ones
  (the opponent's tile count, the 14 never dealt taking the rest), uniformly among the
  deals consistent with what the bot knows: a player who passed lacks the numbers then
  open, and Boneyard's forced lead (the highest double dealt leads it; with no double,
  the heaviest tile) rules out higher doubles (or all doubles and heavier tiles) for the
  opponent. The same action history is replayed on every resampled deal. The state the
  bot is handed is built the same way from the seat's view and log, with a placeholder
  deal (never the true hidden hand). Boneyard's leader is OpenSpiel's player 0, and
  Boneyard's forced lead is applied as its first action. OpenSpiel has no pass action:
  after a play, a stuck opponent is skipped and the same player moves again, where
  Boneyard logs a knock; two plays in a row by one player are that knock. An OpenSpiel
  action names the *number* it covers, Boneyard the end: mapped by the ends' values
  (left first when both show it).

Rule differences bridged (the hand is scored by Boneyard's engine, ``HandEnded``):

* Who leads: the same in both 4-player engines (28 tiles dealt; the 6-6 holder leads it,
  forced, as ``Game.new(starting_domino=Domino(6, 6))``). OpenSpiel's player 0 leads any
  tile; here it is Boneyard's leader and the lead is Boneyard's forced one.
* Blocked hands: ``dominoes`` gives the lighter team *both* teams' pips, OpenSpiel gives the
  lighter player the other's pips; Boneyard's ``standard-block`` default
  (``others_minus_own``: the others' pips less one's own) is the farthest from both, so both
  rows play ``standard-block`` with ``blocked_scoring: others`` (the lighter side scores
  the others' pips; equal pips: nobody scores), the closest Boneyard option to each. The
  anchors still search for their own engine's score.
* Going out: ``dominoes`` counts all three other hands, the partner's included; Boneyard
  (and OpenSpiel) only the opponents'. Scored Boneyard's way.
* Hand size and boneyard: 4p ``partners`` ``hand_size`` 7 (no boneyard); 2p 7 each with the
  14 others never drawn, as in OpenSpiel.

Reported per row: hands, decided hands (not tied), the Boneyard bot's share of decided hands
with a 95% Wilson interval (``bench.strength.wilson``), its share of the points (its side's
points over all points scored) with a 95% percentile bootstrap interval over deal pairs
(2,000 resamples, fixed seed), and CPU time per decision (``time.process_time`` around each
call, adapters included) of each side, counting decisions with more than one legal action
only. Deals run in parallel over ``--jobs`` processes; the outcomes do not depend on it.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import itertools
import multiprocessing
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # run from anywhere in a checkout
# The sibling scripts, as a script sees them (also when the tests import this as bench.versus).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from strength import wilson

from api.bots import LEVEL_BUDGETS, Budget, bot_seed, choose_action
from api.bots.arena import next_actor
from api.rules import (
    ALL_TILES,
    Event,
    RuleSet,
    Tile,
    create_match,
    decide,
    parse_action,
    redact_event,
    replay,
    resolve_rules,
    start_match,
    view,
)
from api.rules.events import HandEnded
from api.rules.state import MatchState
from api.rules.tiles import weight_key

Json = dict[str, Any]
Player = Callable[[Json, list[Json], str], Json]  # (view, redacted log, rng seed) -> one of the legal actions
Watcher = Callable[[MatchState, int, list[Json]], None]  # (the whole state, the seat to be asked, its log)

TARGET = 1_000  # the largest target: no single hand reaches it (a hand is worth at most 168 pips)
BOOTSTRAP = 2_000


# --- the rules of each table ----------------------------------------------------------------
def four_player_rules() -> RuleSet:
    """4p partner block, 7 each (all 28 dealt), 6-6 leads; blocked: the lighter side takes the others' pips."""
    return resolve_rules(
        "standard-block", {"partners": True, "hand_size": 7, "blocked_scoring": "others", "target": TARGET}, 4
    )


def two_player_rules() -> RuleSet:
    """2p block, 7 each, 14 never drawn; blocked: the lighter player takes the other's pips."""
    return resolve_rules("standard-block", {"blocked_scoring": "others", "target": TARGET}, 2)


# --- reading a seat's inputs ------------------------------------------------------------------
def hand_events(log: list[Json]) -> list[Json]:
    """The current hand's events (from its ``hand_started`` on)."""
    start = max(i for i, e in enumerate(log) if e["type"] == "hand_started")
    return log[start:]


def own_hand(seat_view: Json) -> list[Tile]:
    return [Tile.from_json(t) for t in seat_view["hand"]]


def play_action(seat_view: Json, tile: Tile, end: str) -> Json:
    """The listed legal action that plays ``tile`` on ``end`` (verbatim, as a bot must answer)."""
    for action in seat_view["legal_actions"]:
        if action["type"] == "play" and Tile.from_json(action["tile"]) is tile and action["end"] == end:
            return action
    raise ValueError(f"{tile} on {end} is not among the legal actions {seat_view['legal_actions']}")


def boneyard_player(level: str, budget: Budget | None = None) -> Player:
    """A Boneyard level, asked exactly as the server asks it (``budget``: another than the level's own)."""

    def play(seat_view: Json, log: list[Json], rng_seed: str) -> Json:
        return choose_action(level, seat_view, log, rng_seed, budget)

    return play


def parse_budget(text: str, level: str) -> Budget:
    """``--budget inference=8,lean=4.0``: the level's own budget with those fields changed."""
    if level not in LEVEL_BUDGETS:
        raise ValueError(f"level {level!r} has no budget (one of {', '.join(LEVEL_BUDGETS)} has)")
    base = LEVEL_BUDGETS[level]
    fields = [f.name for f in dataclasses.fields(base)]
    changes: dict[str, Any] = {}  # each of its field's own type (int or float)
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, _, value = item.partition("=")
        name = name.strip()
        if name not in fields:  # (a method such as deals_for is no field)
            raise ValueError(f"no budget field {name!r}; the fields: {', '.join(fields)}")
        kind = type(getattr(base, name))
        try:
            changes[name] = _switch(value.strip()) if kind is bool else kind(value.strip())
        except ValueError:
            raise ValueError(f"budget field {name} takes {kind.__name__} values, not {value.strip()!r}") from None
    return dataclasses.replace(base, **changes)


def _switch(text: str) -> bool:
    """A bool budget field's value: ``true`` or ``false`` (``bool("false")`` would be True)."""
    if text.lower() not in ("true", "false"):
        raise ValueError(text)
    return text.lower() == "true"


# --- anchor 1: dominoes' probabilistic_alphabeta (4p partner block) ---------------------------
DominoesMove = tuple[Tile, bool] | None  # (tile, on the left end) or a pass


def dominoes_moves(log: list[Json]) -> list[DominoesMove]:
    """The hand's moves as ``dominoes`` records them: plays in order, a knock as ``None``."""
    moves: list[DominoesMove] = []
    for e in hand_events(log):
        if e["type"] == "tile_played":
            if e["end"] not in ("left", "right"):
                raise ValueError(f"a line game has no end {e['end']!r}")
            moves.append((Tile.from_json(e["tile"]), e["end"] == "left"))
        elif e["type"] == "knocked":
            moves.append(None)
    return moves


def placeholder_split(
    unseen: list[Tile], counts: dict[int, int], rng: random.Random, allowed: Callable[[int, Tile], bool] | None = None
) -> dict[int, list[Tile]]:
    """The unseen tiles dealt at random to the seats of ``counts`` (``count`` each), the rest
    left over; with ``allowed``, each seat only gets tiles it may hold. Reads no hidden hand."""
    pool = sorted(unseen, key=lambda t: t.index)
    rng.shuffle(pool)
    out: dict[int, list[Tile]] = {}
    for seat, count in sorted(counts.items()):
        fits = [t for t in pool if allowed is None or allowed(seat, t)]
        if len(fits) < count:
            raise ValueError(f"seat {seat} cannot hold {count} of the unseen tiles under its constraints")
        out[seat] = fits[:count]
        taken = set(out[seat])
        pool = [t for t in pool if t not in taken]
    return out


def dominoes_game(seat_view: Json, log: list[Json], rng_seed: str) -> Any:
    """A ``dominoes.Game`` for the seat to move, from its view and redacted log only."""
    from dominoes import Board, Domino, Game, Hand

    seat = seat_view["seat"]
    if seat_view["rules"]["players"] != 4 or not seat_view["rules"]["partners"]:
        raise ValueError("the dominoes engine plays 4 players in partners")
    mine = own_hand(seat_view)
    moves = dominoes_moves(log)
    played = {m[0] for m in moves if m is not None}
    unseen = [t for t in ALL_TILES if t not in played and t not in mine]
    counts = {s: n for s, n in enumerate(seat_view["hand_counts"]) if s != seat}
    others = placeholder_split(unseen, counts, random.Random(f"placeholder:{rng_seed}"))
    if sum(counts.values()) != len(unseen):
        raise ValueError("all 28 tiles are dealt in the 4-player game: the unseen tiles are the other hands")

    def domino(t: Tile) -> Any:
        return Domino(t.high, t.low)  # high first: the first tile shows its high number on the left, as in Boneyard

    hands = [Hand([domino(t) for t in (mine if s == seat else others[s])]) for s in range(4)]
    board = Board()
    game_moves: list[Any] = []
    for m in moves:
        if m is None:
            game_moves.append(None)
        else:
            board.add(domino(m[0]), m[1])
            game_moves.append((domino(m[0]), m[1]))
    game = Game(board, hands, game_moves, seat, (), seat_view["leader"], None)
    game.valid_moves = dominoes_valid_moves(board, hands[seat])
    return game


def dominoes_valid_moves(board: Any, hand: Any) -> tuple[Any, ...]:
    """What ``Game._update_valid_moves`` computes (a tile fitting two equal ends listed once, left)."""
    left, right = board.left_end(), board.right_end()
    moves = []
    for d in hand:
        if left in d:
            moves.append((d, True))
        if right in d and left != right:
            moves.append((d, False))
    return tuple(moves)


class AlphabetaAnchor:
    """``bota_gorda`` then ``probabilistic_alphabeta(start_move, sample_size)``: ``valid_moves[0]``.

    Before ``start_move`` and among moves found optimal equally often it plays the heaviest
    tile first (the second sort is stable)."""

    def __init__(self, sample_size: int, start_move: int = 8):
        import dominoes

        self.dominoes = dominoes
        self.search = dominoes.players.probabilistic_alphabeta(start_move=start_move, sample_size=sample_size)

    def __call__(self, seat_view: Json, log: list[Json], rng_seed: str) -> Json:
        game = dominoes_game(seat_view, log, rng_seed)
        random.seed(rng_seed)  # dominoes samples worlds with the global random module
        self.dominoes.players.bota_gorda(game)
        self.search(game)
        d, left = game.valid_moves[0]
        return play_action(seat_view, Tile(d.first, d.second), "left" if left else "right")


# --- anchor 2: OpenSpiel's ISMCTS (2p block) ---------------------------------------------------
@dataclass(frozen=True)
class OsPlay:
    """One OpenSpiel action: the player, the tile, the number it covers (None: the first tile)."""

    player: int
    tile: Tile
    edge: int | None


def os_tile(t: Tile) -> tuple[float, float]:
    return (float(t.low), float(t.high))  # block_dominoes' deck holds (low, high) as floats


class OpenSpielTables:
    """``python_block_dominoes``' deck and action numbering, read from its public API."""

    def __init__(self) -> None:
        import pyspiel
        from open_spiel.python.games import block_dominoes

        self.game = pyspiel.load_game("python_block_dominoes")
        deck = list(itertools.combinations_with_replacement([float(n) for n in range(7)], 2))
        self.deck_index = {Tile(int(hi), int(lo)): i for i, (lo, hi) in enumerate(deck)}
        self.actions = block_dominoes.create_possible_actions()  # the module's action list, rebuilt
        self.action_index = {(a.player, a.tile, a.edge): i for i, a in enumerate(self.actions)}
        # The numbering, checked against the game's own names for its actions (its public API).
        state = self.game.new_initial_state()
        names = [state.action_to_string(pyspiel.PlayerId.CHANCE, i) for i in range(len(deck))]
        if names != [f"Deal {t}" for t in deck] or len(self.actions) != self.game.num_distinct_actions():
            raise RuntimeError("python_block_dominoes changed its numbering")

    def play_of(self, action: int) -> OsPlay:
        """An action number as a play."""
        return self.history_play(self.actions[action])

    @staticmethod
    def history_play(action: Any) -> OsPlay:
        """A ``block_dominoes.Action`` (an entry of a state's ``actions_history``) as a play."""
        return OsPlay(
            action.player,
            Tile(int(action.tile[1]), int(action.tile[0])),
            None if action.edge is None else int(action.edge),
        )

    def action_of(self, play: OsPlay) -> int:
        return self.action_index[(play.player, os_tile(play.tile), None if play.edge is None else float(play.edge))]

    def build(self, player: int, own: list[Tile], hidden: list[Tile], plays: list[OsPlay]) -> Any:
        """The state after ``plays``, ``player`` holding ``own`` and the other ``hidden`` (now):
        each dealt hand is the tiles held now plus the tiles that player has played."""
        dealt = {player: list(own), 1 - player: list(hidden)}
        for p in plays:
            dealt[p.player].append(p.tile)
        state = self.game.new_initial_state()
        for who in (0, 1):  # the chance nodes fill player 0's hand first
            for t in dealt[who]:
                state.apply_action(self.deck_index[t])
        for p in plays:
            if state.current_player() != p.player:
                raise ValueError(f"history does not replay: player {state.current_player()} to move, not {p.player}")
            state.apply_action(self.action_of(p))
        return state


def os_plays(seat_view: Json, log: list[Json]) -> list[OsPlay]:
    """The hand's plays as OpenSpiel actions (knocks are implicit there); the leader is player 0."""
    leader = seat_view["leader"]
    ends: dict[str, int] = {}
    plays = []
    for e in hand_events(log):
        if e["type"] == "tile_played":
            plays.append(OsPlay(0 if e["seat"] == leader else 1, Tile.from_json(e["tile"]), ends.get(e["end"])))
            ends = {str(k): v for k, v in e["ends"].items()}
    return plays


def opponent_rules_out(plays: list[OsPlay], to_move: int, player: int) -> Callable[[Tile], bool]:
    """What ``player`` knows of the other's hand from the public history: a tile it cannot hold.

    Two plays in a row by ``player`` (or ``player`` to move right after its own play) mean the
    other passed: it holds no tile showing a number open then. Boneyard's forced lead: the
    highest double dealt leads, so no higher double was dealt; a non-double lead means no
    double was dealt and nothing heavier."""
    lacks = 0
    edges: list[int] = []
    for i, p in enumerate(plays):
        if p.edge is None:
            edges = [p.tile.high, p.tile.low]
        else:
            edges.remove(p.edge)
            edges.append(p.tile.other(p.edge))
        after = plays[i + 1].player if i + 1 < len(plays) else to_move
        if p.player == player and after == player:
            for n in edges:
                lacks |= 1 << n
    lead = plays[0].tile if plays else None

    def excluded(t: Tile) -> bool:
        if (1 << t.high | 1 << t.low) & lacks:
            return True
        if lead is None:
            return False
        if lead.is_double:
            return t.is_double and t.high > lead.high
        return t.is_double or weight_key(t) > weight_key(lead)

    return excluded


def sample_hidden(
    own: list[Tile], plays: list[OsPlay], count: int, excluded: Callable[[Tile], bool], shuffle: Callable[[list], None]
) -> list[Tile]:
    """``count`` tiles for the opponent, uniformly among those it may hold (the rest: never dealt)."""
    known = set(own) | {p.tile for p in plays}
    allowed = [t for t in ALL_TILES if t not in known and not excluded(t)]
    if len(allowed) < count:
        raise ValueError("no deal is consistent with the history")
    shuffle(allowed)
    return allowed[:count]


class IsmctsAnchor:
    """OpenSpiel's ISMCTSBot with a resampler built on the seat's public knowledge."""

    def __init__(self, simulations: int = 500, uct_c: float = 2.0):
        self.simulations = simulations
        self.uct_c = uct_c
        self.tables = OpenSpielTables()

    def root_state(self, seat_view: Json, log: list[Json], rng_seed: str) -> tuple[Any, int]:
        """The state handed to the bot, from the seat's view and log (a placeholder for the other hand)."""
        if seat_view["rules"]["players"] != 2:
            raise ValueError("python_block_dominoes is a 2-player game")
        seat = seat_view["seat"]
        player = 0 if seat == seat_view["leader"] else 1
        own = own_hand(seat_view)
        plays = os_plays(seat_view, log)
        excluded = opponent_rules_out(plays, player, player)
        rng = random.Random(f"placeholder:{rng_seed}")
        hidden = sample_hidden(own, plays, seat_view["hand_counts"][1 - seat], excluded, rng.shuffle)
        state = self.tables.build(player, own, hidden, plays)
        if state.current_player() != player:
            raise ValueError("the rebuilt state has another player to move")
        return state, player

    def resampler(self, rs: Any) -> Callable[[Any, int], Any]:
        tables = self.tables

        def resample(state: Any, player: int) -> Any:
            plays = [tables.history_play(a) for a in state.actions_history]
            own = [Tile(int(b), int(a)) for a, b in state.hands[player]]
            count = len(state.hands[1 - player])  # only how many: the tiles themselves are not read
            excluded = opponent_rules_out(plays, player, player)
            hidden = sample_hidden(own, plays, count, excluded, lambda xs: _np_shuffle(rs, xs))
            return tables.build(player, own, hidden, plays)

        return resample

    def __call__(self, seat_view: Json, log: list[Json], rng_seed: str) -> Json:
        import numpy as np
        from open_spiel.python.algorithms import ismcts, mcts

        root, _player = self.root_state(seat_view, log, rng_seed)
        rs = np.random.RandomState(int.from_bytes(hashlib.sha256(rng_seed.encode()).digest()[:4], "big"))
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs)
        bot = ismcts.ISMCTSBot(self.tables.game, evaluator, self.uct_c, self.simulations, random_state=rs)
        bot.set_resampler(self.resampler(rs))
        play = self.tables.play_of(int(bot.step(root)))
        if play.edge is None:
            raise ValueError("the lead is Boneyard's, never the bot's")
        end = next(e["end"] for e in seat_view["ends"] if e["value"] == play.edge)  # left first
        return play_action(seat_view, play.tile, end)


def _np_shuffle(rs: Any, items: list[Tile]) -> None:
    order = rs.permutation(len(items))
    items[:] = [items[i] for i in order]


# --- one hand on Boneyard's engine ---------------------------------------------------------------
@dataclass
class HandOutcome:
    """One hand: the Boneyard bot's side and the points each side scored; CPU per decision."""

    boneyard_side: int
    side: int | None  # the scoring side (None: a tie)
    points: int
    reason: str
    boneyard_cpu: list[float] = field(default_factory=list)  # decisions with more than one legal action
    anchor_cpu: list[float] = field(default_factory=list)
    actions: list[Json] = field(default_factory=list)  # every action applied, in order (for determinism checks)

    @property
    def boneyard_points(self) -> int:
        return self.points if self.side == self.boneyard_side else 0

    @property
    def anchor_points(self) -> int:
        return self.points if self.side is not None and self.side != self.boneyard_side else 0


def play_hand(
    rules: RuleSet,
    seed: str,
    players: list[Player],
    boneyard_side: int,
    watch: Watcher | None = None,
    boneyard_level: str | None = None,
) -> HandOutcome:
    """Deal the hand of ``seed`` and play it to its end, each seat's player choosing its moves
    (``watch``, for diagnostics: shown the whole state before each decision a player is asked for).

    The match lists the Boneyard side's seats as bots of ``boneyard_level`` (as the server lists
    its bot seats: every view shows them, and experts partnered with an expert play their
    ``Budget.signal`` convention), the anchor's as remote seats; None lists every seat as remote."""
    seats = [
        {"name": f"seat-{i}", "type": "bot", "level": boneyard_level}
        if boneyard_level is not None and rules.side_of(i) == boneyard_side
        else {"name": f"seat-{i}", "type": "remote"}
        for i in range(rules.players)
    ]
    created = create_match(rules, seats, seed)
    state = replay(created)
    logs: list[list[Json]] = [[] for _ in range(rules.players)]
    count = 0

    def record(new: list[Event]) -> None:
        nonlocal count
        count += len(new)
        for seat, log in enumerate(logs):
            log.extend(redact_event(e.to_dict(), seat) for e in new)

    record(created)
    new = start_match(state, seed)
    outcome = HandOutcome(boneyard_side, None, 0, "")
    while True:
        state = replay(new, state)
        record(new)
        ended = next((e for e in new if isinstance(e, HandEnded)), None)
        if ended is not None:
            outcome.side, outcome.points, outcome.reason = ended.side, ended.points, str(ended.reason)
            return outcome
        seat = next_actor(state)
        seat_view = view(state, seat)
        legal = seat_view["legal_actions"]
        if len(legal) == 1:
            action = legal[0]  # nothing to decide: a knock, or the one tile that fits
        else:
            if watch is not None:
                watch(state, seat, logs[seat])
            t0 = time.process_time()
            action = players[seat](seat_view, logs[seat], bot_seed(seed, count, seat))
            spent = time.process_time() - t0
            mine = rules.side_of(seat) == boneyard_side
            (outcome.boneyard_cpu if mine else outcome.anchor_cpu).append(spent)
        outcome.actions.append(action)
        new = decide(state, parse_action(seat, action), seed)


# --- rows ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Row:
    name: str
    label: str
    players: int
    default_hands: int


ROWS = (
    Row("alphabeta8", "4p partner block vs dominoes probabilistic_alphabeta (start 8, sample 8)", 4, 400),
    Row("alphabeta32", "4p partner block vs dominoes probabilistic_alphabeta (start 8, sample 32)", 4, 400),
    Row("ismcts", "2p block vs OpenSpiel ISMCTS", 2, 600),
)
ROW_BY_NAME = {r.name: r for r in ROWS}


@dataclass(frozen=True)
class Settings:
    level: str = "expert"
    seed: int = 1
    ismcts_sims: int = 500
    ismcts_uct_c: float = 2.0
    budget: Budget | None = None  # the level's own unless given (``--budget``)


_ANCHORS: dict[tuple[str, Settings], Player] = {}  # per process: the anchors keep their tables


def anchor_for(row: str, settings: Settings) -> Player:
    key = (row, settings)
    if key not in _ANCHORS:
        if row == "alphabeta8":
            _ANCHORS[key] = AlphabetaAnchor(8)
        elif row == "alphabeta32":
            _ANCHORS[key] = AlphabetaAnchor(32)
        elif row == "ismcts":
            _ANCHORS[key] = IsmctsAnchor(settings.ismcts_sims, settings.ismcts_uct_c)
        else:
            raise ValueError(f"unknown row {row!r}")
    return _ANCHORS[key]


def play_pair(job: tuple[str, int, Settings]) -> tuple[str, int, list[HandOutcome]]:
    """Deal ``index`` of the row, played twice: the Boneyard bot on side 0, then on side 1."""
    row_name, index, settings = job
    row = ROW_BY_NAME[row_name]
    rules = four_player_rules() if row.players == 4 else two_player_rules()
    seed = f"versus:{settings.seed}:{row.players}p:{index}"  # the same deals for both alphabeta rows
    ours, theirs = boneyard_player(settings.level, settings.budget), anchor_for(row_name, settings)
    hands = []
    for side in (0, 1):
        players = [ours if rules.side_of(s) == side else theirs for s in range(rules.players)]
        hands.append(play_hand(rules, seed, players, side, boneyard_level=settings.level))
    return row_name, index, hands


# --- statistics -----------------------------------------------------------------------------------
def percentile(sorted_values: list[float], q: float) -> float:
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def points_share(pairs: list[list[HandOutcome]]) -> float:
    ours = sum(h.boneyard_points for p in pairs for h in p)
    total = sum(h.points for p in pairs for h in p if h.side is not None)
    return ours / total if total else 0.5


def bootstrap_share(pairs: list[list[HandOutcome]], seed: int = 0) -> tuple[float, float]:
    """95% percentile bootstrap interval of the points share, resampling deal pairs."""
    rng = random.Random(seed)
    shares = sorted(points_share([rng.choice(pairs) for _ in pairs]) for _ in range(BOOTSTRAP))
    return percentile(shares, 0.025), percentile(shares, 0.975)


@dataclass
class RowResult:
    row: Row
    hands: int
    decided: int
    won: int
    share: float
    share_ci: tuple[float, float]
    points: float
    points_ci: tuple[float, float]
    ours_cpu: list[float]
    theirs_cpu: list[float]

    @property
    def win_rate(self) -> float:
        return self.won / self.decided if self.decided else 0.0

    @property
    def cpu_ratio(self) -> float:
        """The Boneyard bot's mean CPU per decision over the anchor's."""
        if not self.ours_cpu or not self.theirs_cpu:
            return float("nan")
        return statistics.fmean(self.ours_cpu) / statistics.fmean(self.theirs_cpu)


def summarise(row: Row, pairs: list[list[HandOutcome]]) -> RowResult:
    hands = [h for p in pairs for h in p]
    decided = [h for h in hands if h.side is not None]
    won = sum(h.side == h.boneyard_side for h in decided)
    return RowResult(
        row,
        len(hands),
        len(decided),
        won,
        won / len(decided) if decided else 0.0,
        wilson(won, len(decided)),
        points_share(pairs),
        bootstrap_share(pairs),
        sorted(t for h in hands for t in h.boneyard_cpu),
        sorted(t for h in hands for t in h.anchor_cpu),
    )


def cpu_text(sample: list[float]) -> str:
    """median / p95 / p99 / mean, in milliseconds."""
    if not sample:
        return "n/a"
    ms = [1000 * t for t in sample]
    parts = (statistics.median(ms), percentile(ms, 0.95), percentile(ms, 0.99), statistics.fmean(ms))
    return " / ".join(f"{x:,.0f}" if x >= 100 else f"{x:.1f}" for x in parts) + f" (n={len(ms)})"


def verdicts(results: dict[str, RowResult]) -> list[str]:
    """PASS/FAIL against the issue's targets, for the rows that were run."""
    lines = []
    r = results.get("alphabeta32")
    if r is not None:
        few = "" if r.hands >= 400 else f" (only {r.hands} hands; the target is over >= 400)"
        lines.append(
            f"{'PASS' if r.win_rate >= 0.60 else 'FAIL'} alphabeta32: decided hands {r.win_rate:.1%} >= 60%{few}"
        )
        lines.append(f"{'PASS' if r.points >= 0.55 else 'FAIL'} alphabeta32: points {r.points:.1%} >= 55%{few}")
        ok = r.cpu_ratio <= 0.25
        lines.append(f"{'PASS' if ok else 'FAIL'} alphabeta32: mean CPU {r.cpu_ratio:.2f}x the anchor's <= 0.25x")
    r = results.get("ismcts")
    if r is not None:
        few = "" if r.hands >= 600 else f" (only {r.hands} hands; the target is over >= 600)"
        ok = r.points_ci[0] > 0.50
        lines.append(
            f"{'PASS' if ok else 'FAIL'} ismcts: points share 95% interval low end {r.points_ci[0]:.1%} > 50%{few}"
        )
    return lines


def run_rows(
    rows: list[Row], hands: dict[str, int], settings: Settings, jobs: int
) -> dict[str, list[list[HandOutcome]]]:
    """Every deal pair of every row, in index order whatever the number of jobs."""
    work = [(row.name, i, settings) for row in rows for i in range(max(1, hands[row.name] // 2))]
    done: dict[str, dict[int, list[HandOutcome]]] = {row.name: {} for row in rows}
    if jobs > 1:
        with multiprocessing.Pool(jobs) as pool:
            for name, index, pair in pool.imap_unordered(play_pair, work):
                done[name][index] = pair
    else:
        for job in work:
            name, index, pair = play_pair(job)
            done[name][index] = pair
    return {name: [pairs[i] for i in sorted(pairs)] for name, pairs in done.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--rows", default=",".join(r.name for r in ROWS), help="comma-separated: " + ", ".join(ROW_BY_NAME)
    )
    parser.add_argument(
        "--hands", type=int, help="hands per row (even; default 400 for alphabeta rows, 600 for ismcts)"
    )
    parser.add_argument("--quick", action="store_true", help="40 hands per row")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--level", default="expert", help="the Boneyard level playing (default expert)")
    parser.add_argument("--seed", type=int, default=1, help="the deals: the same seed plays the same deals")
    parser.add_argument("--ismcts-sims", type=int, default=500)
    parser.add_argument("--ismcts-uct-c", type=float, default=2.0)
    parser.add_argument(
        "--budget",
        default="",
        help="the level's budget with some fields changed, e.g. inference=8,lean=4.0 (api/bots/expert.py Budget)",
    )
    args = parser.parse_args(argv)
    try:
        budget = parse_budget(args.budget, args.level) if args.budget else None
    except ValueError as error:
        parser.error(str(error))

    wanted = [n.strip() for n in args.rows.split(",") if n.strip()]
    unknown = [n for n in wanted if n not in ROW_BY_NAME]
    if unknown:
        parser.error(f"unknown rows: {', '.join(unknown)}")
    rows = [ROW_BY_NAME[n] for n in wanted]
    size = 40 if args.quick else args.hands
    hands = {r.name: max(2, (size or r.default_hands) // 2 * 2) for r in rows}
    settings = Settings(args.level, args.seed, args.ismcts_sims, args.ismcts_uct_c, budget)

    print(f"Command: {' '.join([os.path.basename(sys.executable), *sys.argv])}")
    print(
        f"Boneyard level {settings.level}; ISMCTS {settings.ismcts_sims} simulations, uct_c {settings.ismcts_uct_c:g}"
    )
    if budget is not None:
        print(f"Budget: {budget}")
    print("Each deal twice, sides swapped; blocked_scoring 'others'; points are Boneyard's hand scores.\n")
    began = time.perf_counter()
    outcomes = run_rows(rows, hands, settings, args.jobs)
    wall = time.perf_counter() - began

    results = {r.name: summarise(r, outcomes[r.name]) for r in rows}
    print(
        "| match-up | hands | decided | Boneyard's share of decided [95% Wilson] | of points [95% bootstrap] "
        "| CPU ms/decision Boneyard: median / p95 / p99 / mean | anchor: median / p95 / p99 / mean "
        "| mean CPU Boneyard / anchor |"
    )
    print("|---|---:|---:|---|---|---|---|---:|")
    for r in results.values():
        print(
            f"| {r.row.label} | {r.hands} | {r.decided} | {r.win_rate:.1%} [{r.share_ci[0]:.1%}, {r.share_ci[1]:.1%}] "
            f"| {r.points:.1%} [{r.points_ci[0]:.1%}, {r.points_ci[1]:.1%}] | {cpu_text(r.ours_cpu)} "
            f"| {cpu_text(r.theirs_cpu)} | {r.cpu_ratio:.3g}x |"
        )
    print()
    for line in verdicts(results):
        print(line)
    print(f"\nwall time {wall:.0f} s ({args.jobs} jobs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
