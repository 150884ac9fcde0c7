"""Rating repositories: SQL for ``ratings`` (a portal player's rating per rules family) and
``rating_history`` (one row per rated match of a player)."""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Row, and_, insert, or_, select, update

from api.store import tables
from api.store.records import InvalidCursor
from api.store.repositories import decode_cursor, encode_cursor
from api.store.upsert import dialect_insert

#: At most this many rows per page of a leaderboard or a history.
MAX_RATING_PAGE = 100
#: A leaderboard cursor as :func:`encode_board_cursor` writes one: base64url (no padding) of
#: the JSON ``[ordinal, player_ref]`` of the last row shown (a player_ref is up to 128 characters).
BOARD_CURSOR_PATTERN = r"^[A-Za-z0-9_-]{1,1000}$"
_BOARD_CURSOR = re.compile(BOARD_CURSOR_PATTERN)


@dataclass(frozen=True, slots=True)
class RatingRecord:
    player_ref: str
    family: str
    mu: float
    sigma: float
    ordinal: float
    matches: int


@dataclass(frozen=True, slots=True)
class RatingChange:
    """A ``rating_history`` row: one player's rated match."""

    player_ref: str
    family: str
    match_id: str
    at: datetime
    outcome: str
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float


@dataclass(frozen=True, slots=True)
class RatingPage:
    items: list[RatingRecord]
    next_cursor: str | None


@dataclass(frozen=True, slots=True)
class HistoryPage:
    items: list[RatingChange]
    next_cursor: str | None


def encode_board_cursor(ordinal: float, player_ref: str) -> str:
    """The position just after this row of a leaderboard (ordinal descending, then player_ref)."""
    text = json.dumps([ordinal, player_ref], separators=(",", ":"), ensure_ascii=False)
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def decode_board_cursor(cursor: str) -> tuple[float, str]:
    """Inverse of :func:`encode_board_cursor`; :class:`InvalidCursor` for anything else."""
    if not isinstance(cursor, str) or _BOARD_CURSOR.fullmatch(cursor) is None:
        raise InvalidCursor("invalid leaderboard cursor")
    try:
        value = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode())
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise InvalidCursor("invalid leaderboard cursor") from None
    if not (
        isinstance(value, list)
        and len(value) == 2
        and isinstance(value[0], int | float)
        and not isinstance(value[0], bool)
        and math.isfinite(value[0])
        and isinstance(value[1], str)
        and 1 <= len(value[1]) <= 128
        and not any(unicodedata.category(ch) in ("Cc", "Cs") for ch in value[1])  # as player_refs are held
    ):
        raise InvalidCursor("invalid leaderboard cursor")
    return float(value[0]), value[1]


def _rating(row: Row[Any]) -> RatingRecord:
    return RatingRecord(row.player_ref, row.family, row.mu, row.sigma, row.ordinal, row.matches)


def _change(row: Row[Any]) -> RatingChange:
    return RatingChange(
        row.player_ref,
        row.family,
        row.match_id,
        row.at,
        row.outcome,
        row.mu_before,
        row.sigma_before,
        row.mu_after,
        row.sigma_after,
    )


class RatingRepository:
    """``uow.ratings``: each portal player's rating per family, and its history."""

    def __init__(self, connection: Connection):
        self._conn = connection

    def lock(
        self, portal_id: str, family: str, player_refs: Iterable[str], newcomer: RatingRecord, now: datetime
    ) -> dict[str, RatingRecord]:
        """The players' ratings in ``family``, each row made from ``newcomer`` if missing and
        locked until the transaction ends (in ``player_ref`` order, so two transactions never
        wait on each other in a ring)."""
        refs = sorted(set(player_refs))
        if not refs:
            return {}
        r = tables.ratings
        upsert = dialect_insert(self._conn)
        for ref in refs:
            self._conn.execute(
                upsert(r)
                .values(
                    portal_id=portal_id,
                    player_ref=ref,
                    family=family,
                    mu=newcomer.mu,
                    sigma=newcomer.sigma,
                    ordinal=newcomer.ordinal,
                    matches=0,
                    updated_at=now,
                )
                .on_conflict_do_nothing(index_elements=["portal_id", "player_ref", "family"])
            )
        query = (
            select(r)
            .where(r.c.portal_id == portal_id, r.c.family == family, r.c.player_ref.in_(refs))
            .order_by(r.c.player_ref)
        )
        if self._conn.dialect.name == "postgresql":
            query = query.with_for_update()
        return {row.player_ref: _rating(row) for row in self._conn.execute(query)}

    def current(self, portal_id: str, family: str, player_refs: Iterable[str]) -> dict[str, RatingRecord]:
        """The players' ratings in ``family`` as they stand (unlocked; a player without one is absent)."""
        r = tables.ratings
        query = select(r).where(r.c.portal_id == portal_id, r.c.family == family, r.c.player_ref.in_(set(player_refs)))
        return {row.player_ref: _rating(row) for row in self._conn.execute(query)}

    def save(self, portal_id: str, rating: RatingRecord, now: datetime) -> None:
        r = tables.ratings
        self._conn.execute(
            update(r)
            .where(r.c.portal_id == portal_id, r.c.player_ref == rating.player_ref, r.c.family == rating.family)
            .values(mu=rating.mu, sigma=rating.sigma, ordinal=rating.ordinal, matches=rating.matches, updated_at=now)
        )

    def add_change(self, portal_id: str, change: RatingChange) -> None:
        self._conn.execute(
            insert(tables.rating_history).values(
                portal_id=portal_id,
                player_ref=change.player_ref,
                family=change.family,
                match_id=change.match_id,
                at=change.at,
                outcome=change.outcome,
                mu_before=change.mu_before,
                sigma_before=change.sigma_before,
                mu_after=change.mu_after,
                sigma_after=change.sigma_after,
            )
        )

    def of_player(self, portal_id: str, player_ref: str) -> list[RatingRecord]:
        """The player's ratings, one per family it has played rated matches in."""
        r = tables.ratings
        query = select(r).where(r.c.portal_id == portal_id, r.c.player_ref == player_ref).order_by(r.c.family)
        return [_rating(row) for row in self._conn.execute(query)]

    def leaderboard(self, portal_id: str, family: str, limit: int, cursor: str | None = None) -> RatingPage:
        """The family's players, highest ordinal first (then by player_ref), a page after ``cursor``.
        Raises :class:`InvalidCursor` for a cursor not made here."""
        limit = max(1, min(int(limit), MAX_RATING_PAGE))
        r = tables.ratings
        query = select(r).where(r.c.portal_id == portal_id, r.c.family == family)
        if cursor is not None:
            ordinal, ref = decode_board_cursor(cursor)
            query = query.where(or_(r.c.ordinal < ordinal, and_(r.c.ordinal == ordinal, r.c.player_ref > ref)))
        rows = self._conn.execute(query.order_by(r.c.ordinal.desc(), r.c.player_ref).limit(limit + 1)).all()
        items = [_rating(row) for row in rows[:limit]]
        last = items[-1] if len(rows) > limit else None
        return RatingPage(items, None if last is None else encode_board_cursor(last.ordinal, last.player_ref))

    def history(
        self, portal_id: str, player_ref: str, family: str, limit: int, cursor: str | None = None
    ) -> HistoryPage:
        """The player's rated matches in ``family``, newest first, a page after ``cursor`` (a
        match list's cursor: ``<microseconds since 1970>-<match id>``)."""
        limit = max(1, min(int(limit), MAX_RATING_PAGE))
        h = tables.rating_history
        query = select(h).where(h.c.portal_id == portal_id, h.c.player_ref == player_ref, h.c.family == family)
        if cursor is not None:
            at, match_id = decode_cursor(cursor)
            query = query.where(or_(h.c.at < at, and_(h.c.at == at, h.c.match_id < match_id)))
        rows = self._conn.execute(query.order_by(h.c.at.desc(), h.c.match_id.desc()).limit(limit + 1)).all()
        items = [_change(row) for row in rows[:limit]]
        last = items[-1] if len(rows) > limit else None
        return HistoryPage(items, None if last is None else encode_cursor(last.at, last.match_id))
