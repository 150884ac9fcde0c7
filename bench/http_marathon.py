"""The all-bot marathon beside a person's match: does one anonymous client's longest bot
match still cost the other players anything?

    .venv/bin/python bench/http_marathon.py           # ~1.5 min

A server as ``scripts/run`` starts it (gunicorn with its default workers, the autoplay
runner beside it, SQLite, default settings except a per-address action budget high enough
for the timed person). Phase 1, quiet: a person plays a match against a person
(remote seats, ``legal_actions[0]``) for ``--seconds`` and we time each action and
``/healthz``. Phase 2: an anonymous client creates as many all-bot ``expert`` matches at
the largest target as one address may (4 seats, target ``MAX_TARGET``), and we time the
same person's actions and ``/healthz`` again while the runner plays them. The figures
are ratios of phase 2 to phase 1 (p50 and p99), plus how long each creation took, how the
next creation was refused, and how fast the runner moved the marathons.

Before issue 14 one such creation ran the whole match inside the request: 143 s,
465,155 events, the SQLite write lock held throughout (24 of 26 other actions failed).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time

from _http import AutoplayRunner, Http, Server, bearer, machine_line, ms, pct, sqlite_url

from api.rules.ruleset import MAX_TARGET

# The person's match is long too (one per phase), so the creation limit (30 a minute, kept at
# its default) is spent on the marathons.
PEOPLE = {
    "preset": "standard-draw",
    "rules": {"target": MAX_TARGET},
    "seats": [{"name": "Ana", "type": "remote"}, {"name": "Ben", "type": "remote"}],
}
MARATHON = {
    "preset": "standard-draw",
    "rules": {"target": MAX_TARGET},
    "seats": [{"name": f"Bot{i}", "type": "bot", "level": "expert"} for i in range(4)],
}


def person_loop(base: str, deadline: float, out: dict) -> None:
    """A person's match (both seats played by this loop), timed action by action."""
    http = Http(base)
    while time.perf_counter() < deadline:
        created = http.post("/v1/matches", PEOPLE)[1]
        tokens = {s["seat"]: bearer(s["token"]) for s in created["seats"]}
        match_id, turn = created["id"], created["turn"]
        view = http.get(f"/v1/matches/{match_id}/view", tokens[turn])[1]
        while view["status"] == "playing" and time.perf_counter() < deadline:
            status, body, took = http.post(f"/v1/matches/{match_id}/actions", view["legal_actions"][0], tokens[turn])
            if status != 200:
                raise RuntimeError(f"action refused: {status} {body}")
            out["action"].append(took)
            turn = body["view"]["turn"]
            if turn is None:
                break
            view = http.get(f"/v1/matches/{match_id}/view", tokens[turn])[1]
    http.close()


def health_loop(base: str, deadline: float, out: dict) -> None:
    http = Http(base)
    while time.perf_counter() < deadline:
        status, _, took = http.get("/healthz")
        out["healthz"].append(took)
        out["health_status"].add(status)
        time.sleep(0.02)
    http.close()


def measure(base: str, seconds: float) -> dict:
    out: dict = {"action": [], "healthz": [], "health_status": set()}
    deadline = time.perf_counter() + seconds
    threads = [
        threading.Thread(target=person_loop, args=(base, deadline, out)),
        threading.Thread(target=health_loop, args=(base, deadline, out)),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def seq_of(http: Http, match_id: str) -> int:
    return http.get(f"/v1/matches/{match_id}")[1]["seq"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30, help="length of each phase")
    args = parser.parse_args()
    print(machine_line())
    # Defaults everywhere but the action budgets: the timed person sends far more actions than
    # 3,000 a minute from one address, which is the point of timing them, not an attack.
    budgets = {
        "RATE_LIMIT_ACTIONS_PER_ADDRESS": "1000000 per minute",
        "RATE_LIMIT_ACTIONS_PER_TOKEN": "1000000 per minute",
    }
    with (
        tempfile.TemporaryDirectory() as tmp,
        Server(sqlite_url(tmp), workers=2, env=budgets) as server,
        AutoplayRunner(server) as runner,
    ):
        base = server.url
        quiet = measure(base, args.seconds)
        http = Http(base)
        created, creation_times = [], []
        while True:
            status, body, took = http.post("/v1/matches", MARATHON)
            if status != 201:
                refused = (status, body.get("code"))
                break
            created.append(body["id"])
            creation_times.append(took)
        cpu_before, started = runner.cpu_seconds(), time.perf_counter()
        seqs_before = [seq_of(http, m) for m in created]
        loaded = measure(base, args.seconds)
        elapsed = time.perf_counter() - started
        appended = sum(seq_of(http, m) for m in created) - sum(seqs_before)
        runner_cpu = runner.cpu_seconds() - cpu_before
        http.close()

    def row(name: str, key: str) -> str:
        q50, q99 = pct(quiet[key], 0.5), pct(quiet[key], 0.99)
        l50, l99 = pct(loaded[key], 0.5), pct(loaded[key], 0.99)
        return (
            f"{name:8s} quiet p50 {ms(q50)} p99 {ms(q99)} (n={len(quiet[key])}) | marathons running "
            f"p50 {ms(l50)} p99 {ms(l99)} (n={len(loaded[key])}) | ratio p50 {l50 / q50:.2f} p99 {l99 / q99:.2f}"
        )

    print(
        f"created {len(created)} all-bot expert matches to {MAX_TARGET}: each answered in "
        f"{', '.join(ms(t) for t in creation_times)}; the next was refused: {refused[0]} {refused[1]}"
    )
    print(
        f"runner: {appended} events in {elapsed:.1f} s ({appended / elapsed:.0f}/s over {len(created)} matches), "
        f"{runner_cpu:.1f} s CPU ({runner_cpu / elapsed:.0%} of one core)"
    )
    print(row("action", "action"))
    print(row("/healthz", "healthz"))
    print(f"/healthz statuses: quiet {sorted(quiet['health_status'])}, loaded {sorted(loaded['health_status'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
