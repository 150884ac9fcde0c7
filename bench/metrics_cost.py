"""What the Prometheus metrics cost an action: its CPU with metrics on and off, in one run.

    .venv/bin/python bench/metrics_cost.py            # ~1 min: 12 rounds of 150 actions each way
    .venv/bin/python bench/metrics_cost.py --quick    # ~15 s: 4 rounds of 100

One app, as a gunicorn worker runs it: ``PROMETHEUS_MULTIPROC_DIR`` set before anything imports
``prometheus-client`` (each value a write to a memory-mapped file), rate limits off, no bot reply
floor (its pause is no CPU, but it would make the run long). Requests go through Flask's test
client: the app's own work, with no worker and no socket (``in_process.py``). Each action is
``POST .../actions`` by the one remote seat of a ``standard-draw`` match against a greedy bot,
always ``legal_actions[0]``; its answer includes the bot's reply, so an action counts a request
(``boneyard_http_requests_total``, the latency histogram), the action and a bot decision
(histogram), and now and then a match created and ended.

"Off": every metric of ``api.metrics`` swapped for a stand-in that does nothing (the call sites
read them from the module at each call), the request timer's two clock reads kept. The two modes
alternate, round by round (the order flipped every round), so the machine's noise falls on both
alike. Reported: the median CPU of an action (``time.process_time``) each way and the ratio, the
goal being at most 5% more with metrics on (issue 35); the CPU of the metric updates an action
makes, timed alone (the difference the ratio looks for, without its noise); one scrape's CPU.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from types import ModuleType
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # run from anywhere in a checkout
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # the sibling scripts

from _http import machine_line, median, sqlite_url

MATCH = {
    "preset": "standard-draw",
    "seats": [{"name": "client", "type": "remote"}, {"name": "bot", "type": "bot", "level": "greedy"}],
}
GOAL = 1.05  # issue 35: an action's CPU with metrics on, at most 5% above off


class Nothing:
    """A metric that counts nothing: the stand-in of every metric while they are off."""

    def labels(self, *values: str) -> Nothing:
        return self

    def inc(self, amount: float = 1) -> None:
        pass

    def dec(self, amount: float = 1) -> None:
        pass

    def set(self, value: float) -> None:
        pass

    def observe(self, value: float) -> None:
        pass


@contextmanager
def metrics_off(metrics: ModuleType) -> Iterator[None]:
    """Every metric of ``api.metrics`` a stand-in that does nothing, while active."""
    names = [name for name, value in vars(metrics).items() if any(value is metric for metric in metrics.ALL)]
    kept = {name: getattr(metrics, name) for name in names}
    for name in names:
        setattr(metrics, name, Nothing())
    try:
        yield
    finally:
        for name, metric in kept.items():
            setattr(metrics, name, metric)


class Table:
    """One match after another, one action at a time: the action's CPU seconds each."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.path = ""
        self.auth: dict[str, str] = {}
        self.view: dict[str, Any] = {"status": "ended"}

    def act(self) -> float:
        if self.view["status"] == "ended":
            created = self.client.post("/v1/matches", json=MATCH).get_json()
            self.path = f"/v1/matches/{created['id']}"
            self.auth = {"Authorization": f"Bearer {created['seats'][0]['token']}"}
            self.view = self.client.get(f"{self.path}/view", headers=self.auth).get_json()
        started = time.process_time()
        answer = self.client.post(f"{self.path}/actions", json=self.view["legal_actions"][0], headers=self.auth)
        took = time.process_time() - started
        if answer.status_code != 200:
            raise RuntimeError(f"action refused: {answer.status_code} {answer.get_json()}")
        self.view = answer.get_json()["view"]
        return took


def what_an_action_counts(metrics: ModuleType, repeat: int = 20_000) -> float:
    """CPU seconds of the metric updates one action makes, alone, with the labels it uses: the
    figure under the ratio's noise."""
    route = "/v1/matches/<string:match_id>/actions"
    started = time.process_time()
    for _ in range(repeat):
        metrics.HTTP_REQUESTS.labels(route, "POST", "200").inc()
        metrics.HTTP_REQUEST_DURATION.labels(route, "POST").observe(0.003)
        metrics.ACTIONS_APPLIED.labels("standard-draw", "play").inc()
        metrics.BOT_DECISION.labels("greedy", "false").observe(0.0004)
    return (time.process_time() - started) / repeat


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="4 rounds of 100 actions each way")
    parser.add_argument("--rounds", type=int, default=None)
    parser.add_argument("--actions", type=int, default=None, help="actions per round and mode")
    args = parser.parse_args(argv)
    rounds = args.rounds or (4 if args.quick else 12)
    per_round = args.actions or (100 if args.quick else 150)

    with tempfile.TemporaryDirectory() as directory:
        # before anything imports prometheus-client: multiprocess mode, as in a gunicorn worker
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = os.path.join(directory, "metrics")
        os.mkdir(os.environ["PROMETHEUS_MULTIPROC_DIR"])
        from api import create_app, metrics

        app = create_app({"DATABASE_URL": sqlite_url(directory), "RATELIMIT_ENABLED": False, "BOT_REPLY_FLOOR_MS": {}})
        table = Table(app.test_client())
        for _ in range(50):  # warm-up: caches, imports, the metrics' files
            table.act()
        cpu: dict[str, list[float]] = {"on": [], "off": []}
        for number in range(rounds):
            for mode in ("on", "off") if number % 2 == 0 else ("off", "on"):
                with metrics_off(metrics) if mode == "off" else nullcontext():
                    cpu[mode] += [table.act() for _ in range(per_round)]
        updates = what_an_action_counts(metrics)
        scrapes = 20
        started = time.process_time()
        for _ in range(scrapes):
            text = metrics.exposition()
        scrape = (time.process_time() - started) / scrapes
        samples = sum(1 for line in text.decode().splitlines() if line and not line.startswith("#"))
        app.extensions["boneyard.store"].dispose()

    on, off = median(cpu["on"]), median(cpu["off"])
    ratio = on / off
    print(machine_line())
    print(f"{rounds} rounds x {per_round} actions each way (alternating), multiprocess mode, SQLite")
    print(f"action CPU, median: metrics on {on * 1000:.3f} ms, off {off * 1000:.3f} ms")
    print(
        f"on / off: {ratio:.3f} ({(ratio - 1) * 100:+.1f}%); goal <= {GOAL:.2f}: {'PASS' if ratio <= GOAL else 'FAIL'}"
    )
    mean_on, mean_off = sum(cpu["on"]) / len(cpu["on"]), sum(cpu["off"]) / len(cpu["off"])
    print(f"action CPU, mean: on {mean_on * 1000:.3f} ms, off {mean_off * 1000:.3f} ms ({mean_on / mean_off:.3f})")
    share = updates / off * 100
    print(f"one action's metric updates alone (request, its time, action, bot decision): {updates * 1e6:.1f} us CPU")
    print(f"  = {share:.2f}% of an action's median CPU with metrics off")
    print(f"one scrape of this process's {samples} samples: {scrape * 1000:.2f} ms CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
