"""Prometheus metrics over real processes: a 2-worker gunicorn and the autoplay runner writing in
one multiprocess directory, a scripted match played through them, and one scrape that finds the
counts it caused summed across every process (``api.metrics``; docs/operations.md).

What each process did is known exactly: the test's own actions (by type), the matches it made
and saw end, the runner's all-bot match and its bot decisions, one webhook delivery refused
once then delivered. The scrape is read from the master's ``METRICS_BIND`` and, with the
token, from the public listener, and from the runner's own ``METRICS_BIND``: all give the same sums.
A second test kills gunicorn's workers: their waiters leave the gauge, their counts stay.
"""

from __future__ import annotations

import os
import re
import signal
from collections import Counter
from pathlib import Path

import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families

from api import metrics
from tests.e2e.test_portals_http import operator_portal
from tests.e2e.test_two_servers import hold_long_poll
from tests.servers import free_port, running_autoplay, running_gunicorn, watching_changes
from tests.test_operations_docs import dashboard_names
from tests.webhook_receiver import running_receiver

TOKEN = "scrape-" + "t" * 24
PERSON_AND_BOT = [{"name": "Ana", "type": "remote"}, {"name": "Bo", "type": "bot", "level": "random"}]
TWO_BOTS = [{"name": f"R{n}", "type": "bot", "level": "random"} for n in range(2)]
BLOCK_TO_ONE = {"preset": "standard-block", "rules": {"target": 1}}
TWO_PEOPLE = [{"name": "Ana", "type": "remote"}, {"name": "Ben", "type": "remote"}]
ACTIONS_ROUTE = "/v1/matches/<string:match_id>/actions"


def scrape(url: str, **headers: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """``{(sample name, sorted labels): value}`` of one scrape."""
    answer = requests.get(url, headers=headers, timeout=10)
    assert answer.status_code == 200, answer.text
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(answer.text)
        for sample in family.samples
    }


def counts(samples: dict) -> dict:
    """The samples that only grow (counters, histograms) but the requests' own: the scrapes
    themselves are requests, and a gauge is a value of the moment it was read."""
    gauges = {name for name, kind in metrics.exported_names().items() if kind == "gauge"}
    return {key: value for key, value in samples.items() if key[0] not in gauges and "http_request" not in key[0]}


def at(samples: dict, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def play_my_turns(base: str, match_id: str, token: str) -> Counter[str]:
    """The person's seat plays its first legal action until the match ends (the bot answers
    inline); answers the actions sent, by type."""
    sent: Counter[str] = Counter()
    auth = {"Authorization": f"Bearer {token}"}
    for _ in range(500):
        seat_view = requests.get(f"{base}/v1/matches/{match_id}/view", headers=auth, timeout=10).json()
        if seat_view["status"] == "ended":
            return sent
        action = seat_view["legal_actions"][0]
        answer = requests.post(f"{base}/v1/matches/{match_id}/actions", json=action, headers=auth, timeout=10)
        assert answer.status_code == 200, answer.text
        sent[action["type"]] += 1
    raise AssertionError("the match did not end")


# serving: the counting is the same on every database (the backlog's query, the one SQL of it, is
# held equal on both by tests/store/contract/test_matches.py).
@pytest.mark.serving
def test_one_scrape_sums_the_counts_of_two_workers_and_the_runner(database_url, tmp_path: Path):
    key = operator_portal(database_url, "metered")
    shared = tmp_path / "metrics"
    shared.mkdir()
    (shared / "counter_99999999.db").write_bytes(b"\0" * 8)  # a former run's file: emptied at start
    metrics_bind, runner_bind = f"127.0.0.1:{free_port()}", f"127.0.0.1:{free_port()}"
    settings = {
        "PROMETHEUS_MULTIPROC_DIR": str(shared),
        "RATELIMIT_ENABLED": "false",
        "AUTOPLAY_PACE_SECONDS": "0.01",
        "WEBHOOK_ALLOW_PRIVATE_ADDRESSES": "true",
        "WEBHOOK_RETRY_SECONDS": "0.2",
    }
    with (
        running_receiver(500) as receiver,
        watching_changes() as changes,
        running_gunicorn(
            database_url,
            tmp_path / "gunicorn.log",
            changes=changes,
            WEB_CONCURRENCY="2",
            METRICS_BIND=metrics_bind,
            METRICS_TOKEN=TOKEN,
            **settings,
        ) as (base, _),
        running_autoplay(
            database_url, tmp_path / "runner.log", changes=changes, METRICS_BIND=runner_bind, **settings
        ) as runner,
    ):
        assert not (shared / "counter_99999999.db").exists()
        portal = {"X-API-Key": key}
        hook = requests.post(
            f"{base}/v1/portal/webhooks",
            json={"url": receiver.url, "events": ["match.created"]},
            headers=portal,
            timeout=10,
        )
        assert hook.status_code == 201, hook.text

        # The person's match, made through the portal (its webhook fires once), played to its end.
        made = requests.post(
            f"{base}/v1/matches", json={"seats": PERSON_AND_BOT, **BLOCK_TO_ONE}, headers=portal, timeout=10
        )
        assert made.status_code == 201, made.text
        person = made.json()
        sent = play_my_turns(base, person["id"], person["seats"][0]["token"])
        # The runner's match: every move of it is the runner's.
        bots = requests.post(f"{base}/v1/matches", json={"seats": TWO_BOTS, **BLOCK_TO_ONE}, timeout=10)
        assert bots.status_code == 201, bots.text

        def settled() -> bool:
            ended = requests.get(f"{base}/v1/matches/{bots.json()['id']}", timeout=10).json()["status"] == "ended"
            return ended and len(receiver.received) == 2  # refused once, then delivered

        changes.until(settled, 60, "the all-bot match ended and the webhook delivered")

        def delivered_counted() -> dict | None:
            samples = scrape(f"http://{metrics_bind}/metrics")
            done = at(samples, "boneyard_webhook_deliveries_total", outcome="delivered", attempt="2")
            return samples if done else None

        samples = changes.until(delivered_counted, 30, "the delivery's attempt counted")
        from_master = counts(samples)
        from_public = counts(scrape(f"{base}/metrics", Authorization=f"Bearer {TOKEN}"))
        from_runner = counts(scrape(f"http://{runner_bind}/metrics"))
        assert requests.get(f"{base}/metrics", timeout=10).status_code == 404
        pids = {int(name.rsplit("_", 1)[1].removesuffix(".db")) for name in os.listdir(shared)}
        runner_pid = runner.pid

    # Every metric the module defines is in the scrape, but the three refusals by route none made.
    scraped_names = {name for name, _ in samples}
    unrefused = {"boneyard_database_busy_total", "boneyard_rate_limited_total", "boneyard_waiters_refused_total"}
    assert set(metrics.exported_names()) - scraped_names == unrefused
    assert dashboard_names() - scraped_names <= unrefused  # the dashboard reads what a server exports
    assert runner_pid in pids and len(pids) >= 2  # the runner's files and the workers' are summed

    # The person's actions, exactly, by type; each one request answered 200.
    assert sent["play"] > 0
    for kind, count in sent.items():
        assert at(samples, "boneyard_actions_applied_total", preset="standard-block", type=kind) == count
    posted = at(samples, "boneyard_http_requests_total", route=ACTIONS_ROUTE, method="POST", status="200")
    assert posted == sum(sent.values())
    timed = at(samples, "boneyard_http_request_duration_seconds_count", route=ACTIONS_ROUTE, method="POST")
    assert timed == posted
    assert at(samples, "boneyard_matches_created_total", preset="standard-block") == 2
    assert at(samples, "boneyard_matches_ended_total", preset="standard-block") == 2
    # Bot decisions: the person's opponent in a worker, both seats of the all-bot match in the runner.
    decisions = sum(
        at(samples, "boneyard_bot_decision_seconds_count", level="random", over_floor=over)
        for over in ("true", "false")
    )
    assert decisions >= 2
    # The webhook: refused once (attempt 1, to be retried), delivered at attempt 2.
    assert at(samples, "boneyard_webhook_deliveries_total", outcome="retrying", attempt="1") == 1
    assert at(samples, "boneyard_webhook_deliveries_total", outcome="delivered", attempt="2") == 1
    assert at(samples, "boneyard_webhook_deliveries_total", outcome="failed", attempt="1") == 0
    # The runner's gauges, as its last round set them (it may have looked just before the end).
    assert at(samples, "boneyard_autoplay_backlog_matches") in (0, 1)
    assert 0 <= at(samples, "boneyard_autoplay_lag_seconds") < 30
    assert at(samples, "boneyard_waiters", kind="match_events") == 0
    # The public listener with the token, and the runner's own listener, read the same sums as the
    # master's listener.
    assert from_public == from_master
    assert from_runner == from_master


def children_of(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (Linux ``/proc``)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                status = Path(f"/proc/{entry}/status").read_text()
            except OSError:
                continue  # gone meanwhile
            if re.search(rf"^PPid:\s+{pid}$", status, re.MULTILINE):
                found.append(int(entry))
    return found


@pytest.mark.serving
def test_a_killed_workers_waiters_leave_the_gauge_and_its_counts_stay(database_url, tmp_path: Path):
    """gunicorn's ``child_exit`` marks a dead worker's files: its live gauge (an idle long-poll it
    held) leaves the sums, while the counts it made stay in them."""
    shared = tmp_path / "metrics"
    metrics_bind = f"127.0.0.1:{free_port()}"
    with (
        watching_changes() as changes,
        # info: gunicorn logs each worker it boots, after the dead one's child_exit (a change to wake on)
        running_gunicorn(
            database_url,
            tmp_path / "gunicorn.log",
            changes=changes,
            WEB_CONCURRENCY="2",
            LOG_LEVEL="info",
            METRICS_BIND=metrics_bind,
            PROMETHEUS_MULTIPROC_DIR=str(shared),
            RATELIMIT_ENABLED="false",
        ) as (base, _),
    ):
        made = requests.post(f"{base}/v1/matches", json={"seats": TWO_PEOPLE}, timeout=10).json()
        held = hold_long_poll(base, made["id"], made["seq"])
        url = f"http://{metrics_bind}/metrics"

        def waiting(count: int):
            samples = scrape(url)
            return samples if at(samples, "boneyard_waiters", kind="match_events") == count else None

        before = changes.until(lambda: waiting(1), 30, "the long-poll counted as waiting")
        assert at(before, "boneyard_matches_created_total", preset="standard-draw") == 1
        (master,) = [pid for pid in children_of(os.getpid()) if "gunicorn" in Path(f"/proc/{pid}/cmdline").read_text()]
        workers = children_of(master)
        assert len(workers) == 2
        for worker in workers:
            os.kill(worker, signal.SIGKILL)
        after = changes.until(lambda: waiting(0), 30, "the killed workers' waiter gone from the gauge")
        held.close()
        assert at(after, "boneyard_matches_created_total", preset="standard-draw") == 1
        booted = tmp_path / "gunicorn.log"
        changes.until(lambda: booted.read_text().count("Booting worker") >= 4, 60, "two workers booted again")
        # a bound, not a window: a worker booting on a loaded machine took over 10 s (CI, load 12)
        again = requests.post(f"{base}/v1/matches", json={"seats": TWO_PEOPLE}, timeout=60)
        assert again.status_code == 201  # the new workers serve, and count on from there
        assert at(scrape(url), "boneyard_matches_created_total", preset="standard-draw") == 2
