"""``boneyard record``: from an audit log to a record and back, validate and replay, with exit codes."""

from __future__ import annotations

import json

from api.cli import main
from api.tools.golden import EXAMPLES

AUDIT = EXAMPLES / "mexican-train-clock-3p.audit.json"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["record", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_from_audit_then_to_audit_gives_the_audit_back_byte_for_byte(capsys, tmp_path):
    code, record, _ = run(capsys, "from-audit", str(AUDIT), "--event", "Club night", "--date", "2026.12.04")
    assert code == 0 and '[Event "Club night"]' in record and '[Date "2026.12.04"]' in record
    path = tmp_path / "match.rec"
    path.write_text(record)
    code, audit, _ = run(capsys, "to-audit", str(path))
    assert code == 0 and audit == AUDIT.read_text()


def test_validate_and_replay_a_record(capsys, tmp_path):
    _, record, _ = run(capsys, "from-audit", str(AUDIT))
    path = tmp_path / "match.rec"
    path.write_text(record)
    code, out, _ = run(capsys, "validate", str(path))
    assert code == 0 and out.startswith(f"{path}: read and replayed")
    code, out, _ = run(capsys, "replay", str(path))
    assert code == 0
    assert json.loads(out) == json.loads((EXAMPLES / "mexican-train-clock-3p.expected.json").read_text())


def test_a_bad_record_exits_1_with_file_line_and_column(capsys, tmp_path):
    _, record, _ = run(capsys, "from-audit", str(AUDIT))
    lines = record.split("\n")
    number = next(i for i, line in enumerate(lines) if line.startswith("Round 1"))
    lines[number] = "Round 1 engine 11 lead 0"  # round 1 of Mexican Train is 12-12's
    path = tmp_path / "bad.rec"
    path.write_text("\n".join(lines))
    code, _, err = run(capsys, "validate", str(path))
    assert code == 1
    assert err.startswith(f"{path}:{number + 1}:1: the rules give Round 1 engine 12 lead 0 here")
    path.write_text(record.replace("[Players 3]", "[Players 3"))
    code, _, err = run(capsys, "replay", str(path))
    assert code == 1 and err.startswith(f"{path}:9:")


def test_a_file_that_is_no_audit_log_exits_2(capsys, tmp_path):
    path = tmp_path / "page.json"
    path.write_text(json.dumps({"events": [{"seq": 1}], "next_after": 1}))
    code, _, err = run(capsys, "from-audit", str(path))
    assert code == 2 and "one page of the audit" in err
    code, _, err = run(capsys, "validate", str(tmp_path / "missing.rec"))
    assert code == 2 and "cannot read" in err
