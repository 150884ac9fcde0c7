"""How long each computer level takes to decide, with one legal move and with several.

    .venv/bin/python bench/bot_timing.py            # ~2 min of CPU: 12 matches per level and table
    .venv/bin/python bench/bot_timing.py --quick    # ~35 s of CPU: 3 matches per level and table

Why: a reply's time must not tell an opponent what the bot's hand allowed, so every decision
is padded up to its level's floor (``BOT_REPLY_FLOOR_MS``, ``api/services/pacing.py``). A
floor only hides what is below it: this prints each level's decision times (median, 90th and
99th percentile, slowest) for decisions with one legal action and with several, on this
machine, to set the floors above the slowest. Three line tables, matches to 60: ``standard-draw``
with two players, the level against the random bot; ``standard-block`` with four partners, 7
each (the expert's dearest table: all 28 tiles in play, long exact endings), and ``all-fives``
with four players, the level in every seat; and the trains games (issue 34) at four players,
the level in every seat, 4 rounds a match (the first engines, the longest rounds): Chicken
Foot's expert plays each candidate out, Mexican Train's plans its chain. Decided by ``api.bots.choose_action`` as the
server calls it; the last line is each level's slowest decision over all tables.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from dataclasses import dataclass
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # this checkout, not an installed copy

from api.bots import LEVELS
from api.bots.arena import play_match
from api.rules import resolve_rules


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[round(share * (len(ordered) - 1))]


@dataclass(frozen=True)
class Table:
    name: str
    preset: str
    players: int
    options: dict[str, Any]
    alone: bool  # the level against random bots; else the level in every seat

    def seats(self, level: str) -> list[str]:
        return [level] + ["random"] * (self.players - 1) if self.alone else [level] * self.players


TABLES = (
    Table("draw-2p", "standard-draw", 2, {"target": 60}, alone=True),
    Table("block-4p-partners-7", "standard-block", 4, {"target": 60, "partners": True, "hand_size": 7}, alone=False),
    Table("fives-4p", "all-fives", 4, {"target": 60}, alone=False),
    Table("mexican-train-4p", "mexican-train", 4, {"rounds": 4}, alone=False),
    Table("chicken-foot-4p", "chicken-foot", 4, {"rounds": 4}, alone=False),
)


def decision_times(level: str, table: Table, matches: int) -> dict[str, list[float]]:
    """Milliseconds per decision of ``level`` at ``table``: {"one": [...], "several": [...]}."""
    times: dict[str, list[float]] = {"one": [], "several": []}

    def observe(seat: int, who: str, seconds: float, view: dict[str, Any], log: object, action: object) -> None:
        if who == level:
            times["one" if len(view["legal_actions"]) == 1 else "several"].append(seconds * 1000)

    rules = resolve_rules(table.preset, table.options, table.players)
    for n in range(matches):
        play_match(rules, f"bot-timing-{table.name}-{level}-{n}", table.seats(level), observe=observe)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="3 matches per level and table instead of 12")
    args = parser.parse_args()
    matches = 3 if args.quick else 12
    print(f"decision times in ms (CPU; {matches} matches per level and table, each to 60 or of 4 rounds)")
    print(f"{'table':20} {'level':12} {'legal':8} {'count':>6} {'median':>8} {'p90':>8} {'p99':>8} {'slowest':>8}")
    slowest = dict.fromkeys(LEVELS, 0.0)
    for table in TABLES:
        for level in LEVELS:
            for kind, values in decision_times(level, table, matches).items():
                if not values:
                    continue
                slowest[level] = max(slowest[level], max(values))
                print(
                    f"{table.name:20} {level:12} {kind:8} {len(values):6d} {statistics.median(values):8.2f} "
                    f"{percentile(values, 0.9):8.2f} {percentile(values, 0.99):8.2f} {max(values):8.2f}"
                )
    print("slowest per level: " + ", ".join(f"{level} {ms:.1f} ms" for level, ms in slowest.items()))


if __name__ == "__main__":
    main()
