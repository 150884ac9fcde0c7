"""``boneyard record …``: a match's record (docs/records.md) from its audit log, and back.

- ``from-audit AUDIT.json``: the record of a whole audit log (``GET /v1/matches/{id}/audit``,
  its pages together), in the canonical form.
- ``to-audit RECORD``: the audit log the record replays to, hash chain included, as the golden
  vectors hold it (``openapi/examples/*.audit.json``).
- ``validate RECORD``: the record read, and replayed when it reveals its seed; every error as
  ``FILE:LINE:COLUMN: message``.
- ``replay RECORD``: the final state and scores the record replays to (the golden vectors'
  ``*.expected.json`` shape).

``-`` reads standard input. Exit 0 when the record is sound, 1 when it is not (the first error
on stderr), 2 for a file that cannot be read or holds no whole audit log. No server is needed.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from api.records.from_events import UnwritableEvent, record_of
from api.records.model import Record
from api.records.replay import RecordReplayError, replay
from api.records.text import RecordSyntaxError, parse, write
from api.tools.golden import audit_document, dumps, log_of, summarize


class Unreadable(Exception):
    """The input cannot be read, or holds no whole audit log (exit 2)."""


def _read(source: str, stdin: TextIO) -> str:
    try:
        if source == "-":
            return stdin.read()
        with open(source, encoding="utf-8") as file:
            return file.read()
    except OSError as exc:
        raise Unreadable(f"cannot read {source}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise Unreadable(f"{source} is not UTF-8 text: {exc}") from None


def _audit_log(text: str, source: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The audit document in ``text`` and its bare events."""
    try:
        audit = json.loads(text)
    except ValueError as exc:
        raise Unreadable(f"{source} is not JSON: {exc}") from None
    if not isinstance(audit, dict) or not isinstance(audit.get("events"), list) or not audit["events"]:
        raise Unreadable(f'{source} is not an audit log (the JSON of GET /v1/matches/{{id}}/audit: "events", …)')
    if audit.get("next_after") is not None:
        raise Unreadable(f"{source} is one page of the audit: put its pages together (follow next_after)")
    if not all(isinstance(row, dict) for row in audit["events"]):
        raise Unreadable(f"{source}: every row of the audit is an event object")
    return audit, log_of(audit)


def _record(args: argparse.Namespace) -> tuple[str, Record]:
    name = "<stdin>" if args.record == "-" else args.record
    return name, parse(_read(args.record, sys.stdin))


def from_audit(args: argparse.Namespace) -> int:
    audit, events = _audit_log(_read(args.audit, sys.stdin), args.audit)
    circumstances = {"Event": args.event, "Site": args.site, "Date": args.date}
    try:
        record = record_of(events, match_id=audit.get("match_id"), circumstances=circumstances)
    except (UnwritableEvent, KeyError, TypeError, IndexError) as exc:
        raise Unreadable(f"{args.audit}: not a log the record format can write: {exc!r}") from None
    sys.stdout.write(write(record))
    return 0


def _replayed_audit(record: Record) -> dict[str, Any]:
    events = [event.to_dict() for event in replay(record)]
    return audit_document(record.value("Match") or "?", record.value("Seed"), events)


def to_audit(args: argparse.Namespace) -> int:
    _, record = _record(args)
    sys.stdout.write(dumps(_replayed_audit(record)))
    return 0


def validate(args: argparse.Namespace) -> int:
    name, record = _record(args)
    elements = len(record.without_comments())
    if record.value("Seed") is None:
        print(f"{name}: read, {elements} elements; not replayed: it reveals no seed (a match still going on)")
        return 0
    events = replay(record)
    print(f"{name}: read and replayed, {elements} elements, {len(events)} events")
    return 0


def replay_command(args: argparse.Namespace) -> int:
    _, record = _record(args)
    print(json.dumps(summarize(_replayed_audit(record)), indent=1))
    return 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``record``'s sub-commands, on the ``boneyard`` command's sub-parser (api/cli.py)."""
    commands = parser.add_subparsers(dest="record_command", required=True, metavar="SUBCOMMAND")
    made = commands.add_parser("from-audit", help="the record of a whole audit log")
    made.add_argument("audit", metavar="AUDIT.json", help='a whole audit log ("-": standard input)')
    made.add_argument("--event", default="?", help="the Event tag")
    made.add_argument("--site", default="?", help="the Site tag")
    made.add_argument("--date", default="????.??.??", help="the Date tag, YYYY.MM.DD")
    made.set_defaults(action=from_audit)
    for name, action, what in (
        ("to-audit", to_audit, "the audit log a record replays to"),
        ("validate", validate, "read a record (and replay it when it reveals its seed): errors as FILE:LINE:COLUMN"),
        ("replay", replay_command, "the final state and scores a record replays to"),
    ):
        command = commands.add_parser(name, help=what)
        command.add_argument("record", metavar="RECORD", help='a record ("-": standard input)')
        command.set_defaults(action=action)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run the sub-command; the exit code of the module's docstring."""
    try:
        code: int = args.action(args)
    except Unreadable as exc:
        print(f"boneyard record: {exc}", file=sys.stderr)
        return 2
    except (RecordSyntaxError, RecordReplayError) as exc:
        print(f"{'<stdin>' if args.record == '-' else args.record}:{exc}", file=sys.stderr)
        return 1
    return code
