"""The lobby: who sits where (``player_ref``), seat reservations, and rematches.

``player_ref`` is the portal's own id for a player: opaque to Boneyard, kept on the
seat (never in the event log) and shown in public seat lists. A rematch is a new match
with the same rules and seat types; each remote seat of the old match becomes an open
seat *reserved* for the old seat's token (its hash), claimed with that token for a new
one. ``matches.rematch_of`` is unique, so asking twice (or two seats at once) gives
the same new match.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from api.rules.state import ENDED
from api.store.records import RematchExists

from . import errors, tokens

if TYPE_CHECKING:  # pragma: no cover
    from .matches import MatchService


def attach_refs(seats: list[dict[str, Any]], refs: dict[int, str]) -> list[dict[str, Any]]:
    """Show each seat's ``player_ref`` (null when the portal gave none)."""
    for seat in seats:
        seat["player_ref"] = refs.get(seat["seat"])
    return seats


def check_reservation(uow, match_id: str, seat: int, token: str | None) -> str | None:
    """Refuse a claim of a seat kept for another player; answers the seat's player_ref."""
    row = next((s for s in uow.seats.list_for_match(match_id) if s.seat == seat), None)
    if row is None or row.reserved_for is None:
        return row.player_ref if row is not None else None
    if token is None or not tokens.matches(row.reserved_for, tokens.hash_token(token)):
        raise errors.SeatReserved(
            f"seat {seat} is kept for the player of the previous match: "
            "claim it with that seat's token (Authorization: Bearer <token>)"
        )
    return row.player_ref


def rematch(service: MatchService, match_id: str, token: str | None) -> tuple[dict[str, Any], bool]:
    """The rematch of an ended match (made now, or the one made before); True when new."""
    from .matches import SeatSpec

    with service.store.unit_of_work(readonly=True) as uow:
        record = service.get_record(uow, match_id)
        service.authenticate(uow, match_id, token, required=True)
        if record.status != ENDED:
            raise errors.MatchNotOver("a rematch follows the end of the match", match_status=record.status)
        existing = uow.matches.get_rematch(match_id)
        seats = uow.seats.list_for_match(match_id)
        snap = service.snapshot(uow, record)
    if existing is not None:
        return service.summary(existing.id), False
    specs = []
    for row in seats:
        if row.token_hash is not None:  # a player's seat (also one a bot took over on timeouts)
            specs.append(SeatSpec(row.name, "open", player_ref=row.player_ref, reserved_for=row.token_hash))
        else:
            specs.append(SeatSpec(row.name, "bot", row.level, player_ref=row.player_ref))
    try:
        return service.create(record.preset, snap.state.rules.to_dict(), specs, rematch_of=match_id), True
    except RematchExists:
        with service.store.unit_of_work(readonly=True) as uow:
            existing = uow.matches.get_rematch(match_id)
        return service.summary(existing.id), False
