"""Print the slowest tests of scripts/test's pytest passes, one list for all of them.

    python scripts/_slowest_tests.py COUNT LABEL=JUNIT_XML [LABEL=JUNIT_XML ...]

Each pass of scripts/test writes a JUnit XML report (pytest ``--junitxml``); this reads them
and prints the COUNT longest tests across the passes, longest first, each with its pass. A
test's time is its setup, call and teardown together (pytest's ``junit_duration_report``
default), so a test that pays for an expensive fixture shows it. A report that is missing or
unreadable (the pass crashed, or ``--junitxml`` was given again after ``--``) is named and
skipped: this list is for reading, it never changes scripts/test's exit code.
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import NamedTuple


class Timing(NamedTuple):
    seconds: float
    label: str
    test: str


def test_id(classname: str, name: str) -> str:
    """``tests.api.test_app`` and ``test_x[a]`` -> ``tests/api/test_app.py::test_x[a]`` (the
    suite has no test classes, so the class name is the module's dotted path)."""
    return f"{classname.replace('.', '/')}.py::{name}" if classname else name


def read_report(label: str, path: Path) -> list[Timing]:
    root = ElementTree.parse(path).getroot()
    return [
        Timing(float(case.get("time") or 0), label, test_id(case.get("classname", ""), case.get("name", "")))
        for case in root.iter("testcase")
    ]


def slowest(count: int, reports: list[tuple[str, Path]]) -> tuple[list[Timing], list[str]]:
    """The ``count`` longest tests of all the reports, and a note for each report not read."""
    timings: list[Timing] = []
    problems: list[str] = []
    for label, path in reports:
        try:
            timings += read_report(label, path)
        except (OSError, ElementTree.ParseError) as error:
            problems.append(f"{label}: no report ({error})")
    timings.sort(key=lambda timing: timing.seconds, reverse=True)
    return timings[:count], problems


def main(argv: list[str]) -> int:
    if len(argv) < 2 or not argv[0].isdigit() or not all("=" in arg for arg in argv[1:]):
        print(__doc__, file=sys.stderr)
        return 2
    reports = [(label, Path(path)) for label, _, path in (arg.partition("=") for arg in argv[1:])]
    timings, problems = slowest(int(argv[0]), reports)
    label_width = max((len(timing.label) for timing in timings), default=0)
    for timing in timings:
        print(f"{timing.seconds:8.2f} s  {timing.label:<{label_width}}  {timing.test}")
    for problem in problems:
        print(problem)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
