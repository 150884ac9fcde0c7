"""Reading matches: a summary, a seat's view, the list, an ended match's audit log, a match's record.

Every answer is a redaction by the rules (``view``, ``public_summary``) or, for the audit log
of an ended match, the rows as stored. A read first plays a turn whose clock ran out, so no
one is shown a turn that is already lost.
"""

from __future__ import annotations

from typing import Any

from api.records.annotations import annotate
from api.records.from_events import record_of
from api.records.text import write
from api.rules import ENDED, redact_event
from api.rules.shuffle import ALGORITHM as SHUFFLE_ALGORITHM
from api.store.records import InvalidCursor as StoreInvalidCursor
from api.store.records import MatchFilter, Space
from api.store.repositories import CURSOR_PATTERN, MAX_PAGE_SIZE

from . import errors
from .analyses import stored_analysis
from .clocks import run_due
from .commands import (
    MAX_AUDIT_PAGE,
    Answer,
    GetAudit,
    GetGameRecord,
    GetMatchPortal,
    GetRenderedView,
    GetSummary,
    GetView,
    ListMatches,
)
from .flow import MatchFlow
from .rendered import ViewKey
from .seats import attach_refs

__all__ = [
    "CURSOR_PATTERN",
    "MAX_PAGE_SIZE",
    "audit_handler",
    "game_record_handler",
    "list_handler",
    "rendered_view_handler",
    "summary_handler",
    "view_handler",
]


def summary_handler(command: GetSummary, flow: MatchFlow) -> Answer:
    """The public summary: seats, scores, status, no one's tiles (the seats' player_refs only
    for the match's own portal)."""
    run_due(flow, command.match_id)
    with flow.store.unit_of_work(readonly=True) as uow:
        record = flow.record(uow, command.match_id)
        snap = flow.snapshot(uow, record)
        shown = command.caller.owns(record.portal_id)
        refs = uow.seats.refs_for([command.match_id]).get(command.match_id, {}) if shown else {}
    summary = flow.summary(record, snap)
    attach_refs(summary["seats"], refs)
    return summary


def match_portal_handler(command: GetMatchPortal, flow: MatchFlow) -> str | None:
    """The portal that owns the match (None: the public space)."""
    with flow.store.unit_of_work(readonly=True) as uow:
        return flow.record(uow, command.match_id).portal_id


def view_handler(command: GetView, flow: MatchFlow) -> Answer:
    """What the token's seat may see (no token: what a spectator may)."""
    run_due(flow, command.match_id)
    with flow.store.unit_of_work(readonly=True) as uow:
        record, seat = flow.record_and_seat(uow, command.match_id, command.token)
        snap = flow.snapshot(uow, record)
    return flow.seat_view(snap, seat, command.match_id, record.deadline_at, record.head)


def rendered_view_handler(command: GetRenderedView, flow: MatchFlow) -> Any:
    """``view_handler``'s answer as ``command.render`` makes it: the same steps in the same
    order (a due turn played, the match read, the token checked), then the rendering kept for
    this match, seq, chain head, deadline and seat, or made and kept (``api.services.rendered``)."""
    run_due(flow, command.match_id)
    with flow.store.unit_of_work(readonly=True) as uow:
        record, seat = flow.record_and_seat(uow, command.match_id, command.token)
        key = ViewKey(record.id, record.last_seq, record.last_hash, record.deadline_at, seat, command.render)
        kept = flow.rendered_views.get(key)
        if kept is not None:
            return kept
        snap = flow.snapshot(uow, record)
    rendered = command.render(flow.seat_view(snap, seat, command.match_id, record.deadline_at, record.head))
    flow.rendered_views.put(key, rendered)
    return rendered


def list_handler(command: ListMatches, flow: MatchFlow) -> Answer:
    """One page of matches, newest first, with the cursor of the next."""
    with flow.store.unit_of_work(readonly=True) as uow:
        try:
            if command.player_ref is not None and command.caller.portal_id is None:
                raise errors.PlayerRefNeedsPortal("listing a player's matches needs the portal's key (X-API-Key)")
            where = MatchFilter(
                command.status,
                command.preset,
                command.has_open_seat,
                command.player_ref,
                space=Space(command.caller.portal_id),
            )
            page = uow.matches.list(where, limit=command.limit, cursor=command.cursor)
        except StoreInvalidCursor:
            raise errors.InvalidCursor(
                "a cursor is written <microseconds since 1970>-<match id>, as next_cursor is"
            ) from None
        # a portal's own matches (the public space has no player ids to show)
        refs = uow.seats.refs_for([r.id for r in page.items]) if command.caller.portal_id else {}
    items = [
        dict(
            r.summary,
            id=r.id,
            status=r.status,
            preset=r.preset,
            rated=r.rated,
            seq=r.last_seq,
            created_at=r.created_at.isoformat(),
            updated_at=r.updated_at.isoformat(),
        )
        for r in page.items
    ]
    for item in items:
        attach_refs(item.get("seats") or [], refs.get(item["id"], {}))
    return {"items": items, "next_cursor": page.next_cursor}


def audit_handler(command: GetAudit, flow: MatchFlow) -> Answer:
    """One page of an ended match's unredacted log: at most ``limit`` rows after ``after``, with
    the seed, its commitment, the shuffle and ``seq`` on every page; ``next_after`` is the
    ``after`` of the next page (None on the last), so no answer holds a whole long log."""
    limit = max(1, min(command.limit, MAX_AUDIT_PAGE))
    with flow.store.unit_of_work(readonly=True) as uow:
        record = flow.ended_record(uow, command.match_id, "the audit log")
        stored = uow.events.load(command.match_id, after=command.after, limit=limit)
        created = stored[0] if command.after == 0 and stored else uow.events.load(command.match_id, limit=1)[0]
    last = stored[-1].seq if stored else command.after
    return {
        "match_id": command.match_id,
        "seed": record.seed,
        "seed_commitment": record.seed_commitment,
        # The match's own shuffle, as match_created names it (the set's: openapi/shuffle.md).
        "shuffle_algorithm": created.data.get("seed_algorithm", SHUFFLE_ALGORITHM),
        "seq": record.last_seq,
        "chain_head": record.head.to_dict(),
        # The rows as stored (not upcast): what the hash chain covers, verifiable as shown.
        "events": [
            {
                "seq": e.seq,
                "type": e.type,
                **e.data,
                "schema_version": e.schema_version,
                "prev_hash": e.prev_hash,
                "hash": e.hash,
            }
            for e in stored
        ],
        "next_after": last if last < record.last_seq else None,
    }


def game_record_handler(command: GetGameRecord, flow: MatchFlow) -> Answer:
    """The match's record (docs/records.md): once it has ended, the whole match; before, the
    token's seat's own record, written from the log as ``redact_event`` shows it to that seat
    (the one redaction path: no other seat's tiles, and no seed, which only ``match_ended``
    reveals). A spectator has none until the end."""
    run_due(flow, command.match_id)
    with flow.store.unit_of_work(readonly=True) as uow:
        record, seat = flow.record_and_seat(uow, command.match_id, command.token)
        if record.status != ENDED and seat is None:
            raise errors.MatchNotOver(
                "a match's record opens when it has ended; during play a seat reads its own with its token",
                match_status=record.status,
            )
        if command.annotate and record.status != ENDED:
            raise errors.MatchNotOver(
                "a match's analysis opens when it has ended (it shows every hand)", match_status=record.status
            )
        analysis = stored_analysis(uow, flow, record) if command.annotate else None
        stored = uow.events.load(command.match_id, limit=record.last_seq)
    ended = record.status == ENDED
    events = [e.to_dict() if ended else redact_event(e.to_dict(), seat) for e in stored]
    circumstances = {
        "Event": "Rated match" if record.rated else "Casual match",
        "Site": command.site,
        "Date": record.created_at.strftime("%Y.%m.%d"),
    }
    game = record_of(events, seat=None if ended else seat, match_id=record.id, circumstances=circumstances)
    if analysis is not None:
        game = annotate(game, events, analysis)
    return {
        "text": write(game),
        "seq": record.last_seq,
        "seat": None if ended else seat,
        "chain_head": record.head.to_dict(),
    }
