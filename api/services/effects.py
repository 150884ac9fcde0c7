"""What an append means for the match's portal, written in the transaction that appends.

``MatchFlow.append`` calls :func:`record_effects` after storing events, in the same unit of
work, so what follows from the events commits or rolls back with them: the portal's players'
statistics (``api.services.results``), their ratings when the match is rated
(``api.services.ratings``), the outbox rows of its webhooks (``api.services.webhooks``) and,
for a tournament's match, the table's result in the tournament's log
(``api.services.tournament_results``).
A match of the public space has no portal: nothing here.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from .ports import UnitOfWork
from .ratings import record_ratings
from .results import record_results
from .snapshots import Row, Snapshot
from .tournament_results import record_tournament_result
from .webhooks import record_webhooks


def record_effects(
    uow: UnitOfWork,
    portal_id: str | None,
    match_id: str,
    appended: Sequence[Row],
    snap: Snapshot,
    now: datetime,
    *,
    rated: bool = False,
) -> None:
    if portal_id is None:
        return
    record_results(uow, portal_id, match_id, appended, snap, now)
    if rated:
        record_ratings(uow, portal_id, match_id, appended, snap, now)
    record_webhooks(uow, portal_id, match_id, appended, snap, now)
    record_tournament_result(uow, match_id, appended, now)
