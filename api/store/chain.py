"""The hash chain over a match's stored events (specified in openapi/events.md).

Each event row stores the hash of the previous row and its own:
``hash = SHA-256(prev_hash || 0x0A || canonical_json(row))`` where ``row`` is
``{"seq", "type", "schema_version", "data"}`` as stored and canonical JSON has sorted
keys, no spaces, and UTF-8 (no ASCII escaping). The first row's ``prev_hash`` is 64
zeros. Editing, removing or reordering any stored row breaks every later hash.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any

from api.store.records import StoredEvent

GENESIS = "0" * 64


def canonical_json(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")


def row_hash(prev_hash: str, seq: int, type_: str, schema_version: int, data: dict[str, Any]) -> str:
    body = {"seq": seq, "type": type_, "schema_version": schema_version, "data": data}
    return hashlib.sha256(prev_hash.encode("ascii") + b"\n" + canonical_json(body)).hexdigest()


def verify_chain(rows: Iterable[StoredEvent]) -> list[str]:
    """Problems found in a match's rows (``StoredEvent``-like, in seq order); empty if sound."""
    problems: list[str] = []
    prev = GENESIS
    for expected_seq, row in enumerate(rows, start=1):
        if row.seq != expected_seq:
            problems.append(f"seq {row.seq} where {expected_seq} was expected")
        if row.prev_hash != prev:
            problems.append(f"event {row.seq}: prev_hash does not link to event {row.seq - 1}")
        if row.hash != row_hash(row.prev_hash, row.seq, row.type, row.schema_version, row.data):
            problems.append(f"event {row.seq}: hash does not match its contents")
        prev = row.hash
    return problems
