"""The JavaScript replayer reads records too (clients/js/record.mjs): every golden log's record
becomes the same log again (the same chain head) by the replayer's own rules, and replays to the
golden vector's final state; a record the rules refuse fails at its line and column."""

from __future__ import annotations

import json
import subprocess

import pytest

from api.records.from_events import record_of
from api.records.text import write
from api.tools.golden import EXAMPLES, VECTORS, log_of
from tests.clients.support import REPLAYER, node_binary

NAMES = [vector.name for vector in VECTORS]


def replay_record(path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [node_binary(), str(REPLAYER), str(path)], capture_output=True, text=True, timeout=120, check=False
    )


@pytest.mark.parametrize("name", NAMES)
def test_node_replays_each_golden_record_to_the_golden_final_state(name, tmp_path):
    audit = json.loads((EXAMPLES / f"{name}.audit.json").read_text())
    path = tmp_path / f"{name}.rec"
    path.write_text(write(record_of(log_of(audit), match_id=audit["match_id"])))
    done = replay_record(path)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    checks = summary.pop("checks")
    assert summary == json.loads((EXAMPLES / f"{name}.expected.json").read_text())
    assert checks["chain_rows"] == len(audit["events"])


def test_node_refuses_a_record_whose_move_the_rules_refuse_at_its_line_and_column(tmp_path):
    audit = json.loads((EXAMPLES / "standard-draw-2p.audit.json").read_text())
    lines = write(record_of(log_of(audit), match_id=audit["match_id"])).split("\n")
    number = lines.index("Hand 1 lead 0") + 4  # the first line of moves
    tokens = lines[number].split(" ")
    own = next(i for i, token in enumerate(tokens) if "*" not in token and token[2].isdigit())
    tokens[own] = tokens[own][:2] + ("6-6" if tokens[own][2:5] != "6-6" else "5-5") + tokens[own][5:]
    lines[number] = " ".join(tokens)
    path = tmp_path / "bad.rec"
    path.write_text("\n".join(lines))
    done = replay_record(path)
    column = 1 + sum(len(token) + 1 for token in tokens[:own])
    assert done.returncode == 1
    assert done.stderr.startswith(f"replay.mjs: {path}:{number + 1}:{column}: refused by the rules: "), done.stderr
