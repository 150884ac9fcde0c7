"""Idempotency keys for actions (the IETF httpapi Idempotency-Key draft's semantics).

A retry with the same key and the same request gets the first response again and
changes nothing; the same key with another request is refused; a retry while the first
is still being processed is told so. Keys are scoped to the seat token that sent them,
kept in the database for at least ``RETENTION``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from api.store import Store

from . import errors, tokens
from api.store.repositories import utcnow

RETENTION = timedelta(hours=24)
ABANDONED_AFTER = timedelta(seconds=60)   # an in-flight key older than this was lost with its worker
MAX_KEY_LENGTH = 255
PURGE_EVERY = 500


@dataclass(frozen=True)
class StoredResponse:
    status: int
    body: Any


class IdempotencyKeyReused(errors.ServiceError):
    code = "idempotency_key_reused"


class IdempotencyInFlight(errors.ServiceError):
    code = "idempotency_in_flight"


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


class IdempotencyService:
    def __init__(self, store: Store):
        self.store = store
        self._begun = 0

    def begin(self, token: str, key: str, match_id: str, request_hash: str) -> StoredResponse | None:
        """Claim ``key`` for this request; a stored response means: answer that, do nothing."""
        token_hash = tokens.hash_token(token)
        with self.store.unit_of_work() as uow:
            self._begun += 1
            if self._begun % PURGE_EVERY == 0:
                uow.idempotency.purge(RETENTION)
            for _attempt in range(2):
                if uow.idempotency.start(token_hash, key, match_id, request_hash):
                    uow.commit()
                    return None
                existing = uow.idempotency.get(token_hash, key)
                if existing is None:
                    continue                      # deleted between the two statements: try again
                if existing.request_hash != request_hash or existing.match_id != match_id:
                    raise IdempotencyKeyReused("this Idempotency-Key was used for a different request")
                if existing.state == "done":
                    return StoredResponse(existing.response_status, existing.response_body)
                if utcnow() - existing.created_at < ABANDONED_AFTER:
                    raise IdempotencyInFlight("a request with this Idempotency-Key is still being processed")
                uow.idempotency.forget(token_hash, key)   # its worker died: start over
            raise IdempotencyInFlight("a request with this Idempotency-Key is still being processed")

    def finish(self, token: str, key: str, status: int, body: Any) -> None:
        with self.store.unit_of_work() as uow:
            uow.idempotency.finish(tokens.hash_token(token), key, status, body)
            uow.commit()

    def abandon(self, token: str, key: str) -> None:
        with self.store.unit_of_work() as uow:
            uow.idempotency.forget(tokens.hash_token(token), key)
            uow.commit()
