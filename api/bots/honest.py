"""Honest rollouts: a hand played out on one guessed deal, each seat playing only on what it
could know (``Budget.honest``).

The expert's usual playouts end in an exact search on each guessed deal, where its own side
(itself later, and its partner) plays as if it saw every hand: perfect play that the real seats
cannot make, so a move that only pays with sight of the hands looks good on every deal
(*strategy fusion*). Here nobody sees: a seat known to be a greedy bot plays as greedy plays
(its heaviest fitting tile, ties broken at random, as ``simple.choose_greedy`` breaks them), and
every other seat plays the seat policy (``HonestRollout.policy``), which reads only its own hand,
the open ends and the numbers each seat has shown it lacks (by knocking). The expert then picks the move whose
rollouts do best: one step of policy improvement over that policy (Tesauro's rollouts), on
deals that agree with what the seat has seen.

Hands are bit masks of ``SetBits`` (``endgame``), as in the exact search; a finished hand is
valued by the same ``ExactLine.ended``.
"""

from __future__ import annotations

import random

from .endgame import ExactLine

# What the seat policy reads of each play it could make (``HonestRollout.features``), in this order.
FEATURES = (
    "pips",  # the tile's pips: weight shed
    "double",  # a double fits one number only: shed it while it still can be played
    "next_lacks_ends",  # the ends left are numbers the next seat (an opponent) has shown it lacks
    "partner_lacks_ends",  # ...numbers the partner has shown it lacks
    "follow",  # own tiles kept that fit the ends left, up to FOLLOW_CAP: the seat can play again
    "strength",  # own tiles kept that carry the number the play leaves open
    "next_lacks_far",  # the number left open is one the next seat lacks
    "partner_lacks_far",  # ...one the partner lacks
    "last_lacks_far",  # ...one the seat after the partner (the other opponent) lacks
    "variety",  # the distinct numbers among the tiles kept
    "same_ends",  # both ends left show one number
    "blocks",  # no tile the seat cannot see fits the ends left: the others all knock
    "blocks_lighter",  # when it blocks: how much lighter the seat's tiles are than as many unseen ones (pips)
)
FOLLOW_CAP = 3
# The hand-set weights (``Budget.seat_policy="hand"``): heaviest first (2 a pip), a double a little
# before, ends the next seat lacks worth more and ends the partner lacks less, tiles kept that
# could follow.
HAND_WEIGHTS = (2.0, 6.0, 10.0, -8.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
# Fitted to the expert's own choices (``bench/fit_seat_policy.py --matches 240``, on the hand-set weights).
FITTED_WEIGHTS = (2.0, 16.13, 20.46, 7.17, 5.57, 3.59, 7.2, -14.58, 7.34, 4.66, 25.74, 21.92, 8.14)
SEAT_POLICIES = {"hand": HAND_WEIGHTS, "fitted": FITTED_WEIGHTS}


class HonestRollout:
    """Plays hands out for the side of ``line``'s seat, on bit masks: seats in ``greedy`` as greedy
    plays, every other seat by the seat policy (``policy``, its play scored by ``weights`` over
    ``FEATURES``); ``lacks[s]`` (a mask over the numbers) is what seat ``s`` has shown it lacks so far
    this hand (what every seat saw it knock on), and the rollout adds each knock it plays."""

    def __init__(
        self,
        line: ExactLine,
        greedy: frozenset[int],
        lacks: list[int],
        weights: tuple[float, ...] = HAND_WEIGHTS,
        table: int = 0,
    ) -> None:
        self.line = line
        self.table = table  # the tiles on the table when the rollouts start
        self.greedy = tuple(s in greedy for s in range(line.players))
        self.lacks = lacks
        self.weights = weights
        # each seat's partner (None without one)
        self.partner = [next((t for t in line.side_seats[line.sides[s]] if t != s), None) for s in range(line.players)]

    def play(self, hands: list[int], a: int, b: int, turn: int, rng: random.Random, table: int = 0) -> float:
        """The value, to the searching side, of playing on from open numbers ``a``, ``b`` with
        ``turn`` to move (``hands`` is not changed); ``table`` is the mask of the tiles on the table."""
        line = self.line
        bits = line.bits
        shows, highs, lows, peers = bits.shows, bits.highs, bits.lows, bits.peers
        players = line.players
        greedy = self.greedy
        hands = hands[:]
        lacks = self.lacks[:]
        knocked = 0
        while True:
            fit = shows[a] | shows[b]
            playable = hands[turn] & fit
            if not playable:
                knocked += 1
                if knocked == players:
                    return line.ended(hands, None)  # blocked
                lacks[turn] |= 1 << a | 1 << b
                turn = (turn + 1) % players
                continue
            knocked = 0
            if greedy[turn]:
                options = playable & peers[(playable & -playable).bit_length() - 1]
                bit, on_a = _greedy_choice(options, a, b, highs, lows, rng)
            else:
                bit, on_a = self.policy(hands[turn], turn, a, b, lacks, table)
            i = bit.bit_length() - 1
            high, low = highs[i], lows[i]
            if on_a:
                a = low if high == a else high
            else:
                b = low if high == b else high
            hands[turn] ^= bit
            table |= bit
            if not hands[turn]:
                return line.ended(hands, line.sides[turn])
            turn = (turn + 1) % players

    def policy(self, hand: int, seat: int, a: int, b: int, lacks: list[int], table: int = 0) -> tuple[int, bool]:
        """The seat policy: the seat's play (a tile's bit, and whether it goes on ``a``) from what it
        can see, the best by ``weights`` over its ``features``. Ties: the heavier tile, then ``a``."""
        weights = self.weights
        best_bit, best_on_a, best = 0, True, -1e18
        for bit, on_a, features in self.features(hand, seat, a, b, lacks, table):
            score = 0.0
            for w, f in zip(weights, features):  # not sum(): from Python 3.12 it rounds differently
                score += w * f
            if score > best:
                best_bit, best_on_a, best = bit, on_a, score
        return best_bit, best_on_a

    def features(
        self, hand: int, seat: int, a: int, b: int, lacks: list[int], table: int = 0
    ) -> list[tuple[int, bool, tuple[float, ...]]]:
        """Each play the seat could make (a tile's bit, whether it goes on ``a``), heaviest tile
        first, with what the seat can see of it (``FEATURES``): its own hand, the open ends, the
        ``table`` and the numbers each seat has shown it lacks."""
        bits = self.line.bits
        shows, highs, lows, pips_of_tile = bits.shows, bits.highs, bits.lows, bits.pips
        players = self.line.players
        nxt = lacks[(seat + 1) % players]
        last = lacks[(seat + 3) % players] if players == 4 else 0
        partner = self.partner[seat]
        mate = lacks[partner] if partner is not None else 0
        unseen = bits.all_mask & ~table & ~hand  # what the others may hold, or nobody
        unseen_count = unseen.bit_count()
        unseen_pips = bits.pips_of(unseen) / unseen_count if unseen_count else 0.0  # an unseen tile's mean
        playable = hand & (shows[a] | shows[b])
        out: list[tuple[int, bool, tuple[float, ...]]] = []
        while playable:
            bit = playable & -playable
            playable ^= bit
            i = bit.bit_length() - 1
            high, low = highs[i], lows[i]
            rest = hand ^ bit
            pips = pips_of_tile[i]
            double = 1 if high == low else 0
            variety = 0
            for shown in shows:
                if rest & shown:
                    variety += 1
            for on_a in (True, False):
                on, other = (a, b) if on_a else (b, a)
                if high == on:
                    far = low
                elif low == on:
                    far = high
                else:
                    continue
                ends = 1 << far | 1 << other
                fit = shows[far] | shows[other]
                blocks = 0 if unseen & fit else 1
                lighter = unseen_pips * rest.bit_count() - bits.pips_of(rest) if blocks else 0.0
                features = (
                    pips,
                    double,
                    1 if nxt & ends == ends else 0,
                    1 if mate & ends == ends else 0,
                    min(FOLLOW_CAP, (rest & fit).bit_count()),
                    (rest & shows[far]).bit_count(),
                    nxt >> far & 1,
                    mate >> far & 1,
                    last >> far & 1,
                    variety,
                    1 if far == other else 0,
                    blocks,
                    lighter,
                )
                out.append((bit, on_a, features))
                if a == b:
                    break  # both ends show the same number: one placement
        return out


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
