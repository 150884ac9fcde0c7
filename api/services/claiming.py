"""Claiming an open seat: the seat gets a player and a token; the deal comes when all are taken."""

from __future__ import annotations

from api.rules import REMOTE_SEAT, claim_seat, ready_to_start, start_match

from . import errors, tokens
from .commands import Answer, ClaimSeat
from .flow import MatchFlow
from .seats import check_reservation
from .snapshots import fold_decided

#: A claim decided on a state another writer moved past is decided again, this many times at most.
CLAIM_ATTEMPTS = 5


def claim_seat_handler(command: ClaimSeat, flow: MatchFlow) -> Answer:
    """Like an action: decided on the state as read (the first deal and the computer players'
    first moves included), appended under the lock if nobody appended since."""
    match_id, seat = command.match_id, command.seat
    for _attempt in range(CLAIM_ATTEMPTS):
        with flow.store.unit_of_work(readonly=True) as uow:
            record = flow.record(uow, match_id)
            snap = flow.snapshot(uow, record)
        if not isinstance(seat, int) or not 0 <= seat < record.players:
            raise errors.UnknownSeat(f"no seat {seat}; seats are 0 to {record.players - 1}")
        after, appended = fold_decided(snap, claim_seat(snap.state, seat, command.name, command.client_seed))
        if ready_to_start(after.state):
            after, more = flow.advance(record.seed, after, start_match(after.state, record.seed))
            appended += more
        if command.player_ref is not None and not command.caller.owns(record.portal_id):
            raise errors.PlayerRefNeedsPortal(
                "a player_ref is the portal's id for its player: only the key (X-API-Key) of the portal "
                "this match belongs to may set one"
            )
        with flow.store.unit_of_work() as uow:
            if flow.lock(uow, match_id).last_seq != snap.seq:
                continue  # someone else moved the match (a claim of another seat)
            reserved_ref = check_reservation(uow, match_id, seat, command.token, command.caller, record.portal_id)
            issued = tokens.new_token()
            uow.seats.update(
                match_id,
                seat,
                name=command.name,
                type=REMOTE_SEAT,
                token_hash=tokens.hash_token(issued),
                player_ref=command.player_ref or reserved_ref,
                reserved_for=None,
            )
            deadline = flow.append(uow, match_id, snap.seq, appended, after)
            head = uow.events.head(match_id)
            uow.commit()
        flow.committed(match_id, after)
        return {
            "match_id": match_id,
            "seat": seat,
            "token": issued,
            "seq": after.seq,
            "view": flow.seat_view(after, seat, match_id, deadline, head),
        }
    raise errors.StaleSeq(snap.seq, flow.last_seq(match_id))
