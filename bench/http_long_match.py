"""Flat cost over a long match: is event ~2,000 as cheap as event ~10?

    .venv/bin/python bench/http_long_match.py           # ~30 s to 2 min; --check exits 1 over 1.2x

One gunicorn worker (the project's gevent worker) on SQLite (rate limits off); this script is
the client, one keep-alive connection, so requests reach the worker one at a time. Two kinds
of match, each in a long and a short copy:

* ``remote-remote``: ``standard-draw`` with the largest target the server accepts
  (``MAX_TARGET``, 1,000: some 3,000-4,000 events with these moves), both seats remote;
* ``remote-bot``:    the same rules, one remote seat against a greedy bot (the bot reads
  the current hand's log on every move, so this checks that the bots' cost is flat too;
  its replies come inline in the action's answer, so no autoplay runner is needed).

First the long match is played to ``--events`` events (2,000) outside the timer. Then each
measured step plays one move in the long match and one in a short match (a fresh match,
replaced once it passes 60 events, so its moves sit at events ~2-60), alternating, so
machine noise hits both alike. A step is: ``GET /view`` of the seat to move (its ETag is
not sent, so it is a full 200), ``POST /actions`` with ``legal_actions[0]`` (lock, decide,
hash-chained append, commit), and ``GET /events?after=<seq - 5>``. The figure is the
median latency at ~2,000 over the median at ~10, per request kind (target <= 1.2). Should
the long match reach the target and end before ``--steps`` moves (possible near 3,000
events), the measurement of that kind stops there and the script says after how many.

Then, in-process, what a cache miss costs (a fresh process, or a snapshot evicted from the
LRU): loading and folding the whole long log from the database once.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time

from _http import Http, Server, bearer, machine_line, median, ms, pct, sqlite_url

from api.rules.ruleset import MAX_TARGET

TARGET = 1.2
SHORT_MAX_SEQ = 60


def new_match(http: Http, kind: str) -> dict:
    second = (
        {"name": "two", "type": "remote"}
        if kind == "remote-remote"
        else {"name": "bot", "type": "bot", "level": "greedy"}
    )
    status, created, _ = http.post(
        "/v1/matches",
        {
            "preset": "standard-draw",
            "rules": {"target": MAX_TARGET},
            "seats": [{"name": "one", "type": "remote"}, second],
        },
    )
    assert status == 201, created
    tokens = {s["seat"]: s["token"] for s in created["seats"] if s.get("token")}
    return {"id": created["id"], "tokens": tokens, "seq": created["seq"], "turn": created["turn"]}


def step(http: Http, match: dict, out: dict | None) -> bool:
    """One move in ``match`` by the seat to move (+ a view before, an events page after);
    answers whether the match still plays."""
    seats = [match["turn"]] if match["turn"] in match["tokens"] else []
    seats += [s for s in match["tokens"] if s not in seats]
    for seat in seats:  # the seat whose turn it is; the other if that one has nothing to do
        auth = bearer(match["tokens"][seat])
        status, view, took_view = http.get(f"/v1/matches/{match['id']}/view", auth)
        assert status == 200, view
        if view["legal_actions"]:
            break
    else:
        raise RuntimeError(f"no seat can act in {match['id']} at seq {match['seq']}")
    at = view["seq"]
    status, result, took_act = http.post(f"/v1/matches/{match['id']}/actions", view["legal_actions"][0], auth)
    assert status == 200, result
    match["seq"], match["turn"] = result["seq"], result["view"]["turn"]
    status, page, took_events = http.get(f"/v1/matches/{match['id']}/events?after={max(0, match['seq'] - 5)}", auth)
    assert status == 200 and page["events"], page
    if out is not None:
        out["view"].append(took_view)
        out["action"].append(took_act)
        out["events"].append(took_events)
        out["at"].append(at)
    return result["view"]["status"] == "playing"


def run_kind(http: Http, kind: str, events: int, steps: int) -> dict:
    long = new_match(http, kind)
    start = time.perf_counter()
    while long["seq"] < events:
        if not step(http, long, None):
            raise SystemExit(
                f"{kind}: the long match reached its target at {long['seq']} events; use a smaller --events"
            )
    grow = time.perf_counter() - start
    short = new_match(http, kind)
    res = {
        "long": {"view": [], "action": [], "events": [], "at": []},
        "short": {"view": [], "action": [], "events": [], "at": []},
        "grow_s": grow,
        "long_id": long["id"],
        "steps": steps,
    }
    for i in range(steps):
        if short["seq"] > SHORT_MAX_SEQ:
            short = new_match(http, kind)
        pair = [("short", short), ("long", long)] if i % 2 == 0 else [("long", long), ("short", short)]
        playing = [step(http, match, res[name]) for name, match in pair]
        if not all(playing):  # the long one ended (a short one never gets near its target)
            res["steps"] = i + 1
            break
    res["long_final_seq"] = long["seq"]
    return res


def cold_fold(database_url: str, match_id: str) -> tuple[int, float]:
    """Seconds to load + fold a whole log from the database: the cost of a snapshot-cache miss."""
    from api.services.snapshots import fold
    from api.store import Store

    store = Store.from_url(database_url)
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        with store.unit_of_work(readonly=True) as uow:
            stored = uow.events.load(match_id)
        snap = fold(None, [{"seq": e.seq, **e.to_dict()} for e in stored])
        best = min(best, time.perf_counter() - start)
    store.dispose()
    return snap.seq, best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=2000, help="grow the long match to this many events")
    parser.add_argument("--steps", type=int, default=400, help="measured moves per match copy and kind")
    parser.add_argument("--kinds", default="remote-remote,remote-bot")
    parser.add_argument("--check", action="store_true", help=f"exit 1 if any ratio is over {TARGET}")
    args = parser.parse_args()

    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        url = sqlite_url(tmp)
        with Server(url, workers=1, env={"RATELIMIT_ENABLED": "false"}) as server:
            print(f"# http_long_match: {machine_line()}")
            print(
                f"# gunicorn 1 gevent worker, SQLite, target {MAX_TARGET}; long match grown to {args.events} events, "
                f"then {args.steps} moves alternating with short matches (events 2-{SHORT_MAX_SEQ})\n"
            )
            http = Http(server.url)
            results = {kind: run_kind(http, kind, args.events, args.steps) for kind in args.kinds.split(",")}
            http.close()
        print(
            f"| match | request | median at events ~2-60 | median at ~{args.events}-"
            f"{max(r['long_final_seq'] for r in results.values())} | ratio | p95 short / long |"
        )
        print("|---|---|---|---|---|---|")
        for kind, res in results.items():
            for what, label in (
                ("action", "`POST /actions`"),
                ("view", "`GET /view`"),
                ("events", "`GET /events?after=seq-5`"),
            ):
                short, long = res["short"][what], res["long"][what]
                ratio = median(long) / median(short)
                worst = max(worst, ratio)
                print(
                    f"| {kind} | {label} | {ms(median(short))} | {ms(median(long))} | {ratio:.2f} | "
                    f"{ms(pct(short, 0.95))} / {ms(pct(long, 0.95))} |"
                )
        print()
        for kind, res in results.items():
            seq, seconds = cold_fold(url, res["long_id"])
            ended = "" if res["steps"] == args.steps else f" (the long match ended after {res['steps']} moves)"
            print(
                f"{kind}: grew to {args.events} events in {res['grow_s']:.1f} s{ended}; "
                f"long-match moves measured at seq {min(res['long']['at'])}-{max(res['long']['at'])}, "
                f"short at {min(res['short']['at'])}-{max(res['short']['at'])}; "
                f"cache miss (load + fold all {seq} events, in-process, best of 5): {ms(seconds)}"
            )
    print(f"\nworst ratio {worst:.2f} (target <= {TARGET})")
    return 1 if args.check and worst > TARGET else 0


if __name__ == "__main__":
    sys.exit(main())
