"""The ``expert`` level: determinized Monte Carlo over the hidden tiles.

For each decision the bot

1. reads what its seat knows (``Knowledge``): its hand, the table, the unseen tiles, and
   the numbers each other seat is known to lack (from its knocks, and its draws when a
   seat draws only because it is stuck);
2. deals the unseen tiles many times at random, respecting every constraint and every
   count (the *determinizations*);
3. for each deal and each candidate move, copies the engine state built from that deal,
   pushes the move, and plays the hand out with a cheap greedy policy for every seat
   (``rollout``), on the engine's fast path;
4. scores each playout by what the hand brings its side (points at the hand's end and,
   in fives games, points made during play) against the other sides, plus a bonus or a
   penalty when the match ends, and plays the best average.

Every candidate is played out on the same deals with the same rollout randomness, so
differences between candidates are not noise from different luck. The work is a fixed
number of playouts (``Budget``), never a wall-clock limit, so the choice is a pure
function of (view, log, seed, budget). Steering ends toward numbers an opponent lacks,
counting the unseen tiles and playing for the block when lighter all come out of the
constrained deals and the playouts rather than hand-written rules.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from api.rules.layout import UP, Layout
from api.rules.ruleset import RuleSet
from api.rules.scoring import fives_points
from api.rules.simulate import push
from api.rules.state import DRAW, ENDED, KNOCK, MUGGINS, PLAY, PLAYING, MatchState, Move
from api.rules.tiles import Tile

from .actions import Action, Json, find, no_play_choice, plays_of, to_move
from .knowledge import Knowledge


@dataclass(frozen=True)
class Budget:
    """How much the expert thinks: a fixed amount of work, so decisions are reproducible.

    ``determinizations`` deals of the hidden tiles, each candidate played out ``rollouts``
    times on each deal, but never more than ``max_playouts`` playouts in all (with many
    candidates the number of deals shrinks, down to ``min_determinizations``).
    ``epsilon`` is the share of random moves in the greedy playouts.
    """

    determinizations: int = 40
    rollouts: int = 1
    max_playouts: int = 400
    min_determinizations: int = 8
    epsilon: float = 0.1

    def deals_for(self, candidates: int) -> int:
        per_deal = max(1, candidates * self.rollouts)
        return max(self.min_determinizations, min(self.determinizations, self.max_playouts // per_deal))


DEFAULT_BUDGET = Budget()


def choose_expert(view: Json, log: list[Json], rng: random.Random, budget: Budget = DEFAULT_BUDGET) -> Action:
    actions = view["legal_actions"]
    muggins = find(actions, MUGGINS)
    if muggins is not None:
        return muggins  # free points, and it costs no turn
    plays = plays_of(actions)
    if not plays:
        return no_play_choice(actions)
    know = Knowledge.read(view, log)
    candidates = _distinct(plays, know)
    draw = find(actions, DRAW)
    if draw is not None:
        candidates.append(draw)  # draw_at_will: holding back is a real choice
    if len(candidates) == 1:
        return candidates[0]  # as listed: under muggins_calls a scoring play claims
    values = evaluate(know, [to_move(a) for a in candidates], rng, budget)
    best = max(range(len(candidates)), key=lambda i: (values[i], -i))
    return candidates[best]


def evaluate(know: Knowledge, moves: list[Move], rng: random.Random, budget: Budget) -> list[float]:
    """The mean playout value of each move, over constrained deals of the hidden tiles."""
    rules = know.rules
    me = know.seat
    side = rules.side_of(me)
    fives = rules.fives_scoring
    bonus = _match_bonus(rules)
    totals = [0.0] * len(moves)
    deals = budget.deals_for(len(moves))
    for _ in range(deals):
        hands, boneyard = know.sample(rng)
        base = know.state(hands, boneyard)
        before = base.scores[:]
        for _r in range(budget.rollouts):
            seed = rng.getrandbits(64)
            for i, move in enumerate(moves):
                st = base.copy()
                push(st, move, seat=me)
                rollout(st, random.Random(seed), budget.epsilon, fives)
                totals[i] += _value(st, before, side, bonus)
    n = deals * budget.rollouts
    return [t / n for t in totals]


def rollout(st: MatchState, rng: random.Random, epsilon: float, fives: bool) -> MatchState:
    """Play the hand out: every seat sheds its best-scoring, then heaviest tile (``epsilon`` random)."""
    while st.hand_live and st.status == PLAYING:
        push(st, policy_move(st, rng, epsilon, fives))
    return st


def policy_move(st: MatchState, rng: random.Random, epsilon: float, fives: bool) -> Move:
    hand = st.hands[st.turn]  # type: ignore[index]  # a seat: the hand is live
    layout = st.layout
    if layout.tiles == 0:
        heaviest = max(hand, key=lambda t: (t.pips, t.is_double, t.high))
        return (PLAY, heaviest, 0)
    values = layout.values
    plays: list[Move] = []
    best: Move | None = None
    best_key = -1
    for t in hand:
        h, low = t.high, t.low
        for i in range(4):
            v = values[i]
            if v is not None and (h == v or low == v):
                key = 2 * t.pips + t.is_double
                if fives:
                    key += 64 * fives_after(layout, t, i)
                move = (PLAY, t, i)
                plays.append(move)
                if key > best_key:
                    best, best_key = move, key
    if best is None:
        return (DRAW,) if st.boneyard_drawable() else (KNOCK,)
    if epsilon and len(plays) > 1 and rng.random() < epsilon:
        return rng.choice(plays)
    return best


def fives_after(layout: Layout, tile: Tile, end: int) -> int:
    """The points a play of ``tile`` on ``end`` scores (the listed ``scores`` hint), without
    copying the layout (the playouts' hot path).

    Only the arm played on changes: its end becomes the tile's far half (both halves for
    a double); arms ``up``/``down`` count once they hold a tile. A spinner whose second
    side is taken opens ``up``/``down`` empty, which count nothing yet.
    """
    if layout.tiles == 0:
        total = tile.pips
    else:
        values = layout.values
        doubles = layout.doubles
        occupied = layout.occupied
        v = values[end]
        far = tile.low if tile.high == v else tile.high
        total = 2 * far if tile.is_double else far
        for j in range(4):
            if j != end:
                w = values[j]
                if w is not None and (j < UP or occupied[j]):
                    total += 2 * w if doubles[j] else w
    return fives_points(total)


def _value(st: MatchState, before: list[int], side: int, bonus: float) -> float:
    gains = [a - b for a, b in zip(st.scores, before)]
    others = len(gains) - 1
    value = gains[side] - (sum(gains) - gains[side]) / others
    if st.status == ENDED:
        value += bonus if st.winner == side else -bonus
    return value


def _match_bonus(rules: RuleSet) -> float:
    """What reaching the target is worth beyond its points, in points."""
    return rules.target / 2


def _distinct(plays: list[Action], know: Knowledge) -> list[Action]:
    """Drop plays that leave the same table as an earlier one (5-3 on either 5 end…)."""
    seen: set[object] = set()
    out = []
    for action in plays:
        move = to_move(action)
        after = know.layout.copy()
        after.place(move[1], move[2])
        shape = tuple(
            sorted(
                (i >= UP, after.values[i], after.doubles[i], after.occupied[i], i in after.spinner_ends)
                for i in range(4)
            )
        )
        key = (move[1].index, shape, after.spinner_sides, after.spinner is not None)
        if key not in seen:
            seen.add(key)
            out.append(action)
    return out
