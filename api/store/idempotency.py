"""``uow.idempotency``: stored first responses of requests sent with an Idempotency-Key."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, delete, insert, select
from sqlalchemy.exc import IntegrityError

from api.store import tables
from api.store.repositories import utcnow


@dataclass(frozen=True, slots=True)
class IdempotencyRecord:
    token_hash: str
    key: str
    match_id: str
    request_hash: str
    state: str  # "done" ("in_flight" only in rows of older versions)
    response_status: int | None
    response_body: Any
    created_at: datetime


class IdempotencyRepository:
    def __init__(self, connection: Connection):
        self._conn = connection

    def get(self, token_hash: str, key: str) -> IdempotencyRecord | None:
        k = tables.idempotency_keys
        row = self._conn.execute(select(k).where(k.c.token_hash == token_hash, k.c.key == key)).mappings().first()
        return None if row is None else IdempotencyRecord(**row)

    def remember(self, token_hash: str, key: str, match_id: str, request_hash: str, status: int, body: Any) -> bool:
        """Store the first answer to a key; False if one is stored already (a race lost)."""
        savepoint = self._conn.begin_nested()
        try:
            self._conn.execute(
                insert(tables.idempotency_keys).values(
                    token_hash=token_hash,
                    key=key,
                    match_id=match_id,
                    request_hash=request_hash,
                    state="done",
                    response_status=status,
                    response_body=body,
                    created_at=utcnow(),
                )
            )
        except IntegrityError:
            savepoint.rollback()
            return False
        savepoint.commit()
        return True

    def forget(self, token_hash: str, key: str) -> None:
        k = tables.idempotency_keys
        self._conn.execute(delete(k).where(k.c.token_hash == token_hash, k.c.key == key))

    def purge(self, older_than: timedelta) -> int:
        """Drop keys older than ``older_than``; returns how many."""
        k = tables.idempotency_keys
        return self._conn.execute(delete(k).where(k.c.created_at < utcnow() - older_than)).rowcount
