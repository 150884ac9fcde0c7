"""scripts/check-contract: a full match of every preset, every answer checked against the document.

The script runs the app in-process on a SQLite file of its own, whatever DATABASE_URL says, so
the PostgreSQL pass of scripts/test would only repeat it: it runs in the SQLite pass.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from api.rules import PRESETS

from .support import ROOT

SCRIPT = ROOT / "scripts" / "check-contract"
SPEC = ROOT / "openapi" / "openapi.json"
# Every operation a client uses in a match (the health checks are not about matches).
MATCH_OPERATIONS = {
    label
    for label in (
        f"{method.upper()} {path}"
        for path, item in json.loads(SPEC.read_text())["paths"].items()
        for method in item
        if method != "parameters"
    )
    if not label.startswith(("GET /healthz", "GET /livez", "GET /readyz"))
}

pytestmark = pytest.mark.skipif(
    "postgresql" in os.environ.get("DATABASE_URL", ""),
    reason="the script brings its own SQLite database: the SQLite pass runs it",
)


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], check=False, capture_output=True, text=True, timeout=300, cwd=ROOT
    )


def statuses_by_operation(output: str) -> dict[str, dict[int, int]]:
    """The script's summary: ``  GET /v1/...   200x12 404x1`` per operation."""
    table = {}
    for line in output.splitlines():
        found = re.match(r"^  ((?:GET|POST|DELETE) \S+)\s+((?:\d{3}x\d+ ?)+)$", line)
        if found:
            table[found[1]] = {int(s): int(n) for s, n in re.findall(r"(\d{3})x(\d+)", found[2])}
    return table


def test_every_preset_plays_to_its_end_and_every_answer_conforms_to_the_document():
    done = run()
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
    summary = statuses_by_operation(done.stdout)
    assert set(summary) == MATCH_OPERATIONS, set(summary) ^ MATCH_OPERATIONS
    played = done.stdout.split("tables played (seconds):")[1]
    assert all(f"  {preset} " in played for preset in PRESETS), played
    assert "muggins_calls=True" in played
    # Deep into play and the refusals a client meets, not only the happy start.
    assert summary["POST /v1/matches/{match_id}/actions"][200] > 300
    assert {401, 403, 409, 412, 422} <= set(summary["POST /v1/matches/{match_id}/actions"])
    assert {200, 304, 401, 403, 404} <= set(summary["GET /v1/matches/{match_id}/view"])
    assert all(304 in summary[f"GET /v1/matches/{{match_id}}{read}"] for read in ("", "/events", "/audit"))
    assert {200, 201} <= set(summary["POST /v1/matches/{match_id}/rematch"])
    sent = re.search(r"listed legal actions sent: (.*)", done.stdout)[1]
    assert all(f"{kind} x" in sent for kind in ("play claim", "muggins", "draw", "draw until", "knock")), sent
    total = re.search(r"(\d+) responses validated against the document, 0 failures", done.stdout)
    assert total and int(total[1]) == sum(n for statuses in summary.values() for n in statuses.values())


def test_the_script_fails_on_a_document_the_server_does_not_follow(tmp_path):
    """Each of its checks can fail: a body against the schema, a status the operation does not
    list, and the script's own expectation (here, of the status a refusal gets)."""
    spec = json.loads(SPEC.read_text())
    spec["components"]["schemas"]["View"]["properties"]["seq"] = {"type": "string"}
    del spec["paths"]["/v1/matches/{match_id}/actions"]["post"]["responses"]["412"]
    wrong = tmp_path / "openapi.json"
    wrong.write_text(json.dumps(spec))
    done = run("--spec", str(wrong), "--preset", "winner-leads")
    assert done.returncode == 1, done.stdout
    failed = [line for line in done.stdout.splitlines() if line.startswith("FAILED")]
    assert any(
        line.startswith("FAILED GET /v1/matches/{match_id}/view -> 200") and "seq" in done.stdout for line in failed
    ), failed
    assert any(
        line.startswith("FAILED POST /v1/matches/{match_id}/actions -> 412") and "not listed on the operation" in line
        for line in failed
    ), failed
