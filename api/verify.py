"""``boneyard verify AUDIT.json``: an ended match's whole audit log checked offline, as ``/fairness`` checks it.

No server and no database: the log is the JSON that the pages of ``GET /v1/matches/{id}/audit``
make together (as in ``openapi/examples/*.audit.json``; ``-`` reads standard input). The checks
are the fairness check's own (``api.services.fairness.check_log``): the hash chain, the revealed
seed against its commitment, every event replayed through the rules (``api.rules.audit``: every
deal re-derived, every move legal, every score) and every computer player's decision made again
(``api.bots.audit``). To them this adds the chain heads pinned earlier (``--pin SEQ:HASH``,
``--pins FILE``): a log rewritten and chained anew since is caught by the first pin after the
rewrite; and the audit's header must be its log's (``seed_commitment`` and ``shuffle_algorithm``
as ``match_created`` has them). The JavaScript replayer (clients/js/replay.mjs) checks all this without Python but
the bots' decisions, which it counts as not re-checked: here they are made again.

Prints a JSON report (``verified``, the first ``departure`` from an honest log, the counts of
each check, ``bot_moves_checked`` per level, every problem) and exits 0 when verified, 1 when
not, 2 for a bad command line or a file that holds no whole audit log (one line on stderr).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TextIO

from api.bots.audit import BotRecheck
from api.rules.audit import AuditReport
from api.services.fairness import LogCheck, check_log, report_of
from api.store.chain import GENESIS, verify_chain
from api.store.codec import EventCodecError
from api.store.records import StoredEvent

#: The fields of an /audit row that are not the event's own data (api/services/reading.py), and their types.
ROW_FIELDS: dict[str, type] = {"seq": int, "type": str, "schema_version": int, "prev_hash": str, "hash": str}
#: An audit row does not say when it was stored, and no check reads it.
NOT_RECORDED = datetime(1970, 1, 1, tzinfo=UTC)
PIN = re.compile(r"^(\d+):([0-9a-fA-F]{64})$")
#: Where a problem says it is: ``seq N: …``, ``event N: …`` (the chain), ``seq N where M was expected``.
AT_SEQ = re.compile(r"^(?:seq|event) (\d+)(?: where (\d+) was expected)?")


class UnreadableAudit(Exception):
    """The input holds no whole audit log (exit 2, nothing was verified)."""


@dataclass(frozen=True)
class Pin:
    """A chain head seen earlier (a view's or an event page's ``chain_head``): row ``seq`` had ``hash``."""

    seq: int
    hash: str

    @classmethod
    def parse(cls, text: str) -> Pin:
        """``SEQ:HASH`` as given to ``--pin``."""
        match = PIN.match(text)
        if match is None:
            raise argparse.ArgumentTypeError(f"--pin takes SEQ:HASH (a seq and 64 hex digits), not {text!r}")
        return cls(int(match[1]), match[2].lower())

    @classmethod
    def from_json(cls, value: Any) -> Pin:
        """``{"seq": n, "hash": "hex"}`` as listed in a ``--pins`` file."""
        seq = value.get("seq") if isinstance(value, dict) else None
        digest = value.get("hash") if isinstance(value, dict) else None
        if not isinstance(seq, int) or isinstance(seq, bool) or not isinstance(digest, str):
            raise argparse.ArgumentTypeError(f'a pin is {{"seq": n, "hash": "hex"}}, not {json.dumps(value)}')
        return cls.parse(f"{seq}:{digest}")


def read_pins(path: str) -> list[Pin]:
    """The pins of a ``--pins`` file: a JSON array of ``{"seq": n, "hash": "hex"}``."""
    try:
        with open(path, encoding="utf-8") as file:
            listed = json.load(file)
    except (OSError, ValueError) as exc:
        raise argparse.ArgumentTypeError(f"cannot read {path}: {exc}") from None
    if not isinstance(listed, list):
        raise argparse.ArgumentTypeError(f'{path}: --pins takes a JSON array of {{"seq": n, "hash": "hex"}}')
    return [Pin.from_json(value) for value in listed]


def read_audit(source: str, stdin: TextIO) -> dict[str, Any]:
    """The audit document in ``source`` (a path, or ``-`` for ``stdin``)."""
    name = "standard input" if source == "-" else source
    try:
        if source == "-":
            return json.load(stdin)  # type: ignore[no-any-return]
        with open(source, encoding="utf-8") as file:
            return json.load(file)  # type: ignore[no-any-return]
    except OSError as exc:
        raise UnreadableAudit(f"cannot read {source}: {exc.strerror or exc}") from None
    except ValueError as exc:  # JSONDecodeError, or bytes that are not UTF-8
        raise UnreadableAudit(f"{name} is not JSON: {exc}") from None


def stored_rows(audit: Any) -> list[StoredEvent]:
    """The rows of a whole audit document, as the store holds them; ``UnreadableAudit`` if it is
    not one (another JSON document, a single page, a log without its revealed seed)."""
    if not isinstance(audit, dict) or not isinstance(audit.get("events"), list) or "seed" not in audit:
        raise UnreadableAudit('not an audit log (the JSON of GET /v1/matches/{id}/audit: "seed", "events", …)')
    if audit.get("next_after") is not None:
        raise UnreadableAudit(
            f"this is one page of the audit (rows after {audit['next_after']} are on the next pages): "
            "put its pages together (follow next_after until it is null)"
        )
    if not isinstance(audit["seed"], str):
        raise UnreadableAudit("the audit reveals no seed: its match has not ended, so it cannot be verified yet")
    rows = []
    for number, row in enumerate(audit["events"], start=1):
        if not isinstance(row, dict) or not all(isinstance(row.get(f), kind) for f, kind in ROW_FIELDS.items()):
            fields = ", ".join(ROW_FIELDS)
            raise UnreadableAudit(f"row {number} of the audit is not an event row ({fields} and its data)")
        data = {k: v for k, v in row.items() if k not in ROW_FIELDS}
        seq, kind, version, prev_hash, digest = (row[f] for f in ROW_FIELDS)
        rows.append(StoredEvent(seq, kind, version, data, NOT_RECORDED, prev_hash, digest))
    if not rows:
        raise UnreadableAudit("the audit holds no events")
    if rows[0].seq != 1:
        raise UnreadableAudit(f"the audit starts at seq {rows[0].seq}: it is a later page, not the whole log")
    for row in rows:
        try:
            row.to_dict()
        except EventCodecError as exc:
            raise UnreadableAudit(f"seq {row.seq}: {exc}") from None
    return rows


def pin_problems(rows: Sequence[StoredEvent], pins: Sequence[Pin]) -> list[str]:
    """Each pinned head the log does not hold as it was pinned."""
    problems = []
    for pin in pins:
        if pin.seq == 0:  # the head shown before the first event
            if pin.hash != GENESIS:
                problems.append(f"seq 0: pinned hash {pin.hash}, which only the genesis hash can be")
        elif pin.seq > len(rows):
            problems.append(f"seq {pin.seq}: pinned hash {pin.hash}, but the log ends at seq {len(rows)}")
        elif rows[pin.seq - 1].hash != pin.hash:
            problems.append(f"seq {pin.seq}: pinned hash {pin.hash} but the log has {rows[pin.seq - 1].hash}")
    return problems


def departure(problems: Sequence[str]) -> dict[str, Any] | None:
    """The first seq at which the log departs from an honest one, and why (the earliest problem;
    one that names no seq is about the opening: match_created and its commitment, seq 1)."""
    found = []
    for problem in problems:
        match = AT_SEQ.match(problem)
        found.append((int(match[2] or match[1]) if match else 1, problem))
    if not found:
        return None
    seq, reason = min(found, key=lambda item: item[0])
    return {"seq": seq, "reason": reason}


#: What the checks raise on a field of another type or shape than openapi/events.md gives (a
#: ``rules`` that is a number, a tile that is not two numbers): the server never stores one, so
#: ``/fairness`` does not guard against it; a file given to this command may hold anything.
MISSHAPEN = (TypeError, ValueError, KeyError, IndexError, AttributeError)


def checked(rows: Sequence[StoredEvent], seed: str) -> LogCheck:
    """``check_log``'s findings; for a log that makes it raise, the seq of the first row it cannot
    read (the length of the shortest prefix that raises: the checks read the rows in order) and why."""
    try:
        return check_log(rows, seed)
    except MISSHAPEN as exc:
        failure = (len(rows), exc)
    low, high = 1, len(rows)  # check_log(rows[:high]) raises; find the least such length
    while low < high:
        middle = (low + high) // 2
        try:
            check_log(rows[:middle], seed)
            low = middle + 1
        except MISSHAPEN as exc:
            high, failure = middle, (middle, exc)
    seq, error = failure
    reason = f"seq {seq}: a {rows[seq - 1].type} the checks cannot read ({type(error).__name__}: {error})"
    return LogCheck(verify_chain(rows), AuditReport(problems=[reason]), BotRecheck())


def verify_audit(audit: Any, pins: Sequence[Pin] = ()) -> dict[str, Any]:
    """The report on a whole audit document: ``/fairness``'s, with the pins, the first departure
    and the bot decisions made again per level. ``UnreadableAudit`` if it holds no whole log."""
    rows = stored_rows(audit)
    found = checked(rows, audit["seed"])
    report = report_of(str(audit.get("match_id")), audit["seed"], audit.get("seed_commitment"), rows, found)
    extra = pin_problems(rows, pins)
    if audit.get("seed_commitment") != rows[0].data.get("seed_commitment"):
        extra.append("seq 1: the audit's seed_commitment is not the one match_created published")
    if audit.get("shuffle_algorithm") != rows[0].data.get("seed_algorithm"):  # the set's (openapi/shuffle.md)
        extra.append("seq 1: the audit's shuffle_algorithm is not the seed_algorithm match_created names")
    problems = extra + report.pop("problems")
    return {
        "verified": report.pop("verified") and not extra,
        "departure": departure(problems),
        **report,
        "pins_checked": len(pins),
        "bot_moves_checked": found.bots.checked_by_level,
        "problems": problems,
    }


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``verify``'s arguments, on the ``boneyard`` command's sub-parser (api/cli.py)."""
    parser.add_argument("audit", metavar="AUDIT.json", help='a whole audit log ("-": standard input)')
    parser.add_argument(
        "--pin", type=Pin.parse, action="append", default=[], metavar="SEQ:HASH", help="a chain head seen earlier"
    )
    parser.add_argument(
        "--pins", type=read_pins, action="append", default=[], metavar="FILE", help='a JSON array of {"seq", "hash"}'
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Verify ``args.audit``; print the report; 0 verified, 1 not, 2 no whole audit log."""
    pins = [*args.pin, *(pin for listed in args.pins for pin in listed)]
    try:
        report = verify_audit(read_audit(args.audit, sys.stdin), pins)
    except UnreadableAudit as exc:
        print(f"boneyard verify: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(report, indent=1))
    return 0 if report["verified"] else 1
