"""The lobby's use case: the rematch of an ended match.

A rematch is a new match with the same rules and seat types; each remote seat of the old
match becomes an open seat *reserved* for the old seat's token (its hash), claimed with that
token for a new one (``api.services.seats``). ``matches.rematch_of`` is unique, so asking
twice (or two seats at once) gives the same new match.
"""

from __future__ import annotations

from api.rules import BOT_SEAT, ENDED, OPEN_SEAT
from api.store.records import RematchExists

from . import errors
from .commands import Answer, Caller, CreateMatch, GetSummary, Rematch, SeatSpec
from .creating import create_match_handler
from .flow import MatchFlow
from .reading import summary_handler
from .seats import attach_refs


def rematch_handler(command: Rematch, flow: MatchFlow) -> tuple[Answer, bool]:
    """The rematch of an ended match (made now, or the one made before); True when new."""
    match_id = command.match_id
    with flow.store.unit_of_work(readonly=True) as uow:
        record = flow.record(uow, match_id)
        flow.seat(uow, match_id, command.token)
        if record.status != ENDED:
            raise errors.MatchNotOver("a rematch follows the end of the match", match_status=record.status)
        existing = uow.matches.get_rematch(match_id)
        seats = uow.seats.list_for_match(match_id)
        snap = flow.snapshot(uow, record)
    if existing is not None:
        return summary_handler(GetSummary(existing.id, command.caller), flow), False
    specs = []
    for row in seats:
        if row.token_hash is not None:  # a player's seat (also one a bot took over on timeouts)
            specs.append(SeatSpec(row.name, OPEN_SEAT, player_ref=row.player_ref, reserved_for=row.token_hash))
        else:
            specs.append(SeatSpec(row.name, BOT_SEAT, row.level, player_ref=row.player_ref))
    # The rematch belongs to the match's portal, which vouched for its players' seats.
    again = CreateMatch(
        record.preset,
        snap.state.rules.options(),
        tuple(specs),
        rematch_of=match_id,
        caller=Caller(record.portal_id),
        rated=record.rated,  # a rated match's rematch is rated too
    )
    try:
        made = create_match_handler(again, flow)
        if not command.caller.owns(record.portal_id):
            attach_refs(made["seats"], {})  # a player asked: the ids are shown to the portal only
        return made, True
    except RematchExists:
        with flow.store.unit_of_work(readonly=True) as uow:
            existing = uow.matches.get_rematch(match_id)
        assert existing is not None  # the rematch that made this one fail
        return summary_handler(GetSummary(existing.id, command.caller), flow), False
