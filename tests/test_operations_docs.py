"""docs/operations.md and the Grafana dashboard read the metrics ``api/metrics.py`` defines, and
no other: the table lists each one with its type and labels, and every name an alert or a panel
uses exists (tests/e2e/test_metrics_http.py finds the dashboard's names in a real scrape)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from api import metrics

ROOT = Path(__file__).resolve().parents[1]
OPERATIONS = ROOT / "docs" / "operations.md"
DASHBOARD = ROOT / "docs" / "grafana" / "boneyard.json"
NAME = re.compile(r"\bboneyard_[a-z_]+\b")


def dashboard_expressions() -> list[str]:
    dashboard = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    return [target["expr"] for panel in dashboard["panels"] for target in panel["targets"]]


def dashboard_names() -> set[str]:
    """Every metric name the dashboard's expressions read."""
    return {name for expr in dashboard_expressions() for name in NAME.findall(expr)}


def documented_rows() -> dict[str, tuple[str, list[str]]]:
    """``{name: (type, labels)}`` of the table of every metric."""
    rows = {}
    for line in OPERATIONS.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 4 and NAME.fullmatch(cells[0].strip("`")):
            rows[cells[0].strip("`")] = (cells[1].split(" ")[0], re.findall(r"`(\w+)`", cells[2]))
    return rows


def test_the_table_lists_every_metric_with_its_type_and_labels():
    defined = {}
    for metric in metrics.ALL:
        family = metric.describe()[0]
        defined[family.name + ("_total" if family.type == "counter" else "")] = (family.type, list(metric._labelnames))
    assert len(defined) == len(metrics.ALL)
    assert documented_rows() == defined


def test_every_name_the_dashboard_reads_is_a_metric_of_the_module():
    names = dashboard_names()
    assert "boneyard_http_request_duration_seconds_bucket" in names  # the walk finds names
    assert names - set(metrics.exported_names()) == set()


def test_the_dashboard_shows_every_metric():
    families = {name.removesuffix("_bucket").removesuffix("_count") for name in dashboard_names()}
    defined = {metric.describe()[0].name for metric in metrics.ALL}
    assert {name.removesuffix("_total") for name in families} == defined


def test_every_name_the_alerts_use_is_a_metric_of_the_module():
    blocks = re.findall(r"```promql\n(.*?)```", OPERATIONS.read_text(encoding="utf-8"), re.DOTALL)
    assert len(blocks) == 5  # 5xx rate, p99 latency, autoplay lag, webhook failures, database busy
    used = {name for block in blocks for name in NAME.findall(block)}
    assert used and used - set(metrics.exported_names()) == set()


def test_every_panel_has_a_query_and_a_unique_id():
    dashboard = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    ids = [panel["id"] for panel in dashboard["panels"]]
    assert len(ids) == len(set(ids)) == 14
    assert all(panel["targets"] and all(t["expr"].strip() for t in panel["targets"]) for panel in dashboard["panels"])
