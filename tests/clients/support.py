"""Shared by the client tests: the golden vectors, the JS replayer, API helpers."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from api.store.memory import MemoryStore
from api.tools.golden import EXAMPLES, VECTORS, audit_document
from tests.services.conftest import Clock
from tests.services.test_bot_moves_audited import ended_match

ROOT = Path(__file__).resolve().parents[2]
REPLAYER = ROOT / "clients" / "js" / "replay.mjs"
VECTOR_NAMES = [v.name for v in VECTORS]


def golden(name: str) -> tuple[dict, dict]:
    """The committed audit document and expected final state of a vector."""
    return (
        json.loads((EXAMPLES / f"{name}.audit.json").read_text()),
        json.loads((EXAMPLES / f"{name}.expected.json").read_text()),
    )


def node_binary() -> str:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not installed: run scripts/ensure-node")
    return node


def run_replayer(path: Path, *options: str) -> subprocess.CompletedProcess:
    """``node replay.mjs [options] path``: its exit code, stdout (the summary) and stderr."""
    return subprocess.run(
        [node_binary(), str(REPLAYER), *options, str(path)], capture_output=True, text=True, timeout=60
    )


def create(client, seats, preset, rules=None, seed=None) -> dict:
    body = {"preset": preset, "seats": seats, "rules": rules or {}}
    if seed is not None:
        body["seed"] = seed
    response = client.post("/v1/matches", json=body)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def bots(*levels: str) -> list[dict]:
    return [{"name": f"Bot {i}", "type": "bot", "level": level} for i, level in enumerate(levels)]


def served(rules: dict, seats: tuple, offload: Any = None) -> tuple[Any, str, dict, list[dict]]:
    """An All Fives match played to its end through the use cases (memory store, fake clock): the
    bus, its id, its whole audit document and its bare log. ``offload``: e.g. a ``SwapOnce``."""
    clock = Clock()
    bus, match_id, seed, log = ended_match(MemoryStore(now=clock), clock, "all-fives", rules, seats, offload=offload)
    return bus, match_id, audit_document(match_id, seed, log), log
