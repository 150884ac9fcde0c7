"""OpenTelemetry traces (api/traces.py): nothing of OpenTelemetry is imported unless
OTEL_EXPORTER_OTLP_ENDPOINT is set; set, each request is a span named by its route template,
and each step of the autoplay runner one, with the match id and the event seq as attributes."""

from __future__ import annotations

import subprocess
import sys

import pytest

from api import create_app, traces
from api.services.autoplay import Autoplay
from tests.servers import ROOT

NOTHING_IMPORTED = """
import sys
from api import create_app
app = create_app({"DATABASE_URL": "sqlite://", "TESTING": True})
assert app.test_client().get("/livez").status_code == 200
print(sorted(name for name in sys.modules if name.startswith("opentelemetry")))
"""


def test_without_an_endpoint_nothing_of_opentelemetry_is_imported():
    done = subprocess.run(
        [sys.executable, "-c", NOTHING_IMPORTED],
        cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", "LOG_LEVEL": "WARNING"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


@pytest.fixture
def spans(monkeypatch):
    """The spans of an app made with an endpoint set, exported to memory as they end."""
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # the test extra

    exporter = InMemorySpanExporter()
    configure = traces.configure
    monkeypatch.setattr(traces, "_tracer", None)  # and back to what it was after the test
    monkeypatch.setattr(traces, "configure", lambda config: configure(config, exporter=exporter))
    return exporter


def test_each_request_and_each_runner_step_is_a_span_with_its_match_and_seq(spans, database_url):
    app = create_app(
        {
            "DATABASE_URL": database_url,
            "TESTING": True,
            "AUTOPLAY_PACE_SECONDS": 0,  # the all-bot match's first move is due at once
            "OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector.invalid:4318",
        }
    )
    try:
        client = app.test_client()
        seats = [{"name": "Sam", "type": "remote"}, {"name": "Kit", "type": "remote"}]
        made = client.post("/v1/matches", json={"seats": seats}, headers={"X-Request-ID": "made-1"}).get_json()
        turn = made["turn"]
        token = made["seats"][turn]["token"]
        seat_view = client.get(f"/v1/matches/{made['id']}/view", headers={"Authorization": f"Bearer {token}"})
        action = seat_view.get_json()["legal_actions"][0]
        acted = client.post(
            f"/v1/matches/{made['id']}/actions", json=action, headers={"Authorization": f"Bearer {token}"}
        ).get_json()
        bots = [{"name": "A", "type": "bot"}, {"name": "B", "type": "bot"}]
        all_bots = client.post("/v1/matches", json={"seats": bots}).get_json()
        assert Autoplay(app.extensions["boneyard.bus"]).run_once() > 0
    finally:
        app.extensions["boneyard.store"].dispose()

    by_name: dict[str, list] = {}
    for span in spans.get_finished_spans():
        by_name.setdefault(span.name, []).append(span)
    (creation, _bots) = by_name["POST /v1/matches"]
    assert creation.attributes["http.response.status_code"] == 201
    assert creation.attributes["boneyard.request_id"] == "made-1" and creation.attributes["http.route"] == "/v1/matches"
    (action_span,) = by_name["POST /v1/matches/<string:match_id>/actions"]
    assert action_span.attributes["boneyard.match_id"] == made["id"]
    assert action_span.attributes["boneyard.event_seq"] == acted["view"]["seq"] > made["seq"]
    assert action_span.attributes["boneyard.seat"] == turn
    assert action_span.attributes["http.response.status_code"] == 200
    steps = [step for step in by_name["autoplay step"] if step.attributes["boneyard.match_id"] == all_bots["id"]]
    assert steps and steps[0].attributes["boneyard.events_appended"] >= 1
    assert {span.resource.attributes["service.name"] for span in spans.get_finished_spans()} == {"boneyard"}
