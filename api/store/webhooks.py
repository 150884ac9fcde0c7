"""Webhook repositories: SQL for ``webhooks``, the ``webhook_deliveries`` outbox and the
``webhook_attempts`` log (``api.services.webhooks`` says what they are for)."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Row, and_, delete, insert, or_, select, update

from api.store import tables

PENDING, DELIVERED, FAILED = "pending", "delivered", "failed"


@dataclass(frozen=True)
class WebhookRecord:
    id: str
    portal_id: str
    url: str
    events: tuple[str, ...]
    secret: str = field(repr=False)
    created_at: datetime
    #: The secret the current one replaced, valid too until ``previous_secret_until`` (a rotation's overlap).
    previous_secret: str | None = field(default=None, repr=False)
    previous_secret_until: datetime | None = None

    def secrets_at(self, now: datetime) -> tuple[str, ...]:
        """The secrets an attempt at ``now`` is signed with: the current one first."""
        until = self.previous_secret_until
        if self.previous_secret is None or until is None or now >= until:
            return (self.secret,)
        return (self.secret, self.previous_secret)


@dataclass(frozen=True)
class NewDelivery:
    """An outbox row to write: one endpoint, one event."""

    id: str
    webhook_id: str
    event_type: str
    match_id: str
    seq: int
    body: str


@dataclass(frozen=True)
class AttemptRecord:
    number: int
    attempted_at: datetime
    duration_ms: int
    status_code: int | None
    error: str | None


@dataclass(frozen=True)
class DeliveryRecord:
    id: str
    webhook_id: str
    event_type: str
    match_id: str
    seq: int
    body: str
    status: str
    attempts: int
    round_attempts: int
    next_attempt_at: datetime | None
    created_at: datetime
    delivered_at: datetime | None
    log: tuple[AttemptRecord, ...] = ()  # newest first


@dataclass(frozen=True)
class DueDelivery:
    """A claimed delivery with what sending it needs: its endpoint (the URL, the secrets: which
    of them sign is decided at each attempt, ``WebhookRecord.secrets_at``)."""

    id: str
    event_type: str
    body: str
    webhook: WebhookRecord

    @property
    def webhook_id(self) -> str:
        return self.webhook.id

    @property
    def url(self) -> str:
        return self.webhook.url


def _webhook(row: Row[Any]) -> WebhookRecord:
    return WebhookRecord(
        row.id,
        row.portal_id,
        row.url,
        tuple(row.events),
        row.secret,
        row.created_at,
        row.previous_secret,
        row.previous_secret_until,
    )


def _attempt(row: Row[Any]) -> AttemptRecord:
    return AttemptRecord(row.number, row.attempted_at, row.duration_ms, row.status_code, row.error)


class WebhookRepository:
    """``uow.webhooks``: a portal's endpoints, their outbox and its delivery log."""

    def __init__(self, connection: Connection):
        self._conn = connection

    # --- endpoints ---------------------------------------------------------------------------
    def add(self, webhook: WebhookRecord) -> None:
        self._conn.execute(
            insert(tables.webhooks).values(
                id=webhook.id,
                portal_id=webhook.portal_id,
                url=webhook.url,
                events=list(webhook.events),
                secret=webhook.secret,
                created_at=webhook.created_at,
            )
        )

    def for_portal(self, portal_id: str) -> builtins.list[WebhookRecord]:
        """The portal's endpoints, oldest first (one indexed read: what an append of a portal
        match costs)."""
        w = tables.webhooks
        query = select(w).where(w.c.portal_id == portal_id).order_by(w.c.created_at, w.c.id)
        return [_webhook(row) for row in self._conn.execute(query)]

    def get(self, portal_id: str, webhook_id: str) -> WebhookRecord | None:
        """The endpoint, if it is this portal's."""
        w = tables.webhooks
        row = self._conn.execute(select(w).where(w.c.id == webhook_id, w.c.portal_id == portal_id)).first()
        return None if row is None else _webhook(row)

    def remove(self, portal_id: str, webhook_id: str) -> bool:
        """Delete the endpoint with its deliveries and their log; False when it is not the portal's."""
        if self.get(portal_id, webhook_id) is None:
            return False
        d, a = tables.webhook_deliveries, tables.webhook_attempts
        ids = select(d.c.id).where(d.c.webhook_id == webhook_id).scalar_subquery()
        self._conn.execute(delete(a).where(a.c.delivery_id.in_(ids)))
        self._conn.execute(delete(d).where(d.c.webhook_id == webhook_id))
        self._conn.execute(delete(tables.webhooks).where(tables.webhooks.c.id == webhook_id))
        return True

    def set_secret(self, portal_id: str, webhook_id: str, secret: str, previous_until: datetime | None = None) -> bool:
        """``secret`` in force; the one it replaces stays valid until ``previous_until`` (None:
        dropped now). A secret replaced before is dropped either way: one overlap at a time."""
        w = tables.webhooks
        done = self._conn.execute(
            update(w)
            .where(w.c.id == webhook_id, w.c.portal_id == portal_id)
            .values(  # in SET, w.c.secret is the row's value before this statement
                secret=secret,
                previous_secret=None if previous_until is None else w.c.secret,
                previous_secret_until=previous_until,
            )
        )
        return done.rowcount == 1

    def any_ended_secret(self, now: datetime) -> bool:
        w = tables.webhooks
        return self._conn.execute(select(w.c.id).where(w.c.previous_secret_until <= now).limit(1)).first() is not None

    def drop_ended_secrets(self, now: datetime) -> int:
        """Forget the replaced secrets whose overlap has ended; how many."""
        w = tables.webhooks
        ended = update(w).where(w.c.previous_secret_until <= now)
        return self._conn.execute(ended.values(previous_secret=None, previous_secret_until=None)).rowcount

    # --- the outbox --------------------------------------------------------------------------
    def add_deliveries(self, rows: Sequence[NewDelivery], now: datetime) -> None:
        if not rows:
            return
        self._conn.execute(
            insert(tables.webhook_deliveries),
            [
                {
                    "id": r.id,
                    "webhook_id": r.webhook_id,
                    "event_type": r.event_type,
                    "match_id": r.match_id,
                    "seq": r.seq,
                    "body": r.body,
                    "status": PENDING,
                    "attempts": 0,
                    "round_attempts": 0,
                    "next_attempt_at": now,
                    "lease_until": None,
                    "created_at": now,
                    "delivered_at": None,
                }
                for r in rows
            ],
        )

    def deliveries(
        self, webhook_id: str, limit: int, before: tuple[datetime, str] | None = None
    ) -> builtins.list[DeliveryRecord]:
        """The endpoint's deliveries, newest first, each with its attempts; ``before``: only
        those older than this ``(created_at, id)``."""
        d = tables.webhook_deliveries
        query = select(d).where(d.c.webhook_id == webhook_id)
        if before is not None:
            at, last_id = before
            query = query.where(or_(d.c.created_at < at, and_(d.c.created_at == at, d.c.id < last_id)))
        rows = list(self._conn.execute(query.order_by(d.c.created_at.desc(), d.c.id.desc()).limit(limit)))
        logs = self._logs([row.id for row in rows])
        return [self._delivery(row, logs.get(row.id, ())) for row in rows]

    def delivery(self, webhook_id: str, delivery_id: str) -> DeliveryRecord | None:
        d = tables.webhook_deliveries
        row = self._conn.execute(select(d).where(d.c.id == delivery_id, d.c.webhook_id == webhook_id)).first()
        return None if row is None else self._delivery(row, self._logs([delivery_id]).get(delivery_id, ()))

    def requeue(self, webhook_id: str, delivery_id: str, now: datetime) -> bool:
        """Make the delivery due now, as a new round of attempts (a replay)."""
        d = tables.webhook_deliveries
        done = self._conn.execute(
            update(d)
            .where(d.c.id == delivery_id, d.c.webhook_id == webhook_id)
            .values(status=PENDING, next_attempt_at=now, lease_until=None, round_attempts=0)
        )
        return done.rowcount == 1

    def _due(self, now: datetime) -> Any:
        d = tables.webhook_deliveries
        return (
            select(d.c.id)
            .where(
                d.c.status == PENDING,
                d.c.next_attempt_at <= now,
                or_(d.c.lease_until.is_(None), d.c.lease_until < now),
            )
            .order_by(d.c.next_attempt_at, d.c.id)
        )

    def any_due(self, now: datetime) -> bool:
        return self._conn.execute(self._due(now).limit(1)).first() is not None

    def claim_due(self, now: datetime, lease_until: datetime, limit: int) -> builtins.list[DueDelivery]:
        """Claim up to ``limit`` due deliveries no live worker holds (their lease becomes
        ``lease_until``). PostgreSQL skips rows another worker is claiming (``FOR UPDATE SKIP
        LOCKED``); on SQLite the write lock serialises claims."""
        query = self._due(now).limit(limit)
        if self._conn.dialect.name == "postgresql":
            query = query.with_for_update(skip_locked=True)
        ids = list(self._conn.execute(query).scalars())
        if not ids:
            return []
        d, w = tables.webhook_deliveries, tables.webhooks
        self._conn.execute(update(d).where(d.c.id.in_(ids)).values(lease_until=lease_until))
        rows = self._conn.execute(
            select(d.c.id.label("delivery_id"), d.c.event_type, d.c.body, w)
            .join(w, w.c.id == d.c.webhook_id)
            .where(d.c.id.in_(ids))
            .order_by(d.c.next_attempt_at, d.c.id)
        )
        return [DueDelivery(r.delivery_id, r.event_type, r.body, _webhook(r)) for r in rows]

    def lock_delivery(self, delivery_id: str) -> tuple[int, int] | None:
        """The delivery's ``(attempts, round_attempts)``, locked until the transaction ends (None: gone)."""
        d = tables.webhook_deliveries
        query = select(d.c.attempts, d.c.round_attempts).where(d.c.id == delivery_id)
        if self._conn.dialect.name == "postgresql":
            query = query.with_for_update()
        row = self._conn.execute(query).first()
        return None if row is None else (row.attempts, row.round_attempts)

    def record_attempt(
        self,
        delivery_id: str,
        attempt: AttemptRecord,
        *,
        round_attempts: int,
        status: str,
        next_attempt_at: datetime | None,
    ) -> None:
        """Log one attempt (``attempt.number`` is the delivery's new attempt count) and its outcome."""
        self._conn.execute(
            insert(tables.webhook_attempts).values(
                delivery_id=delivery_id,
                number=attempt.number,
                attempted_at=attempt.attempted_at,
                duration_ms=attempt.duration_ms,
                status_code=attempt.status_code,
                error=attempt.error,
            )
        )
        d = tables.webhook_deliveries
        self._conn.execute(
            update(d)
            .where(d.c.id == delivery_id)
            .values(
                attempts=attempt.number,
                round_attempts=round_attempts,
                status=status,
                next_attempt_at=next_attempt_at,
                lease_until=None,
                delivered_at=attempt.attempted_at if status == DELIVERED else None,
            )
        )

    def _logs(self, delivery_ids: builtins.list[str]) -> dict[str, tuple[AttemptRecord, ...]]:
        if not delivery_ids:
            return {}
        a = tables.webhook_attempts
        query = select(a).where(a.c.delivery_id.in_(delivery_ids)).order_by(a.c.delivery_id, a.c.number.desc())
        logs: dict[str, builtins.list[AttemptRecord]] = {}
        for row in self._conn.execute(query):
            logs.setdefault(row.delivery_id, []).append(_attempt(row))
        return {k: tuple(v) for k, v in logs.items()}

    @staticmethod
    def _delivery(row: Row[Any], log: tuple[AttemptRecord, ...]) -> DeliveryRecord:
        return DeliveryRecord(
            id=row.id,
            webhook_id=row.webhook_id,
            event_type=row.event_type,
            match_id=row.match_id,
            seq=row.seq,
            body=row.body,
            status=row.status,
            attempts=row.attempts,
            round_attempts=row.round_attempts,
            next_attempt_at=row.next_attempt_at,
            created_at=row.created_at,
            delivered_at=row.delivered_at,
            log=log,
        )
