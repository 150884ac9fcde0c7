"""The fast path's bookkeeping (counts by number, ends keys, precomputed plays) against plain scans.

``MatchState`` keeps a few derived values so playouts are cheap: ``held`` (every hand's
tiles counted by number), ``Layout.ends_key`` (the open numbers, packed) and rows of
precomputed plays per key. These tests recompute each from the hands and the table, the
slow obvious way, after every move of random hands of every rule set; and check that
``random_playout``'s inlined loop ends exactly where ``push``, move by move, does.
"""

from __future__ import annotations

import itertools
import random

import pytest

from api.rules import create_match, replay, resolve_rules, start_match
from api.rules.games import presets_of
from api.rules.layout import CLOSED, EMPTY_KEY, NUMBERS, OPEN_FIELDS, OPEN_MASK, TILE_COUNT, ends_of_key
from api.rules.simulate import push, random_playout
from api.rules.state import DRAW, KNOCK, PLAY, PLAYING
from tests.rules.support import seats, snapshot

CASES = [(p, n, {}) for p, spec in presets_of("line").items() for n in spec.players] + [
    ("standard-block", 4, {"partners": True, "hand_size": 7}),
    ("standard-draw", 3, {"draw_at_will": True, "boneyard_reserve": 2}),
    ("all-fives", 4, {"partners": True, "muggins_calls": True}),
    ("standard-draw", 2, {"auto_draw": True, "auto_knock": True}),
    ("standard-block", 4, {"set": "double-9", "partners": True, "hand_size": 10}),
    ("standard-draw", 2, {"set": "double-12", "hand_size": 15}),
]
IDS = [f"{p}-{n}-{'-'.join(sorted(o)) or 'plain'}" for p, n, o in CASES]


def dealt(case, seed):
    preset, players, options = case
    rules = resolve_rules(preset, dict(options), players)
    log = create_match(rules, seats(players), seed)
    log += start_match(replay(log), seed)
    return replay(log)


def plain_moves(st):
    """The rule book's moves for the seat to move: every fitting (tile, end), then draw or knock."""
    seat, rules = st.turn, st.rules
    if st.layout.tiles == 0:
        plays = [(PLAY, t, 0) for t in st.hands[seat]]
    else:
        plays = [
            (PLAY, t, end)
            for t in st.hands[seat]
            for end, v in enumerate(st.layout.values)
            if v is not None and t.has(v)
        ]
    drawable = rules.game == "draw" and len(st.boneyard) > rules.boneyard_reserve
    if drawable and (rules.draw_at_will or not plays):
        return plays + [(DRAW,)]
    return plays if plays or drawable else [(KNOCK,)]


def check_bookkeeping(st):
    assert st.held == sum(TILE_COUNT[t] for hand in st.hands for t in hand)
    values = st.layout.values
    if st.layout.tiles == 0:
        assert st.layout.ends_key == EMPTY_KEY
    else:
        assert ends_of_key(st.layout.ends_key) == values
    open_numbers = {v for v in values if v is not None}
    assert st.layout.open_mask == sum(1 << n for n in open_numbers)
    if st.status == PLAYING and st.hand_live:
        assert st.legal_moves() == plain_moves(st)
        anyone_fits = any(t.high in open_numbers or t.low in open_numbers for h in st.hands for t in h)
        drawable = st.rules.game == "draw" and len(st.boneyard) > st.rules.boneyard_reserve
        if st.layout.tiles:
            assert st.is_blocked() == (not anyone_fits and not drawable)


def test_every_ends_key_stands_for_its_open_numbers():
    """Every end of every set: a number up to 12-12's, or closed (a code no number has)."""
    ends = [*range(NUMBERS), None]
    for values in itertools.product(ends, repeat=4):
        key = sum((CLOSED if v is None else v) << 4 * i for i, v in enumerate(values))
        assert ends_of_key(key) == list(values)
        numbers = {v for v in values if v is not None}
        assert OPEN_MASK[key] == sum(1 << n for n in numbers)
        assert OPEN_FIELDS[key] == sum(0xF << 4 * n for n in numbers)
    assert ends_of_key(EMPTY_KEY) == [None] * 4 and CLOSED == 15 and NUMBERS == 13


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_the_kept_counts_keys_and_moves_match_a_plain_scan_after_every_move(case):
    for n in range(6):
        st = dealt(case, f"fast-{n}")
        rng = random.Random(n)
        check_bookkeeping(st)
        while st.status == PLAYING and st.hand_live:
            push(st, rng.choice(st.legal_moves()))
            check_bookkeeping(st)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_a_random_playout_ends_where_pushing_the_same_choices_one_by_one_does(case):
    for n in range(6):
        start = dealt(case, f"same-{n}")
        fast = random_playout(start.copy(), random.Random(n))
        slow, rng = start.copy(), random.Random(n)
        if not slow.rules.scores_the_count:  # the line-game loop picks moves[int(random() * n)]
            while slow.status == PLAYING and slow.hand_live:
                moves = slow.legal_moves()
                push(slow, moves[int(rng.random() * len(moves))])
        else:
            while slow.status == PLAYING and slow.hand_live:
                push(slow, rng.choice(slow.legal_moves()))
        assert snapshot(fast) == snapshot(slow)
        assert fast.held == slow.held and fast.layout.ends_key == slow.layout.ends_key
