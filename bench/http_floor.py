"""Framework floor: how close is a real game action to the cheapest request of the same app?

    .venv/bin/python bench/http_floor.py              # ~1 min: 3 rounds x 4 phases x 4 s
    .venv/bin/python bench/http_floor.py --profile    # pyinstrument of the action path, in-process, by layer
    .venv/bin/python bench/http_floor.py --profile --profile-tree   # ... and pyinstrument's whole call tree
    .venv/bin/python bench/http_floor.py --profile --profile-request view     # GET /view (events: a page of 50)

One gunicorn worker on SQLite: the project's gevent worker (``api.serving.Worker``), so the
``--connections`` keep-alive connections are served concurrently by greenlets of one process
(one core at most); access log off, rate limits off (every request comes from 127.0.0.1).
This script is the load generator, a separate process with one thread per connection
(``http.client``). Phases, rotated every round so machine noise hits them all alike:

* ``healthz``  ``GET /healthz``: the app's trivial endpoint (readiness: it repeats the
  outcome of the process's last write probe, made at most every ``HEALTH_CHECK_INTERVAL``, 2 s);
* ``notfound`` ``GET /v1/nope``: routing miss -> problem+json 404, no database at all;
* ``openapi``  ``GET /v1/openapi.json``: a large cached-spec JSON body, no database;
* ``actions``  whole matches: one remote seat against a greedy bot (``standard-draw``,
  target 100), the client always sends ``legal_actions[0]`` from the view it got back.
  Each action is a full write: lock, authenticate, decide, the bot's replies (played inline,
  in the same answer: a table with a person at it, under ``INLINE_BOT_MOVES``, so no autoplay
  runner is needed), hash-chained append, commit, redacted events and view. Match creation is inside the phase's time
  but not counted as an action (so the ratio is conservative).

The figure of merit is actions/s over healthz requests/s, per round, median of rounds. The bots'
reply floor (``BOT_REPLY_FLOOR_MS``) is off: a pause that hides what a decision cost, not work
(bench/README.md section 8 measures it), and with it an action would mostly wait.

``--profile`` samples the same action path in-process (``--profile-request view`` or ``events``:
the ``GET /view`` or the page of 50 events read after each action; those, and the action where
pyinstrument is not installed, under the standard library's cProfile on the thread's CPU time,
which inflates many small calls more than a sampler) and prints where its time goes by layer
(each sample's own time by the package of its innermost Python frame: Flask and Werkzeug,
flask-smorest and webargs, marshmallow, the app's HTTP layer, services, rules, bots, store,
SQLAlchemy and the driver, the JSON encoder…), the use case's inclusive share, and the
functions with the most own time.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib
import json
import pstats
import sys
import tempfile
import threading
import time
from typing import Any

from _http import HOST, Http, Server, bearer, machine_line, median, ms, pct, sqlite_url

TARGET_RATIO = 0.35  # issue 36 (issue 14's was 0.25)
MATCH = {
    "preset": "standard-draw",
    "seats": [{"name": "client", "type": "remote"}, {"name": "bot", "type": "bot", "level": "greedy"}],
}


def _get_loop(base: str, path: str, deadline: float, out: dict):
    http = Http(base)
    http.get("/healthz")  # connect outside the timer
    while time.perf_counter() < deadline:
        status, _, took = http.get(path)
        out["lat"].append(took)
        out["status"][status] = out["status"].get(status, 0) + 1
    http.close()


def _match_loop(base: str, deadline: float, out: dict):
    http = Http(base)
    while time.perf_counter() < deadline:
        status, created, _ = http.post("/v1/matches", MATCH)
        if status != 201:
            raise RuntimeError(f"create refused: {status} {created}")
        out["creates"] += 1
        match_id, auth = created["id"], bearer(created["seats"][0]["token"])
        view = http.get(f"/v1/matches/{match_id}/view", auth)[1]
        while view["status"] != "ended" and time.perf_counter() < deadline:
            status, body, took = http.post(f"/v1/matches/{match_id}/actions", view["legal_actions"][0], auth)
            out["lat"].append(took)
            out["status"][status] = out["status"].get(status, 0) + 1
            if status != 200:
                raise RuntimeError(f"action refused: {status} {body}")
            view = body["view"]
        if view["status"] == "ended":
            out["matches"] += 1
    http.close()


def run_phase(base: str, phase: str, seconds: float, connections: int) -> dict[str, Any]:
    """``connections`` client threads, each on its own keep-alive connection, for ``seconds``."""
    out: dict[str, Any] = {"lat": [], "status": {}, "creates": 0, "matches": 0}
    cpu0, start = time.process_time(), time.perf_counter()
    deadline = start + seconds
    if phase == "actions":
        jobs = [threading.Thread(target=_match_loop, args=(base, deadline, out)) for _ in range(connections)]
    else:
        path = {"healthz": "/healthz", "notfound": "/v1/nope", "openapi": "/v1/openapi.json"}[phase]
        jobs = [threading.Thread(target=_get_loop, args=(base, path, deadline, out)) for _ in range(connections)]
    for job in jobs:
        job.start()
    for job in jobs:
        job.join()
    out["elapsed"] = time.perf_counter() - start
    out["client_cpu"] = (time.process_time() - cpu0) / out["elapsed"]
    out["rate"] = len(out["lat"]) / out["elapsed"]
    return out


def bench(args) -> int:
    phases = ["healthz", "notfound", "openapi", "actions"]
    with (
        tempfile.TemporaryDirectory() as tmp,
        Server(
            sqlite_url(tmp),
            workers=1,
            env={"RATELIMIT_ENABLED": "false", "BOT_REPLY_FLOOR_MS": ""},  # no floor: see above
            access_log=args.access_log,
        ) as server,
    ):
        print(f"# http_floor: {machine_line()}")
        print(
            f"# gunicorn 1 gevent worker, SQLite, access log "
            f"{'on' if args.access_log else 'off'}; client: {args.connections} keep-alive connections"
        )
        (run_phase(server.url, "actions", 2, args.connections))  # warm caches, JIT-free warm-up
        results: dict[str, list[dict[str, Any]]] = {p: [] for p in phases}
        for rnd in range(args.rounds):
            order = phases[rnd % len(phases) :] + phases[: rnd % len(phases)]
            for phase in order:
                results[phase].append(run_phase(server.url, phase, args.seconds, args.connections))
            print(f"round {rnd + 1}: " + ", ".join(f"{p} {results[p][-1]['rate']:.0f}/s" for p in phases), flush=True)

    bad = {p: {s: n for r in results[p] for s, n in r["status"].items() if s >= 500} for p in phases}
    print()
    print("| endpoint | requests/s (median of rounds) | p50 latency | p95 latency | client CPU | vs healthz |")
    print("|---|---|---|---|---|---|")
    ratios = {}
    for p in phases:
        rates = [r["rate"] for r in results[p]]
        lat = [x for r in results[p] for x in r["lat"]]
        per_round = [a["rate"] / b["rate"] for a, b in zip(results[p], results["healthz"])]
        ratios[p] = median(per_round)
        label = {
            "healthz": "`GET /healthz` (readiness)",
            "notfound": "`GET /v1/nope` (404, no DB)",
            "openapi": "`GET /v1/openapi.json`",
            "actions": "`POST .../actions` in whole matches",
        }[p]
        print(
            f"| {label} | {median(rates):.0f} | {ms(pct(lat, 0.5))} | {ms(pct(lat, 0.95))} | "
            f"{median([r['client_cpu'] for r in results[p]]) * 100:.0f}% | {ratios[p]:.2f} |"
        )
    acts = results["actions"]
    print(
        f"\nactions: {sum(len(r['lat']) for r in acts)} actions in {sum(r['matches'] for r in acts)} "
        f"finished matches ({sum(r['creates'] for r in acts)} created); 5xx: {bad}"
    )
    print(
        f"actions / healthz = {ratios['actions']:.2f} (target >= {TARGET_RATIO}); "
        f"spread over rounds {min(a['rate'] / b['rate'] for a, b in zip(acts, results['healthz'])):.2f}"
        f"-{max(a['rate'] / b['rate'] for a, b in zip(acts, results['healthz'])):.2f}"
    )
    ok = ratios["actions"] >= TARGET_RATIO and not any(bad.values())
    return 0 if ok or not args.check else 1


# The layers of an action's time, by the file of the Python frame the time was spent in (first
# match wins). Built-in functions and the standard library (copy, re, hashlib, logging…) count
# in the layer that called them: marshmallow's deepcopy of its fields is marshmallow's.
LAYERS = (
    ("the use case's bots (api/bots)", "/api/bots/"),
    ("rules (api/rules)", "/api/rules/"),
    ("services (api/services)", "/api/services/"),
    ("store (api/store)", "/api/store/"),
    ("HTTP layer (api/http, api/app.py)", "/api/"),
    ("SQLAlchemy and sqlite3", ("/sqlalchemy/", "/sqlite3/")),
    ("marshmallow", "/marshmallow/"),
    ("flask-smorest, webargs, apispec", ("/flask_smorest/", "/webargs/", "/apispec/")),
    ("flask-cors, flask-limiter, limits", ("/flask_cors/", "/flask_limiter/", "/limits/")),
    ("Flask, Werkzeug (routing, request, response, test client)", ("/flask/", "/werkzeug/")),
    ("JSON encoding and decoding (json, orjson)", ("/json/", "orjson")),
    ("prometheus-client", "/prometheus_client/"),
    ("the benchmark's own loop", "/bench/"),
)
CALLERS = "the caller's"  # a frame of the standard library or a built-in: counted in its caller's layer


def layer_of(path: str | None) -> str:
    for label, marks in LAYERS:
        if any(mark in (path or "") for mark in ((marks,) if isinstance(marks, str) else marks)):
            return label
    return "other packages" if "site-packages" in (path or "") else CALLERS


def own_times(root) -> list[tuple[Any, str, float]]:
    """Every real frame of a pyinstrument tree with its layer and own time (``[self]`` included)."""
    out, stack = [], [(root, "other")]
    while stack:
        frame, callers = stack.pop()
        if frame.is_synthetic:
            continue
        layer = layer_of(frame.file_path)
        layer = callers if layer == CALLERS else layer
        out.append((frame, layer, frame.total_self_time))
        stack.extend((child, layer) for child in frame.children)
    return out


def inclusive(root, function: str, path_end: str) -> float:
    """Time under the outermost frames of ``function`` in a file ending ``path_end``."""
    total, stack = 0.0, [root]
    while stack:
        frame = stack.pop()
        if frame.function == function and (frame.file_path or "").endswith(path_end):
            total += frame.time
        else:
            stack.extend(frame.children)
    return total


def print_layers(root, actions: int) -> None:
    frames = own_times(root)
    whole = sum(took for _, _, took in frames)
    by_layer: dict[str, float] = {}
    by_function: dict[str, float] = {}
    for frame, layer, took in frames:
        by_layer[layer] = by_layer.get(layer, 0.0) + took
        where = f"{frame.function} ({frame.file_path_short}:{frame.line_no})"
        by_function[where] = by_function.get(where, 0.0) + took
    print("| layer (own time of its frames, the standard library's in its caller's) | ms per action | share |")
    print("|---|---:|---:|")
    for label, took in sorted(by_layer.items(), key=lambda kv: -kv[1]):
        print(f"| {label} | {took / actions * 1000:.3f} | {took / whole:.0%} |")
    print(f"| all | {whole / actions * 1000:.3f} | 100% |")
    use_case = inclusive(root, "handle", "api/services/bus.py")
    print(
        f"\nthe use cases (MessageBus.handle, inclusive: the store, rules and bots under it) "
        f"{use_case / whole:.0%}; the rest is the web stack around them\n"
    )
    print("| function (own time) | ms per action | share |")
    print("|---|---:|---:|")
    for where, took in sorted(by_function.items(), key=lambda kv: -kv[1])[:20]:
        print(f"| `{where}` | {took / actions * 1000:.3f} | {took / whole:.1%} |")


def cprofile_layers(stats: pstats.Stats, count: int, what: str) -> None:
    """``print_layers`` from cProfile's statistics: each function's own time in its file's layer;
    a built-in's or the standard library's shared among its callers' layers in proportion to
    the time it spent under each (cProfile records that per caller)."""
    raw: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    memo: dict[Any, dict[str, float]] = {}

    def layers(func: Any, seen: frozenset) -> dict[str, float]:
        if func in memo:
            return memo[func]
        layer = layer_of(func[0])
        shares: dict[str, float] = {}
        if layer != CALLERS:
            shares = {layer: 1.0}
        else:
            callers = {caller: v for caller, v in raw[func][4].items() if caller in raw and caller not in seen}
            total = sum(v[2] for v in callers.values())
            for caller, v in callers.items():
                for above, share in layers(caller, seen | {func}).items():
                    shares[above] = shares.get(above, 0.0) + share * (v[2] / total if total else 1 / len(callers))
        memo[func] = shares = shares or {"other": 1.0}
        return shares

    whole = sum(v[2] for v in raw.values())
    by_layer: dict[str, float] = {}
    for func, v in raw.items():
        for layer, share in layers(func, frozenset()).items():
            by_layer[layer] = by_layer.get(layer, 0.0) + v[2] * share
    heading = "own time of its functions, built-ins' and the standard library's in their callers'"
    print(f"| layer ({heading}) | ms per {what} | share |")
    print("|---|---:|---:|")
    for label, took in sorted(by_layer.items(), key=lambda kv: -kv[1]):
        print(f"| {label} | {took / count * 1000:.3f} | {took / whole:.0%} |")
    print(f"| all | {whole / count * 1000:.3f} | 100% |")
    use_case = sum(v[3] for func, v in raw.items() if func[0].endswith("api/services/bus.py") and func[2] == "handle")
    print(
        f"\nthe use cases (MessageBus.handle, inclusive: the store, rules and bots under it) "
        f"{use_case / whole:.0%}; the rest is the web stack around them\n"
    )
    print(f"| function (own time) | ms per {what} | share |")
    print("|---|---:|---:|")
    for func, v in sorted(raw.items(), key=lambda kv: -kv[1][2])[:20]:
        where = func[0].split("site-packages/")[-1].split("/wt-perf/")[-1] if func[0] != "~" else "built-in"
        print(f"| `{func[2]} ({where}:{func[1]})` | {v[2] / count * 1000:.3f} | {v[2] / whole:.1%} |")


def profile(args) -> int:
    """A request's path in-process under a profiler (no gunicorn, same app and SQLite): every
    action of ``--profile-matches`` matches, or the ``GET /view`` or the page of 50 events read
    after each of them. pyinstrument where it is installed (the ``bench`` extra) and the request
    is the action; else the standard library's cProfile (deterministic: inflates small calls more)."""
    from api import create_app

    try:  # typed Any either way: mypy passes whether or not the bench extra is installed
        Profiler: Any = importlib.import_module("pyinstrument").Profiler
    except ImportError:
        Profiler = None
    sampled = Profiler is not None and args.profile_request == "action"
    with tempfile.TemporaryDirectory() as tmp:
        config = {"RATELIMIT_ENABLED": False, "BOT_REPLY_FLOOR_MS": None, "LOG_LEVEL": "WARNING"}
        app = create_app({"DATABASE_URL": sqlite_url(tmp), **config})
        client = app.test_client()
        traced = cProfile.Profile(time.thread_time_ns, 1e-9)  # CPU time: a loaded machine stretches wall time

        def timed(call: Any, *a: Any, **k: Any) -> Any:
            if sampled:
                return call(*a, **k)
            traced.enable()
            try:
                return call(*a, **k)
            finally:
                traced.disable()

        def one_match(kind: str | None) -> int:
            created = client.post("/v1/matches", json=MATCH).get_json()
            auth = {"Authorization": f"Bearer {created['seats'][0]['token']}"}
            path = f"/v1/matches/{created['id']}"
            view = client.get(f"{path}/view", headers=auth).get_json()
            n = 0
            while view["status"] != "ended":
                act = timed if kind == "action" else (lambda call, *a, **k: call(*a, **k))
                answer = act(client.post, f"{path}/actions", json=view["legal_actions"][0], headers=auth)
                view = json.loads(answer.data)["view"]  # not get_json(): the app's input guard is not the app's work
                if kind == "view":
                    timed(client.get, f"{path}/view", headers=auth)
                elif kind == "events" and view["seq"] >= 50:
                    timed(client.get, f"{path}/events?after={view['seq'] - 50}&limit=50", headers=auth)
                elif kind != "action":
                    continue
                n += 1
            return n

        one_match(None)
        profiler = Profiler(interval=0.0005) if sampled else None
        if profiler is not None:
            profiler.start()
        count = sum(one_match(args.profile_request) for _ in range(args.profile_matches))
        if profiler is not None:
            profiler.stop()
        tool = (
            "pyinstrument"
            if sampled
            else "cProfile (pyinstrument is not installed)"
            if Profiler is None
            else "cProfile"
        )
        print(f"# http_floor --profile --profile-request {args.profile_request}: {machine_line()}")
        print(f"{count} requests in {args.profile_matches} matches, {tool} (times inflated by the profiler)\n")
        if profiler is not None:
            session = profiler.last_session
            assert session is not None
            print_layers(session.root_frame(), count)
            if args.profile_tree:
                print(profiler.output_text(unicode=False, color=False))
        else:
            cprofile_layers(pstats.Stats(traced), count, args.profile_request)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=4.0, help="per phase per round")
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--access-log", action="store_true", help="keep gunicorn's access log (to a file)")
    parser.add_argument("--check", action="store_true", help=f"exit 1 below {TARGET_RATIO} or on any 5xx")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--profile-matches", type=int, default=10)
    parser.add_argument(
        "--profile-request", choices=("action", "view", "events"), default="action", help="with --profile: which"
    )
    parser.add_argument("--profile-tree", action="store_true", help="with --profile: pyinstrument's call tree too")
    args = parser.parse_args()
    assert HOST == "127.0.0.1"
    return profile(args) if args.profile else bench(args)


if __name__ == "__main__":
    sys.exit(main())
