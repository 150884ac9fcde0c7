"""A bot decides from what its seat may know, and nothing else.

The entry point takes a view and a redacted log (dicts), never a ``MatchState``. Here two
real matches that differ only in tiles the seat cannot see (the other hands and the
boneyard) must give the seat identical inputs and every level the identical decision.
"""

from __future__ import annotations

import random

import pytest

from api.bots import LEVELS, Budget, choose_action
from api.bots.arena import BotMatch, next_actor
from api.rules import redact_event, replay, resolve_rules, view
from api.rules.events import HandStarted

QUICK = Budget(determinizations=6, max_playouts=60, min_determinizations=3)


def hidden_twin(events: list, seat: int, rng: random.Random):
    """The same log with the tiles ``seat`` cannot see dealt differently.

    Tiles the other seats still hold from the deal and the undrawn boneyard are shuffled
    among themselves; tiles already played or drawn stay where they were, so the public
    history (and the seat's own hand) is untouched.
    """
    k = max(i for i, e in enumerate(events) if e.type == "hand_started")
    start = events[k]
    now = replay(events)
    hand_events = events[k + 1 :]
    drawn = [e.tile for e in hand_events if e.type == "tile_drawn"]
    drawn_by = {s: {e.tile for e in hand_events if e.type == "tile_drawn" and e.seat == s} for s in range(now.players)}
    hidden = {s: [t for t in now.hands[s] if t not in drawn_by[s]] for s in range(now.players) if s != seat}
    pool = [t for s in sorted(hidden) for t in hidden[s]] + list(now.boneyard)
    rng.shuffle(pool)
    it = iter(pool)
    hands = []
    for s, dealt in enumerate(start.hands):
        held = set(hidden.get(s, ()))
        hands.append(tuple(next(it) if t in held else t for t in dealt))
    assert tuple(start.boneyard[: len(drawn)]) == tuple(drawn)
    boneyard = tuple(drawn) + tuple(it)
    twin = HandStarted(start.hand_number, start.leader, tuple(hands), boneyard)
    return events[:k] + [twin] + events[k + 1 :]


CASES = [
    ("standard-draw", 2, {}),
    ("standard-block", 2, {}),
    ("standard-draw", 3, {}),
    ("standard-draw", 4, {"partners": True}),
    ("pagat-draw", 2, {}),
    ("dominorules-draw", 4, {}),
    ("all-fives", 2, {"muggins_calls": True}),
    ("muggins", 3, {}),
]


@pytest.mark.parametrize("preset,players,options", CASES)
def test_hidden_tiles_never_change_a_decision(preset, players, options):
    rules = resolve_rules(preset, options, players)
    rng = random.Random(f"{preset}{players}")
    differed = 0
    for game in range(6):
        match = BotMatch(rules, f"twin:{preset}:{game}", ["greedy"] * players, QUICK)
        for _ in range(rng.randrange(1, 14)):
            if match.live:
                match.step()
        st = match.state
        if not st.hand_live:
            continue
        seat = next_actor(st)
        twin_events = hidden_twin(match.events, seat, rng)
        twin = replay(twin_events)
        differed += twin.hands != st.hands or twin.boneyard != st.boneyard
        mine = (view(st, seat), [redact_event(e.to_dict(), seat) for e in match.events])
        theirs = (view(twin, seat), [redact_event(e.to_dict(), seat) for e in twin_events])
        assert mine == theirs
        for level in LEVELS:
            seed = f"twin:{game}"
            assert choose_action(level, *mine, seed, QUICK) == choose_action(level, *theirs, seed, QUICK)
    assert differed
