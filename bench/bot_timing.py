"""How long each computer level takes to decide, with one legal move and with several.

    .venv/bin/python bench/bot_timing.py            # ~3 s: 12 matches per level
    .venv/bin/python bench/bot_timing.py --quick    # ~1 s: 3 matches per level

Why: a reply's time must not tell an opponent what the bot's hand allowed, so every decision
is padded up to its level's floor (``BOT_REPLY_FLOOR_MS``, ``api/services/pacing.py``). A
floor only hides what is below it: this prints each level's decision times (median, 90th and
99th percentile, slowest) for decisions with one legal action and with several, on this
machine, to set the floors above the slowest. Matches of ``standard-draw`` to 60, each level
against the random bot, decided by ``api.bots.choose_action`` as the server calls it.
"""

from __future__ import annotations

import argparse
import statistics
from typing import Any

from api.bots import LEVELS
from api.bots.arena import play_match
from api.rules import resolve_rules


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[round(share * (len(ordered) - 1))]


def decision_times(level: str, matches: int) -> dict[str, list[float]]:
    """Milliseconds per decision of ``level``: {"one": [...], "several": [...]}."""
    times: dict[str, list[float]] = {"one": [], "several": []}

    def observe(seat: int, who: str, seconds: float, view: dict[str, Any], log: object, action: object) -> None:
        if who == level:
            times["one" if len(view["legal_actions"]) == 1 else "several"].append(seconds * 1000)

    rules = resolve_rules("standard-draw", {"target": 60}, 2)
    for n in range(matches):
        play_match(rules, f"bot-timing-{level}-{n}", [level, "random"], observe=observe)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="3 matches per level instead of 12")
    args = parser.parse_args()
    matches = 3 if args.quick else 12
    print(f"decision times in ms ({matches} matches per level, standard-draw to 60 against random)")
    print(f"{'level':8} {'legal':8} {'count':>6} {'median':>8} {'p90':>8} {'p99':>8} {'slowest':>8}")
    for level in LEVELS:
        for kind, values in decision_times(level, matches).items():
            if not values:
                continue
            print(
                f"{level:8} {kind:8} {len(values):6d} {statistics.median(values):8.2f} "
                f"{percentile(values, 0.9):8.2f} {percentile(values, 0.99):8.2f} {max(values):8.2f}"
            )


if __name__ == "__main__":
    main()
