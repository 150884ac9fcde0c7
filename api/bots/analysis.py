"""The analysis after a match (issue 38): every decision of every seat valued, choice by choice.

For each decision of a whole, ended log (a seat's own play, draw or pass with two or more
distinct choices; not the engine's ``auto`` moves, not a muggins call, which is free points)
each choice gets two values, in points for the seat's side against the others (the expert's
unit, ``expert._value``: a hand's points to its side less the others' mean, and reaching the
target worth ``target / 2`` more):

* ``known``: from what the seat knew then: its view and its redacted log of the hand, exactly
  what a computer player is asked with (``turns.question_for``), valued by the expert's own
  evaluation (``expert.evaluate`` at the expert's budget for the set, the hand's win not
  counted beyond its points). Trains games: the trains expert's (Chicken Foot: its rollouts on
  guessed deals; Mexican Train: its plan's score, a heuristic in points, no lookahead).
* ``shown``: with every hand shown (and the boneyard in its true order). Line games that end in
  a line without scoring on the way (Draw, Block, the double-nine partner game): the rest of
  the hand solved exactly once nothing is left to draw (``endgame.ExactLine``; greedy draws
  until then); such a decision is marked ``exact`` when nothing could be drawn and the whole
  rest of the hand was solved. Spinner and count-scoring games (All Fives, Muggins, Fives and
  Threes): the expert's rollouts on the true deal, never exact. Chicken Foot: its greedy
  rollout on the true deal. Mexican Train: ``mexican_playouts`` playouts per choice of the true
  deal by the engine itself (the boneyard in its true order), every seat greedy with
  ``mexican_epsilon`` of its choices random, never exact.

The points a choice gave away are the best value less the chosen one's, by ``shown`` where
there is one, else by ``known``. Per seat: the decisions, the mean points lost per decision and
the three decisions that lost the most.

Everything is a pure function of the log and the revealed seed: each decision's randomness is
``make_rng(bot_seed(seed, seq, seat), "analysis")``, and the work is counted, never timed
(``AnalysisBudget``): the expert's per-decision budget, and ``max_decisions`` per match beyond
which the rest are listed unvalued, so one match's analysis costs a bounded amount of CPU.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence
from dataclasses import dataclass

from api.rules import RulesError, event_from_dict, parse_action, redact_event, view
from api.rules.engine import decide, initial_state, mutate
from api.rules.events import DEAL_TYPES, MatchCreated, PointsScored, RoundEnded
from api.rules.state import MatchState
from api.rules.tiles import Tile, TileSet
from api.rules.trains import Play, TrainsState, hand_pips, legal_moves
from api.rules.trains import play as play_trains
from api.rules.trains_wire import place_to_wire
from api.rules.vocabulary import ActionType

from . import level_budget
from .actions import Action, Json, bot_seed, make_rng, to_move
from .audit import opens_a_decision
from .expert import Budget, candidates_of, evaluate
from .knowledge import Knowledge
from .trains_chicken import place_number, tiles_on_table
from .trains_expert import mexican_score, planner_of
from .trains_rollout import Round, rollout_values
from .trains_table import TrainsTable, is_trains_view, listed_plays, read_table

VERSION = 1
EXPERT = "expert"
WORST = 3  # the moments per seat a review shows first


# The oracle where the rest of a hand can be solved: the true deal as the only one, played
# greedily while something can be drawn, then solved exactly (``exact_limit`` positions a solve).
EXACT = Budget(
    determinizations=1,
    min_determinizations=1,
    epsilon=0.0,
    exact_tiles=28,
    exact_limit=2_000_000,
    exact_work=10**12,
    sure=0.0,
    inference=1,
    signal=0.0,
)
# ...and where it cannot (a spinner, points scored on the way): the expert's playouts on the true deal.
ROLLOUTS = Budget(
    determinizations=1,
    min_determinizations=1,
    rollouts=16,
    max_playouts=10**6,
    epsilon=0.1,
    exact_tiles=0,
    sure=0.0,
    inference=1,
    signal=0.0,
)


@dataclass(frozen=True)
class AnalysisBudget:
    """The work one match's analysis may do, counted: the expert's per-decision budget for the
    ``known`` values (None: the expert's own for the set), the oracle's for the ``shown``
    values (``exact``: solved from ``exact_tiles`` tiles left, nothing drawable; ``rollouts``:
    the spinner and count games' playouts on the true deal), Chicken Foot's guesses, and at most
    ``max_decisions`` decisions valued per match (the seat moves after them are only counted:
    ``Analysis.unvalued``)."""

    known: Budget | None = None
    exact: Budget = dataclasses.field(default_factory=lambda: EXACT)
    rollouts: Budget = dataclasses.field(default_factory=lambda: ROLLOUTS)
    trains_guesses: int = 24
    mexican_playouts: int = 8
    mexican_epsilon: float = 0.1
    max_decisions: int = 1200

    def known_budget(self, tile_set: TileSet) -> Budget:
        # the hand's win counts for its points only: values stay in points
        return dataclasses.replace(self.known or level_budget(EXPERT, tile_set), hand_win=0.0, signal=0.0)


DEFAULT_ANALYSIS_BUDGET = AnalysisBudget()


class Sighted(Knowledge):
    """A seat's knowledge with the hidden tiles shown: every deal it imagines is the truth (the
    other seats' hands and the boneyard in its true order)."""

    truth: dict[int, list[Tile]]
    true_boneyard: list[Tile]

    def weighed_sample(self, rng: random.Random) -> tuple[dict[int, list[Tile]], list[Tile], float]:
        # ``sample`` and the expert's weighed deals both deal through this
        return {seat: list(hand) for seat, hand in self.truth.items()}, list(self.true_boneyard), 1.0


def sighted(know: Knowledge, truth: dict[int, list[Tile]], boneyard: Sequence[Tile] = ()) -> Sighted:
    """``know`` shown ``truth`` (every other seat's hand) and the ``boneyard`` in draw order."""
    shown = Sighted(**{f.name: getattr(know, f.name) for f in dataclasses.fields(know)})
    shown.truth = truth
    shown.true_boneyard = list(boneyard)
    return shown


# --- a choice's name: the record's move notation (docs/records.md) ------------------------------------
_LETTERS = {"left": "L", "right": "R", "up": "U", "down": "D"}


def choice_name(action: Json) -> str:
    """An action (or the event it made) as a record's move token without the seat: ``6-4R``,
    ``12-5/0``, ``12-5/mexican``, ``D``, ``K``, ``P``."""
    kind = action.get("type")
    if kind in (ActionType.PLAY, "tile_played", "tile_placed"):
        high, low = sorted(action["tile"], reverse=True)
        if "train" in action:
            return f"{high}-{low}/{action['train']}"
        return f"{high}-{low}{_LETTERS[action.get('end') or 'left']}"
    return {"draw": "D", "tile_drawn": "D", "knock": "K", "knocked": "K", "pass": "P", "passed": "P"}.get(
        str(kind), str(kind)
    )


# --- one decision --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Choice:
    name: str
    known: float
    shown: float | None


@dataclass(frozen=True)
class Decision:
    seq: int  # the event the seat's choice made (its first)
    hand: int  # the hand (a trains game: the round)
    seat: int
    chosen: str
    best: str
    lost: float  # points given away: best value less the chosen one's (by ``shown`` when valued)
    exact: bool  # ``shown`` solved exactly
    tiles_left: int  # in every hand, the seat's own included, before it chose
    choices: tuple[Choice, ...]

    def to_json(self) -> Json:
        return {
            "seq": self.seq,
            "hand": self.hand,
            "seat": self.seat,
            "chosen": self.chosen,
            "best": self.best,
            "lost": self.lost,
            "exact": self.exact,
            "tiles_left": self.tiles_left,
            "choices": [{"choice": c.name, "known": c.known, "shown": c.shown} for c in self.choices],
        }


def _round(value: float) -> float:
    return round(value, 2) + 0.0  # no -0.0


def _truth(state: MatchState, seat: int) -> tuple[dict[int, list[Tile]], list[Tile]]:
    return {s: list(hand) for s, hand in enumerate(state.hands) if s != seat}, list(state.boneyard)


def _spinner_or_count(know: Knowledge) -> bool:
    return know.rules.uses_spinner or know.rules.scores_the_count


def _drawable(state: MatchState) -> bool:
    return state.boneyard_drawable() > 0


def _known_line(
    shown: Json, log: Sequence[Json], rng_seed: str, budget: AnalysisBudget
) -> tuple[Knowledge, list[Action], list[float]] | None:
    """A line game's distinct choices (as the expert lists them) and their values from what the
    seat knows (its view ``shown`` and its redacted ``log`` of the hand); None without a choice."""
    know = Knowledge.read(shown, log)
    known_budget = budget.known_budget(know.rules.set)
    if not known_budget.greedy_reading:  # as the expert reads (``choose_expert``)
        know = dataclasses.replace(know, shed={})
    candidates = candidates_of(shown["legal_actions"], know)
    if len(candidates) < 2:
        return None
    moves = [to_move(a) for a in candidates]
    return know, candidates, evaluate(know, moves, make_rng(rng_seed, "analysis"), known_budget)


def line_values(
    state: MatchState, seat: int, shown: Json, log: Sequence[Json], rng_seed: str, budget: AnalysisBudget, oracle: bool
) -> tuple[list[Action], list[float], list[float] | None, bool] | None:
    """A line game's decision: its distinct choices (as the expert lists them), their ``known`` and
    ``shown`` values (``shown`` None when ``oracle`` is off), and whether ``shown`` is exact.
    None when there is no choice to make."""
    found = _known_line(shown, log, rng_seed, budget)
    if found is None:
        return None
    know, candidates, known = found
    moves = [to_move(a) for a in candidates]
    if not oracle:
        return candidates, known, None, False
    hands, boneyard = _truth(state, seat)
    truth = sighted(know, hands, boneyard)
    if _spinner_or_count(know):
        values = evaluate(truth, moves, make_rng(rng_seed, "analysis:shown"), budget.rollouts)
        return candidates, known, values, False
    values = evaluate(truth, moves, make_rng(rng_seed, "analysis:shown"), budget.exact)
    tiles = sum(len(h) for h in state.hands)
    exact = not _drawable(state) and tiles - 1 <= budget.exact.exact_tiles
    return candidates, known, values, exact


def _true_round(table: TrainsTable, state: MatchState, points: dict[Tile, int]) -> Round:
    """Chicken Foot's round in the rollouts' small form, every hand as it truly is."""
    trains = state.trains
    assert trains is not None
    hands = [list(hand) for hand in trains.hands]
    ends = [s.open for s in table.spots if s.open is not None]
    # the rollouts draw from the end of their boneyard; the engine's next draw is its first tile
    boneyard = list(reversed(trains.boneyard))
    return Round(hands, boneyard, ends, table.toes_number, table.toes_left, table.seat, points)


TrainsKey = tuple[Tile, int]  # Chicken Foot: a play's tile and the number it goes on


def _known_trains(
    shown: Json, rng_seed: str, budget: AnalysisBudget
) -> tuple[list[Action], list[float], list[TrainsKey]] | None:
    """A trains game's distinct plays (Mexican Train: a tile and its train; Chicken Foot: a tile and
    the number it goes on, ``keys``; none in Mexican Train) and their values from what the seat
    knows; None without a choice."""
    plays = listed_plays(shown)
    table = read_table(shown) if plays else None
    if table is None:
        return None
    if table.is_mexican_train:  # (a draw beside plays is no choice the plan's score values)
        distinct = list({(p.tile, p.train): p for p in plays}.values())
        if len(distinct) < 2:
            return None
        planner = planner_of(table)
        return [p.action for p in distinct], [float(mexican_score(table, p, planner)) for p in distinct], []
    number_of = {p.train: place_number(table, p) for p in plays}
    unique = list({(p.tile, number_of[p.train]): p for p in plays}.values())
    if len(unique) < 2:
        return None
    keys = [(p.tile, number_of[p.train]) for p in unique]
    rng = make_rng(rng_seed, "analysis")
    values = rollout_values(table, keys, tiles_on_table(shown), rng, budget.trains_guesses)
    return [p.action for p in unique], [-v for v in values], keys


def trains_values(
    state: MatchState, shown: Json, log: Sequence[Json], rng_seed: str, budget: AnalysisBudget, oracle: bool
) -> tuple[list[Action], list[float], list[float] | None] | None:
    """A trains game's decision: one action per distinct (tile, number) play, and a draw where it is
    a choice; ``known`` and ``shown`` values in points (higher is better)."""
    found = _known_trains(shown, rng_seed, budget)
    if found is None:
        return None
    actions, known, keys = found
    table = read_table(shown)
    if not oracle:
        return actions, known, None
    if table.is_mexican_train:
        assert state.trains is not None
        return actions, known, mexican_shown(state.trains, table.seat, actions, rng_seed, budget)
    points = {t: table.points(t) for t in table.rules.tile_set.tiles}
    truth = _true_round(table, state, points)
    values = []
    seats = len(truth.hands)
    for tile, number in keys:
        round_ = truth.copy()
        round_.hands[table.seat].remove(tile)
        round_.put(tile, number)
        round_.to_move = (table.seat + 1) % seats
        left = round_.play_out() if round_.hands[table.seat] else [sum(points[t] for t in h) for h in round_.hands]
        values.append(-(left[table.seat] - (sum(left) - left[table.seat]) / (seats - 1)))
    return actions, known, values


def _mexican_move(trains: TrainsState, action: Action) -> Play:
    """The engine's move for a listed Mexican Train play (a tile and its train)."""
    tile = Tile.from_json(action["tile"])
    return next(
        m
        for m in legal_moves(trains)
        if isinstance(m, Play) and m.tile == tile and place_to_wire(m.place) == action["train"]
    )


def _mexican_playout(trains: TrainsState, seat: int, move: Play, rng: random.Random, epsilon: float) -> list[int]:
    """The round played on from ``trains`` after ``seat``'s ``move`` by the engine itself (its
    draws from the true boneyard, in order), every seat greedy as the ``greedy`` level (the
    heaviest tile, a double first, then the higher end, the first place), ``epsilon`` of its
    choices among plays random; each seat's pips at the round's end."""
    state = trains.copy()
    rules = state.rules
    events = play_trains(state, seat, move, "analysis")
    for _ in range(8 * len(rules.tile_set.tiles)):  # a bound on the turns, never met by a real round
        for event in events:
            if isinstance(event, RoundEnded):
                return list(event.pips)
        moves = legal_moves(state)
        plays = [m for m in moves if isinstance(m, Play)]
        if not plays:
            chosen = moves[0]  # the draw, else the pass
        elif len(plays) > 1 and rng.random() < epsilon:
            chosen = rng.choice(plays)
        else:
            chosen = max(plays, key=lambda m: (hand_pips(rules, (m.tile,)), m.tile.is_double, m.tile.high))
        assert state.to_move is not None
        events = play_trains(state, state.to_move, chosen, "analysis")
    return [hand_pips(rules, hand) for hand in state.hands]  # (unreached: the hands as they are)


def mexican_shown(
    trains: TrainsState, seat: int, actions: Sequence[Action], rng_seed: str, budget: AnalysisBudget
) -> list[float]:
    """Each listed play's value with every hand shown: the mean over ``budget.mexican_playouts``
    playouts of the true deal (``_mexican_playout``) of the seat's side's points against the
    others' mean (the pips the others keep less its own). Playout k of every choice draws from
    the same random stream (``make_rng(rng_seed, "analysis:shown:k")``): the choices are compared
    on the same luck, and the same log always gives the same values."""
    seats = len(trains.hands)
    values = []
    for action in actions:
        move = _mexican_move(trains, action)
        total = 0.0
        for k in range(budget.mexican_playouts):
            rng = make_rng(rng_seed, f"analysis:shown:{k}")
            left = _mexican_playout(trains, seat, move, rng, budget.mexican_epsilon)
            total += (sum(left) - left[seat]) / (seats - 1) - left[seat]
        values.append(total / max(1, budget.mexican_playouts))
    return values


def hint(
    shown: Json, log: Sequence[Json], rng_seed: str, budget: AnalysisBudget = DEFAULT_ANALYSIS_BUDGET
) -> list[tuple[Action, float]]:
    """The seat's choices now, each as listed in ``shown["legal_actions"]`` with its value from what
    the seat knows (the analysis' ``known`` value: the seat's view and its redacted ``log`` of the
    hand, nothing else), best first; one choice or none: no values to give (an empty list).
    A hint during play reads nothing the seat may not see."""
    if is_trains_view(shown):
        found_trains = _known_trains(shown, rng_seed, budget)
        if found_trains is None:
            return []
        candidates, values, _keys = found_trains
    else:
        found = _known_line(shown, log, rng_seed, budget)
        if found is None:
            return []
        _know, candidates, values = found
    order = sorted(range(len(candidates)), key=lambda k: (-values[k], k))
    return [(candidates[k], _round(values[k])) for k in order]


def _made(state: MatchState, seat: int, shown: Json, seed: str, events: list[Json]) -> tuple[Action, int] | None:
    """The listed action the seat took (the one whose events the log holds), and how many events it made."""
    for action in shown["legal_actions"]:
        try:
            produced = [e.to_dict() for e in decide(state, parse_action(seat, action), seed)]
        except (RulesError, ValueError):
            continue
        if produced == events[: len(produced)]:
            return action, len(produced)
    return None


def _key(action: Action) -> tuple[str, str]:
    return str(action.get("type")), choice_name(action)


@dataclass(frozen=True)
class Analysis:
    family: str
    decisions: tuple[Decision, ...]
    unvalued: int  # the seats' own moves past ``max_decisions``, not valued
    seats: int

    def to_json(self) -> Json:
        per_seat = []
        for seat in range(self.seats):
            mine = [d for d in self.decisions if d.seat == seat]
            lost = sum(d.lost for d in mine)
            worst = sorted(mine, key=lambda d: (-d.lost, d.seq))[:WORST]
            per_seat.append(
                {
                    "seat": seat,
                    "decisions": len(mine),
                    "points_lost": _round(lost),
                    "mean_lost": _round(lost / len(mine)) if mine else 0.0,
                    "worst": [d.seq for d in worst if d.lost > 0],
                }
            )
        return {
            "version": VERSION,
            "family": self.family,
            "decisions": [d.to_json() for d in self.decisions],
            "unvalued": self.unvalued,
            "seats": per_seat,
        }


def analyse(log: Sequence[Json], seed: str, budget: AnalysisBudget = DEFAULT_ANALYSIS_BUDGET) -> Analysis:
    """The analysis of a whole log (event dicts in seq order, without ``seq``, ``match_created``
    first) of an ended match whose server seed is ``seed``. A log that does not fold is a
    ``RulesError`` (the fairness check says where)."""
    opening = event_from_dict(dict(log[0]))
    if not isinstance(opening, MatchCreated):
        raise ValueError("a match's log opens with match_created")
    state = initial_state(opening)
    family = "trains" if state.trains is not None else "line"
    hand: list[Json] = []
    decisions: list[Decision] = []
    unvalued = 0
    rows = [dict(row) for row in log]
    i = 1
    while i < len(rows):
        row = rows[i]
        seat = row.get("seat")
        block = 1
        if isinstance(seat, int) and opens_a_decision(row) and not _is_muggins(row):
            shown = view(state, seat)
            made = _made(state, seat, shown, seed, rows[i:])
            if made is not None:
                action, block = made
                if len(decisions) >= budget.max_decisions:
                    unvalued += 1
                else:
                    found = _decision(state, seat, shown, hand, seed, i, action, budget)
                    if found is not None:
                        decisions.append(found)
        for event_row in rows[i : i + block]:
            event = event_from_dict(event_row)
            mutate(state, event)
            if event.type in DEAL_TYPES:
                hand = []
            hand.append(event_row)
        i += block
    return Analysis(family, tuple(decisions), unvalued, len(state.seats))


def _is_muggins(row: Json) -> bool:
    return row.get("type") == PointsScored.type


def _hand_number(shown: Json) -> int:
    return int(shown.get("hand_number") or shown.get("round") or 0)


def _decision(
    state: MatchState,
    seat: int,
    shown: Json,
    hand: list[Json],
    seed: str,
    index: int,
    made: Action,
    budget: AnalysisBudget,
) -> Decision | None:
    """The decision at ``index`` (the log's 0-based position of its first event; its seq is one
    more), valued; None when the seat had one choice only."""
    log = [redact_event(event, seat) for event in hand]
    rng_seed = bot_seed(seed, index, seat)  # as the bots are seeded: after event ``index`` (a seq)
    exact = False
    if is_trains_view(shown):
        found_trains = trains_values(state, shown, log, rng_seed, budget, oracle=True)
        if found_trains is None:
            return None
        candidates, known, values = found_trains
    else:
        found = line_values(state, seat, shown, log, rng_seed, budget, oracle=True)
        if found is None:
            return None
        candidates, known, values, exact = found
    chosen = next(
        (k for k, c in enumerate(candidates) if _key(c) == _key(made)),
        None,
    )
    if chosen is None:  # a play equal to a listed one (the same table after it): find it by its events
        chosen = next((k for k, c in enumerate(candidates) if _same_table(c, made, state)), None)
    if chosen is None:
        return None
    score = values if values is not None else known
    best = max(range(len(candidates)), key=lambda k: (score[k], -k))
    lost = score[best] - score[chosen]
    if lost < 1e-9:
        best = chosen  # ties go to the choice made: it lost nothing
        lost = 0.0
    # the play made names its class of plays that leave the same table (5-3 on either 5 end)
    names = [choice_name(made) if k == chosen else choice_name(c) for k, c in enumerate(candidates)]
    choices = tuple(
        Choice(names[k], _round(known[k]), None if values is None else _round(values[k]))
        for k in range(len(candidates))
    )
    tiles = sum(len(h) for h in state.hands) if state.trains is None else sum(len(h) for h in state.trains.hands)
    return Decision(
        index + 1,
        _hand_number(shown),
        seat,
        choice_name(made),
        choices[best].name,
        _round(lost),
        exact,
        tiles,
        choices,
    )


def _same_table(candidate: Action, made: Action, state: MatchState) -> bool:
    """Whether two plays leave the same table (the expert lists one of such plays only)."""
    if candidate.get("type") != made.get("type") or candidate.get("tile") != made.get("tile"):
        return False
    if state.trains is not None:
        return False
    return bool(sorted(candidate["tile"]) == sorted(made["tile"]))


__all__ = [
    "DEFAULT_ANALYSIS_BUDGET",
    "VERSION",
    "Analysis",
    "AnalysisBudget",
    "Choice",
    "Decision",
    "Sighted",
    "analyse",
    "choice_name",
    "hint",
    "mexican_shown",
    "sighted",
]
