"""What the seats hold beyond the log: the portal's player ids, and seats kept for a rematch.

``player_ref`` is the portal's own id for a player: opaque to Boneyard, kept on the seat
(never in the event log) and shown in public seat lists. A rematch keeps each player's seat
for the old seat's token (its hash, ``reserved_for``) until that token claims it.
"""

from __future__ import annotations

from typing import Any

from . import errors, tokens
from .commands import Caller
from .ports import UnitOfWork


def attach_refs(seats: list[dict[str, Any]], refs: dict[int, str]) -> list[dict[str, Any]]:
    """Show each seat's ``player_ref`` (null when the portal gave none)."""
    for seat in seats:
        seat["player_ref"] = refs.get(seat["seat"])
    return seats


def check_reservation(
    uow: UnitOfWork, match_id: str, seat: int, token: str | None, caller: Caller, portal_id: str | None
) -> str | None:
    """Refuse a claim of a seat kept for another player; answers the seat's player_ref.

    A seat is kept for a rematch's player (claimed with the old seat's token), or named for a
    portal's player at creation (claimed only with that portal's key: whoever claims it becomes
    that player in the portal's statistics)."""
    row = next((s for s in uow.seats.list_for_match(match_id) if s.seat == seat), None)
    if row is None:
        return None
    if row.reserved_for is None:
        if row.player_ref is not None and not caller.owns(portal_id):
            raise errors.PlayerRefNeedsPortal(
                f"seat {seat} is kept for one of the portal's players: only the portal's key (X-API-Key) may claim it"
            )
        return row.player_ref
    if token is None or not tokens.matches(row.reserved_for, tokens.hash_token(token)):
        raise errors.SeatReserved(
            f"seat {seat} is kept for the player of the previous match: "
            "claim it with that seat's token (Authorization: Bearer <token>)"
        )
    return row.player_ref
