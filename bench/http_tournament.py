"""A Swiss of bots to its end through gunicorn and the autoplay runner (issue 37: 256 entrants,
8 rounds of ``standard-block`` to 50, on this machine: wall time, pairing time per round, 0 problems).

    PYTHONPATH=. .venv/bin/python bench/http_tournament.py                       # 256 entrants, 8 rounds
    PYTHONPATH=. .venv/bin/python bench/http_tournament.py --entrants 32 --rounds 3 --target 20

The server as ``scripts/run`` starts it (gunicorn, ``--workers`` gevent workers, SQLite) with the
autoplay runner beside it (``AUTOPLAY_PACE_SECONDS=0``: the default pause between two moves of an
all-bot match would only stretch the run). The portal (made in this process, on the same
database) creates the Swiss, enters ``--entrants`` bots (random and greedy, alternately) over
HTTP and starts it; the runner plays every match and its sweep pairs each round once the one
before has ended. The script reads the tournament every ``--poll`` seconds until it has ended.

Printed: the wall time from the start to the end; per round, the time the server took from the
round before's end (``round_ended``'s ``recorded_at``) to the commit of this round's pairing with
its matches made (``round_paired``'s: the sweep's wait of up to a second included), the pure
pairing's own time (``pair_swiss`` on the same state, replayed here from the tournament's log),
and the time the round's matches took to play. **Problems**, each counted: a rematch, a second
bye, a table whose result is not its match's ``match_ended``, a match whose fairness report is not
verified, a standing whose match points or win margin differ from the matches' own audit logs, an
error line in the runner's log. ``--check`` exits 1 on any problem.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter, defaultdict
from datetime import datetime

from _http import AutoplayRunner, Http, Server, machine_line, sqlite_url

from api import create_app
from api import tournaments as core
from api.services.commands import CreatePortal


def portal_key(database_url: str) -> str:
    """A new portal's key, made by the use case on the server's database (as the operator's CLI)."""
    app = create_app({"DATABASE_URL": database_url, "AUTO_MIGRATE": False, "LOG_LEVEL": "WARNING"})
    try:
        return app.extensions["boneyard.bus"].handle(CreatePortal("bench-tournament"))["key"]
    finally:
        app.extensions["boneyard.store"].dispose()


def all_rows(http: Http, path: str, headers: dict) -> list[dict]:
    rows, after = [], 0
    while after is not None:
        status, page, _ = http.get(f"{path}{'&' if '?' in path else '?'}after={after}", headers)
        assert status == 200, (status, page)
        rows += page["events"]
        after = page["next_after"]
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entrants", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--target", type=int, default=50)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--poll", type=float, default=1.0)
    parser.add_argument("--check", action="store_true", help="exit 1 on any problem")
    args = parser.parse_args()
    env = {"AUTOPLAY_PACE_SECONDS": "0", "RATELIMIT_ENABLED": "false"}
    problems: Counter[str] = Counter()
    with (
        tempfile.TemporaryDirectory() as tmp,
        Server(sqlite_url(tmp), workers=args.workers, env=env) as server,
        AutoplayRunner(server) as runner,
    ):
        print(f"# http_tournament: {machine_line()}")
        print(
            f"# gunicorn {args.workers} gevent workers + the autoplay runner (pace 0), SQLite; a Swiss of "
            f"{args.entrants} bots (random, greedy), {args.rounds} rounds of standard-block to {args.target}"
        )
        key = {"X-API-Key": portal_key(server.database_url)}
        http = Http(server.url)
        body = {
            "format": "swiss",
            "preset": "standard-block",
            "rules": {"target": args.target},
            "rounds": args.rounds,
            "turn_seconds": 60,
            "bot_levels": ["random", "greedy"],
        }
        status, made, _ = http.post("/v1/tournaments", body, key)
        assert status == 201, made
        url = f"/v1/tournaments/{made['id']}"
        for number in range(args.entrants):
            level = ("random", "greedy")[number % 2]
            status, entered, _ = http.post(f"{url}/entrants", {"members": [{"level": level}]}, key)
            assert status == 201, entered
        started = time.perf_counter()
        status, answer, _ = http.post(f"{url}/start", None, key)
        assert status == 200, answer
        while answer["status"] != "ended":
            time.sleep(args.poll)
            status, answer, _ = http.get(url, key)
            assert status == 200 and answer["status"] in ("running", "ended"), answer
        wall = time.perf_counter() - started
        log = all_rows(http, f"{url}/events", key)
        status, rounds_page, _ = http.get(f"{url}/rounds", key)
        rounds = rounds_page["rounds"]

        # The server's times, from its log; the pure pairing's, replayed here on the same states.
        at = {
            (row["event"]["type"], row["event"].get("round")): datetime.fromisoformat(row["recorded_at"]) for row in log
        }
        state: core.TournamentState | None = None
        pairing_seconds: dict[int, float] = {}
        for row in log:
            event = core.event_from_dict(row["event"])
            if isinstance(event, core.RoundPaired) and state is not None:
                timed = time.perf_counter()
                core.pair_swiss(core.contenders(state))
                pairing_seconds[event.round] = time.perf_counter() - timed
            state = core.apply(state, event)
        print("round  to pair (server)  pairing alone  played in   tables")
        previous_end = at[("tournament_started", None)]
        for round_ in rounds:
            number = round_["number"]
            paired, ended = at[("round_paired", number)], at[("round_ended", number)]
            print(
                f"{number:5}  {(paired - previous_end).total_seconds():14.2f} s  {pairing_seconds[number]:11.3f} s  "
                f"{(ended - paired).total_seconds():7.1f} s  {len(round_['tables']):6}"
            )
            previous_end = ended

        # The problems, each checked against the matches' own logs.
        met: set[frozenset[str]] = set()
        games: dict[str, list[tuple[int, int]]] = defaultdict(list)  # entrant -> (match points, margin)
        for round_ in rounds:
            pairs = {frozenset(t["sides"]) for t in round_["tables"]}
            problems["rematch"] += len(pairs & met)
            met |= pairs
            if round_["bye"] is not None:
                games[round_["bye"]].append((2, 0))
            for table in round_["tables"]:
                audit = all_rows(http, f"/v1/matches/{table['match_id']}/audit", key)
                final = next(e for e in audit if e["type"] == "match_ended")
                if table["result"] != {"winner": final["winner"], "scores": final["scores"], "forfeit": False}:
                    problems["result differs from match_ended"] += 1
                for side, entrant in enumerate(table["sides"]):
                    margin = final["scores"][side] - final["scores"][1 - side]
                    games[entrant].append((2 if final["winner"] == side else 0, margin))
                status, fairness, _ = http.get(f"/v1/matches/{table['match_id']}/fairness")
                if status != 200 or not fairness["verified"]:
                    problems["fairness not verified"] += 1
        byes = Counter(r["bye"] for r in rounds if r["bye"] is not None)
        problems["second bye"] += sum(1 for count in byes.values() if count > 1)
        for row in answer["standings"]:
            played = games[row["entrant_id"]]
            margin = next(t["value"] for t in row["tiebreaks"] if t["name"] == "win_margin")
            if (row["match_points"], margin) != (sum(p for p, _ in played), sum(m for _, m in played)):
                problems["standing differs from the matches"] += 1
        errors = [line for line in runner.log.read_text(errors="replace").splitlines() if "Traceback" in line]
        problems["runner errors"] += len(errors)
        http.close()
    found = sum(problems.values())
    matches = sum(len(r["tables"]) for r in rounds)
    print(
        f"wall time from the start to the end: {wall:.0f} s ({matches} matches); slowest pairing alone "
        f"{max(pairing_seconds.values()):.3f} s; problems: {found}"
        + (f" ({', '.join(f'{k}: {v}' for k, v in problems.items() if v)})" if found else "")
    )
    return 1 if args.check and found else 0


if __name__ == "__main__":
    sys.exit(main())
