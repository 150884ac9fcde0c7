"""Portal and player-statistics repositories: SQL for ``portals``, ``portal_keys`` and
``player_stats``."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Row, insert, select, update
from sqlalchemy.exc import IntegrityError

from api.store import tables
from api.store.records import PlayerFigures, PortalKeyRecord, PortalNameTaken, PortalRecord
from api.store.upsert import dialect_insert


def _portal(row: Row[Any]) -> PortalRecord:
    return PortalRecord(id=row.id, name=row.name, created_at=row.created_at, create_limit=row.create_limit)


def _key(row: Row[Any]) -> PortalKeyRecord:
    return PortalKeyRecord(id=row.id, portal_id=row.portal_id, created_at=row.created_at, revoked_at=row.revoked_at)


class PortalRepository:
    """``uow.portals``: the tenants and their keys (hashes only)."""

    def __init__(self, connection: Connection):
        self._conn = connection

    def add(self, portal_id: str, name: str, now: datetime, create_limit: str | None = None) -> PortalRecord:
        """A new portal; :class:`PortalNameTaken` when the name is in use."""
        savepoint = self._conn.begin_nested()
        try:
            self._conn.execute(
                insert(tables.portals).values(id=portal_id, name=name, created_at=now, create_limit=create_limit)
            )
        except IntegrityError:
            savepoint.rollback()
            raise PortalNameTaken(name) from None
        savepoint.commit()
        return PortalRecord(portal_id, name, now, create_limit)

    def get(self, portal_id: str) -> PortalRecord | None:
        p = tables.portals
        row = self._conn.execute(select(p).where(p.c.id == portal_id)).first()
        return None if row is None else _portal(row)

    def by_name(self, name: str) -> PortalRecord | None:
        p = tables.portals
        row = self._conn.execute(select(p).where(p.c.name == name)).first()
        return None if row is None else _portal(row)

    def all(self) -> list[PortalRecord]:
        p = tables.portals
        return [_portal(row) for row in self._conn.execute(select(p).order_by(p.c.name))]

    def set_create_limit(self, portal_id: str, create_limit: str | None) -> None:
        p = tables.portals
        self._conn.execute(update(p).where(p.c.id == portal_id).values(create_limit=create_limit))

    def add_key(self, key_id: str, portal_id: str, key_hash: str, now: datetime) -> PortalKeyRecord:
        self._conn.execute(
            insert(tables.portal_keys).values(id=key_id, portal_id=portal_id, key_hash=key_hash, created_at=now)
        )
        return PortalKeyRecord(key_id, portal_id, now)

    def keys(self, portal_id: str) -> list[PortalKeyRecord]:
        k = tables.portal_keys
        query = select(k).where(k.c.portal_id == portal_id).order_by(k.c.created_at, k.c.id)
        return [_key(row) for row in self._conn.execute(query)]

    def revoke_key(self, portal_id: str, key_id: str, now: datetime) -> bool:
        """Revoke one of the portal's live keys; False when it has no such live key."""
        k = tables.portal_keys
        done = self._conn.execute(
            update(k)
            .where(k.c.id == key_id, k.c.portal_id == portal_id, k.c.revoked_at.is_(None))
            .values(revoked_at=now)
        )
        return done.rowcount == 1

    def by_key_hash(self, key_hash: str) -> tuple[PortalRecord, str] | None:
        """The portal of a live key with this hash, and the key's id (None: no live key)."""
        p, k = tables.portals, tables.portal_keys
        row = self._conn.execute(
            select(p, k.c.id.label("key_id"))
            .join(k, k.c.portal_id == p.c.id)
            .where(k.c.key_hash == key_hash, k.c.revoked_at.is_(None))
        ).first()
        return None if row is None else (_portal(row), row.key_id)


_FIGURES = tuple(PlayerFigures.__dataclass_fields__)


class PlayerStatsRepository:
    """``uow.player_stats``: a portal player's figures, one row each."""

    def __init__(self, connection: Connection):
        self._conn = connection

    def get(self, portal_id: str, player_ref: str) -> PlayerFigures | None:
        p = tables.player_stats
        row = self._conn.execute(select(p).where(p.c.portal_id == portal_id, p.c.player_ref == player_ref)).first()
        return None if row is None else PlayerFigures(**{name: getattr(row, name) for name in _FIGURES})

    def lock(self, portal_id: str, player_refs: Iterable[str], now: datetime) -> dict[str, PlayerFigures]:
        """The players' figures, their rows made if missing and locked until the transaction
        ends (in ``player_ref`` order, so two transactions never wait on each other in a ring)."""
        refs = sorted(set(player_refs))
        if not refs:
            return {}
        p = tables.player_stats
        zero = {name: getattr(PlayerFigures(), name) for name in _FIGURES}
        upsert = dialect_insert(self._conn)
        for ref in refs:
            self._conn.execute(
                upsert(p)
                .values(portal_id=portal_id, player_ref=ref, updated_at=now, **zero)
                .on_conflict_do_nothing(index_elements=["portal_id", "player_ref"])
            )
        query = select(p).where(p.c.portal_id == portal_id, p.c.player_ref.in_(refs)).order_by(p.c.player_ref)
        if self._conn.dialect.name == "postgresql":
            query = query.with_for_update()
        return {
            row.player_ref: PlayerFigures(**{name: getattr(row, name) for name in _FIGURES})
            for row in self._conn.execute(query)
        }

    def save(self, portal_id: str, player_ref: str, figures: PlayerFigures, now: datetime) -> None:
        p = tables.player_stats
        self._conn.execute(
            update(p)
            .where(p.c.portal_id == portal_id, p.c.player_ref == player_ref)
            .values(updated_at=now, **{name: getattr(figures, name) for name in _FIGURES})
        )
