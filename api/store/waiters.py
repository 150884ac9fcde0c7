"""``uow.waiters``: one row per open long-poll or stream, so a per-address cap holds across servers.

Every app server on one database counts the same rows. Taking a slot is count-and-insert
in one transaction, made atomic per address: on PostgreSQL by a transaction-scoped
advisory lock on the address key; on SQLite by the write lock ``BEGIN IMMEDIATE`` already
holds. A row carries ``expires_at`` (the longest its wait can last, plus a margin), so rows
left by a killed process stop counting on their own and are deleted by later takes.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Connection, bindparam, delete, func, insert, select, text

from api.store import tables

_w = tables.waiter_slots
_COUNT = (
    select(func.count())
    .select_from(_w)
    .where(_w.c.address_key == bindparam("address_key"), _w.c.expires_at > bindparam("now"))
)
_EXPIRED_OF_ADDRESS = delete(_w).where(
    _w.c.address_key == bindparam("address_key"), _w.c.expires_at <= bindparam("now")
)
_EXPIRED = delete(_w).where(_w.c.expires_at <= bindparam("now"))
_INSERT = insert(_w)
_RELEASE = delete(_w).where(_w.c.id == bindparam("slot_id"))
_ADVISORY_LOCK = text("SELECT pg_advisory_xact_lock(:lock_key)")


def advisory_key(address_key: str) -> int:
    """A signed 64-bit advisory-lock key from a hex address key."""
    return int.from_bytes(bytes.fromhex(address_key[:16].ljust(16, "0")), "big", signed=True)


class WaiterSlotRepository:
    def __init__(self, connection: Connection):
        self._conn = connection

    def take(self, slot_id: str, address_key: str, cap: int, now: datetime, expires_at: datetime) -> bool:
        """Insert a slot for ``address_key`` unless it already has ``cap`` live ones; False then."""
        if self._conn.dialect.name == "postgresql":
            self._conn.execute(_ADVISORY_LOCK, {"lock_key": advisory_key(address_key)})
        self._conn.execute(_EXPIRED_OF_ADDRESS, {"address_key": address_key, "now": now})
        if self.count(address_key, now) >= cap:
            return False
        self._conn.execute(_INSERT, {"id": slot_id, "address_key": address_key, "expires_at": expires_at})
        return True

    def count(self, address_key: str, now: datetime) -> int:
        """Live slots of one address."""
        return self._conn.execute(_COUNT, {"address_key": address_key, "now": now}).scalar_one()

    def release(self, slot_id: str) -> None:
        self._conn.execute(_RELEASE, {"slot_id": slot_id})

    def purge_expired(self, now: datetime) -> int:
        """Delete every expired slot (rows of processes that were killed); how many."""
        return self._conn.execute(_EXPIRED, {"now": now}).rowcount
