"""scripts/_slowest_tests.py: the list of slowest tests that scripts/test prints at its end."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from tests.conftest import ROOT

_spec = importlib.util.spec_from_file_location("_slowest_tests", ROOT / "scripts" / "_slowest_tests.py")
assert _spec is not None and _spec.loader is not None
slowest_tests = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(slowest_tests)


def _report(path: Path, *cases: tuple[str, str, float]) -> Path:
    rows = "".join(f'<testcase classname="{cls}" name="{name}" time="{time}" />' for cls, name, time in cases)
    path.write_text(f'<testsuites><testsuite name="pytest">{rows}</testsuite></testsuites>', encoding="utf-8")
    return path


def test_the_longest_tests_of_every_pass_come_first_each_with_its_pass(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sqlite = _report(
        tmp_path / "a.xml", ("tests.rules.test_x", "test_quick", 0.5), ("tests.e2e.test_y", "test_b", 9.25)
    )
    postgres = _report(tmp_path / "b.xml", ("tests.store.test_z", "test_c[pg]", 3.0))
    assert slowest_tests.main(["2", f"SQLite={sqlite}", f"PostgreSQL={postgres}"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "    9.25 s  SQLite      tests/e2e/test_y.py::test_b",
        "    3.00 s  PostgreSQL  tests/store/test_z.py::test_c[pg]",
    ]


def test_a_missing_report_is_named_and_the_others_still_listed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sqlite = _report(tmp_path / "a.xml", ("tests.rules.test_x", "test_a", 1.0))
    assert slowest_tests.main(["15", f"SQLite={sqlite}", f"PostgreSQL={tmp_path / 'none.xml'}"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "    1.00 s  SQLite  tests/rules/test_x.py::test_a"
    assert lines[1].startswith("PostgreSQL: no report (")
    assert len(lines) == 2
