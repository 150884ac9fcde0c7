"""Pinned chain heads: proof, once a match has ended, that the log you were shown was not rewritten.

Every view and events page carries ``chain_head``, ``{"seq": n, "hash": h}``: where the match's
hash chain ended when the server answered. The client keeps each one it is shown
(:class:`PinnedHeads`); after the end, :func:`verify_pinned` recomputes the revealed audit
log's hash chain and checks that it passes through every pinned head. Each hash covers every
earlier row, so a log rewritten at or before a pinned seq cannot pass. What that proves and
what it does not: ``openapi/events.md``, "What a pinned head proves".

The hashes are over the unredacted rows, which a seat does not see during play: a pin is
checked only once ``GET /audit`` reveals the log.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from .errors import BoneyardError, PinnedHeadMismatch

#: The ``prev_hash`` of a match's first row.
GENESIS = "0" * 64
#: What every row of the audit log holds besides its event's own fields (``data``).
ROW_FIELDS = ("seq", "type", "schema_version", "prev_hash", "hash")

_HASH = re.compile(r"[0-9a-f]{64}")

#: Pins as :func:`verify_pinned` takes them: seq -> hash, or ``[{"seq", "hash"}, ...]`` (the
#: JSON list that ``node clients/js/replay.mjs --pins FILE`` reads).
Pins = Mapping[int, str] | Iterable[Mapping[str, Any]]


class PinnedHeads:
    """The chain heads one client was shown, per match (``seq -> hash``).

    Showing two hashes for one seq is a fork (an honest log has one row per seq): :meth:`pin`
    raises :class:`PinnedHeadMismatch` at once."""

    def __init__(self) -> None:
        self._by_match: dict[str, dict[int, str]] = {}

    def pin(self, match_id: str, head: Any) -> None:
        """Keep ``head`` (an answer's ``chain_head``) for ``match_id``; None (an older server) is ignored."""
        if head is None:
            return
        seq, digest = _parse_head(head)
        pinned = self._by_match.setdefault(match_id, {})
        if pinned.get(seq, digest) != digest:
            raise PinnedHeadMismatch(
                seq,
                f"the server showed two different chain heads for this seq ({pinned[seq]} and {digest}): "
                "it served two different logs",
                pinned[seq],
                digest,
            )
        pinned[seq] = digest

    def heads(self, match_id: str) -> dict[int, str]:
        """The heads pinned for ``match_id``: seq -> hash (a copy)."""
        return dict(self._by_match.get(match_id, {}))

    def as_json(self, match_id: str) -> list[dict[str, Any]]:
        """The pins as ``[{"seq", "hash"}, ...]`` in seq order: what ``replay.mjs --pins FILE`` reads."""
        return [{"seq": seq, "hash": digest} for seq, digest in sorted(self.heads(match_id).items())]

    def __contains__(self, match_id: object) -> bool:
        return match_id in self._by_match


def verify_pinned(audit_log: Mapping[str, Any], heads: Pins) -> None:
    """Check that ``audit_log`` (the whole ``GET /audit`` document, as ``BoneyardClient.audit``
    answers it) passes through every pinned head; raise :class:`PinnedHeadMismatch` naming the
    first seq where it does not.

    Each row's hash is recomputed from its contents (the hashes the log states are not taken
    on trust: a row edited without re-hashing fails here too), the links checked, and the hash
    at each pinned seq compared with the pin. Rows after the last pin are not checked (nothing
    pins them: see openapi/events.md)."""
    pins = _as_pins(heads)
    if not pins:
        return
    if pins.get(0, GENESIS) != GENESIS:  # a head pinned before the first event
        raise PinnedHeadMismatch(0, f"pinned hash {pins[0]} at seq 0, which only the genesis hash can be", pins[0])
    last_pin = max(pins)
    rows = audit_log.get("events") or []
    prev = GENESIS
    for expected_seq, row in enumerate(rows, start=1):
        if expected_seq > last_pin:
            return
        if row.get("seq") != expected_seq:
            raise PinnedHeadMismatch(
                expected_seq,
                f"the audit log has no row {expected_seq} (found seq {row.get('seq')!r} in its place)",
                pins.get(expected_seq),
            )
        if row.get("prev_hash") != prev:
            raise PinnedHeadMismatch(expected_seq, "the row's prev_hash does not link to the row before it")
        digest = row_hash(row)
        if row.get("hash") != digest:
            raise PinnedHeadMismatch(
                expected_seq,
                f"the row states hash {row.get('hash')} but its contents hash to {digest}",
                pins.get(expected_seq),
                row.get("hash"),
            )
        if expected_seq in pins and pins[expected_seq] != digest:
            raise PinnedHeadMismatch(
                expected_seq,
                f"pinned hash {pins[expected_seq]}, but the audit log's row hashes to {digest}: "
                "the log up to this seq is not the one the server showed",
                pins[expected_seq],
                digest,
            )
        prev = digest
    shown = len(rows)
    if last_pin <= shown:
        return
    missing = min(seq for seq in pins if seq > shown)
    raise PinnedHeadMismatch(
        missing, f"a head is pinned here, but the audit log ends at seq {shown}", pins[missing], None
    )


def row_hash(row: Mapping[str, Any]) -> str:
    """The hash of one audit row (openapi/events.md, "The hash chain"): SHA-256 of its
    ``prev_hash``, a newline, and the canonical JSON of ``{seq, type, schema_version, data}``."""
    data = {k: v for k, v in row.items() if k not in ROW_FIELDS}
    body = {"seq": row["seq"], "type": row["type"], "schema_version": row["schema_version"], "data": data}
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return hashlib.sha256(str(row["prev_hash"]).encode("ascii") + b"\n" + canonical.encode("utf-8")).hexdigest()


def _parse_head(head: Any) -> tuple[int, str]:
    seq = head.get("seq") if isinstance(head, Mapping) else None
    digest = head.get("hash") if isinstance(head, Mapping) else None
    if not isinstance(seq, int) or isinstance(seq, bool) or seq < 0 or not isinstance(digest, str):
        raise BoneyardError(f"not a chain head: {head!r} (want {{'seq': n >= 0, 'hash': 64 hex digits}})")
    if not _HASH.fullmatch(digest):
        raise BoneyardError(f"not a chain head: hash {digest!r} is not 64 lowercase hex digits")
    return seq, digest


def _as_pins(heads: Pins) -> dict[int, str]:
    if isinstance(heads, Mapping):
        return dict(_parse_head({"seq": int(seq), "hash": digest}) for seq, digest in heads.items())
    pins: dict[int, str] = {}
    for head in heads:
        seq, digest = _parse_head(head)
        if pins.get(seq, digest) != digest:
            raise PinnedHeadMismatch(seq, f"two different hashes pinned for this seq ({pins[seq]} and {digest})")
        pins[seq] = digest
    return pins
