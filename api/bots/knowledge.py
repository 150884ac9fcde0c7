"""What one seat knows: its view and its redacted log, read into a compact record.

``Knowledge.read(view, log)`` is the only door from the outside into a bot's head, and
it takes dicts (``api.rules.view`` output and ``api.rules.redact_event`` output), never
a ``MatchState``. From them it derives:

- the seat's own hand and the tiles already on the table this hand;
- the unseen tiles (not in the seat's hand, not on the table): these are spread over the
  other hands and the boneyard;
- for every other seat, one *slot* per hidden tile, each with the set of numbers that
  tile cannot carry. A seat that knocks, or draws when drawing is allowed only to a
  stuck player, shows that no tile it holds matches the open ends. Tiles drawn later
  may carry those numbers, so each slot remembers only what applied while it was held.

A forced lead tells something too: the highest double dealt leads (with no double, the
heaviest tile), so no other hand was dealt a higher double (or, after a single, any double or
a heavier tile): ``barred``, the tiles no other seat can hold while none of them has drawn.

It also keeps every *choice* another seat made since its last draw: the tile it played and
the tiles that fitted the table then. ``Knowledge.likelihood(hands)`` reads them back: how
likely a guess of the hidden hands makes those choices. Some players lean toward shedding
their heavier tiles (a tile ``lean`` times likelier than one a step lighter on the
heaviest-first key): one of those that played a light tile probably held no heavy one that
fitted. Others do not (a searching player, a partner playing for its side); which kind each
seat is, is read from its own plays along with the hands. A seat the view shows as a greedy bot
(``greedy_seats``) can be read exactly instead: it held no tile heavier than one it played that
fitted then (``shed``, the tiles ruled out; ``sample`` never deals them to it, and
``likelihood`` leaves its plays alone), and, when it led at will, no tile heavier than its lead
(``led``: ``shed`` with the lead read too). The expert reads it so only under
``Budget.greedy_reading`` (and its lead under ``Budget.lead_reading``).

``Knowledge.sample(rng)`` deals the unseen tiles into the hidden slots and the boneyard,
respecting every constraint, and ``Knowledge.state(deal)`` builds a ``MatchState`` of
that imagined deal through the engine's own effects (``on_hand_started``,
``on_tile_played``…), so simulations share the rules code.
"""

from __future__ import annotations

import dataclasses
import functools
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from api.rules.events import HandStarted, Knocked, PointsScored, TileDrawn, TilePlayed
from api.rules.layout import END_INDEX, Layout
from api.rules.ruleset import RuleSet
from api.rules.state import PLAYING, MatchState, forced_lead, lead_is_forced
from api.rules.tiles import EVERY_TILE, LARGEST_PIP, Tile, TileSet
from api.rules.vocabulary import BotLevel, SeatKind

from .actions import Json
from .uniform import UniformDeals

# Every number of every set: the tables below are sized once for the largest set, and a
# smaller set's tiles and numbers are a prefix of its (``Tile.index`` is one index for all).
NUMBERS = range(LARGEST_PIP + 1)
_RETRIES = 30
# The heaviest-first key of each tile (by ``Tile.index``): the playouts' own order of preference
# (``expert.policy_move``), heavier first, a double before a single of the same weight.
WEIGHT_KEY: tuple[int, ...] = tuple(2 * t.pips + t.is_double for t in EVERY_TILE)
KEY_SPAN = max(WEIGHT_KEY)  # keys run 0..KEY_SPAN
# Before a seat has played, the odds that it leans toward shedding weight (``Knowledge.likelihood``).
LEANING_ODDS = 0.5


@dataclass(frozen=True)
class Choice:
    """One play another seat chose: ``tile`` (an index) among the tiles of its hand that fitted
    (``fits``, a mask over ``Tile.index``); ``kept`` is the mask of the tiles it played from
    then on, this one included, so its hand then was its hidden hand now plus ``kept``."""

    seat: int
    tile: int
    fits: int
    kept: int
    ends: int = 0  # the numbers open when it chose, a mask over ``NUMBERS`` (what each fitting tile would leave open)


@functools.cache
def lean_powers(lean: float) -> tuple[float, ...]:
    """``lean ** d`` for d in -KEY_SPAN..KEY_SPAN (index ``d + KEY_SPAN``), by repeated
    multiplication and division: the same floats in every language."""
    up = [1.0]
    down = [1.0]
    for _ in range(KEY_SPAN):
        up.append(up[-1] * lean)
        down.append(down[-1] / lean)
    return tuple(down[::-1] + up[1:])


def tile_mask(tile: Tile) -> int:
    """The numbers on a tile, as a bit mask over ``NUMBERS``."""
    return (1 << tile.high) | (1 << tile.low)


def ends_mask(values: Iterable[int | None]) -> int:
    mask = 0
    for v in values:
        if v is not None:
            mask |= 1 << v
    return mask


def numbers_of(mask: int) -> list[int]:
    return [n for n in NUMBERS if mask >> n & 1]


def _tile(value: Any) -> Tile:
    return Tile.from_json(value)


@dataclass
class Knowledge:
    """One seat's picture of the current hand (see the module docstring)."""

    rules: RuleSet
    view: Json
    seat: int
    hand: list[Tile]  # the seat's own tiles
    played: list[Tile]  # on the table this hand, in order
    events: list[Json]  # this hand's events (redacted), in order
    slots: dict[int, list[int]]  # other seat -> one lacks mask per hidden tile
    unseen: list[Tile]  # canonical order
    boneyard: int  # tiles in the boneyard (drawable or not)
    layout: Layout  # the table now, rebuilt from the log
    choices: list[Choice]  # the other seats' plays since their last draws, in order (not the lead)
    barred: int  # tiles (a mask over ``Tile.index``) no other seat holds: what a forced lead rules out
    # seat read as greedy (a bot of that level whose plays fit it) -> the tiles its plays rule out
    shed: dict[int, int] = dataclasses.field(default_factory=dict)
    # the same, its lead at will read too (it led its heaviest tile): ``Budget.lead_reading`` deals by it
    led: dict[int, int] = dataclasses.field(default_factory=dict)

    # --- reading -------------------------------------------------------------------
    @classmethod
    def read(cls, view: Json, log: Sequence[Json]) -> Knowledge:
        rules = RuleSet.from_dict(view["rules"])
        seat = view["seat"]
        start = max((i for i, e in enumerate(log) if e.get("type") == HandStarted.type), default=None)
        events = [] if start is None else list(log[start + 1 :])
        counts = list(view["hand_counts"])
        slots: dict[int, list[int]] = {s: [] for s in range(rules.players) if s != seat}
        if start is not None:
            dealt = log[start]["hand_counts"]
            for s in slots:
                slots[s] = [0] * dealt[s]
        layout = Layout(rules.uses_spinner)
        played: list[Tile] = []
        informative_draws = rules.is_draw_game and not rules.draw_at_will
        drew_last: dict[int, bool] = {s: False for s in slots}
        # (seat, tile, fits, open numbers) of each play chosen by another seat; a draw forgets the
        # seat's earlier ones (which tile it drew is hidden, so its hand then is not known).
        chosen: list[tuple[int, int, int, int]] = []
        barred = 0
        in_set = (1 << len(rules.set.tiles)) - 1  # the set's tiles: the first of ``EVERY_TILE``
        for e in events:
            kind = e.get("type")
            who = e.get("seat")
            if kind == TilePlayed.type:
                tile = _tile(e["tile"])
                if who in slots and layout.tiles > 0:
                    ends = ends_mask(layout.values)
                    chosen.append((who, tile.index, _FITTING[ends] & in_set, ends))
                forced = layout.tiles == 0 and lead_is_forced(rules, view["hand_number"])
                if forced:
                    barred = _outranking(tile, rules.set)
                elif who in slots and layout.tiles == 0:
                    chosen.append((who, tile.index, in_set, _LEAD))  # a lead at will: any tile fitted
                if who in slots:
                    _remove_slot(slots[who], tile, newest=informative_draws and drew_last[who])
                    drew_last[who] = False
                layout.place(tile, END_INDEX[e["end"]])
                played.append(tile)
            elif kind == TileDrawn.type and who in slots:
                if informative_draws:
                    _lack(slots[who], ends_mask(layout.values))
                slots[who].append(0)
                drew_last[who] = True
                chosen = [c for c in chosen if c[0] != who]
                barred = 0  # a drawn tile may be any of them (kept simple: the whole bar goes)
            elif kind == Knocked.type and who in slots:
                _lack(slots[who], ends_mask(e.get("ends", {}).values()))
                drew_last[who] = False
        # The counts in the view are the truth; a log that disagrees loses its inferences.
        for s, masks in slots.items():
            if len(masks) != counts[s]:
                slots[s] = [0] * counts[s]
        hand = [_tile(t) for t in view.get("hand", [])]
        known = set(hand) | set(played)
        unseen = [t for t in rules.set.tiles if t not in known]
        choices = []
        leads = []  # the leads at will: read only for a greedy seat's ``shed`` (not by ``likelihood``)
        if not rules.scores_the_count:  # in a scoring game plays chase points, not weight
            for i, (who, index, fits, ends) in enumerate(chosen):
                kept = 1 << index
                for other, later, _fits, _ends in chosen[i + 1 :]:
                    if other == who:
                        kept |= 1 << later
                if ends == _LEAD:
                    leads.append(Choice(who, index, fits, kept, 0))
                else:
                    choices.append(Choice(who, index, fits, kept, ends))
        greedy = greedy_seats(view)
        shed = {s: bar for s in greedy if (bar := _shed(choices, s)) is not None}
        led = {s: bar for s in greedy if (bar := _shed(leads + choices, s)) is not None}
        return cls(
            rules, view, seat, hand, played, events, slots, unseen, view["boneyard"], layout, choices, barred, shed, led
        )

    # --- questions -------------------------------------------------------------------
    def lacks(self, seat: int) -> set[int]:
        """Numbers ``seat`` surely holds none of now (every hidden tile of it lacks them)."""
        masks = self.slots.get(seat, [])
        if not masks:
            return set()
        common = (1 << len(NUMBERS)) - 1
        for m in masks:
            common &= m
        return set(numbers_of(common))

    def likelihood(
        self,
        hands: dict[int, list[Tile]],
        powers: tuple[float, ...],
        stray: float,
        odds: float = LEANING_ODDS,
        signaller: int | None = None,
        signal_powers: tuple[float, ...] = (),
    ) -> float:
        """How likely the other seats' choices are if they hold ``hands``, up to a constant factor.

        Each seat is one of two kinds of player, leaning at ``odds`` (``LEANING_ODDS``: even) before
        its plays show which. A *leaning* player sheds weight: it picks among the tiles that
        fitted in proportion to ``lean ** key`` (``powers`` from ``lean_powers``), except on a
        ``stray`` share of its choices, made with no regard to weight. An *even* player takes
        any tile that fitted alike: its choices say nothing of its hand, only that the tile
        fitted. A seat's factor is the mix of the two over all its choices, so a seat whose
        plays keep to the heavy end soon counts as leaning, and one that shed a light tile
        while holding heavier ones (a searching player, a partner playing for the side) stops
        being read as if it leaned. ``odds=1, stray=0`` reads every seat as leaning on every
        choice: that made the guesses worse than reading nothing (``bench/reading.py``).

        A ``signaller`` (a partner known to play the convention of ``signal_strength``) is read
        by it instead: a fitting tile that would leave open a number its hand carried on ``k``
        more tiles is ``signal_powers[k]`` likelier, but for a ``stray`` share of its choices."""
        masks = {s: index_mask(h) for s, h in hands.items()}
        players = self.rules.players
        leaning = [1.0] * players  # each seat's choices, if it leans
        even = [1.0] * players  # if it takes any fitting tile alike
        signalled = 1.0  # the signaller's choices
        keep = 1.0 - stray
        for c in self.choices:
            if c.seat in self.shed:
                continue  # a greedy seat: its plays are read exactly, by the deals (``shed``)
            if c.seat == signaller:
                signalled *= _signal_odds(masks.get(c.seat, 0) | c.kept, c, signal_powers, stray)
                continue
            options = (masks.get(c.seat, 0) | c.kept) & c.fits
            base = KEY_SPAN - WEIGHT_KEY[c.tile]
            total = 0.0
            count = 0
            while options:
                bit = options & -options
                options ^= bit
                total += powers[base + WEIGHT_KEY[bit.bit_length() - 1]]
                count += 1
            # the chosen tile's own term is lean ** 0 == 1, so total >= 1 and count >= 1
            leaning[c.seat] *= keep / total + stray / count
            even[c.seat] *= 1.0 / count
        product = signalled
        for seat in range(players):
            if seat != signaller:
                product *= odds * leaning[seat] + (1.0 - odds) * even[seat]
        return product

    def tie_odds(self, hands: dict[int, list[Tile]]) -> float:
        """How likely the greedy seats' (``shed``) plays are if they hold ``hands``, up to a constant
        factor, on a line: a greedy seat plays its heaviest fitting tile but picks at random among
        the listed plays of equal weight (``simple.choose_greedy``), so a hand that also held a
        fitting tile as heavy as the one played made that play half as likely. (On a line that tile
        is on the other end, one play each: two tiles of one weight never share a number.)"""
        odds = 1.0
        for c in self.choices:
            if c.seat in self.shed:
                tied = c.fits & _EQUAL[c.tile] & ~(1 << c.tile)
                if tied & (index_mask(hands.get(c.seat, [])) | c.kept):
                    odds *= 0.5
        return odds

    # --- imagining the hidden tiles ----------------------------------------------------
    @functools.cached_property
    def _holders(self) -> tuple[list[tuple[int, int]], list[int]]:
        """The slots to deal to, (seat or -1 for the boneyard, lacks mask), and the order to fill
        them in: most constrained first (a stable sort)."""
        holders: list[tuple[int, int]] = []
        for s in sorted(self.slots):
            holders.extend((s, m) for m in self.slots[s])
        holders.extend((-1, 0) for _ in range(self.boneyard))
        pool = self.unseen
        if len(holders) != len(pool):  # inconsistent input: be lenient
            holders = holders[: len(pool)] + [(-1, 0)] * max(0, len(pool) - len(holders))
        order = sorted(range(len(holders)), key=lambda i: -bin(holders[i][1]).count("1"))
        return holders, order

    def sample(self, rng: random.Random) -> tuple[dict[int, list[Tile]], list[Tile]]:
        """A deal of the unseen tiles consistent with all the seat knows: hands and boneyard."""
        hands, boneyard, _weight = self.weighed_sample(rng)
        return hands, boneyard

    @functools.cached_property
    def _uniform(self) -> UniformDeals | None:
        """The exact uniform sampler of this seat's consistent deals (``uniform.UniformDeals``), when
        every other seat's hidden slots share one mask (no draw has split them) and some deal fits;
        None otherwise."""
        seats = sorted(self.slots)
        if sum(len(self.slots[s]) for s in seats) + self.boneyard != len(self.unseen):
            return None  # inconsistent input: ``weighed_sample`` is lenient with it
        allowed = []
        for s in seats:
            masks = self.slots[s]
            if any(m != masks[0] for m in masks):
                return None
            mask = masks[0] if masks else 0
            bar = self.barred | self.shed.get(s, 0)
            allowed.append({t for t in self.unseen if not _NUMBERS_ON[t.index] & mask and not bar >> t.index & 1})
        deals = UniformDeals(seats, [len(self.slots[s]) for s in seats], allowed, self.unseen)
        return deals if deals.count else None

    def uniform_sample(self, rng: random.Random) -> tuple[dict[int, list[Tile]], list[Tile]] | None:
        """A deal drawn exactly uniformly among all those consistent with what the seat knows (its
        hidden hands in canonical order, the boneyard shuffled), when each other seat's hidden tiles
        share one constraint (``uniform``); None when they do not, or when no deal fits."""
        deals = self._uniform
        return None if deals is None else deals.sample(rng)

    def weighed_sample(self, rng: random.Random) -> tuple[dict[int, list[Tile]], list[Tile], float]:
        """A deal as ``sample`` makes it, and its weight: how much likelier it is in truth than
        this way of dealing makes it, up to a constant factor (every consistent deal is equally
        likely in truth).

        The constrained slots go first, most constrained first, each taking a tile drawn
        uniformly among those it may hold; the free slots (the boneyard's among them) then share
        what is left, shuffled again. Taking the *first* fitting tile of one shuffle instead left
        the tiles a constrained slot had skipped at the front, for the next free slots to take:
        with a double-nine hand that lacks two numbers, a third of its 9s went to the first free
        hand (twice their share) and too few to the 15 tiles out of play (``test_knowledge``).
        When several seats lack different numbers, dealing one slot after another still favours
        some deals: one is dealt with the product of ``1 / fitting tiles`` over the constrained
        slots, so its weight is the product of ``fitting / remaining`` (the remaining count is
        the same at each step for every deal: a constant factor that keeps the weight <= 1).
        ``expert._weighed_deals`` draws deals in proportion to it."""
        holders, order = self._holders
        barred, shed = self.barred, self.shed
        pool = self.unseen
        for attempt in range(_RETRIES + 1):
            remaining = pool[:]
            weight = 1.0
            got: list[Tile | None] = [None] * len(holders)
            free: list[int] = []
            ok = True
            for i in order:
                seat, mask = holders[i]
                bar = barred | shed.get(seat, 0) if seat >= 0 and attempt < _RETRIES else 0
                if attempt == _RETRIES:
                    mask = 0
                if not mask and not bar:
                    free.append(i)
                    continue
                fitting = [
                    j for j, t in enumerate(remaining) if not _NUMBERS_ON[t.index] & mask and not bar >> t.index & 1
                ]
                if not fitting:
                    ok = False
                    break
                weight *= len(fitting) / len(remaining)
                got[i] = remaining.pop(fitting[rng.randrange(len(fitting))])
            if ok:
                rng.shuffle(remaining)
                for i, tile in zip(free, remaining):
                    got[i] = tile
                break
        hands: dict[int, list[Tile]] = {s: [] for s in self.slots}
        boneyard: list[Tile] = []
        for (s, _m), taken in zip(holders, got):
            assert taken is not None  # the last attempt ignores the masks: every slot got a tile
            (boneyard if s == -1 else hands[s]).append(taken)
        return hands, boneyard, weight

    def state(self, hands: dict[int, list[Tile]], boneyard: list[Tile]) -> MatchState:
        """The match as it would be with these hidden tiles, built by the engine's effects."""
        view = self.view
        rules = self.rules
        st = MatchState(rules, [dict(s) for s in view["seats"]])
        full = [list(hands.get(s, ())) for s in range(rules.players)]
        full[self.seat] = list(self.hand)
        for e in self.events:
            if e.get("type") == TilePlayed.type:
                full[e["seat"]].append(_tile(e["tile"]))
        st.on_hand_started(view["hand_number"], view["leader"], full, boneyard)
        for e in self.events:
            kind = e.get("type")
            if kind == TilePlayed.type:
                st.on_tile_played(e["seat"], _tile(e["tile"]), END_INDEX[e["end"]], e.get("claim"))
            elif kind == PointsScored.type:
                st.on_points_scored(e["side"], 0)
            elif kind == Knocked.type:
                st.on_knocked(e["seat"])
        st.status = PLAYING
        st.scores = list(view["scores"])
        st.drawn = list(view["drawn"])
        st.turn = view["turn"]
        return st


def greedy_seats(view: Json) -> frozenset[int]:
    """The other seats that are bots of the ``greedy`` level (every view shows each seat's kind and
    level): each plays its heaviest fitting tile (``simple.choose_greedy``), so its plays are read
    as exactly that (``Knowledge.shed``) and the exact endings play it that way (``ExactLine``)."""
    return frozenset(
        s
        for s, seat in enumerate(view["seats"])
        if s != view["seat"] and seat.get("type") == SeatKind.BOT and seat.get("level") == BotLevel.GREEDY
    )


def _shed(choices: list[Choice], seat: int) -> int | None:
    """The tiles (a mask over ``Tile.index``) a greedy ``seat`` cannot hold now: every tile heavier
    (``WEIGHT_KEY``) than one it played that fitted then, since it would have played that one.
    Its hand then was its hidden hand now plus the tiles it played since (``Choice.kept``): if
    one of those was such a heavier tile, it did not play greedily: None, it is not read so."""
    shed = 0
    for c in choices:
        if c.seat == seat:
            heavier = c.fits & _HEAVIER[c.tile]
            if heavier & c.kept:
                return None
            shed |= heavier
    return shed


def signal_strength(hand: int, tile: Tile, number: int) -> int:
    """The partnership convention's signal: how many tiles of ``hand`` (a mask over ``Tile.index``)
    besides ``tile`` carry ``number``, the number a play of ``tile`` leaves open. An expert whose
    partner is an expert too plays toward numbers it holds (``Budget.signal``) and reads its
    partner's plays that way (``Knowledge.likelihood``)."""
    return (hand & ~(1 << tile.index) & _CARRYING[number]).bit_count()


def _signal_odds(hand: int, choice: Choice, signal_powers: tuple[float, ...], stray: float) -> float:
    """How likely the signaller's choice was with ``hand`` then: each fitting tile weighs
    ``signal_powers`` of its strongest signal (over the open numbers it fits)."""
    total = 0.0
    chosen = 0.0
    count = 0
    options = hand & choice.fits
    while options:
        bit = options & -options
        options ^= bit
        tile = EVERY_TILE[bit.bit_length() - 1]
        strongest = 0
        for number in numbers_of(choice.ends & tile_mask(tile)):
            far = tile.low if tile.high == number else tile.high
            strongest = max(strongest, signal_strength(hand, tile, far))
        weight = signal_powers[strongest]
        total += weight
        count += 1
        if tile.index == choice.tile:
            chosen = weight
    return (1.0 - stray) * chosen / total + stray / count


@functools.cache
def signal_powers(lean: float) -> tuple[float, ...]:
    """``lean ** k`` for k in 0..12 (a hand holds at most 12 other tiles showing a number), by
    repeated multiplication: the same floats in every language."""
    out = [1.0]
    for _ in range(LARGEST_PIP):
        out.append(out[-1] * lean)
    return tuple(out)


def index_mask(tiles: list[Tile]) -> int:
    """The tiles as a bit mask over ``Tile.index``."""
    mask = 0
    for t in tiles:
        mask |= 1 << t.index
    return mask


_NUMBERS_ON = tuple(tile_mask(t) for t in EVERY_TILE)  # by ``Tile.index``
_HEAVIER = tuple(index_mask([u for u in EVERY_TILE if WEIGHT_KEY[u.index] > WEIGHT_KEY[t.index]]) for t in EVERY_TILE)
_EQUAL = tuple(index_mask([u for u in EVERY_TILE if WEIGHT_KEY[u.index] == WEIGHT_KEY[t.index]]) for t in EVERY_TILE)
_CARRYING = tuple(index_mask([t for t in EVERY_TILE if t.has(n)]) for n in NUMBERS)  # by number
# The tiles (a mask over ``Tile.index``, of every set: a hand holds its own set's only) that fit
# one of the open numbers, by their mask (``ends_mask``): a mask's is its lowest number's
# tiles and those of the rest of the mask.
_fitting = [0]
for _numbers in range(1, 1 << len(NUMBERS)):
    _fitting.append(_CARRYING[(_numbers & -_numbers).bit_length() - 1] | _fitting[_numbers & (_numbers - 1)])
_FITTING: tuple[int, ...] = tuple(_fitting)
_LEAD = -1  # in ``Knowledge.read``'s list of plays chosen, the open numbers of a lead at will (none)
del _fitting, _numbers


@functools.cache
def _outranking(lead: Tile, tile_set: TileSet) -> int:
    """The tiles (a mask over ``Tile.index``) that would have led instead of ``lead``, by the
    engine's own rule (``state.forced_lead``, asked of each tile of the set dealt beside it): the
    higher doubles; after a single, every double and every heavier tile."""
    return index_mask([t for t in tile_set.tiles if t is not lead and forced_lead([[lead], [t]], tile_set)[0] == 1])


def _lack(masks: list[int], mask: int) -> None:
    for i in range(len(masks)):
        masks[i] |= mask


def _remove_slot(masks: list[int], tile: Tile, newest: bool) -> None:
    """A hidden tile was played: drop the slot it came from (or the safest guess).

    After a forced draw the played tile is the one just drawn. Otherwise the played tile
    came from some slot that allows it; dropping the most constrained such slot never
    claims more than is known (the lacks of held tiles are nested by age).
    """
    if not masks:
        return
    if newest:
        masks.pop()
        return
    tm = tile_mask(tile)
    best = None
    for i, m in enumerate(masks):
        if not m & tm and (best is None or bin(m).count("1") > bin(masks[best]).count("1")):
            best = i
    masks.pop(best if best is not None else len(masks) - 1)
