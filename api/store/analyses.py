"""``uow.analyses``: the analysis after an ended match (issue 38), made by a runner and kept.

A runner claims ended matches that have none (``claim_due``: a lease, so two runners never
make the same one and a killed runner's claim runs out), makes the analysis outside any
transaction, and stores it (``store``). Newest ended first: the matches people have just
played are the ones they open a review of; a backlog of old ones waits behind them. Each claim
counts an attempt; a match claimed ``max_attempts`` times is not claimed again (its analysis
keeps failing: ``claim_of`` tells the reader), and a failed attempt gives its claim back at once
(``release``), so the next attempt, or the verdict, does not wait for the lease to run out.
"""

from __future__ import annotations

import builtins
from datetime import datetime
from typing import Any, NamedTuple

from sqlalchemy import Connection, and_, bindparam, exists, or_, select, update

from api.rules import ENDED
from api.store import tables
from api.store.upsert import dialect_insert

_a = tables.match_analyses
_m = tables.matches
_GET = select(_a.c.analysis).where(_a.c.match_id == bindparam("match_id"))
_CLAIM = select(_a.c.attempts, _a.c.lease_until).where(_a.c.match_id == bindparam("match_id"))


class Claim(NamedTuple):
    """Where a match's analysis stands before it is stored: how many times a runner claimed it,
    and until when the last claim holds (None: none holds)."""

    attempts: int
    lease_until: datetime | None

    def given_up(self, now: datetime, max_attempts: int) -> bool:
        """Claimed ``max_attempts`` times, none live: no runner will make it again."""
        return self.attempts >= max_attempts and (self.lease_until is None or self.lease_until < now)


NO_CLAIM = Claim(0, None)


class AnalysisRepository:
    def __init__(self, connection: Connection):
        self._conn = connection

    def get(self, match_id: str) -> dict[str, Any] | None:
        """The stored analysis, or ``None`` while none has been stored."""
        return self._conn.execute(_GET, {"match_id": match_id}).scalar_one_or_none()

    def claim_of(self, match_id: str) -> Claim:
        """The claims on a match's analysis so far (``NO_CLAIM`` when none was made)."""
        row = self._conn.execute(_CLAIM, {"match_id": match_id}).first()
        return NO_CLAIM if row is None else Claim(row.attempts, row.lease_until)

    def claim_due(self, now: datetime, lease_until: datetime, limit: int, max_attempts: int) -> builtins.list[str]:
        """Claim up to ``limit`` ended matches without an analysis that no live claim holds and
        that were claimed fewer than ``max_attempts`` times, the most recently ended first: each
        one's lease becomes ``lease_until`` and its attempts one more. A claim another runner took
        meanwhile is not taken (the upsert's condition), so it is not answered."""
        taken = exists().where(
            _a.c.match_id == _m.c.id,
            or_(_a.c.analysis.is_not(None), _a.c.lease_until >= now, _a.c.attempts >= max_attempts),
        )
        query = (
            select(_m.c.id)
            .where(_m.c.status == ENDED, ~taken)
            .order_by(_m.c.updated_at.desc(), _m.c.id.desc())
            .limit(limit)
        )
        claimed = []
        for match_id in self._conn.execute(query).scalars():
            statement = (
                dialect_insert(self._conn)(_a)
                .values(match_id=match_id, lease_until=lease_until, attempts=1)
                .on_conflict_do_update(
                    index_elements=[_a.c.match_id],
                    set_={"lease_until": lease_until, "attempts": _a.c.attempts + 1},
                    where=and_(
                        _a.c.analysis.is_(None),
                        or_(_a.c.lease_until.is_(None), _a.c.lease_until < now),
                        _a.c.attempts < max_attempts,
                    ),
                )
                .returning(_a.c.match_id)
            )  # a row back only when this claim took it
            if self._conn.execute(statement).first() is not None:
                claimed.append(match_id)
        return claimed

    def store(self, match_id: str, analysis: dict[str, Any], computed_at: datetime) -> None:
        """Keep ``analysis``; a match's first stored analysis stays (they are equal anyway)."""
        statement = (
            dialect_insert(self._conn)(_a)
            .values(match_id=match_id, analysis=analysis, computed_at=computed_at, lease_until=None)
            .on_conflict_do_update(
                index_elements=[_a.c.match_id],
                set_={"analysis": analysis, "computed_at": computed_at, "lease_until": None},
                where=_a.c.analysis.is_(None),
            )
        )
        self._conn.execute(statement)

    def release(self, match_id: str) -> None:
        """Give a failed attempt's claim back (its attempt stays counted)."""
        self._conn.execute(
            update(_a).where(_a.c.match_id == match_id, _a.c.analysis.is_(None)).values(lease_until=None)
        )
