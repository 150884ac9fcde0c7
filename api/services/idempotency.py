"""Idempotency keys for actions (the IETF httpapi Idempotency-Key draft's semantics).

A retry with the same key and the same request gets the first answer again and changes
nothing; the same key with another request is refused. Keys are scoped to the seat token
that sent them and stored only once that token is known to be a seat of the match.

Atomic by construction: an action's stored answer is written in the very transaction
that appends the action's events, under the match's lock. After a crash either both
committed (a retry replays the answer) or neither did (a retry runs the action, once).
Duplicates racing each other queue on that lock; the later one finds the key and
replays. A refusal (which appends nothing) is stored on its own.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from api.store.idempotency import IdempotencyRecord

from . import errors

RETENTION = timedelta(hours=24)
MAX_KEY_LENGTH = 255
#: Exactly the header values :func:`parse_key` accepts (the OpenAPI document says so): 1 to 255
#: printable ASCII characters without leading or trailing spaces, or a key of 1 to 255 of them
#: in quotes (a structured-field string); ``""``, an empty quoted key, is not one. Written without lookahead, so that
#: every regular-expression dialect a generated client may use reads it.
KEY_PATTERN = r'^([!#-~]([ -~]{0,253}[!-~])?|"|"[ -~]{1,255}"|"[ -~]{0,253}[!#-~])$'
PURGE_EVERY = 500


class IdempotencyKeyReused(errors.ServiceError):
    code = "idempotency_key_reused"


class InvalidIdempotencyKey(errors.ServiceError):
    code = "invalid_idempotency_key"


def parse_key(header: str) -> str:
    """The key from the header: a structured-field string (``"abc"``) or a bare token."""
    key = header.strip()
    if len(key) >= 2 and key[0] == key[-1] == '"':
        key = key[1:-1]
    if not 1 <= len(key) <= MAX_KEY_LENGTH or not key.isprintable() or not key.isascii():
        raise InvalidIdempotencyKey(f"an Idempotency-Key is 1 to {MAX_KEY_LENGTH} printable ASCII characters")
    return key


#: How the HTTP layer answers a refusal: ``(status, the response body as sent)``.
RefusalRenderer = Callable[[Exception], tuple[int, str]]
#: How the HTTP layer answers an action's result: the response body as sent.
ResultRenderer = Callable[[dict[str, Any]], str]


@dataclass(frozen=True)
class Keyed:
    """An action sent with an Idempotency-Key: the key, a fingerprint of the request (method,
    path, preconditions, body), and how the HTTP layer renders its answers, so that the very
    bytes first sent are stored and a retry gets them again."""

    key: str
    fingerprint: str
    render_refusal: RefusalRenderer
    render_result: ResultRenderer


@dataclass(frozen=True)
class StoredAnswer:
    """The first answer to a key: its status, the body as sent, and whether it was a refusal
    (a problem document) or an action's result."""

    status: int
    text: str
    problem: bool = False

    def to_body(self) -> dict[str, Any]:
        return {"text": self.text, "problem": self.problem}

    @classmethod
    def from_row(cls, status: int, body: dict[str, Any]) -> StoredAnswer:
        if "text" in body:
            return cls(status, body["text"], bool(body.get("problem")))
        # A key stored by the version before (kept 24 h): the parsed body and its media type.
        return cls(status, json.dumps(body.get("body")), body.get("mimetype") == "application/problem+json")


class Replay(Exception):
    """Not an error: the key was seen before; answer ``stored`` again and do nothing."""

    def __init__(self, stored: StoredAnswer):
        super().__init__("replayed")
        self.stored = stored


def check_same_request(record: IdempotencyRecord, keyed: Keyed, match_id: str) -> StoredAnswer:
    """The stored answer of ``record`` for a retry of ``keyed``; refuses another request."""
    if record.request_hash != keyed.fingerprint or record.match_id != match_id:
        raise IdempotencyKeyReused("this Idempotency-Key was used for a different request")
    if record.response_status is None:  # an "in_flight" row of an older version: it never finished
        raise IdempotencyKeyReused("this Idempotency-Key's first request never finished: send a new key")
    return StoredAnswer.from_row(record.response_status, record.response_body or {})
