"""Honest rollouts: a hand played out on one guessed deal, each seat playing only on what it
could know (``Budget.honest``).

The expert's usual playouts end in an exact search on each guessed deal, where its own side
(itself later, and its partner) plays as if it saw every hand: perfect play that the real seats
cannot make, so a move that only pays with sight of the hands looks good on every deal
(*strategy fusion*). Here nobody sees: a seat known to be a greedy bot plays as greedy plays
(its heaviest fitting tile, ties broken at random, as ``simple.choose_greedy`` breaks them), and
every other seat plays the seat policy (``HonestRollout.policy``), which reads only its own hand,
the open ends, the table and the numbers each seat has shown it lacks (by knocking), with the
weights of a ``SeatPolicy``. The expert then picks the move whose
rollouts do best: one step of policy improvement over that policy (Tesauro's rollouts), on
deals that agree with what the seat has seen.

Under ``Budget.ismcts`` (off: it lost 5 to 6 points, README's fifth pass) the searching seat's own
later decisions are searched instead of played by the policy: a tree of them (``Node``) below each
candidate, keyed by what the seat can see then, grown by one decision per playout.

Hands are bit masks of ``SetBits`` (``endgame``), as in the exact search; a finished hand is
valued by the same ``ExactLine.ended``.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import random
from dataclasses import dataclass

from .endgame import ExactLine


@dataclass(frozen=True)
class SeatPolicy:
    """The seat policy's weights (``HonestRollout.policy``), in half-pips: what a play is worth.
    ``SHIPPED`` is the hand-set policy every game plays unless its budget names another
    (``Budget.seat_policy``, ``POLICIES``); the features at 0 are not computed."""

    pip: int = 2  # per pip of the tile shed
    double: int = 6  # a double fits one number only: shed it while it still can be played
    next_knocks: int = 10  # the ends left are numbers the next seat (an opponent) has shown it lacks
    partner_knocks: int = 8  # ...numbers the partner has shown it lacks (a penalty)
    follow: int = 2  # per own tile kept that fits the ends left (up to ``follow_cap``): the seat can play again
    follow_cap: int = 3
    ends: int = 0  # per pip of the two numbers left open (below 0: low ends, which feed greedy light tiles)
    variety: int = 0  # per distinct number kept in hand
    prev_knocks: int = 0  # the ends left are numbers the other opponent (the seat before) has shown it lacks
    unseen_fit: int = 0  # per tile the seat has not seen (not played, not its own) that fits the ends left
    locked: int = 0  # no tile the seat has not seen fits the ends left: only its own can follow
    random: int = 0  # the share of plays (percent) made at random in a rollout, any alike


SHIPPED = SeatPolicy()
# Tuned for its own strength against greedy sides (``bench/policy_tuning.py``: two rounds of its search
# from ``SHIPPED``, then ``unseen_fit``): 57.9% of the decided hands alone where ``SHIPPED`` wins 52.8%,
# but the expert rolling out with it was no stronger (README, "Issue 33's games", the seventh pass).
TUNED = SeatPolicy(
    double=14, next_knocks=18, partner_knocks=4, follow=6, follow_cap=7, variety=4, prev_knocks=8, unseen_fit=-4
)
# The seat policies a budget may name (``Budget.seat_policy``).
POLICIES: dict[str, SeatPolicy] = {"shipped": SHIPPED, "tuned": TUNED}


@functools.cache
def seat_policy(spec: str) -> SeatPolicy:
    """The seat policy a budget names (``Budget.seat_policy``): a name of ``POLICIES``, then any weights
    changed, each as ``+name:value`` (``shipped+unseen_fit:-4``: the shipped one, ``unseen_fit`` -4)."""
    name, *changes = spec.split("+")
    if name not in POLICIES:
        raise ValueError(f"no seat policy {name!r}: one of {', '.join(POLICIES)}")
    fields = {f.name for f in dataclasses.fields(SeatPolicy)}
    weights = {}
    for change in changes:
        field, _, value = change.partition(":")
        if field not in fields:
            raise ValueError(f"no seat policy weight {field!r}: one of {', '.join(sorted(fields))}")
        weights[field] = int(value)
    return dataclasses.replace(POLICIES[name], **weights)


class HonestRollout:
    """Plays hands out for the side of ``line``'s seat, on bit masks: seats in ``greedy`` as greedy
    plays, every other seat by the seat policy (``policy``); ``lacks[s]`` (a mask over the numbers)
    is what seat ``s`` has shown it lacks so far this hand (what every seat saw it knock on), and
    the rollout adds each knock it plays."""

    def __init__(
        self,
        line: ExactLine,
        greedy: frozenset[int],
        lacks: list[int],
        me: int = -1,
        explore: float = 0.0,
        widen: float = 0.0,
        weights: SeatPolicy = SHIPPED,
        played: int = 0,
    ) -> None:
        self.line = line
        self.weights = weights
        self.played = played  # the tiles on the table when the rollouts start (every seat saw them)
        self.me = me  # the searching seat (for ``play`` with a tree)
        self.explore = explore  # ``Node.select``'s, for ``play`` with a tree
        self.widen = widen
        self.greedy = tuple(s in greedy for s in range(line.players))
        self.lacks = lacks
        # each seat's partner (None without one)
        self.partner = [next((t for t in line.side_seats[line.sides[s]] if t != s), None) for s in range(line.players)]

    def play(
        self,
        hands: list[int],
        a: int,
        b: int,
        turn: int,
        rng: random.Random,
        tree: Tree | None = None,
        placed: int = 0,
    ) -> float:
        """The value, to the searching side, of playing on from open numbers ``a``, ``b`` with
        ``turn`` to move (``hands`` is not changed); ``placed``: the tiles placed since the table
        the rollouts started from (``played``), the move just made.

        With a ``tree`` (``Budget.ismcts``), the searching seat's own later moves are searched
        rather than played by the policy: ``tree`` holds its decisions after this move, keyed by
        what it can see then, and this playout descends it (``Node.select``), adds one decision
        to it, plays on by the policy, and leaves its value on every decision it took."""
        line = self.line
        bits = line.bits
        shows, highs, lows, peers = bits.shows, bits.highs, bits.lows, bits.peers
        players = line.players
        greedy = self.greedy
        me = self.me
        knock_bit = len(bits.pips)  # a knock's bit in ``seen``: past every tile's
        hands = hands[:]
        lacks = self.lacks[:]
        played = self.played | placed
        knocked = 0
        seen = 0  # what the searching seat saw played since its last move (with the ends: a tree's key)
        path: list[tuple[Node, int]] = []
        value = 0.0
        while True:
            fit = shows[a] | shows[b]
            playable = hands[turn] & fit
            if not playable:
                knocked += 1
                if knocked == players:
                    value = line.ended(hands, None)  # blocked
                    break
                lacks[turn] |= 1 << a | 1 << b
                seen |= 1 << (knock_bit + turn)
                turn = (turn + 1) % players
                continue
            knocked = 0
            if greedy[turn]:
                options = playable & peers[(playable & -playable).bit_length() - 1]
                bit, on_a = _greedy_choice(options, a, b, highs, lows, rng)
            elif turn == me and tree is not None:
                key = (a, b, seen)
                node = tree.get(key)
                if node is None:  # a decision not met before: add it, then roll on by the policy
                    node = tree[key] = Node(self.ranked(hands[turn], turn, a, b, lacks, played))
                    j = 0
                    tree = None
                else:
                    j = node.select(self.explore, self.widen)
                    tree = node.after[j]
                path.append((node, j))
                bit, on_a = node.moves[j]
                seen = 0
            else:
                bit, on_a = self.policy(hands[turn], turn, a, b, lacks, played, rng)
            if turn != me:
                seen |= bit
            i = bit.bit_length() - 1
            high, low = highs[i], lows[i]
            if on_a:
                a = low if high == a else high
            else:
                b = low if high == b else high
            hands[turn] ^= bit
            played |= bit
            if not hands[turn]:
                value = line.ended(hands, line.sides[turn])
                break
            turn = (turn + 1) % players
        for node, j in path:
            node.visits += 1
            node.count[j] += 1
            node.total[j] += value
        return value

    def policy(
        self, hand: int, seat: int, a: int, b: int, lacks: list[int], played: int = 0, rng: random.Random | None = None
    ) -> tuple[int, bool]:
        """The seat policy: the seat's play (a tile's bit, and whether it goes on ``a``) from what it
        can see. Heaviest first (a double a little before), worth more when the ends it leaves
        are numbers the next seat lacks, less when they are numbers the partner lacks, and more
        for each tile the seat keeps that could follow. Ties: the heavier tile, then ``a``. With
        ``SeatPolicy.random`` and an ``rng``, that share of its plays (in percent) is any of them alike."""
        scored = self._scored(hand, seat, a, b, lacks, played)
        if rng is not None and self.weights.random and rng.random() * 100 < self.weights.random:
            _score, bit, on_a = scored[rng.randrange(len(scored))]
            return bit, on_a
        best_bit, best_on_a, best = 0, True, -1_000_000
        for score, bit, on_a in scored:
            if score > best:
                best_bit, best_on_a, best = bit, on_a, score
        return best_bit, best_on_a

    def ranked(self, hand: int, seat: int, a: int, b: int, lacks: list[int], played: int = 0) -> list[tuple[int, bool]]:
        """Every play of the seat, the policy's own first (``policy``), then down its scores (ties in
        the policy's order): the order a search node opens them in."""
        scored = self._scored(hand, seat, a, b, lacks, played)
        order = sorted(range(len(scored)), key=lambda k: (-scored[k][0], k))
        return [(scored[k][1], scored[k][2]) for k in order]

    def _scored(
        self, hand: int, seat: int, a: int, b: int, lacks: list[int], played: int
    ) -> list[tuple[int, int, bool]]:
        """The seat's plays with the policy's score of each: (score, tile's bit, on ``a``), lighter
        tiles first, ``a`` before ``b``."""
        bits = self.line.bits
        shows, highs, lows, pips = bits.shows, bits.highs, bits.lows, bits.pips
        w = self.weights
        players = self.line.players
        nxt = lacks[(seat + 1) % players]
        prev = lacks[(seat - 1) % players] if w.prev_knocks else 0
        partner = self.partner[seat]
        mate = lacks[partner] if partner is not None else 0
        pip, double, follow, cap, ends_w, variety = w.pip, w.double, w.follow, w.follow_cap, w.ends, w.variety
        unseen_w, locked = w.unseen_fit, w.locked
        playable = hand & (shows[a] | shows[b])
        out = []
        while playable:
            bit = playable & -playable
            playable ^= bit
            i = bit.bit_length() - 1
            high, low = highs[i], lows[i]
            rest = hand ^ bit
            base = pip * pips[i] + (double if high == low else 0)
            if variety:
                base += variety * sum(1 for n in range(len(shows)) if rest & shows[n])
            for on_a in (True, False):
                on, other = (a, b) if on_a else (b, a)
                if high == on:
                    far = low
                elif low == on:
                    far = high
                else:
                    continue
                ends = 1 << far | 1 << other
                score = base + follow * min(cap, (rest & (shows[far] | shows[other])).bit_count())
                if nxt & ends == ends:
                    score += w.next_knocks
                if mate & ends == ends:
                    score -= w.partner_knocks
                if prev & ends == ends:
                    score += w.prev_knocks
                if ends_w:
                    score += ends_w * (far + other)
                if unseen_w or locked:
                    others = (shows[far] | shows[other]) & ~played & ~hand  # the tile itself is played
                    score += unseen_w * others.bit_count()
                    if not others:
                        score += locked
                out.append((score, bit, on_a))
                if a == b:
                    break  # both ends show the same number: one placement
        return out


class Node:
    """One decision of the searching seat in an ``ismcts`` tree: the plays it has (``moves``, the
    policy's first), how often each was taken (``count``) and the sum of their playouts' values
    (``total``), and below each the decisions met after it (``after[j]``)."""

    __slots__ = ("after", "count", "moves", "total", "visits")

    def __init__(self, moves: list[tuple[int, bool]]) -> None:
        self.moves = moves
        self.visits = 0
        self.count = [0] * len(moves)
        self.total = [0.0] * len(moves)
        self.after: list[Tree] = [{} for _ in moves]

    def select(self, explore: float, widen: float) -> int:
        """The play to take now: among the first ``1 + widen * sqrt(visits)`` plays in the policy's
        order (progressive widening: a node seen a few times plays as the policy), one not yet
        tried, else the best by UCB1 with ``explore`` points of exploration. Ties: the earlier."""
        opened = min(len(self.moves), 1 + int(widen * math.sqrt(self.visits)))
        count, total = self.count, self.total
        for j in range(opened):
            if not count[j]:
                return j
        log_n = math.log(self.visits)
        best, best_j = -math.inf, 0
        for j in range(opened):
            n = count[j]
            score = total[j] / n + explore * math.sqrt(log_n / n)
            if score > best:
                best, best_j = score, j
        return best_j


Tree = dict[tuple[int, int, int], Node]  # the searching seat's decisions by (ends, what it saw played)


def _greedy_choice(
    options: int, a: int, b: int, highs: tuple[int, ...], lows: tuple[int, ...], rng: random.Random
) -> tuple[int, bool]:
    """Greedy's play among its heaviest fitting tiles (``options``): each (tile, end) it could
    list alike, as ``simple.choose_greedy`` picks among its equal plays (the two ends of one
    number are one play)."""
    plays: list[tuple[int, bool]] = []
    while options:
        bit = options & -options
        options ^= bit
        i = bit.bit_length() - 1
        high, low = highs[i], lows[i]
        if high == a or low == a:
            plays.append((bit, True))
        if a != b and (high == b or low == b):
            plays.append((bit, False))
    return plays[0] if len(plays) == 1 else plays[rng.randrange(len(plays))]
