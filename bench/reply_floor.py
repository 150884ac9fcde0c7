"""Does a reply's time still tell whether the expert had a choice, through the shipped floor?

    .venv/bin/python bench/reply_floor.py               # ~2 min: 100 + 100 expert decisions
    .venv/bin/python bench/reply_floor.py --quick       # ~45 s: 40 + 40
    .venv/bin/python bench/reply_floor.py --floor-ms 300 --check

Why: ``BOT_REPLY_FLOOR_MS`` (``api/services/pacing.py``) pads every computer decision up to
its level's floor, so an opponent timing its replies learns nothing about the bot's hidden
hand. Whether that holds depends on this machine's speed and load, so it is measured here,
not asserted in the test suite (which checks the padding itself on an injected clock).

The expert plays ``standard-draw`` matches for two against the random bot (the table where
``bench/bot_timing.py`` finds its slowest decisions), and its decisions are kept in two kinds:
one legal move, and a choice between plays of different tiles (which it always weighs; two
ends for one tile may leave the same table, which it sees at once). Each decision is then
replayed, on the real clock, as a client would time it:

1. without a floor: how well the best cut on reply time tells the kinds apart (0.5: a coin,
   1.0: always), chosen on half the replies and scored on the other half, both ways round
   (the best cut scored on the very replies it was chosen on finds a pattern in pure noise);
2. through the floor (the shipped expert floor, or ``--floor-ms``): the same split on reply
   times rounded down to the millisecond (the finest a client across a network could hope to
   resolve); for each kind, how far past the floor its replies ended (a pause that wakes late
   on a busy machine ends both kinds late alike); and the decisions that took longer than the
   floor themselves, which the floor logs and counts (``ReplyFloor.overruns``): their replies
   are the ones whose time shows;
3. the expert's CPU time per decision with a choice (each timed twice, the lesser kept: a
   pause of this process is not thinking), its slowest, and the floor's margin over it.

``--check`` exits 1 if a cut tells the kinds apart (split above 0.75), if more than a tenth of
the decisions with a choice took longer than the floor, or if the slowest one's CPU reached it.
"""

from __future__ import annotations

import argparse
import logging
import math
import statistics
import sys
import time
from typing import Any

from _http import machine_line

from api.bots import choose_action
from api.bots.arena import BotMatch
from api.config import DEFAULT_BOT_REPLY_FLOOR_MS, parse_level_millis
from api.rules import resolve_rules
from api.services.pacing import ReplyFloor

Decision = tuple[dict[str, Any], list[Any], str]  # the seat's view, its log, the decision seed


def expert_decisions(wanted: int) -> tuple[list[Decision], list[Decision]]:
    """``wanted`` expert decisions with one legal move and ``wanted`` with a choice of tiles."""
    one: list[Decision] = []
    several: list[Decision] = []
    n = 0
    while len(one) < wanted or len(several) < wanted:
        match = BotMatch(resolve_rules("standard-draw", {"target": 60}, 2), f"floor-{n}", ["expert", "random"])
        while match.live:
            seat = match.state.turn
            if seat is not None and match.levels[seat] == "expert" and match.state.status == "playing":
                seat_view, log = match.inputs(seat)
                actions = seat_view.get("legal_actions") or []
                tiles = {tuple(a["tile"]) for a in actions if a["type"] == "play"}
                if len(actions) == 1:
                    one.append((seat_view, list(log), match.rng_seed()))
                elif len(tiles) > 1:
                    several.append((seat_view, list(log), match.rng_seed()))
            match.step()
        n += 1
    return one[:wanted], several[:wanted]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[round(share * (len(ordered) - 1))]


def reply_ms(floor: ReplyFloor, decisions: list[Decision]) -> list[float]:
    """Milliseconds each decision took through ``floor``, timed as a client would time it."""
    times = []
    for seat_view, log, seed in decisions:
        started = time.perf_counter()
        floor.timed("expert", lambda: choose_action("expert", seat_view, log, seed))  # noqa: B023
        times.append((time.perf_counter() - started) * 1000)
    return times


def thinking_ms(decisions: list[Decision]) -> list[float]:
    """CPU milliseconds each decision takes, the lesser of two runs (another process stretches
    a reply's wall time, not the thinking the floor must cover; a garbage collection of this
    one is not thinking either)."""
    times = []
    for seat_view, log, seed in decisions:
        runs = []
        for _ in range(2):
            started = time.process_time()
            choose_action("expert", seat_view, log, seed)
            runs.append((time.process_time() - started) * 1000)
        times.append(min(runs))
    return times


def best_cut(quick: list[float], slow: list[float]) -> float:
    """The reply time that best tells the two kinds apart: quicker is one move."""
    times = sorted(set(quick + slow))
    return max([*times, times[-1] + 1], key=lambda cut: sum(t < cut for t in quick) + sum(t >= cut for t in slow))


def held_out_split(quick: list[float], slow: list[float]) -> float:
    """The share of replies a cut classifies right, the cut chosen on the other half."""
    shares = []
    for chosen in (0, 1):
        cut = best_cut(quick[chosen::2], slow[chosen::2])
        quick_rest, slow_rest = quick[1 - chosen :: 2], slow[1 - chosen :: 2]
        right = sum(t < cut for t in quick_rest) + sum(t >= cut for t in slow_rest)
        shares.append(right / (len(quick_rest) + len(slow_rest)))
    return sum(shares) / len(shares)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="40 decisions of each kind instead of 100")
    parser.add_argument("--floor-ms", type=float, help="the expert's floor (default: the shipped one)")
    parser.add_argument("--check", action="store_true", help="exit 1 on a split, an overrun share or a margin missed")
    args = parser.parse_args()
    wanted = 40 if args.quick else 100
    shipped = parse_level_millis(DEFAULT_BOT_REPLY_FLOOR_MS)["expert"]
    floor_ms = shipped if args.floor_ms is None else args.floor_ms
    logging.basicConfig(level=logging.WARNING, format="  log: %(levelname)s %(message)s")

    print(machine_line())
    one, several = expert_decisions(wanted)
    print(f"expert decisions, 2p standard-draw vs random: {len(one)} with one legal move, {len(several)} with a choice")

    bare = ReplyFloor()
    split_bare = held_out_split(reply_ms(bare, one), reply_ms(bare, several))
    print(f"1. no floor: a cut on reply time tells the kinds apart {split_bare:.2f} of the time")

    floored = ReplyFloor({"expert": floor_ms / 1000})
    quick, slow = reply_ms(floored, one), reply_ms(floored, several)
    split = held_out_split([math.floor(t) for t in quick], [math.floor(t) for t in slow])
    print(
        f"2. floor {floor_ms:g} ms ({'shipped' if floor_ms == shipped else f'shipped: {shipped:g}'}): "
        f"a cut on reply time to the ms tells the kinds apart {split:.2f} of the time"
    )
    for kind, replies in (("one legal move", quick), ("a choice", slow)):
        past = sorted(t - floor_ms for t in replies)
        print(
            f"   {kind:14}: ms past the floor median {statistics.median(past):.1f}, p90 {percentile(past, 0.9):.1f}, "
            f"most {past[-1]:.1f}; {sum(p >= 1 for p in past)} of {len(past)} by 1 ms or more"
        )
    overruns = floored.overruns.total()
    print(f"   decisions that took longer than the floor themselves (logged and counted): {overruns}")

    cpu = thinking_ms(several)
    slowest = max(cpu)
    print(
        f"3. CPU per decision with a choice: median {sorted(cpu)[len(cpu) // 2]:.1f} ms, slowest {slowest:.1f} ms; "
        f"the floor is {floor_ms / slowest:.2f}x the slowest ({floor_ms - slowest:+.1f} ms)"
    )
    missed = split > 0.75 or overruns > len(several) // 10 or slowest >= floor_ms
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    sys.exit(main())
