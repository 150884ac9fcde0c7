"""A reader written from docs/records.md alone (``independent_parser.mjs``, Node, no code of the
server's) reads every record the server writes: each golden log's, a seat's redacted one, one with
comments. What it reads is checked against the log itself (not against the server's parser), and
its own writer, following the document's canonical form, gives back the server's text exactly."""

from __future__ import annotations

import json
import subprocess
from dataclasses import replace
from pathlib import Path

from api.records.from_events import record_of
from api.records.model import Comment
from api.records.text import write
from api.rules import redact_event
from api.tools.golden import EXAMPLES, VECTORS, log_of
from tests.clients.support import node_binary

PARSER = Path(__file__).with_name("independent_parser.mjs")
#: A log's events as the record's move tokens say them (openapi/events.md's names).
MOVE_EVENTS = {"tile_played", "tile_placed", "tile_drawn", "knocked", "passed", "turn_timed_out", "seat_replaced"}


def read_with_node(paths: list[Path]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [node_binary(), str(PARSER), *map(str, paths)], capture_output=True, text=True, timeout=120, check=False
    )


def moves_of_log(log: list[dict]) -> list[dict]:
    """The moves a record of ``log`` holds, in the independent reader's shape, from the log alone."""
    out: list[dict] = []
    for e in log:
        kind = e["type"]
        if kind in ("tile_played", "tile_placed"):
            place = e["end"] if kind == "tile_played" else str(e["train"])
            claim = e.get("claim")
            out.append(dict(seat=e["seat"], action="play", tile=e["tile"], place=place, auto=e["auto"], claim=claim))
            out[-1]["points"] = None
        elif kind == "points_scored" and e["how"] == "play":
            out[-1]["points"] = e["points"]
        elif kind == "points_scored":
            out.append({"seat": e["seat"], "action": "muggins", "points": e["points"]})
        elif kind == "tile_drawn":
            out.append({"seat": e["seat"], "action": "draw", "tile": e.get("tile"), "auto": e["auto"]})
        elif kind in ("knocked", "passed"):
            out.append({"seat": e["seat"], "action": "knock" if kind == "knocked" else "pass", "auto": e["auto"]})
        elif kind == "turn_timed_out":
            out.append({"seat": e["seat"], "action": "time-out", "consecutive": e["consecutive"]})
        elif kind == "seat_replaced":
            out.append({"seat": e["seat"], "action": "replaced", "level": e["level"]})
    return out


def deals_of_log(log: list[dict]) -> list[list]:
    return [
        [*e["hands"], e["boneyard"]] for e in log if e["type"] in ("hand_started", "round_started") and "hands" in e
    ]


def test_the_independent_reader_reads_every_record_the_server_writes(tmp_path):
    logs, paths = {}, []
    for vector in VECTORS:
        audit = json.loads((EXAMPLES / f"{vector.name}.audit.json").read_text())
        logs[vector.name] = (audit, log_of(audit))
        path = tmp_path / f"{vector.name}.rec"
        path.write_text(write(record_of(logs[vector.name][1], match_id=audit["match_id"])))
        paths.append(path)
    # a seat's record during play (redacted), and one with comments that need escaping
    _, log = logs["standard-draw-clock-2p"]
    during = log[: len(log) // 2]
    redacted = tmp_path / "redacted.rec"
    redacted.write_text(write(record_of([redact_event(e, 1) for e in during], seat=1)))
    commented = tmp_path / "commented.rec"
    first = record_of(logs[VECTORS[0].name][1])
    elements = list(first.elements)
    elements.insert(len(elements) // 2, Comment("a {note} \\ here"))
    commented.write_text(write(replace(first, elements=tuple(elements))))
    done = read_with_node([*paths, redacted, commented])
    assert done.returncode == 0, done.stderr
    read = {Path(entry["path"]).stem: entry for entry in json.loads(done.stdout)}
    for path in [*paths, redacted, commented]:
        assert read[path.stem]["canonical"] == path.read_text(), path.stem  # the document's canonical form
    for name, (audit, log) in logs.items():
        entry = read[name]
        tags = dict(entry["tags"])
        assert tags["Format"] == "boneyard-record/1" and tags["Seed"] == audit["seed"]
        assert tags["Rules"] == log[0]["rules"] and tags["Seats"] == log[0]["seats"]
        assert tags["SeedCommitment"] == audit["seed_commitment"]
        ended = log[-1]
        assert tags["Result"]["scores"] == ended["scores"] and tags["Result"]["winner"] == ended["winner"]
        moves = [{k: v for k, v in e.items() if k != "element"} for e in entry["elements"] if e["element"] == "move"]
        assert moves == moves_of_log(log), name
        deals = [e["tiles"] for e in entry["elements"] if e["element"] in ("deal", "boneyard")]
        flat = [part for deal in deals_of_log(log) for part in deal]
        assert deals == flat, name
    hidden = read["redacted"]
    assert "Seed" not in dict(hidden["tags"]) and dict(hidden["tags"])["Result"] == "*"
    dealt = [e for e in hidden["elements"] if e["element"] == "deal"]
    assert dealt and all(t is None for e in dealt if e["seat"] == 0 for t in e["tiles"])
    comments = [e["text"] for e in read["commented"]["elements"] if e["element"] == "comment"]
    assert comments == ["a {note} \\ here"]


def test_the_independent_reader_refuses_a_broken_record_at_its_line_and_column(tmp_path):
    audit = json.loads((EXAMPLES / "mexican-train-2p.audit.json").read_text())
    text = write(record_of(log_of(audit)))
    lines = text.split("\n")
    number = next(i for i, line in enumerate(lines) if line.startswith("Round 1"))
    lines[number] = "Round 1 engine 12 lead x"
    path = tmp_path / "broken.rec"
    path.write_text("\n".join(lines))
    done = read_with_node([path])
    assert done.returncode == 1
    assert done.stderr.startswith(f"{path}:{number + 1}:24: ")


def test_the_independent_reader_reads_a_record_annotated_with_the_analysis(tmp_path):
    from api.bots.analysis import analyse
    from api.records.annotations import annotate

    audit = json.loads((EXAMPLES / "dominorules-block-2p.audit.json").read_text())
    log = log_of(audit)
    analysis = analyse(log, audit["seed"]).to_json()
    annotated = annotate(record_of(log), log, analysis)
    path = tmp_path / "annotated.rec"
    path.write_text(write(annotated))
    done = read_with_node([path])
    assert done.returncode == 0, done.stderr
    (entry,) = json.loads(done.stdout)
    assert entry["canonical"] == path.read_text()
    comments = [e["text"] for e in entry["elements"] if e["element"] == "comment"]
    assert comments == [e.text for e in annotated.elements if isinstance(e, Comment)]
    assert len(comments) == len(analysis["decisions"]) + len(analysis["seats"])
    moves = [{k: v for k, v in e.items() if k != "element"} for e in entry["elements"] if e["element"] == "move"]
    assert moves == moves_of_log(log)
