"""Rules-engine playout throughput: Boneyard side by side with two public Python engines.

    pip install -e '.[bench]'
    python bench/engine.py            # about 40 s on a 2-core machine; --quick for ~10 s

Each comparison plays uniformly random legal moves (``random.Random.choice`` over the
engine's own legal-move list, so legal-move generation is timed) from a dealt hand to
the end of the hand, on the *same deals*:

* ``dominoes`` (PyPI, 4 players, partner block game, 7 tiles each, 6-6 leads): every deal
  is Boneyard's own (``standard-block`` + partners + hand_size 7, shuffled by
  ``boneyard-shuffle-v1``); a ``dominoes.Game`` is built from the same four hands with
  the same leader, exactly as ``Game.new(starting_domino=Domino(6, 6))`` builds one.
* open_spiel's ``python_block_dominoes`` (2 players, 7 each): the same 14 tiles are dealt
  through its chance nodes, the Boneyard leader's hand to player 0.

Work per hand, timed: Boneyard copies the dealt ``MatchState`` (the forced lead already
on the table, as the engine leaves it) and runs ``simulate.random_playout``; the other
engines get their dealt states built *outside* the timer (they have no cheap copy) and
are timed only for the playout. The engines alternate every 100 deals, so machine noise
hits both; the ratio is other-engine time / Boneyard time over the same hands.

Then full random matches to their targets (``simulate.random_match``; 100 unless named):
``standard-draw`` with 2-4 players, Fives and Threes for two (to 61 exactly) and the
double-nine partnership game (4 players as partners, 10 each of the 55 tiles, 15 out of play);
``--profile`` then prints where the double-nine row's time goes.

Then whole random matches of the trains games, every round (``trains.decide`` and
``trains.apply``, the events as the server writes them, and a uniformly random choice among
``trains.legal_moves``): Mexican Train for 4 (13 rounds) and for 8, Chicken Foot for 4 (10 rounds).
"""

from __future__ import annotations

import argparse
import gc
import platform
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from anywhere in a checkout

from api.rules import create_match, replay, resolve_rules, start_match, trains
from api.rules.events import HandStarted
from api.rules.simulate import random_match, random_playout
from api.rules.trains_rules import TrainsRules

TARGETS = {"dominoes": 2.0, "open_spiel": 5.0}


# --- deals: Boneyard's own, through the real engine --------------------------------------
def boneyard_deals(rules, count: int, tag: str):
    """``count`` dealt states (after the forced lead), with the hands as dealt."""
    seats = [{"name": f"p{i}", "type": "bot", "level": "random"} for i in range(rules.players)]
    out = []
    for i in range(count):
        seed = f"bench-{tag}-{i}"
        log = create_match(rules, seats, seed)
        log += start_match(replay(log), seed)
        started = next(e for e in log if isinstance(e, HandStarted))
        out.append((replay(log), started.leader, [list(h) for h in started.hands]))
    return out


# --- the three playout loops ---------------------------------------------------------------
def play_boneyard(states, rng) -> float:
    start = time.perf_counter()
    for st in states:
        random_playout(st.copy(), rng)
    return time.perf_counter() - start


def play_dominoes(games, rng) -> float:
    choice = rng.choice
    start = time.perf_counter()
    for g in games:
        while g.result is None:
            g.make_move(*choice(g.valid_moves))
    return time.perf_counter() - start


def play_open_spiel(states, rng) -> float:
    choice = rng.choice
    start = time.perf_counter()
    for s in states:
        while not s.is_terminal():
            s.apply_action(choice(s.legal_actions()))
    return time.perf_counter() - start


# --- building the other engines' games from Boneyard deals ---------------------------------
def dominoes_builder():
    import dominoes
    from dominoes import Board, Domino, Game, Hand

    lead = Domino(6, 6)

    def build(deal):
        _st, leader, hands = deal
        game_hands = [Hand([Domino(t.high, t.low) for t in h]) for h in hands]
        assert lead in game_hands[leader]  # all 28 dealt: 6-6 always leads
        # What Game.new(starting_domino=Domino(6, 6)) does, with these hands.
        game = Game(Board(), game_hands, [], leader, ((lead, True),), leader, None)
        game.make_move(lead, True)
        return game

    return build, getattr(dominoes, "__version__", None)


def open_spiel_builder():
    import pyspiel
    from open_spiel.python.games import block_dominoes  # registers python_block_dominoes

    game = pyspiel.load_game("python_block_dominoes")
    deck_index = {(float(lo), float(hi)): i for i, (lo, hi) in enumerate(block_dominoes._DECK)}

    def build(deal):
        _st, leader, hands = deal
        state = game.new_initial_state()
        for seat in (leader, 1 - leader):  # the chance nodes fill player 0 first
            for t in hands[seat]:
                state.apply_action(deck_index[(float(t.low), float(t.high))])
        assert state.current_player() == 0
        return state

    return build


def moves_per_hand_boneyard(deals, rng) -> float:
    tiles = 0
    for st, _leader, _hands in deals:
        end = random_playout(st.copy(), rng)
        tiles += len(end.placements)
    return tiles / len(deals)


# --- one side-by-side comparison -------------------------------------------------------------
def compare(name, deals, build, play_other, rounds, rng_seed, chunk=100):
    """Alternate the engines every ``chunk`` deals, so load changes on the machine hit both."""
    rng_b, rng_o = random.Random(rng_seed), random.Random(rng_seed)
    t_b = t_o = 0.0
    other_tiles = 0
    for _ in range(rounds):
        for at in range(0, len(deals), chunk):
            part = deals[at : at + chunk]
            built = [build(d) for d in part]  # untimed: the other engine's deal
            t_o += play_other(built, rng_o)
            other_tiles += sum(_tiles_on_table(name, g) for g in built)
            t_b += play_boneyard([d[0] for d in part], rng_b)
    hands = rounds * len(deals)
    return {
        "boneyard": hands / t_b,
        "other": hands / t_o,
        "ratio": t_o / t_b,
        "tiles_b": moves_per_hand_boneyard(deals, random.Random(rng_seed)),
        "tiles_o": other_tiles / hands,
    }


def _tiles_on_table(name, g) -> int:
    if name == "dominoes":
        return len(g.board)
    return len(g.actions_history)


# (table, rules) of the full-match rows
DOUBLE_NINE = ("double-nine-partners, 4p, 10 each", resolve_rules("double-nine-partners", {}, 4))
MATCH_TABLES = [(f"standard-draw, {n}p", resolve_rules("standard-draw", {}, n)) for n in (2, 3, 4)] + [
    ("fives-and-threes, 2p (to 61 exactly)", resolve_rules("fives-and-threes", {}, 2)),
    DOUBLE_NINE,
]


def profile_of(table, seconds: float, seed: int, top: int = 14) -> str:
    """cProfile of one full-match row (``--profile``): where its time goes, by own time."""
    import cProfile
    import io
    import pstats

    profiler = cProfile.Profile()
    profiler.enable()
    match_rates([table], seconds, seed)
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).strip_dirs().sort_stats("tottime").print_stats(top)
    return out.getvalue()


def match_rates(tables, seconds, seed):
    rows = []
    for name, rules in tables:
        rng = random.Random(seed)
        matches = hands = 0
        gc.collect()
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            st = random_match(rules, rng)
            matches += 1
            hands += st.hand_number
        elapsed = time.perf_counter() - start
        rows.append((name, matches / elapsed, hands / elapsed, hands / matches))
    return rows


# (table, rules) of the trains games' rows: whole matches, every round
TRAINS_TABLES = [
    ("mexican-train, 4p, 13 rounds", resolve_rules("mexican-train", {}, 4)),
    ("mexican-train, 8p, 13 rounds", resolve_rules("mexican-train", {}, 8)),
    ("chicken-foot, 4p, 10 rounds", resolve_rules("chicken-foot", {}, 4)),
]


def random_trains_match(rules: TrainsRules, rng: random.Random) -> tuple[int, int]:
    """One whole trains match of random legal moves: its events and its moves."""
    seed = f"bench:{rng.random()}"
    state = trains.new_state(rules)
    events = trains.start(rules, seed)
    for event in events:
        trains.apply(state, event)
    count, moves = len(events), 0
    while not state.is_over:
        decided = trains.play(state, state.to_move, rng.choice(trains.legal_moves(state)), seed)  # type: ignore[arg-type]
        count += len(decided)
        moves += 1
    return count, moves


def trains_rates(tables, seconds, seed):
    rows = []
    for name, rules in tables:
        rng = random.Random(seed)
        matches = events = moves = 0
        gc.collect()
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            logged, made = random_trains_match(rules.trains, rng)
            matches, events, moves = matches + 1, events + logged, moves + made
        elapsed = time.perf_counter() - start
        rows.append((name, matches / elapsed, moves / elapsed, events / matches))
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=2000, help="deals per comparison (default 2000)")
    parser.add_argument("--rounds", type=int, default=4, help="alternating timed rounds (default 4)")
    parser.add_argument("--match-seconds", type=float, default=3.0, help="time per match row (default 3)")
    parser.add_argument("--quick", action="store_true", help="500 deals, 2 rounds, 1 s per match row")
    parser.add_argument("--check", action="store_true", help="exit 1 if a target is missed")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", action="store_true", help="then print the double-nine row's profile (cProfile)")
    args = parser.parse_args(argv)
    if args.quick:
        args.deals, args.rounds, args.match_seconds = 500, 2, 1.0

    began = time.perf_counter()
    print("# Boneyard rules-engine throughput\n")
    print(
        f"Python {platform.python_version()} ({platform.python_implementation()}), "
        f"{platform.system()} {platform.machine()}"
    )
    print(f"Command: {' '.join([Path(sys.executable).name, *sys.argv])}\n")

    rows, missed, notes = [], [], []
    try:
        build, _dom_version = dominoes_builder()
        from importlib.metadata import version

        deals = boneyard_deals(resolve_rules("standard-block", {"partners": True, "hand_size": 7}, 4), args.deals, "4p")
        r = compare("dominoes", deals, build, play_dominoes, args.rounds, args.seed)
        rows.append(("4p partner block, 7 each", f"dominoes {version('dominoes')}", r))
    except ImportError as exc:
        notes.append(f"dominoes not installed ({exc}); pip install -e '.[bench]'")
    try:
        build = open_spiel_builder()
        from importlib.metadata import version

        deals = boneyard_deals(resolve_rules("standard-block", {}, 2), args.deals, "2p")
        r = compare("open_spiel", deals, build, play_open_spiel, args.rounds, args.seed)
        rows.append(("2p block, 7 each", f"open_spiel {version('open_spiel')} python_block_dominoes", r))
    except ImportError as exc:
        notes.append(f"open_spiel not installed ({exc}); pip install -e '.[bench]'")

    print(f"## Random playouts, one dealt hand to its end ({args.deals} deals x {args.rounds} rounds, same deals)\n")
    print("| game | other engine | Boneyard hands/s | other hands/s | ratio | target | tiles played/hand (B / other) |")
    print("|---|---|---:|---:|---:|---:|---|")
    for game, other, r in rows:
        key = "dominoes" if other.startswith("dominoes") else "open_spiel"
        target = TARGETS[key]
        ok = r["ratio"] >= target
        if not ok:
            missed.append(key)
        print(
            f"| {game} | {other} | {r['boneyard']:,.0f} | {r['other']:,.0f} | "
            f"{r['ratio']:.2f}x | {target:g}x {'met' if ok else 'MISSED'} | "
            f"{r['tiles_b']:.1f} / {r['tiles_o']:.1f} |"
        )
    for note in notes:
        print(f"\nNote: {note}")

    print(f"\n## Full random matches to each table's target ({args.match_seconds:g} s each)\n")
    print("| table | matches/s | hands/s | hands/match |")
    print("|---|---:|---:|---:|")
    for name, mps, hps, hpm in match_rates(MATCH_TABLES, args.match_seconds, args.seed):
        print(f"| {name} | {mps:,.0f} | {hps:,.0f} | {hpm:.1f} |")

    print(f"\n## Whole random trains matches, every round ({args.match_seconds:g} s each)\n")
    print("| table | matches/s | moves/s | events/match |")
    print("|---|---:|---:|---:|")
    for name, mps, moves, epm in trains_rates(TRAINS_TABLES, args.match_seconds, args.seed):
        print(f"| {name} | {mps:,.2f} | {moves:,.0f} | {epm:,.0f} |")

    if args.profile:
        print(f"\n## Profile of the {DOUBLE_NINE[0]} row ({args.match_seconds:g} s, cProfile, own time)\n")
        print("```")
        print(profile_of(DOUBLE_NINE, args.match_seconds, args.seed).strip())
        print("```")
    print(f"\nTotal time {time.perf_counter() - began:.1f} s")
    return 1 if (args.check and (missed or notes)) else 0


if __name__ == "__main__":
    sys.exit(main())
