"""Turn-clock deadlines as values: when a seat's time runs out, and how views show it.

Pure functions of a state and a time, kept apart from the use case that plays the turns that
ran out (``api.services.clocks``), so that the match flow can set a deadline on every append
without depending on that use case.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from api.rules import BOT_SEAT, PLAYING, MatchState
from api.store.records import MatchRecord


def utcnow() -> datetime:
    return datetime.now(UTC)


def deadline_after(state: MatchState, now: datetime) -> datetime | None:
    """The deadline to store after an append at ``now`` (None: no clock is running)."""
    seconds = state.rules.turn_seconds
    if not seconds or state.status != PLAYING or state.turn is None:
        return None
    if state.seats[state.turn].get("type") == BOT_SEAT:
        return None  # computer players move at once, never time out
    return now + timedelta(seconds=seconds)


def show_deadline(out: dict[str, Any], state: MatchState, deadline: datetime | None) -> dict[str, Any]:
    """Add ``deadline_at`` (ISO 8601, UTC) to a view or summary of a match with a clock."""
    if state.rules.turn_seconds:
        out["deadline_at"] = deadline.astimezone(UTC).isoformat() if deadline is not None else None
    return out


def is_overdue(record: MatchRecord, now: datetime) -> bool:
    return record.status == PLAYING and record.deadline_at is not None and now > record.deadline_at
