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

# The seat policy's weights, in half-pips (a tile's weight counts 2 per pip): what a play is worth
# beyond shedding its weight.
DOUBLE = 6  # a double fits one number only: shed it while it still can be played
NEXT_KNOCKS = 10  # the ends left are numbers the next seat (an opponent) has shown it lacks
PARTNER_KNOCKS = 8  # ...numbers the partner has shown it lacks (a penalty)
FOLLOW = 2  # per own tile kept that fits the ends left (up to FOLLOW_CAP): the seat can play again
FOLLOW_CAP = 3


class HonestRollout:
    """Plays hands out for the side of ``line``'s seat, on bit masks: seats in ``greedy`` as greedy
    plays, every other seat by the seat policy (``policy``); ``lacks[s]`` (a mask over the numbers)
    is what seat ``s`` has shown it lacks so far this hand (what every seat saw it knock on), and
    the rollout adds each knock it plays."""

    def __init__(self, line: ExactLine, greedy: frozenset[int], lacks: list[int]) -> None:
        self.line = line
        self.greedy = tuple(s in greedy for s in range(line.players))
        self.lacks = lacks
        # each seat's partner (None without one)
        self.partner = [next((t for t in line.side_seats[line.sides[s]] if t != s), None) for s in range(line.players)]

    def play(self, hands: list[int], a: int, b: int, turn: int, rng: random.Random) -> float:
        """The value, to the searching side, of playing on from open numbers ``a``, ``b`` with
        ``turn`` to move (``hands`` is not changed)."""
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
                bit, on_a = self.policy(hands[turn], turn, a, b, lacks)
            i = bit.bit_length() - 1
            high, low = highs[i], lows[i]
            if on_a:
                a = low if high == a else high
            else:
                b = low if high == b else high
            hands[turn] ^= bit
            if not hands[turn]:
                return line.ended(hands, line.sides[turn])
            turn = (turn + 1) % players

    def policy(self, hand: int, seat: int, a: int, b: int, lacks: list[int]) -> tuple[int, bool]:
        """The seat policy: the seat's play (a tile's bit, and whether it goes on ``a``) from what it
        can see. Heaviest first (a double a little before), worth more when the ends it leaves
        are numbers the next seat lacks, less when they are numbers the partner lacks, and more
        for each tile the seat keeps that could follow. Ties: the heavier tile, then ``a``."""
        bits = self.line.bits
        shows, highs, lows, pips = bits.shows, bits.highs, bits.lows, bits.pips
        nxt = lacks[(seat + 1) % self.line.players]
        partner = self.partner[seat]
        mate = lacks[partner] if partner is not None else 0
        playable = hand & (shows[a] | shows[b])
        best_bit, best_on_a, best = 0, True, -1_000_000
        while playable:
            bit = playable & -playable
            playable ^= bit
            i = bit.bit_length() - 1
            high, low = highs[i], lows[i]
            rest = hand ^ bit
            base = 2 * pips[i] + (DOUBLE if high == low else 0)
            for on_a in (True, False):
                on, other = (a, b) if on_a else (b, a)
                if high == on:
                    far = low
                elif low == on:
                    far = high
                else:
                    continue
                ends = 1 << far | 1 << other
                score = base + FOLLOW * min(FOLLOW_CAP, (rest & (shows[far] | shows[other])).bit_count())
                if nxt & ends == ends:
                    score += NEXT_KNOCKS
                if mate & ends == ends:
                    score -= PARTNER_KNOCKS
                if score > best:
                    best_bit, best_on_a, best = bit, on_a, score
                if a == b:
                    break  # both ends show the same number: one placement
        return best_bit, best_on_a


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
