"""Webhook delivery: the outbox's due deliveries sent, out of the request path.

One round is a use case (``DeliverWebhooks``, handled by :func:`deliver_handler` with the
:class:`Courier` that ``api.bootstrap`` wires); the worker that sends it round after round
(``api.services.webhook_worker``) runs beside the autoplay runner (a thread of ``flask --app
wsgi boneyard autoplay``, which ``scripts/run`` and docker-compose start) or alone (``flask
--app wsgi boneyard webhooks deliver [--once]``). Like the autoplay runner it keeps nothing
the database does not: a round claims due deliveries with a lease (PostgreSQL: ``FOR UPDATE
SKIP LOCKED``; SQLite: the write lock), so several workers share the work and a dead one's
claims lapse after the lease (``WebhookSettings.lease``: 20 s by default); it sends them
outside any transaction; and it records each attempt in a short transaction of its own.

An attempt POSTs the stored body with ``Content-Type: application/json``, ``Boneyard-Event``,
``Boneyard-Delivery`` and ``Boneyard-Signature`` (``api.services.webhooks.signature``), and
Standard Webhooks' ``webhook-id`` (the delivery's id), ``webhook-timestamp`` and
``webhook-signature`` (``api.services.webhooks.standard_signature``), with
``WEBHOOK_TIMEOUT_SECONDS`` for each of connecting, sending and reading the answer, following
no redirect and using no proxy from the environment. Any 2xx delivers it. Anything else — another
status, a timeout, a refused connection, a destination that now resolves to a refused address
(checked as the connection is made, to the very address it is made to: ``CheckedBackend``) —
is logged as a failed attempt and retried after ``WEBHOOK_RETRY_SECONDS`` doubling each time,
up to an hour; after ``WEBHOOK_MAX_ATTEMPTS`` attempts in a row it is ``failed`` (a replay
queues it again). The clock (``now``) is injected: the tests move it instead of sleeping.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol

import httpcore
import httpx

from api import metrics
from api.store.webhooks import DELIVERED, FAILED, PENDING, AttemptRecord, DueDelivery

from . import errors
from .commands import DeliverWebhooks
from .deadlines import utcnow
from .ports import Store
from .webhooks import (
    DEFAULT_SECRET_OVERLAP,
    Resolver,
    check_host,
    check_overlap,
    resolve_host,
    signature,
    standard_signature,
)

log = logging.getLogger(__name__)

EVENT_HEADER = "Boneyard-Event"
DELIVERY_HEADER = "Boneyard-Delivery"
SIGNATURE_HEADER = "Boneyard-Signature"
# Standard Webhooks (https://www.standardwebhooks.com/): what its receivers' libraries read.
STANDARD_ID_HEADER = "webhook-id"
STANDARD_TIMESTAMP_HEADER = "webhook-timestamp"
STANDARD_SIGNATURE_HEADER = "webhook-signature"
USER_AGENT = "Boneyard-Webhooks/1"
MAX_ERROR_LENGTH = 512
#: A lease's time beyond its attempts: the name lookup, recording each attempt, and the senders'
#: clocks disagreeing (one sender writes a lease's end by its clock, another reads it by its own).
LEASE_MARGIN = 5.0


@dataclass(frozen=True)
class WebhookSettings:
    """The delivery policy (``api.bootstrap`` reads it from the configuration)."""

    timeout: float = 5.0  # seconds, for each of connect, write and read
    max_attempts: int = 12  # in a row, before a delivery is given up as failed
    first_retry: float = 10.0  # seconds after the first failure; doubled after each next one
    max_retry: float = 3600.0
    allow_private_addresses: bool = False
    concurrency: int = 8  # deliveries sent at once by one worker
    batch: int = 8  # deliveries claimed per round: as many as are sent at once, so the lease is one attempt's
    #: After a rotation, the replaced secret signs too for this long (seconds; 0: it stops at once),
    #: so receivers can take the new one up without refusing a delivery in between.
    secret_overlap: float = DEFAULT_SECRET_OVERLAP

    def __post_init__(self) -> None:
        check_overlap(self.secret_overlap, "WEBHOOK_SECRET_OVERLAP_SECONDS")

    def retry_after(self, failures: int) -> timedelta:
        """The wait after the ``failures``-th failure in a row (1: ``first_retry``)."""
        return timedelta(seconds=min(self.first_retry * 2 ** max(failures - 1, 0), self.max_retry))

    @property
    def attempt_bound(self) -> float:
        """The longest an attempt waits on its receiver: connecting, sending the body and reading
        the answer's head, each up to ``timeout`` (a receiver that drips its answer slower than
        that, a byte per timeout, can outlast it: then another sender may send the delivery again,
        which receivers deduplicate by its id)."""
        return 3 * self.timeout

    @property
    def lease(self) -> timedelta:
        """How long a claim keeps its deliveries from other senders: the round that sends them,
        ``concurrency`` at a time, each attempt at its longest, and :data:`LEASE_MARGIN`. Short on
        purpose: a sender killed mid-round holds its deliveries no longer (20 s by default)."""
        rounds = -(-self.batch // max(self.concurrency, 1))
        return timedelta(seconds=rounds * self.attempt_bound + LEASE_MARGIN)


class Sender(Protocol):
    """POST ``body`` to ``url``; answers the status code (raises ``httpx.HTTPError`` on no answer)."""

    def __call__(self, url: str, body: bytes, headers: dict[str, str], timeout: float) -> int: ...


class RefusedDestination(httpcore.ConnectError):
    """A connection the SSRF policy refuses (httpx reports it as a ``ConnectError``)."""


class CheckedBackend(httpcore.NetworkBackend):
    """httpcore's own sockets, opened only to addresses the policy allows: the host is resolved
    here, checked (:func:`~api.services.webhooks.check_host`), and the connection made to one
    of the addresses checked — never resolved again, so a name cannot be rebound to a private
    address between the check and the connection. TLS still verifies the certificate against
    the URL's host (httpcore sends it as the server name)."""

    def __init__(self, allow_private: bool, resolve: Resolver):
        self.allow_private = allow_private
        self.resolve = resolve
        self.sockets = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        try:
            addresses = check_host(host, port, self.allow_private, self.resolve)
        except errors.InvalidWebhookUrl as exc:
            raise RefusedDestination(f"refused destination: {exc}") from None
        failure: Exception | None = None
        for address in addresses:
            try:
                return self.sockets.connect_tcp(address, port, timeout, local_address, socket_options)
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                failure = exc
        assert failure is not None  # check_host answers at least one address
        raise failure

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.NetworkStream:
        raise RefusedDestination("refused destination: a webhook goes over TCP only")

    def sleep(self, seconds: float) -> None:
        self.sockets.sleep(seconds)


class CheckedTransport(httpx.HTTPTransport):
    """httpx's transport over :class:`CheckedBackend`. httpx takes no network backend, so its
    connection pool is made again with one (httpx and httpcore are pinned together)."""

    def __init__(self, backend: CheckedBackend) -> None:
        super().__init__(trust_env=False)
        self._pool = httpcore.ConnectionPool(
            ssl_context=httpx.create_ssl_context(trust_env=False), network_backend=backend
        )


class HttpxSender:
    """The real sender: one ``httpx.Client`` (its connections reused) over checked connections,
    no redirects, no proxies or certificates from the environment, the answer's body never read."""

    def __init__(self, backend: CheckedBackend) -> None:
        self.client = httpx.Client(
            transport=CheckedTransport(backend),
            follow_redirects=False,
            trust_env=False,
            headers={"User-Agent": USER_AGENT},
        )

    def __call__(self, url: str, body: bytes, headers: dict[str, str], timeout: float) -> int:
        with self.client.stream("POST", url, content=body, headers=headers, timeout=timeout) as answer:
            return answer.status_code

    def close(self) -> None:
        self.client.close()


@dataclass
class Courier:
    """Takes the due deliveries from the outbox, sends them, records each attempt: what a
    delivery round needs (the store, the policy, the clock, the name lookup and the POST)."""

    store: Store
    settings: WebhookSettings = field(default_factory=WebhookSettings)
    now: Callable[[], datetime] = utcnow
    resolve: Resolver = resolve_host
    send: Sender | None = None  # None: an HttpxSender over connections checked by the policy

    def sender(self) -> Sender:
        """The POST, made at the first round with something to send: every process wires a
        courier, and an httpx client with its TLS context costs a few hundred ms to make."""
        if self.send is None:
            self.send = HttpxSender(CheckedBackend(self.settings.allow_private_addresses, self.resolve))
        return self.send

    def deliver_due(self) -> int:
        """Claim the due deliveries and attempt each once; answers how many were attempted."""
        now = self.now()
        with self.store.unit_of_work(readonly=True) as uow:
            something_due, secret_ended = uow.webhooks.any_due(now), uow.webhooks.any_ended_secret(now)
        if not (something_due or secret_ended):
            return 0  # idle: no write transaction at all
        with self.store.unit_of_work() as uow:
            uow.webhooks.drop_ended_secrets(now)  # past its overlap a replaced secret is not kept
            claimed = []
            if something_due:
                claimed = uow.webhooks.claim_due(now, now + self.settings.lease, self.settings.batch)
            uow.commit()
        if not claimed:
            return 0
        self.sender()  # made before the pool's threads share it
        if len(claimed) <= 1 or self.settings.concurrency <= 1:
            for due in claimed:
                self.attempt(due)
        else:
            with ThreadPoolExecutor(min(self.settings.concurrency, len(claimed))) as pool:
                list(pool.map(self.attempt, claimed))
        return len(claimed)

    def attempt(self, due: DueDelivery) -> AttemptRecord | None:
        """Send one delivery and record the attempt (None: its endpoint was removed meanwhile)."""
        body = due.body.encode("utf-8")
        attempted_at = self.now()
        started = time.monotonic()
        status_code: int | None = None
        error: str | None = None
        send = self.sender()
        timestamp = int(attempted_at.timestamp())
        secrets = due.webhook.secrets_at(attempted_at)  # a replaced secret's overlap may end mid-round
        try:
            headers = {
                "Content-Type": "application/json",
                EVENT_HEADER: due.event_type,
                DELIVERY_HEADER: due.id,
                SIGNATURE_HEADER: signature(secrets, timestamp, body),
                STANDARD_ID_HEADER: due.id,
                STANDARD_TIMESTAMP_HEADER: str(timestamp),
                STANDARD_SIGNATURE_HEADER: standard_signature(secrets, due.id, timestamp, body),
            }
            status_code = send(due.url, body, headers, self.settings.timeout)
            if not 200 <= status_code < 300:
                error = f"answered {status_code}"
        except httpx.TimeoutException as exc:
            error = f"timed out after {self.settings.timeout:g} s ({type(exc).__name__})"
        except httpx.HTTPError as exc:
            refused = str(exc).startswith("refused destination")
            error = str(exc) if refused else f"{type(exc).__name__}: {exc}"
        except Exception as exc:  # a broken endpoint must not stop the worker
            log.exception("webhook delivery %s failed unexpectedly", due.id)
            error = f"{type(exc).__name__}: {exc}"
        duration_ms = round((time.monotonic() - started) * 1000)
        return self.settle(due, attempted_at, duration_ms, status_code, error)

    def settle(
        self, due: DueDelivery, attempted_at: datetime, duration_ms: int, status_code: int | None, error: str | None
    ) -> AttemptRecord | None:
        """Record the attempt: delivered, retried after the backoff, or given up."""
        with self.store.unit_of_work() as uow:
            counts = uow.webhooks.lock_delivery(due.id)
            if counts is None:
                return None
            attempts, rounds = counts
            attempt = AttemptRecord(attempts + 1, attempted_at, duration_ms, status_code, trimmed(error))
            if error is None:
                status, next_at = DELIVERED, None
            elif rounds + 1 >= self.settings.max_attempts:
                status, next_at = FAILED, None
            else:
                status, next_at = PENDING, self.now() + self.settings.retry_after(rounds + 1)
            uow.webhooks.record_attempt(
                due.id, attempt, round_attempts=rounds + 1, status=status, next_attempt_at=next_at
            )
            uow.commit()
        metrics.WEBHOOK_DELIVERIES.labels(OUTCOMES[status], metrics.attempt_label(rounds + 1)).inc()
        log.info("webhook delivery %s (%s): attempt %d %s", due.id, due.event_type, attempt.number, error or "ok")
        return attempt


#: A delivery's status after an attempt, as the metric's ``outcome`` names it.
OUTCOMES: dict[str, metrics.WebhookOutcome] = {DELIVERED: "delivered", PENDING: "retrying", FAILED: "failed"}


def deliver_handler(command: DeliverWebhooks, courier: Courier) -> int:
    """One delivery round (the webhook worker's step); answers the deliveries attempted."""
    return courier.deliver_due()


def trimmed(error: str | None) -> str | None:
    return None if error is None else error[:MAX_ERROR_LENGTH]
