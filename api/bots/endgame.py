"""Exact play of a hand whose tiles are all placed: alpha-beta search on a two-ended line.

Once nothing more can be drawn, a hand of a line game (no spinner) is a finite game of
perfect information for any one guess of the hidden tiles. The expert guesses (deals the
unseen tiles many times, ``Knowledge.sample``) and, on each guess, asks this module what
every candidate move is worth when everybody plays on perfectly from there. The average
over the guesses is the move's value. That is how the strongest public dominoes players
win (exact search on sampled deals); here the search is small enough to run on every
sampled deal within the time budget: hands are bit masks over the set's tiles (``SetBits``,
built once per set: 28 bits for double-six, 55 for double-nine), a position is
``(hands, the two open numbers, the seat to move)``, positions already solved are kept
in a table, and heavier tiles are tried first, so cut-offs come early.

Two sides (two players, or partners) make it a zero-sum game: one side maximises the
value, the other minimises it. With three or four sides each on its own the search is
*paranoid*: every other seat is assumed to play against the searching seat. A seat known to
be a greedy bot can be searched as one instead (``greedy_seats``: ``Budget.greedy_model``).

The value of a finished hand is the expert's: what it brings the searching side against
the others (``hand_award``, the engine's own scoring) plus a bonus when it ends the match
(``ExactLine.bonus``). A knock is not a choice in a line game without a boneyard: a seat
with no tile that fits knocks, and the hand blocks when no seat can play.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable

from api.rules.ruleset import DEFAULT_SET
from api.rules.scoring import HandScoring, credited, hand_award
from api.rules.tiles import Tile, TileSet

_HALF = 14  # pips of a mask, looked up in runs of 14 tiles (a 2**14 table each)


class SetBits:
    """One set's tiles as bits, for the search: ``SetBits.of(tile_set)``, built once per set.

    The search numbers the tiles by weight, heaviest first (doubles first on equal pips), so
    walking a hand's bits from the lowest tries the heaviest tile first: shedding weight is
    usually best, and good moves first make alpha-beta cut early. ``shows[n]`` is the mask of
    the tiles that show ``n``; ``pips_of(mask)`` the pips of a mask.
    """

    def __init__(self, tile_set: TileSet) -> None:
        self.tile_set = tile_set
        self.by_weight: tuple[Tile, ...] = tuple(
            sorted(tile_set.tiles, key=lambda t: (-t.pips, not t.is_double, -t.high))
        )
        self.bit: dict[Tile, int] = {t: 1 << i for i, t in enumerate(self.by_weight)}
        self.highs = tuple(t.high for t in self.by_weight)
        self.lows = tuple(t.low for t in self.by_weight)
        self.pips = tuple(t.pips for t in self.by_weight)
        self.shows: tuple[int, ...] = tuple(
            sum(self.bit[t] for t in tile_set.tiles if t.has(n)) for n in tile_set.numbers
        )
        # by bit: the tiles as heavy as it on greedy's key (pips, then a double first), itself included
        self.peers: tuple[int, ...] = tuple(
            sum(self.bit[u] for u in self.by_weight if (u.pips, u.is_double) == (t.pips, t.is_double))
            for t in self.by_weight
        )
        self.all_mask = (1 << len(self.by_weight)) - 1
        self.pips_of = self._pips_counter()

    @staticmethod
    @functools.cache
    def of(tile_set: TileSet) -> SetBits:
        return SetBits(tile_set)

    def mask_of(self, tiles: list[Tile]) -> int:
        bit = self.bit
        mask = 0
        for t in tiles:
            mask |= bit[t]
        return mask

    def _pips_counter(self) -> Callable[[int], int]:
        """``pips_of``: a lookup per run of 14 tiles; two runs (double-six) without a loop."""
        pips = self.pips
        runs = tuple(_run_pips(pips[start : start + _HALF]) for start in range(0, len(pips), _HALF))
        low_mask = (1 << _HALF) - 1
        if len(runs) == 2:
            lo, hi = runs

            def pips_of(mask: int) -> int:
                return lo[mask & low_mask] + hi[mask >> _HALF]

            return pips_of

        def pips_of_runs(mask: int) -> int:
            total = 0
            for run in runs:
                total += run[mask & low_mask]
                mask >>= _HALF
            return total

        return pips_of_runs


def _run_pips(pips: tuple[int, ...]) -> tuple[int, ...]:
    """The pips of every mask over one run of (up to 14) tiles of these pips."""
    return tuple(sum(p for i, p in enumerate(pips) if m >> i & 1) for m in range(1 << _HALF))


# The double-six set's, by their old names (the default set; tests and bench read them).
_SIX = SetBits.of(TileSet.DOUBLE_6)
BY_WEIGHT: tuple[Tile, ...] = _SIX.by_weight
BIT: dict[Tile, int] = _SIX.bit
SHOWS: tuple[int, ...] = _SIX.shows
mask_of = _SIX.mask_of
pips_of = _SIX.pips_of


class SearchTooBig(Exception):
    """The search met more positions than it was allowed (``ExactLine.limit``)."""


class ExactLine:
    """Solves positions of one hand for the side of seat ``me``.

    ``sides[s]`` is seat s's side; ``scores`` the sides' match scores before the hand ends;
    ``target`` the match target and ``bonus`` what reaching it is worth beyond its points;
    ``scoring`` what a finished hand pays (``RuleSet.hand_scoring``) and ``exact_target``
    whether points past the target are lost; ``hand_win`` what winning the hand is worth
    beside its points. Seats in ``greedy_seats`` are greedy bots: they play their heaviest
    fitting tile (on the key ``simple.choose_greedy`` uses: pips, then a double first), so the
    search tries only those (the ties among them, and the ends they fit), and the playout never
    plays them at random. ``limit`` bounds
    the positions one ``solve`` may visit (``SearchTooBig`` beyond): the work is counted,
    never timed, so an answer depends only on the inputs. Hands are masks of ``bits``, the
    ``tile_set``'s (``SetBits.of``).
    """

    def __init__(
        self,
        sides: list[int],
        me: int,
        scores: list[int],
        target: int,
        bonus: float,
        scoring: HandScoring,
        limit: int,
        tile_set: TileSet = DEFAULT_SET,  # the rule set's ``set``
        exact_target: bool = False,
        greedy_seats: frozenset[int] = frozenset(),
        hand_win: float = 0.0,
    ) -> None:
        self.bits = bits = SetBits.of(tile_set)
        self.pips_of = bits.pips_of
        self.sides = sides
        self.my_side = sides[me]
        self.players = len(sides)
        self.side_count = max(sides) + 1
        self.side_seats = [[s for s, side in enumerate(sides) if side == i] for i in range(self.side_count)]
        self.scores = scores
        self.target = target
        self.bonus = bonus
        self.scoring = scoring
        self.exact_target = exact_target
        self.limit = limit
        self.greedy = tuple(s in greedy_seats for s in range(len(sides)))
        self.hand_win = hand_win
        self.visited = 0  # positions searched, over every solve
        self.stop = limit  # the count at which the current solve gives up
        self.table: dict[tuple[int, ...], tuple[float, float]] = {}  # position -> (lower, upper) bound
        self._awards: dict[tuple[tuple[int, ...], int | None], float] = {}
        # built on the first solve: honest rollouts (``honest``) value ends with ``ended`` and never search
        self._search: Callable[[list[int], int, int, int, float, float, int, int], float] | None = None

    def value_of_end(self, side_pips: list[int], out_side: int | None) -> float:
        """What a finished hand is worth to the searching side (``expert._value`` on an exact end)."""
        key = (tuple(side_pips), out_side)
        known = self._awards.get(key)
        if known is not None:
            return known
        side, points = hand_award(side_pips, out_side, self.scoring)
        value = 0.0
        if side is not None:
            points = credited(points, self.scores[side], self.target, self.exact_target)
            mine = side == self.my_side
            value = points if mine else -points / (self.side_count - 1)
            if points:
                value += self.hand_win if mine else -self.hand_win / (self.side_count - 1)
            if self.scores[side] + points >= self.target:
                value += self.bonus if mine else -self.bonus
        self._awards[key] = value
        return value

    def ended(self, hands: list[int], out_side: int | None) -> float:
        side_pips = []
        for seats in self.side_seats:
            mask = 0
            for seat in seats:
                mask |= hands[seat]
            side_pips.append(self.pips_of(mask))
        return self.value_of_end(side_pips, out_side)

    def solve(self, hands: list[int], a: int, b: int, turn: int) -> float:
        """The value of the position with ``turn`` to move (or to knock) on open numbers ``a``, ``b``.

        Raises ``SearchTooBig`` after visiting ``limit`` new positions; what was solved
        before that stays in the table, so the positions keep their true values."""
        self.stop = self.visited + self.limit
        mine = theirs = 0
        for seat, hand in enumerate(hands):
            if self.sides[seat] == self.my_side:
                mine |= hand
            else:
                theirs |= hand
        if self._search is None:
            self._search = self._make_search()
        return self._search(hands[:], a, b, turn, -1e9, 1e9, self.pips_of(mine), self.pips_of(theirs))

    def playout(
        self, hands: list[int], a: int, b: int, turn: int, rng: random.Random, epsilon: float, exact_tiles: int
    ) -> float:
        """Play on greedily (heaviest tile first, a random one ``epsilon`` of the time) until at
        most ``exact_tiles`` tiles are left in the hands, then solve the rest exactly.

        The playouts of the expert's block games, without building a ``MatchState``; a
        solve too big for ``limit`` plays on greedily to the end instead."""
        hands = hands[:]
        players = self.players
        left = sum(h.bit_count() for h in hands)
        set_bits = self.bits
        shows, highs, lows = set_bits.shows, set_bits.highs, set_bits.lows
        greedy = self.greedy
        while True:
            fit = shows[a] | shows[b]
            for _ in range(players):
                if hands[turn] & fit:
                    break
                turn = (turn + 1) % players
            else:
                return self.ended(hands, None)
            if left <= exact_tiles:
                try:
                    return self.solve(hands, a, b, turn)
                except SearchTooBig:
                    exact_tiles = -1
            playable = hands[turn] & fit
            bit = playable & -playable  # the heaviest
            if epsilon and playable != bit and not greedy[turn] and rng.random() < epsilon:
                bits = []
                while playable:
                    low_bit = playable & -playable
                    bits.append(low_bit)
                    playable ^= low_bit
                bit = rng.choice(bits)
            i = bit.bit_length() - 1
            high, low = highs[i], lows[i]
            if high == a or low == a:
                a = low if high == a else high
            else:
                b = low if high == b else high
            hands[turn] ^= bit
            left -= 1
            if not hands[turn]:
                return self.ended(hands, self.sides[turn])
            turn = (turn + 1) % players

    def _going_out(self) -> tuple[list[float], list[float]]:
        """With two sides, what a hand that goes out is worth, by the pips that pay: our side going
        out (the others pay theirs), and the others going out (we pay ours). Under ``all_hands``
        every hand pays, so the tables are read at both sides' pips together (the award depends
        on their sum alone)."""
        mine, theirs = self.my_side, 1 - self.my_side
        ours_out, theirs_out = [], []
        for pips in range(self.bits.tile_set.total_pips + 1):
            side_pips = [0, 0]
            side_pips[theirs] = pips
            ours_out.append(self.value_of_end(side_pips, mine))
            side_pips = [0, 0]
            side_pips[mine] = pips
            theirs_out.append(self.value_of_end(side_pips, theirs))
        return ours_out, theirs_out

    def _make_search(self) -> Callable[[list[int], int, int, int, float, float, int, int], float]:
        """The alpha-beta search as a closure: the hot loop reads its constants from local cells.

        It carries the pips of the searching side and of the others, played off tile by tile:
        with two sides a hand that ends is then valued by a lookup (``_going_out``, or a table
        of blocked ends by pips) instead of counting the hands again."""
        table = self.table
        sides = self.sides
        my_side = self.my_side
        players = self.players
        ended = self.ended
        set_bits = self.bits
        shows, highs, lows, tile_pips = set_bits.shows, set_bits.highs, set_bits.lows, set_bits.pips
        peers, greedy = set_bits.peers, self.greedy
        # Keys of the blocked ends' table: our pips above theirs (each at most the set's total).
        shift = set_bits.tile_set.total_pips.bit_length()
        line = self
        two_sides = self.side_count == 2
        all_hands = self.scoring.all_hands
        ours_out, theirs_out = self._going_out() if two_sides else ([], [])
        blocked: dict[int, float] = {}  # two sides: (our pips, theirs) -> a blocked hand's value

        def search(
            hands: list[int], a: int, b: int, turn: int, alpha: float, beta: float, mine: int, theirs: int
        ) -> float:
            fit = shows[a] | shows[b]
            for _ in range(players):
                if hands[turn] & fit:
                    break
                turn = (turn + 1) % players  # a seat with nothing that fits knocks
            else:
                if not two_sides:
                    return ended(hands, None)  # nobody can play: blocked
                value = blocked.get(mine << shift | theirs)
                if value is None:
                    value = blocked[mine << shift | theirs] = ended(hands, None)
                return value
            if a > b:
                a, b = b, a  # the two ends of a line are interchangeable
            key = (*hands, a << 4 | b, turn)  # a and b: 0..12, four bits each
            bounds = table.get(key)
            if bounds is not None:
                lower, upper = bounds
                if lower >= beta:
                    return lower
                if upper <= alpha:
                    return upper
                if lower == upper:
                    return lower
                if lower > alpha:
                    alpha = lower
                if upper < beta:
                    beta = upper
            else:
                lower, upper = -1e9, 1e9
            line.visited += 1
            if line.visited > line.stop:
                raise SearchTooBig
            alpha0, beta0 = alpha, beta
            side = sides[turn]
            maximize = side == my_side
            best = -1e9 if maximize else 1e9
            hand = hands[turn]
            playable = hand & fit
            if greedy[turn]:  # it sheds its heaviest: only the ties for heaviest (and their ends) are open
                playable &= peers[(playable & -playable).bit_length() - 1]
            nxt = (turn + 1) % players
            while playable:
                bit = playable & -playable
                playable ^= bit
                i = bit.bit_length() - 1
                high, low = highs[i], lows[i]
                rest = hand ^ bit
                hands[turn] = rest
                if maximize:
                    left_mine, left_theirs = mine - tile_pips[i], theirs
                else:
                    left_mine, left_theirs = mine, theirs - tile_pips[i]
                # The tile's placements: on ``a`` (its far half becomes the end), and on ``b``
                # when that differs; a double leaves the ends as they were.
                for on in (a, b) if a != b else (a,):
                    if high == on:
                        far = low
                    elif low == on:
                        far = high
                    else:
                        continue
                    if not rest and two_sides:  # went out
                        if all_hands:  # every hand pays, the partner's too
                            v = ours_out[left_mine + theirs] if maximize else theirs_out[mine + left_theirs]
                        else:
                            v = ours_out[theirs] if maximize else theirs_out[mine]
                    elif not rest:
                        v = ended(hands, side)
                    elif on == a:
                        v = search(hands, far, b, nxt, alpha, beta, left_mine, left_theirs)
                    else:
                        v = search(hands, a, far, nxt, alpha, beta, left_mine, left_theirs)
                    if maximize:
                        if v > best:
                            best = v
                            if v > alpha:
                                alpha = v
                    elif v < best:
                        best = v
                        if v < beta:
                            beta = v
                    if alpha >= beta or high == low:
                        break  # a cut-off; or a double, which fits one way only
                if alpha >= beta:
                    break
            hands[turn] = hand
            if best <= alpha0:
                upper = best  # failed low: an upper bound
            elif best >= beta0:
                lower = best  # failed high: a lower bound
            else:
                lower = upper = best
            table[key] = (lower, upper)
            return best

        return search
