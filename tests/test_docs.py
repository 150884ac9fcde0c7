"""The documentation holds to the code: the rule book names every option and preset as the
code resolves them, the golden-vector format page names every field of the vectors, and no
file of the project points outside the repository (the docs must stand on their own)."""

from __future__ import annotations

import ast
import importlib
import io
import json
import re
import subprocess
import tokenize
from collections.abc import Iterator
from pathlib import Path

import pytest

from api.rules import PRESETS, resolve_rules
from api.rules.games import family_of
from api.rules.line_games import LINE_GAMES
from api.rules.ruleset import BOOLEAN_OPTIONS, OPTION_CHOICES, OPTION_NAMES
from api.rules.trains_games import TRAINS_GAMES
from api.tools.golden import EXAMPLES

ROOT = Path(__file__).resolve().parents[1]
RULE_BOOK = ROOT / "docs" / "rules.md"
GOLDEN_FORMAT = ROOT / "openapi" / "golden.md"
# Set by preset tables, not by fixed option values (the rule book's preset table has columns for them).
PER_PLAYER_COUNT = ("hand_size", "target")


def section(text: str, number: int) -> str:
    """The text of ``## <number>. …`` up to the next ``## `` heading."""
    match = re.search(rf"^## {number}\. .*?$(.*?)(?=^## |\Z)", text, flags=re.MULTILINE | re.DOTALL)
    assert match, f"no section {number}"
    return match.group(1)


def table_rows(text: str) -> list[list[str]]:
    """The body rows of the first Markdown table in ``text``, as lists of cells."""
    rows = [line for line in text.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in row.strip("|").split(" | ")] for row in rows[2:]]


def code_spans(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


# --- the rule book -------------------------------------------------------------------------------
TRAINS_ONLY = set(TRAINS_GAMES.options) - set(LINE_GAMES.options)  # rounds, double_blank_points, ...


def plays_to_a_target(preset: str) -> bool:
    """The line games play to a target; the trains games to the last round (lowest total wins)."""
    options = family_of(preset).options
    return options is None or "target" in options


def option_table() -> dict[str, list[str]]:
    return {code_spans(row[0])[0]: row for row in table_rows(section(RULE_BOOK.read_text(), 13))}


def preset_table() -> dict[str, list[str]]:
    return {code_spans(row[0])[0]: row for row in table_rows(section(RULE_BOOK.read_text(), 14))}


def test_the_rule_books_option_table_has_exactly_the_codes_options():
    assert sorted(option_table()) == sorted(OPTION_NAMES)


def test_the_rule_book_gives_each_option_its_values_and_its_default():
    rules = resolve_rules("standard-draw", {}, 2)
    standard = {name: getattr(rules, name) for name in OPTION_NAMES}  # the record's values, said or unsaid
    trains = resolve_rules("mexican-train", {}, 2)  # the trains games' own options: Mexican Train's defaults
    standard |= {name: getattr(trains, name) for name in TRAINS_ONLY}
    for name, (_, values, default, _meaning) in option_table().items():
        if name in OPTION_CHOICES:
            assert [json.loads(v) for v in code_spans(values)] == list(OPTION_CHOICES[name]), name
        if name in BOOLEAN_OPTIONS:
            assert [json.loads(v) for v in code_spans(values)] == [False, True], name
        if name == "boneyard_reserve":
            assert [json.loads(v) for v in code_spans(values)] == [0, 2]
        if name not in PER_PLAYER_COUNT:
            assert json.loads(code_spans(default)[0]) == standard[name], name


def test_the_rule_books_preset_table_has_exactly_the_codes_presets():
    assert sorted(preset_table()) == sorted(PRESETS)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_the_rule_book_says_what_each_preset_sets_for_every_player_count(preset):
    _, players, sets, sizes, _target = preset_table()[preset]
    counts = [int(n) for n in re.findall(r"\d", players)]
    counts = list(range(counts[0], counts[-1] + 1))
    assert tuple(counts) == PRESETS[preset].players
    plain = resolve_rules("standard-draw", {}, counts[0])
    resolved = {n: resolve_rules(preset, {}, n).to_dict() for n in counts}
    changed = {
        k: v
        for k, v in resolved[counts[0]].items()
        if k in OPTION_NAMES and k not in PER_PLAYER_COUNT and v != getattr(plain, k)
    }
    listed = dict(span.split(": ", 1) for span in code_spans(sets) if ": " in span)
    assert {k: json.loads(v) for k, v in listed.items()} == changed
    assert [int(n) for n in re.findall(r"\d+", sizes)] == [resolved[n]["hand_size"] for n in counts]


def test_the_rule_book_states_each_presets_target():
    rows = preset_table()
    for preset in filter(plays_to_a_target, PRESETS):
        targets = {resolve_rules(preset, {}, n).target for n in PRESETS[preset].players}
        assert {int(n) for n in re.findall(r"\d+", rows[preset][4])} == targets, preset
    assert resolve_rules("pagat-draw", {"partners": True}, 4).target == 100  # "100 with 2 players or partners"


def test_the_option_table_names_each_preset_whose_target_is_not_the_default():
    """The `target` row's default cell names, by its code, every preset that does not play to 100."""
    default = option_table()["target"][2]
    for preset in filter(plays_to_a_target, PRESETS):
        targets = {resolve_rules(preset, {}, n).target for n in PRESETS[preset].players}
        if targets != {100}:
            assert f"`{preset}`" in default, preset
            assert all(str(t) in default for t in targets - {100}), preset


def test_the_readmes_option_table_gives_every_presets_target():
    """The README's short table of options says every default target a preset plays to."""
    readme = (ROOT / "README.md").read_text()
    row = next(line for line in readme.splitlines() if line.startswith("| `target` |"))
    for preset in filter(plays_to_a_target, PRESETS):
        for target in {resolve_rules(preset, {}, n).target for n in PRESETS[preset].players}:
            assert str(target) in row, (preset, target)


# --- the golden vector format ------------------------------------------------------------------------
def documented_fields(heading: str) -> set[str]:
    """The field names (first column) of the table under ``heading`` in openapi/golden.md."""
    text = GOLDEN_FORMAT.read_text()
    match = re.search(rf"^#+ {re.escape(heading)}$(.*?)(?=^#|\Z)", text, flags=re.MULTILINE | re.DOTALL)
    assert match, heading
    return {code_spans(row[0])[0] for row in table_rows(match.group(1))}


def expected_files(trains: bool = False) -> list[dict]:
    """The committed expected states: the line games' (``hands``), or the trains games' (``rounds``)."""
    docs = [json.loads(path.read_text()) for path in sorted(EXAMPLES.glob("*.expected.json"))]
    return [doc for doc in docs if ("rounds" in doc) == trains]


def test_golden_md_documents_every_field_of_every_expected_file():
    files = expected_files()
    assert files
    assert {key for doc in files for key in doc} == documented_fields("The expected state: `<name>.expected.json`")
    assert {key for doc in files for hand in doc["hands"] for key in hand} == documented_fields("Each hand")
    trains = expected_files(trains=True)
    assert {doc["preset"] for doc in trains} == {"mexican-train", "chicken-foot"}
    assert {key for doc in trains for key in doc} == documented_fields("A trains game's expected state")
    assert {key for doc in trains for line in doc["rounds"] for key in line} == documented_fields("Each round")


def test_golden_md_documents_every_field_of_the_audit_files():
    audits = [json.loads(path.read_text()) for path in sorted(EXAMPLES.glob("*.audit.json"))]
    assert {key for doc in audits for key in doc} == documented_fields("The log: `<name>.audit.json`")


def test_the_expected_files_hold_the_invariants_golden_md_states():
    for doc in expected_files():
        scores = [0] * len(doc["scores"])
        for number, hand in enumerate(doc["hands"], start=1):
            assert hand["hand_number"] == number
            for side, points in enumerate(hand["points_in_play"]):
                scores[side] += points
            if hand["side"] is not None:
                scores[hand["side"]] += hand["points"]
            assert hand["scores"] == scores, doc["match_id"]
            if hand["reason"] is None:  # cut short: the match ended mid-hand
                assert hand is doc["hands"][-1] and (hand["winner"], hand["side"], hand["points"]) == (None, None, 0)
            if hand["winner"] is None:
                assert (hand["side"], hand["points"]) == (None, 0)
        assert scores == doc["scores"] and doc["hand_number"] == len(doc["hands"])
        assert doc["status"] == "ended" and doc["scores"][doc["winner"]] >= doc["target"]
        assert len(doc["scores"]) == (2 if doc["partners"] else doc["players"])
    for doc in expected_files(trains=True):
        totals, top = [0] * doc["players"], 12 if doc["preset"] == "mexican-train" else 9
        for number, line in enumerate(doc["rounds"], start=1):
            assert (line["round"], line["engine"], line["leader"]) == (
                number,
                top - number + 1,
                (number - 1) % doc["players"],
            )
            totals = [t + p for t, p in zip(totals, line["pips"], strict=True)]
            assert line["totals"] == totals and (line["winner"] is None or line["pips"][line["winner"]] == 0)
        assert totals == doc["scores"] and doc["round"] == len(doc["rounds"]) and doc["status"] == "ended"
        assert (
            doc["winners"] == [s for s, t in enumerate(totals) if t == min(totals)]
            and doc["winner"] == doc["winners"][0]
        )


# --- events.md ---------------------------------------------------------------------------------------
def test_events_md_says_a_redacted_draw_has_no_tile_key_everywhere():
    text = (ROOT / "openapi" / "events.md").read_text()
    assert "tile: null" not in text and '"tile": null' not in text
    fold_rule = re.search(r"^6\. `tile_drawn`:.*?(?=^7\. )", text, flags=re.MULTILINE | re.DOTALL).group(0)
    assert "no `tile` key" in fold_rule


# --- no pointers outside the repository --------------------------------------------------------------
# Built from pieces so that this file does not match itself.
OUTSIDE = [re.compile(p) for p in (r"\.\./" + "shared", r"(?<![\w/.-])" + "see" + "ds/", r"\b" + "RULES" + r"\.md\b")]
SKIPPED_DIRS = {".git", ".venv", "node_modules", "__pycache__", ".pytest_cache", ".hypothesis", ".ruff_cache"}


def project_files() -> list[Path]:
    """The files of the project: git's tracked and not-ignored files, or a walk without git."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT,
            capture_output=True,
            check=True,
            timeout=30,
        ).stdout.decode()
        paths = {ROOT / name for name in listed.split("\0") if name}
    except (OSError, subprocess.CalledProcessError):
        paths = {p for p in ROOT.rglob("*") if not SKIPPED_DIRS.intersection(p.relative_to(ROOT).parts)}
    return sorted(p for p in paths if p.is_file())


def text_of(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return None  # binary, or gone since listed


def test_no_file_points_to_the_rule_sources_outside_the_repository():
    offending = []
    for path in project_files():
        text = text_of(path)
        if text is None:
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            if any(pattern.search(line) for pattern in OUTSIDE):
                offending.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:120]}")
    assert offending == [], "point to docs/rules.md instead:\n" + "\n".join(offending)


def slug(heading: str) -> str:
    """The anchor a Markdown renderer (GitHub's) gives a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    return {slug(m.group(1)) for m in re.finditer(r"^#+ (.*)$", path.read_text(), flags=re.MULTILINE)}


def test_every_relative_link_of_the_markdown_files_resolves_inside_the_repository():
    broken = []
    for path in project_files():
        if path.suffix != ".md":
            continue
        for target in re.findall(r"\]\(([^)\s]+)\)", path.read_text()):
            if re.match(r"[a-z][a-z0-9+.-]*:", target):
                continue  # https:, mailto: …
            file_part, _, anchor = target.partition("#")
            linked = (path.parent / file_part).resolve() if file_part else path
            if not linked.is_relative_to(ROOT) or not linked.exists():
                broken.append(f"{path.relative_to(ROOT)}: {target}")
            elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
                broken.append(f"{path.relative_to(ROOT)}: {target} (no such heading)")
    assert broken == []


# --- names and paths the prose mentions exist ------------------------------------------------------
# `api.rules.engine.apply` (a module, or a name in one) and a project path (`api/services/flow.py`, `bench/engine.py`,
# `tests/api/helpers.play_bots`) in the Markdown files and in Python comments and docstrings.
DOTTED_NAME = re.compile(r"(?<![\w./-])(api(?:\.[A-Za-z_]\w*)+)")
PROJECT_PATH = re.compile(r"(?<![\w./-])((?:api|tests|bench|scripts|docs|openapi|clients|migrations)/[\w./-]*[\w/])")
FILE_SUFFIXES = (".py", ".md", ".json", ".js", ".mjs", ".css", ".html", ".ts")


def resolves(dotted: str) -> bool:
    """Whether ``dotted`` is an importable module, or a name reachable from one by attributes."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            if not hasattr(found, name):
                return False
            found = getattr(found, name)
        return True
    return False


def prose_lines(path: Path, text: str) -> Iterator[tuple[int, str]]:
    """The lines of a Markdown file; of a Python file, its comments and docstrings only (not code or messages)."""
    if path.suffix == ".md":
        yield from enumerate(text.splitlines(), start=1)
        return
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                for offset, line in enumerate(first.value.value.splitlines()):
                    yield first.lineno + offset, line


def dangling(line: str) -> Iterator[str]:
    for match in DOTTED_NAME.finditer(line):
        name = match.group(1).rstrip(".")
        if not name.endswith(FILE_SUFFIXES) and not resolves(name):
            yield name
    for match in PROJECT_PATH.finditer(line):
        named = match.group(1).rstrip(".")
        if (ROOT / named).exists():
            continue
        module, _, attribute = named.rpartition(".")  # tests/api/helpers.play_bots: a name in a file
        if module and (ROOT / f"{module}.py").exists() and resolves(f"{module.replace('/', '.')}.{attribute}"):
            continue
        yield named


def test_every_module_name_and_project_path_the_docs_and_comments_mention_exists():
    stale: list[str] = []
    for path in project_files():
        if path.suffix not in (".md", ".py") or path.is_relative_to(ROOT / "openapi" / "examples"):
            continue
        text = text_of(path)
        if text is None:
            continue
        for number, line in prose_lines(path, text):
            stale.extend(f"{path.relative_to(ROOT)}:{number}: {name}" for name in dangling(line))
    assert stale == [], "renamed or removed, still mentioned:\n" + "\n".join(sorted(stale))


# --- the event schema's option descriptions ----------------------------------------------------------
def test_each_rule_set_option_the_event_schema_describes_cites_a_rule_book_section_that_names_it():
    """A reader sent to "docs/rules.md, section N" for an option must find that option there."""
    schema = json.loads((ROOT / "openapi" / "events.schema.json").read_text())
    book = RULE_BOOK.read_text()
    citation = re.compile(r"docs/rules\.md, sections? (\d+(?:(?:, | and | to )\d+)*)")
    cited = {}
    for name, spec in schema["$defs"]["RuleSet"]["properties"].items():
        for match in citation.finditer(spec.get("description", "")):
            numbers = [int(n) for n in re.findall(r"\d+", match.group(1))]
            if " to " in match.group(1):
                numbers = list(range(numbers[0], numbers[-1] + 1))
            cited[name] = numbers
            for number in numbers:
                assert f"`{name}`" in section(book, number), f"{name}: section {number} does not name it"
    assert {"set", "end_count_scoring"} <= set(cited)  # the test reads the citations it is about
