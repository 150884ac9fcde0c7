#!/usr/bin/env python3
"""A bot-vs-bot arena through the public API only: N bots of one portal seek rated matches,
play them, seek again, and the portal's leaderboard is printed at the end.

    python clients/python/examples/arena.py --server http://127.0.0.1:8000 --api-key bypk_… \\
        --bots 20 --games 3 --preset standard-block --target 30

The portal key makes one player token per bot (``POST /v1/portal/players/{ref}/tokens``);
each bot then acts only with its own token. Bots play different strategies (heaviest,
first legal, random) so the ladder has something to tell. At the end the script checks what
a tournament director would: every seek was paired into exactly one match, no match seated
one player twice, and every bot played its games. Exit 1 if not.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from boneyard_client import STRATEGIES, BoneyardClient, Seeker, seeded_random

STYLES = ("heaviest", "first", "random")


def make_tokens(client: BoneyardClient, names: list[str]) -> dict[str, str]:
    """One player token per bot name (the portal key is used for this only)."""
    return {
        name: client.request("POST", f"/v1/portal/players/{name}/tokens", json={"label": "arena"}).json()["token"]
        for name in names
    }


def run_arena(
    server: str, api_key: str, bots: int, games: int, preset: str, rules: dict[str, Any], prefix: str = "arena"
) -> dict[str, Any]:
    """Play the arena; answers the results per bot, the seeks, the ladder and the problems found."""
    portal = BoneyardClient(server, api_key=api_key)
    names = [f"{prefix}-{n:02d}" for n in range(bots)]
    tokens = make_tokens(portal, names)
    results: dict[str, list[dict]] = {name: [] for name in names}
    seekers: dict[str, Seeker] = {}
    errors: list[str] = []

    def play(n: int, name: str) -> None:
        style = STYLES[n % len(STYLES)]
        strategy = seeded_random(name) if style == "random" else STRATEGIES[style]
        seeker = Seeker(BoneyardClient(server), tokens[name], strategy, preset=preset, rules=rules, rated=True)
        seekers[name] = seeker
        try:
            results[name].extend(seeker.run(games))
        except Exception as error:  # reported, not raised: the other bots go on
            errors.append(f"{name}: {type(error).__name__}: {error}")

    threads = [threading.Thread(target=play, args=(n, name), name=name) for n, name in enumerate(names)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    problems = list(errors)
    seats_of_match: dict[str, list[str]] = {}
    for name, seeker in seekers.items():
        paired = [s for s in seeker.seeks if s["status"] == "paired"]
        if len({s["match_id"] for s in paired}) != len(paired):
            problems.append(f"{name}: two seeks in one match")
        if any(not s.get("token") for s in paired):
            problems.append(f"{name}: a paired seek without its token")
        for seek in paired:
            seats_of_match.setdefault(seek["match_id"], []).append(name)
        if len(results[name]) != games:
            problems.append(f"{name}: played {len(results[name])} of {games}")
    for match_id, players in seats_of_match.items():
        if len(set(players)) != len(players):
            problems.append(f"match {match_id} seats one player twice: {players}")
    return {
        "results": results,
        "matches": len(seats_of_match),
        "problems": problems,
    }


def ladder(client: BoneyardClient, family: str, limit: int = 100) -> list[dict]:
    return client.request("GET", f"/v1/leaderboards/{family}", params={"limit": limit}).json()["items"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", default=os.environ.get("BONEYARD_SERVER", "http://127.0.0.1:8000"))
    parser.add_argument("--api-key", default=os.environ.get("BONEYARD_API_KEY"), help="the portal's key")
    parser.add_argument("--bots", type=int, default=20)
    parser.add_argument("--games", type=int, default=3, help="matches per bot")
    parser.add_argument("--preset", default="standard-block")
    parser.add_argument("--family", default="block", help="the preset's rules family (its leaderboard)")
    parser.add_argument("--target", type=int, default=30)
    args = parser.parse_args(argv)
    if not args.api_key:
        parser.error("--api-key (or $BONEYARD_API_KEY): the portal whose players the bots are")
    done = run_arena(args.server, args.api_key, args.bots, args.games, args.preset, {"target": args.target})
    wins = Counter(name for name, rows in done["results"].items() for row in rows if row["won"])
    print(f"{done['matches']} matches played by {args.bots} bots")
    print(f"{'rank':>4}  {'player':<12} {'ordinal':>8} {'mu':>7} {'sigma':>6} {'matches':>7} {'wins':>5}")
    client = BoneyardClient(args.server, api_key=args.api_key)
    for rank, row in enumerate(ladder(client, args.family), 1):
        print(
            f"{rank:>4}  {row['player_ref']:<12} {row['ordinal']:>8.2f} {row['mu']:>7.2f} {row['sigma']:>6.2f}"
            f" {row['matches']:>7} {wins[row['player_ref']]:>5}"
        )
    for problem in done["problems"]:
        print("PROBLEM:", problem, file=sys.stderr)
    print(json.dumps({"matches": done["matches"], "problems": len(done["problems"])}))
    return 1 if done["problems"] else 0


if __name__ == "__main__":
    sys.exit(main())
