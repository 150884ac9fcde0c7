"""Waiting for the next event of a match: many waiters, one wake-up source per process.

A waiter (a long-poll, or a server-sent-events stream between two events) costs a
greenlet under gunicorn's gevent worker (a thread elsewhere), no database connection and
no queries while it sleeps:

* It **subscribes** to its match's slot, then reads the match's seq once: an append that
  lands between the client's read and the subscription cannot be missed, because it is
  either in that read or announced to the slot.
* It sleeps on the slot's condition. The slot learns new seqs from this process's own
  commits (``announce``) and from the process's one wake-up source, which fans out to
  every slot: PostgreSQL LISTEN/NOTIFY, or on SQLite one poller that checks
  ``PRAGMA data_version`` and, when it changed, reads the last seq of every watched match
  in one query (``api.store.notify``).
* A waiter ends within ``gone_check_interval`` (+ a wake-up) of its client going away: one
  checker per process calls each waiting ``Client``'s ``gone`` callable at that interval
  (the HTTP layer supplies it; this module knows no sockets).
* Each address may hold ``per_address`` waits at once, counted in the database
  (``waiter_slots``) so that the cap holds across app servers: a long-poll takes a slot
  only while it actually waits, a stream for its whole life.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta

from api import metrics

from . import errors
from .deadlines import utcnow
from .ports import Store, WakeUpSource

log = logging.getLogger(__name__)

#: A slot row outlives the longest its wait may last by this much (a killed process's rows then lapse).
SLOT_MARGIN_SECONDS = 30
#: What a refused waiter is told to wait before trying again.
RETRY_AFTER_SECONDS = 5
#: Expired slot rows of every address are deleted at most this often per process.
PURGE_EVERY_SECONDS = 60.0
#: The client-gone checker lets other greenlets run after this many checks.
CHECKS_PER_YIELD = 200


class WaitClock:
    """The waiters' time: a monotonic reading, and a sleep on a condition that a notify ends early.

    The one place a waiter sleeps, so that tests put in a clock that moves without sleeping.
    """

    def monotonic(self) -> float:
        return time.monotonic()

    def sleep_on(self, condition: threading.Condition, seconds: float) -> None:
        """Sleep on ``condition`` (held by the caller) until notified or ``seconds`` pass."""
        condition.wait(seconds)


class Client:
    """Who waits: the address its cap counts against, and how to tell that it has gone.

    ``gone`` is called by the checker thread at most every ``gone_check_interval``;
    ``left`` turns true once it answered so, and every wait of this client then ends.
    """

    __slots__ = ("address", "gone", "left", "slot")

    def __init__(self, address: str | None = None, gone: Callable[[], bool] | None = None):
        self.address = address
        self.gone = gone
        self.left = False
        self.slot: CapSlot | None = None  # a cap slot held beyond one wait (a stream's)


class CapSlot:
    """One row of ``waiter_slots``; ``release`` deletes it (once, never raising)."""

    def __init__(self, hub: Waiter, slot_id: str):
        self._hub = hub
        self.id = slot_id
        self._released = False

    def release(self) -> None:
        if self._released:
            return
        self._released = True
        try:
            with self._hub.store.unit_of_work() as uow:
                uow.waiters.release(self.id)
                uow.commit()
        except Exception as exc:  # its expires_at frees it soon anyway
            log.warning("waiter slot %s not released (%s); it lapses at its expiry", self.id, exc)


class _Slot:
    """Everything this process knows about one match being waited on."""

    __slots__ = ("condition", "seq", "subscribers")

    def __init__(self) -> None:
        self.condition = threading.Condition()
        self.subscribers = 0
        self.seq = 0


class Subscription:
    """A waiter's registration on one match: ``saw`` what was read, ``wait`` for more."""

    def __init__(self, hub: Waiter, match_id: str, slot: _Slot, client: Client | None):
        self._hub = hub
        self.match_id = match_id
        self._slot = slot
        self.client = client
        self._closed = False
        self._streaming = False  # counted in the waiters gauge as a stream, from hold to close

    @property
    def seq(self) -> int:
        return self._slot.seq

    @property
    def left(self) -> bool:
        """True once the client has gone (every wait then returns at once)."""
        return self.client is not None and self.client.left

    def saw(self, seq: int) -> None:
        """The seq the waiter read itself (the one read that closes the race with an append)."""
        with self._slot.condition:
            self._slot.seq = max(self._slot.seq, seq)

    def wake(self) -> None:
        """Wake this subscription's sleeping waiters to look again (its client has gone)."""
        with self._slot.condition:
            self._slot.condition.notify_all()

    def wait(self, after: int, timeout: float) -> int:
        """Sleep until the match is past ``after``, ``timeout`` seconds pass or the client goes."""
        clock = self._hub.clock
        give_up = clock.monotonic() + timeout
        slot = self._slot
        with slot.condition:
            while slot.seq <= after and not self.left:
                remaining = give_up - clock.monotonic()
                if remaining <= 0:
                    break
                clock.sleep_on(slot.condition, remaining)
            return slot.seq

    def hold(self, seconds: float) -> None:
        """Count this subscription against its client's cap for ``seconds`` (a stream's life), and
        as a waiting stream until it closes."""
        if self.client is not None and self.client.slot is None:
            self.client.slot = self._hub.take(self.client, seconds)
        if not self._streaming:
            self._streaming = True
            metrics.WAITERS.labels("stream").inc()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._hub.unsubscribe(self)
        if self._streaming:
            metrics.WAITERS.labels("stream").dec()
        if self.client is not None and self.client.slot is not None:
            self.client.slot.release()

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Waiter:
    """The per-process hub: match slots, the wake-up source, the client-gone checker, the caps.

    ``per_address`` 0 turns the cap off. ``poll_interval`` is the SQLite poller's period;
    ``gone_check_interval`` the checker's. ``now`` is the clock of the slots' expiry; ``clock``
    the one waits are measured and slept on.
    """

    def __init__(
        self,
        store: Store,
        *,
        per_address: int = 64,
        poll_interval: float = 0.15,
        gone_check_interval: float = 0.5,
        now: Callable[[], datetime] = utcnow,
        clock: WaitClock | None = None,
    ):
        self.store = store
        self.per_address = per_address
        self.poll_interval = poll_interval
        self.gone_check_interval = gone_check_interval
        self.now = now
        self.clock = clock or WaitClock()
        self._slots: dict[str, _Slot] = {}
        self._watching: set[Subscription] = set()
        self._lock = threading.Lock()
        self._source: WakeUpSource | None = None
        self._checker: threading.Thread | None = None
        self._purged_at = 0.0

    # --- wake-ups -----------------------------------------------------------------------
    def announce(self, match_id: str, seq: int) -> None:
        """The match reached ``seq``: wake its waiters."""
        slot = self._slots.get(match_id)
        if slot is None:
            return
        with slot.condition:
            if seq > slot.seq:
                slot.seq = seq
                slot.condition.notify_all()

    def seen(self, seqs: dict[str, int]) -> None:
        """Last seqs read by the wake-up source: wake the slots that moved."""
        for match_id, seq in seqs.items():
            self.announce(match_id, seq)

    def watched(self) -> list[str]:
        """The matches being waited on in this process."""
        with self._lock:
            return list(self._slots)

    def _ensure_source(self) -> None:
        if self._source is not None and self._source.is_alive():
            return
        with self._lock:
            if self._source is not None and self._source.is_alive():
                return
            source = self.store.wake_up_source(
                self.announce, self.watched, self.seen, self.may_retire, self.poll_interval
            )
            if source is None:
                return  # one process's own database: announce() is enough
            self._source = source
            source.start()

    @property
    def source(self) -> WakeUpSource | None:
        """The process's running wake-up source, if any (it starts with the first waiter)."""
        return self._source

    def may_retire(self, source: object) -> bool:
        """A source or checker asks to stop for lack of work: yes unless a waiter came meanwhile."""
        with self._lock:
            if source is self._source and not self._slots:
                self._source = None
                return True
            if source is self._checker and not self._watching:
                self._checker = None
                return True
            return source is not self._source and source is not self._checker

    def stop(self) -> None:
        with self._lock:
            source, self._source = self._source, None
        if source is not None:
            source.stop()

    # --- subscribing and waiting ------------------------------------------------------------
    def subscribe(self, match_id: str, client: Client | None = None) -> Subscription:
        """Register a waiter on ``match_id``; read the match afterwards and tell it ``saw(seq)``."""
        with self._lock:
            slot = self._slots.get(match_id)
            if slot is None:
                slot = self._slots[match_id] = _Slot()
            slot.subscribers += 1
            sub = Subscription(self, match_id, slot, client)
            if client is not None and client.gone is not None:
                self._watching.add(sub)
                if self._checker is None:  # it stops by itself when nobody is left to check
                    self._checker = checker = threading.Thread(name="boneyard-gone-check", daemon=True)
                    checker.run = lambda: self._check_clients(checker)  # type: ignore[method-assign]  # it needs itself
                    checker.start()
        self._ensure_source()
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        """Forget ``sub`` (``Subscription.close`` calls this); the match's slot goes with its last."""
        with self._lock:
            self._watching.discard(sub)
            slot = self._slots.get(sub.match_id)
            if slot is not None:
                slot.subscribers -= 1
                if slot.subscribers == 0:
                    del self._slots[sub.match_id]

    def wait_for(
        self,
        match_id: str,
        after_seq: int,
        timeout: float,
        current_seq: Callable[[], int],
        client: Client | None = None,
    ) -> int:
        """Subscribe, read ``current_seq()`` once, and wait until past ``after_seq``; the seq then."""
        with self.subscribe(match_id, client) as sub:
            sub.saw(current_seq())
            return sub.wait(after_seq, timeout)

    def _check_clients(self, me: threading.Thread) -> None:
        """The client-gone checker: every ``gone_check_interval``, ask each waiting client."""
        while True:
            time.sleep(self.gone_check_interval)
            with self._lock:
                watching = list(self._watching)
            if not watching and self.may_retire(me):
                return
            for done, sub in enumerate(watching, start=1):
                if sub.client is not None and not sub.left and _gone(sub.client):
                    sub.client.left = True
                    sub.wake()
                if done % CHECKS_PER_YIELD == 0:
                    time.sleep(0)  # let requests run between batches

    # --- the per-address cap --------------------------------------------------------------
    @contextmanager
    def hold(self, client: Client | None, seconds: float, kind: metrics.WaiterKind) -> Iterator[None]:
        """Count one wait of ``seconds`` against the client's address (not without an address, nor
        when the client already holds a slot: a stream), and in the waiters gauge as ``kind``."""
        slot = None
        waiting = metrics.WAITERS.labels(kind)
        # Counted before the slot's commit: whoever that commit wakes (BONEYARD_COMMIT_FD) finds
        # this wait in the gauge already. A wait refused at the cap leaves it at once.
        waiting.inc()
        try:
            if client is not None and client.address is not None and client.slot is None and self.per_address > 0:
                slot = self.take(client, seconds)
            yield
        finally:
            waiting.dec()
            if slot is not None:
                slot.release()

    def take(self, client: Client, seconds: float) -> CapSlot | None:
        """A slot for the client's address for up to ``seconds``; :class:`TooManyWaiters` at the cap."""
        if client.address is None or self.per_address <= 0:
            return None
        slot_id = secrets.token_hex(16)
        now = self.now()
        with self.store.unit_of_work() as uow:
            if time.monotonic() - self._purged_at > PURGE_EVERY_SECONDS:
                self._purged_at = time.monotonic()
                uow.waiters.purge_expired(now)
            taken = uow.waiters.take(
                slot_id,
                address_key(client.address),
                self.per_address,
                now,
                now + timedelta(seconds=seconds + SLOT_MARGIN_SECONDS),
            )
            uow.commit()
        if not taken:
            raise errors.TooManyWaiters(
                f"this address already has {self.per_address} open long-polls and streams; close one, or retry "
                f"in {RETRY_AFTER_SECONDS} s",
                retry_after=RETRY_AFTER_SECONDS,
            )
        return CapSlot(self, slot_id)


def address_key(address: str) -> str:
    """What ``waiter_slots`` stores of a client address: its SHA-256, never the address."""
    return hashlib.sha256(address.encode("utf-8", "surrogatepass")).hexdigest()


def _gone(client: Client | None) -> bool:
    if client is None or client.gone is None:
        return False
    try:
        return client.gone()
    except Exception:  # a check that fails means a connection we cannot use
        return True
