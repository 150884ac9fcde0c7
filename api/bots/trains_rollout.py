"""Chicken Foot's round played out to its end on guessed hands: how the expert weighs a play.

Every arm is everyone's in Chicken Foot, so what a play is worth depends on the others' tiles:
the expert deals the tiles it cannot see (neither in its hand nor on the table) into hands of
the sizes the view shows and a boneyard of its count, plays its candidate, then every seat
greedily (the heaviest tile that fits, the engine's sides and a chicken foot's toes first, one
draw when stuck) until someone goes out or no one can play, and scores the round's end as the
match does: its own points less the others' mean. Each candidate meets the same guesses.
Only the open numbers matter to who can play what, so the arms are a list of numbers; the
rule book's flow is ``api/rules/trains.py``'s, kept here in that small form for speed
(``tests/bots/test_trains_bots.py`` checks a played-out round against the engine's).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from api.rules.tiles import Tile
from api.rules.trains_board import TOES

from .trains_table import TrainsTable


@dataclass
class Round:
    """A round in play, every hand known (one guess of the hidden ones)."""

    hands: list[list[Tile]]
    boneyard: list[Tile]
    ends: list[int]  # every open arm's number, in the arms' order (a greedy seat plays on the first that fits)
    foot: int | None  # the number the required toes show
    toes_left: int
    to_move: int
    points: dict[Tile, int]  # a tile's points in a hand at the round's end

    def fits(self, tile: Tile) -> list[int]:
        """The numbers ``tile`` may go on now, each once, in the arms' order (the engine's)."""
        if self.foot is not None:
            return [self.foot] if tile.has(self.foot) else []
        return list(dict.fromkeys(n for n in self.ends if tile.has(n)))

    def put(self, tile: Tile, number: int) -> None:
        """On the first arm showing ``number``: a toe starts a new arm, a double ends its arm."""
        if self.foot is not None:
            self.ends.append(tile.other(number))
            self.toes_left -= 1
            if self.toes_left == 0:
                self.foot = None
        elif tile.is_double:
            self.ends.remove(number)
            self.foot, self.toes_left = number, TOES
        else:
            self.ends[self.ends.index(number)] = tile.other(number)

    def copy(self) -> Round:
        return Round(
            [list(h) for h in self.hands],
            list(self.boneyard),
            list(self.ends),
            self.foot,
            self.toes_left,
            self.to_move,
            self.points,
        )

    def greedy_play(self, hand: list[Tile]) -> tuple[Tile, int] | None:
        best: tuple[Tile, int] | None = None
        best_key = (-1, False, -1)
        for tile in hand:
            numbers = self.fits(tile)
            if numbers:
                key = (self.points[tile], tile.is_double, tile.high)
                if key > best_key:
                    best, best_key = (tile, numbers[0]), key
        return best

    def play_out(self, limit: int = 400) -> list[int]:
        """Every seat greedy to the round's end; the points left in each hand."""
        seats = len(self.hands)
        passes = 0
        for _ in range(limit):
            hand = self.hands[self.to_move]
            choice = self.greedy_play(hand)
            if choice is None and self.boneyard:
                drawn = self.boneyard.pop()
                hand.append(drawn)
                numbers = self.fits(drawn)
                choice = (drawn, numbers[0]) if numbers else None
            if choice is None:
                passes += 1
                if passes >= seats and not self.boneyard:
                    break  # blocked: no one could play nor draw
            else:
                passes = 0
                hand.remove(choice[0])
                self.put(*choice)
                if not hand:
                    break
            self.to_move = (self.to_move + 1) % seats
        return [sum(self.points[t] for t in h) for h in self.hands]


def unseen_tiles(table: TrainsTable, on_table: set[Tile]) -> list[Tile]:
    """The tiles the seat cannot see: the set less the engine, its hand and the table's."""
    engine = Tile(table.engine, table.engine)  # never dealt
    mine = set(table.hand)
    return [t for t in table.rules.tile_set.tiles if t is not engine and t not in mine and t not in on_table]


def guess_round(table: TrainsTable, unseen: list[Tile], rng: random.Random, points: dict[Tile, int]) -> Round:
    """One guess: the unseen tiles shuffled into the others' hands (their counts) and the boneyard."""
    pool = list(unseen)
    rng.shuffle(pool)
    hands: list[list[Tile]] = []
    for seat, count in enumerate(table.hand_counts):
        if seat == table.seat:
            hands.append(list(table.hand))
        else:
            hands.append(pool[:count])
            pool = pool[count:]
    ends = [s.open for s in table.spots if s.open is not None]
    return Round(hands, pool, ends, table.toes_number, table.toes_left, table.seat, points)


def rollout_values(
    table: TrainsTable, candidates: list[tuple[Tile, int]], on_table: set[Tile], rng: random.Random, guesses: int
) -> list[float]:
    """Each candidate play's mean, over ``guesses`` deals of the unseen tiles, of the seat's
    points at the round's end less the others' mean (lower is better)."""
    points = {t: table.points(t) for t in table.rules.tile_set.tiles}
    unseen = unseen_tiles(table, on_table)
    seat, seats = table.seat, len(table.hand_counts)
    totals = [0.0] * len(candidates)
    for _ in range(guesses):
        guess = guess_round(table, unseen, rng, points)
        for i, (tile, number) in enumerate(candidates):
            round_ = guess.copy()
            round_.hands[seat].remove(tile)
            round_.put(tile, number)
            round_.to_move = (seat + 1) % seats
            left = round_.play_out() if round_.hands[seat] else [sum(points[t] for t in h) for h in round_.hands]
            totals[i] += left[seat] - (sum(left) - left[seat]) / (seats - 1)
    return [t / guesses for t in totals]


__all__ = ["Round", "guess_round", "rollout_values", "unseen_tiles"]
