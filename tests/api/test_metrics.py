"""Prometheus metrics in one process (``api.metrics``, ``api.http.metrics``): what a request, an
action, a refusal and a wait count, that no client-made value becomes a label, and who may read
``/metrics``. The same counts summed across gunicorn's workers and the runner:
tests/e2e/test_metrics_http.py.

The tests' apps count in the process's own registry (no ``PROMETHEUS_MULTIPROC_DIR``), shared by
every app of the process, so each test compares a value after with the same value before.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import uuid

from prometheus_client import REGISTRY, generate_latest

from api import metrics
from api.http.callers import BUS_KEY
from api.http.metrics import ROUTE_KEY, RequestMetrics
from api.services.commands import ClaimDueBots
from api.services.pacing import ReplyFloor
from api.services.waiting import Client
from api.store import DatabaseBusy

from .fake_clock import FakeClock, use_clock
from .helpers import TWO_REMOTE, assert_problem, auth, create, play_to_end, tokens_of, view

TOKEN = "metrics-" + "s" * 24
VIEW_ROUTE = "/v1/matches/<string:match_id>/view"


def value(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def series(prefix: str = "boneyard_") -> list[str]:
    """Every sample line of the exposition whose name starts with ``prefix``, without its value."""
    text = generate_latest(REGISTRY).decode()
    return [line.rsplit(" ", 1)[0] for line in text.splitlines() if line.startswith(prefix)]


# --- who may read /metrics ------------------------------------------------------------------------
def test_metrics_answers_404_to_everyone_when_no_token_is_configured(make_client):
    client = make_client()
    assert_problem(client.get("/metrics"), 404, "not_found")
    assert_problem(client.get("/metrics", headers=auth(TOKEN)), 404, "not_found")
    # the very answer of a path that does not exist: nothing tells that /metrics does
    assert client.get("/metrics").get_json() == client.get("/no-such-path").get_json()


def test_metrics_answers_only_the_configured_bearer_token(make_client):
    client = make_client(METRICS_TOKEN=TOKEN)
    for headers in ({}, auth("wrong"), auth(TOKEN[:-1]), auth(TOKEN + "x"), {"Authorization": f"Basic {TOKEN}"}):
        assert_problem(client.get("/metrics", headers=headers), 404, "not_found")
    scraped = client.get("/metrics", headers=auth(TOKEN))
    assert scraped.status_code == 200
    assert scraped.content_type.startswith("text/plain; version=")
    assert "# HELP boneyard_http_requests_total HTTP requests answered" in scraped.text
    assert "# TYPE boneyard_http_request_duration_seconds histogram" in scraped.text


def test_metrics_is_not_in_the_public_openapi_document(client):
    document = client.get("/v1/openapi.json").get_json()
    assert "/healthz" in document["paths"]  # the document is the one with the paths
    assert not [path for path in document["paths"] if "metrics" in path]


# --- the definitions ------------------------------------------------------------------------------
def test_every_metric_follows_the_naming_conventions_and_has_a_help_text():
    names = metrics.exported_names()
    assert len(metrics.ALL) == 15 and len(names) == 19
    for metric in metrics.ALL:
        family = metric.describe()[0]
        assert family.name.startswith("boneyard_"), family.name
        assert len(family.documentation) > 20, family.name
        if family.type == "histogram":
            assert family.name.endswith("_seconds"), family.name
    counters = [name for name, kind in names.items() if kind == "counter"]
    assert counters and all(name.endswith("_total") for name in counters)


def test_label_helpers_bound_methods_and_attempts():
    assert metrics.method_label("GET") == "GET"
    assert metrics.method_label("BREW") == metrics.method_label("get") == "other"
    assert [metrics.attempt_label(n) for n in (1, 5, 6, 12, 1000)] == ["1", "5", "6+", "6+", "6+"]


# --- what the HTTP edge counts --------------------------------------------------------------------
def test_a_request_is_counted_by_route_template_method_and_status(client):
    match_id = create(client, TWO_REMOTE)["id"]
    before = value("boneyard_http_requests_total", route=VIEW_ROUTE, method="GET", status="200")
    timed = value("boneyard_http_request_duration_seconds_count", route=VIEW_ROUTE, method="GET")
    unknown = value("boneyard_http_requests_total", route="unmatched", method="GET", status="404")
    view(client, match_id)
    view(client, match_id)
    client.get(f"/v1/matches/{match_id}/nothing-here")
    assert value("boneyard_http_requests_total", route=VIEW_ROUTE, method="GET", status="200") == before + 2
    assert value("boneyard_http_request_duration_seconds_count", route=VIEW_ROUTE, method="GET") == timed + 2
    assert value("boneyard_http_requests_total", route="unmatched", method="GET", status="404") == unknown + 1
    assert not [line for line in series() if match_id in line]


def test_a_thousand_match_ids_and_unknown_paths_add_no_series(client):
    """Cardinality: each client-made id or path is a label value of no series."""
    for warm_up in ("/v1/matches/warm/view", "/warm-up/path"):  # the two series the loop adds to
        client.get(warm_up)
    before = series()
    for n in range(1000):
        assert client.get(f"/v1/matches/{uuid.uuid4().hex}/view").status_code == 404
        assert client.get(f"/made-up/{n}/path-{uuid.uuid4().hex}").status_code == 404
    after = series()
    assert len(after) == len(before)
    assert sorted(after) == sorted(before)
    assert value("boneyard_http_requests_total", route=VIEW_ROUTE, method="GET", status="404") >= 1001


def test_request_time_is_read_from_the_clock_it_is_given():
    ticks = iter([10.0, 10.25])
    answered = []

    def app(environ, start_response):
        environ[ROUTE_KEY] = "/test-only/timed"
        start_response("201 Created", [])
        return [b""]

    timed = RequestMetrics(app, clock=lambda: next(ticks))
    labels = {"route": "/test-only/timed", "method": "PUT"}
    count = value("boneyard_http_requests_total", **labels, status="201")
    total = value("boneyard_http_request_duration_seconds_sum", **labels)
    timed({"REQUEST_METHOD": "PUT"}, lambda status, headers: answered.append(status))
    assert answered == ["201 Created"]
    assert value("boneyard_http_requests_total", **labels, status="201") == count + 1
    assert value("boneyard_http_request_duration_seconds_sum", **labels) == total + 0.25


def test_a_rate_limit_refusal_is_counted_by_route(make_client):
    client = make_client(RATELIMIT_ENABLED=True, RATE_LIMIT_CREATE="1 per minute")
    before = value("boneyard_rate_limited_total", route="/v1/matches")
    create(client, TWO_REMOTE)
    assert_problem(client.post("/v1/matches", json={"seats": TWO_REMOTE}), 429, "too_many_requests")
    assert value("boneyard_rate_limited_total", route="/v1/matches") == before + 1


def test_a_refusal_for_too_many_waiters_is_counted_by_route_apart_from_rate_limits(app, client):
    match_id = create(client, TWO_REMOTE)["id"]
    waiter = app.extensions[BUS_KEY].flow.waiter
    waiter.per_address = 1
    route = "/v1/matches/<string:match_id>/events"
    refused, limited = (
        value("boneyard_waiters_refused_total", route=route),
        value("boneyard_rate_limited_total", route=route),
    )
    waiter.take(Client("127.0.0.1"), 60)  # the one wait this address may hold
    seq = view(client, match_id)["seq"]
    assert_problem(client.get(f"/v1/matches/{match_id}/events?after={seq}&wait=1"), 429, "too_many_waiters")
    assert value("boneyard_waiters_refused_total", route=route) == refused + 1
    assert value("boneyard_rate_limited_total", route=route) == limited


def test_a_database_busy_refusal_is_counted_by_route(app, client):
    match_id = create(client, TWO_REMOTE)["id"]
    bus = app.extensions[BUS_KEY]
    before = value("boneyard_database_busy_total", route=VIEW_ROUTE)

    def busy(command):
        raise DatabaseBusy("no write lock within 5 s (test)")

    bus.handle, handle = busy, bus.handle
    try:
        assert_problem(client.get(f"/v1/matches/{match_id}/view"), 503, "database_busy")
    finally:
        bus.handle = handle
    assert value("boneyard_database_busy_total", route=VIEW_ROUTE) == before + 1


# --- what the use cases count ---------------------------------------------------------------------
def test_a_match_played_to_its_end_counts_its_creation_its_actions_and_its_end(client):
    created = value("boneyard_matches_created_total", preset="standard-block")
    ended = value("boneyard_matches_ended_total", preset="standard-block")
    by_type = {
        kind: value("boneyard_actions_applied_total", preset="standard-block", type=kind) for kind in ("play", "knock")
    }
    match = create(client, TWO_REMOTE, preset="standard-block", rules={"target": 1})
    assert value("boneyard_matches_created_total", preset="standard-block") == created + 1
    sent = {"play": 0, "knock": 0}

    def counting(actions):
        sent[actions[0]["type"]] += 1
        return actions[0]

    play_to_end(client, match["id"], tokens_of(match), choose=counting)
    assert sent["play"] > 0
    for kind, count in sent.items():
        assert value("boneyard_actions_applied_total", preset="standard-block", type=kind) == by_type[kind] + count
    assert value("boneyard_matches_ended_total", preset="standard-block") == ended + 1


def test_an_idempotent_replay_is_counted(client, live):
    match_id, tokens, turn = live
    action = view(client, match_id, tokens[turn])["legal_actions"][0]
    headers = {**auth(tokens[turn]), "Idempotency-Key": "replay-" + uuid.uuid4().hex}
    before = value("boneyard_idempotent_replays_total")
    first = client.post(f"/v1/matches/{match_id}/actions", json=action, headers=headers)
    again = client.post(f"/v1/matches/{match_id}/actions", json=action, headers=headers)
    assert first.status_code == again.status_code == 200
    assert value("boneyard_idempotent_replays_total") == before + 1


def test_a_wait_is_counted_by_kind_while_it_waits(app):
    waiter = app.extensions[BUS_KEY].flow.waiter
    before = value("boneyard_waiters", kind="seek")
    with waiter.hold(None, 1.0, "seek"):
        assert value("boneyard_waiters", kind="seek") == before + 1
    assert value("boneyard_waiters", kind="seek") == before


def test_a_bot_decision_is_timed_by_level_and_whether_it_passed_its_floor():
    now = [0.0]
    pauses = []

    def decide(took):
        def run():
            now[0] += took
            return "move"

        return run

    floor = ReplyFloor({"greedy": 0.01}, clock=lambda: now[0], pause=pauses.append)
    over = {"level": "greedy", "over_floor": "true"}
    under = {"level": "greedy", "over_floor": "false"}
    counts = [value("boneyard_bot_decision_seconds_count", **labels) for labels in (over, under)]
    sums = [value("boneyard_bot_decision_seconds_sum", **labels) for labels in (over, under)]
    assert floor.timed("greedy", decide(0.004)) == "move"
    assert floor.timed("greedy", decide(0.5)) == "move"
    assert [round(p, 9) for p in pauses] == [0.006]  # padded up to the floor; the slow one is not
    assert value("boneyard_bot_decision_seconds_count", **over) == counts[0] + 1
    assert value("boneyard_bot_decision_seconds_count", **under) == counts[1] + 1
    assert round(value("boneyard_bot_decision_seconds_sum", **over) - sums[0], 9) == 0.5
    assert round(value("boneyard_bot_decision_seconds_sum", **under) - sums[1], 9) == 0.004


def test_no_label_value_of_the_exposition_holds_a_token_or_a_match_id(client, live):
    match_id, tokens, _ = live
    text = generate_latest(REGISTRY).decode()
    labels = set(re.findall(r'="([^"]*)"', text))
    assert not [label for label in labels if match_id in label or any(t in label for t in tokens.values())]


# --- the multiprocess directory ---------------------------------------------------------------------
def test_a_dead_process_stops_counting_in_the_live_gauges_and_its_counts_stay(tmp_path, monkeypatch):
    """What gunicorn's ``child_exit`` and the runner's stop do (``metrics.mark_dead``)."""
    monkeypatch.setenv(metrics.MULTIPROC_DIR_VARIABLE, str(tmp_path))
    for name in (
        "gauge_livesum_41.db",
        "gauge_livemax_41.db",
        "counter_41.db",
        "histogram_41.db",
        "gauge_livesum_42.db",
    ):
        (tmp_path / name).write_bytes(b"")
    metrics.mark_dead(41)
    assert sorted(os.listdir(tmp_path)) == ["counter_41.db", "gauge_livesum_42.db", "histogram_41.db"]


def test_the_directory_is_emptied_of_the_files_of_processes_that_are_gone(tmp_path):
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, check=True)
    dead, alive = int(gone.stdout), os.getpid()  # a runner started before the server is alive
    for name in (
        f"counter_{dead}.db",
        f"gauge_livesum_{dead}.db",
        f"counter_{alive}.db",
        "histogram_x.db",
        "notes.txt",
    ):
        (tmp_path / name).write_bytes(b"")
    metrics.empty_directory(str(tmp_path))
    assert sorted(os.listdir(tmp_path)) == [f"counter_{alive}.db", "notes.txt"]


def test_a_turn_whose_clock_ran_out_is_counted_once(client, app):
    clock = use_clock(app, FakeClock())
    created = create(client, TWO_REMOTE, rules={"turn_seconds": 30})
    before = value("boneyard_turn_timeouts_total")
    clock.advance(31)
    view(client, created["id"])  # the next request plays the turn that ran out
    view(client, created["id"])
    assert value("boneyard_turn_timeouts_total") == before + 1


def test_the_runners_look_at_the_queue_sets_the_backlog_and_its_lag(client, app):
    clock = use_clock(app, FakeClock())
    bus = app.extensions[BUS_KEY]
    bots = [{"name": f"R{n}", "type": "bot", "level": "random"} for n in range(2)]
    assert bus.handle(ClaimDueBots(20)) == []  # nothing owed
    assert (value("boneyard_autoplay_backlog_matches"), value("boneyard_autoplay_lag_seconds")) == (0, 0)
    create(client, bots)  # its first move due after the pace
    clock.advance(bus.flow.limits.autoplay_pace + 2.5)
    assert len(bus.handle(ClaimDueBots(20))) == 1
    assert (value("boneyard_autoplay_backlog_matches"), value("boneyard_autoplay_lag_seconds")) == (1, 2.5)


def test_a_stream_is_counted_as_waiting_from_its_start_to_its_close(client, live):
    match_id, _, _ = live
    before = value("boneyard_waiters", kind="stream")
    stream = client.get(f"/v1/matches/{match_id}/stream", buffered=False)
    assert stream.status_code == 200
    assert next(stream.response).startswith(b"retry:")
    assert value("boneyard_waiters", kind="stream") == before + 1
    stream.close()
    assert value("boneyard_waiters", kind="stream") == before
