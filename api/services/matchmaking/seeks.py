"""Seeks: the matchmaking queue.

A seek waits in its pool (:func:`~api.services.matchmaking.pairing.pool_of`). Each new seek
tries to pair in the transaction that stores it: the pool is locked (``lock_pool``), its
waiting seeks are read oldest first ``FOR UPDATE SKIP LOCKED``, and when :mod:`.pairing` finds
a group (one seek per player: a player holds at most one waiting seek per pool), ONE match is
made in that same transaction (``creating.insert_match``) and each of the group's seeks gets
its seat and that seat's token by a compare-and-set from ``waiting``. So a seek is in one
match or none, and a paired seek always has its token: both are written together or not at
all. The token stays readable by the seek's owner (every read of the paired seek shows it: a
lost answer loses nothing) and by no one else; only its SHA-256 is in the match's seats, as
for any seat.

A seek **expires** at its ``expires_at``; a seek with ``fill_after_seconds`` is **filled**,
completed with computer players of its ``fill_level`` (with any other waiting seeks of its
pool that fit), once that time has passed without a pairing (:func:`expire_or_fill`: on a
read, and by the sweep). A seek's rating range (``rating_min``, ``rating_max``) admits the
players whose rating in the pool's rules family (the leaderboards' ``ordinal``; a newcomer's
where none is kept) falls in it.

A keyless client, or a portal key without ``player_ref``, owns its (unrated) seek by the
**seek secret** (``bysk_…``) answered at its creation, sent back as ``Authorization: Bearer``.
"""

from __future__ import annotations

import secrets
from dataclasses import replace
from datetime import datetime, timedelta

from api.rules import BOT_SEAT, REMOTE_SEAT, resolve_requested_rules, resolve_rules
from api.store.matchmaking import SeekRecord, seek_key
from api.store.records import MatchRecord

from .. import errors
from ..commands import (
    SEAT_NAME_MAX,
    Answer,
    Caller,
    CancelSeek,
    CreateMatch,
    CreateSeek,
    GetSeek,
    SeatSpec,
    Seeker,
)
from ..creating import NewMatch, insert_match, prepare_match, shown
from ..flow import MatchFlow
from ..portals import hash_key
from ..ports import UnitOfWork
from ..ratings import newcomer_record
from .pairing import choose_group, names_a_range, pool_of
from .player_events import RECHECK_SECONDS, Note, announce_notes

SEEK_SECRET_PREFIX = "bysk_"
#: A seek's statuses (the store's ``seeks.status``).
WAITING, PAIRED, EXPIRED, CANCELED = "waiting", "paired", "expired", "canceled"
SEEK_STATUSES = (WAITING, PAIRED, EXPIRED, CANCELED)
#: The waiting seeks of a pool read at once, oldest first.
POOL_READ = 1000

#: What a pairing's transaction leaves for after its commit (:func:`after_pairing`): the new
#: match, its record and turn deadline, the paired seeks' ids, and the player events written.
Made = tuple[NewMatch, MatchRecord, datetime | None, list[str], list[Note]]


def create_seek_handler(command: CreateSeek, flow: MatchFlow) -> Answer:
    """Store the seek and pair it at once when its pool holds enough (one transaction)."""
    seeker = command.seeker
    if command.rated and seeker.player_ref is None:
        raise errors.RatedNeedsPlayer("a rated seek is a portal player's (a player token, or player_ref)")
    if command.rating_min is not None and command.rating_max is not None and command.rating_min > command.rating_max:
        raise errors.InvalidSeek("rating_min is above rating_max", reason="rating_range")
    if (command.fill_after_seconds is None) != (command.fill_level is None):
        raise errors.InvalidSeek("fill_after_seconds and fill_level go together", reason="fill")
    rules = resolve_requested_rules(command.preset, command.overrides or {}, command.players)  # InvalidRules: 422
    now = flow.now()
    secret = None if seeker.player_ref else f"{SEEK_SECRET_PREFIX}{secrets.token_urlsafe(32)}"
    pool = pool_of(seeker.portal_id, command.preset, rules.to_dict(), command.players, command.rated)
    row = {
        "id": secrets.token_hex(16),
        "portal_id": seeker.portal_id,
        "player_ref": seeker.player_ref,
        "secret_hash": None if secret is None else hash_key(secret),
        "pool": pool,
        "preset": command.preset,
        "rules": command.overrides or {},
        "players": command.players,
        "rated": command.rated,
        "rating_min": command.rating_min,
        "rating_max": command.rating_max,
        "fill_at": None if command.fill_after_seconds is None else now + timedelta(seconds=command.fill_after_seconds),
        "fill_level": command.fill_level,
        "status": WAITING,
        "created_at": now,
        "expires_at": now + timedelta(seconds=command.ttl_seconds),
    }
    with flow.store.unit_of_work() as uow:
        uow.matchmaking.lock_pool(pool)
        waiting = uow.matchmaking.waiting_in_pool(pool, now, limit=POOL_READ)
        if seeker.player_ref is not None:
            mine = [s for s in waiting if s.player_ref == seeker.player_ref]
            if mine:
                raise errors.AlreadySeeking(
                    f"player {seeker.player_ref!r} already waits in this pool (seek {mine[0].id})", seek_id=mine[0].id
                )
        seek = uow.matchmaking.add_seek(row)
        made = pair(uow, flow, [*waiting, seek], command.players, None)
        uow.commit()
    after_pairing(flow, made)
    if made is not None:
        seek = paired_view(flow, seek.id)
    return {**show_seek(seek, owner=True), "secret": secret}  # an anonymous seek's, shown this once


def pair(
    uow: UnitOfWork, flow: MatchFlow, waiting: list[SeekRecord], players: int, fill_level: str | None
) -> Made | None:
    """Make one match of the group :func:`~.pairing.choose_group` picks of ``waiting`` (all of
    one pool, locked, oldest first), its seats left completed with bots of ``fill_level`` where
    one is given; None when there is no group yet. Answers what :func:`after_pairing` needs
    after the commit."""
    group = choose_group(waiting, players, ratings_of(uow, waiting), fill=fill_level is not None)
    if group is None:
        return None
    first = group[0]
    humans = list(group)
    secrets.SystemRandom().shuffle(humans)  # who sits first (and leads) is no one's choice
    seats = [
        SeatSpec(name=seat_name(seek, number), type=REMOTE_SEAT, player_ref=seek.player_ref)
        for number, seek in enumerate(humans)
    ]
    seats += [
        SeatSpec(name=f"Computer {number + 1}", type=BOT_SEAT, level=fill_level)
        for number in range(players - len(humans))
    ]
    command = CreateMatch(first.preset, first.rules, tuple(seats), caller=Caller(first.portal_id), rated=first.rated)
    new = prepare_match(command, flow)
    record, deadline = insert_match(uow, new, flow)
    notes: list[Note] = []
    for number, seek in enumerate(humans):
        done = uow.matchmaking.finish_seek(
            seek.id, PAIRED, match_id=record.id, seat=number, seat_token=new.issued[number]
        )
        assert done, "a locked waiting seek changed under its lock"
    # Each player's stream head is locked in player_ref order: two transactions never wait in a ring.
    for number, seek in sorted(enumerate(humans), key=lambda pair: pair[1].player_ref or ""):
        if seek.portal_id is not None and seek.player_ref is not None:
            notes.append(
                uow.matchmaking.add_player_event(
                    seek.portal_id,
                    seek.player_ref,
                    "match_started",
                    {"match_id": record.id, "seat": number, "seek_id": seek.id, "challenge_id": None},
                    flow.now(),
                )
            )
    return new, record, deadline, [s.id for s in humans], notes


def seat_name(seek: SeekRecord, number: int) -> str:
    return (seek.player_ref or f"Player {number + 1}")[:SEAT_NAME_MAX]


def ratings_of(uow: UnitOfWork, waiting: list[SeekRecord]) -> dict[str, float]:
    """The pool's players' ratings (the ``ordinal`` leaderboards order by, in the pool's rules
    family; a newcomer's where none is kept), read only when a seek of the pool names a range."""
    portal_id = waiting[0].portal_id if waiting else None
    if not names_a_range(waiting) or portal_id is None:
        return {}
    first = waiting[0]
    family = str(resolve_rules(first.preset, first.rules, first.players).family)
    refs = [s.player_ref for s in waiting if s.player_ref is not None]
    kept = uow.ratings.current(portal_id, family, refs)
    return {ref: kept.get(ref, newcomer_record(ref, family)).ordinal for ref in refs}


def after_pairing(flow: MatchFlow, made: Made | None) -> None:
    """After the commit: the match's waiters and cache, then each paired seek's and player's waiters."""
    if made is None:
        return
    new, record, deadline, seek_ids, notes = made
    shown(new, record, deadline, flow)
    for seek_id in seek_ids:
        flow.waiter.announce(seek_key(seek_id), 1)
    announce_notes(flow, notes)


def paired_view(flow: MatchFlow, seek_id: str) -> SeekRecord:
    with flow.store.unit_of_work(readonly=True) as uow:
        found = uow.matchmaking.get_seek(seek_id)
    assert found is not None
    return found


def owns(seek: SeekRecord, seeker: Seeker) -> bool:
    """Is ``seeker`` the seek's owner: its player, or the holder of its secret (in its space)?"""
    if seek.portal_id != seeker.portal_id:
        return False
    if seek.player_ref is not None:
        return seeker.player_ref == seek.player_ref
    return (
        seeker.secret is not None
        and seek.secret_hash is not None
        and secrets.compare_digest(hash_key(seeker.secret), seek.secret_hash)
    )


def owned_seek(uow: UnitOfWork, seek_id: str, seeker: Seeker, *, for_update: bool = False) -> SeekRecord:
    seek = uow.matchmaking.get_seek(seek_id, for_update=for_update)
    if seek is None or not owns(seek, seeker):
        raise errors.UnknownSeek(f"no seek {seek_id} of yours")
    return seek


def get_seek_handler(command: GetSeek, flow: MatchFlow) -> Answer:
    """The seek (its seat and token once paired); with ``wait``, held until it is no longer waiting."""
    key = seek_key(command.seek_id)
    sub = flow.waiter.subscribe(key, command.client) if command.wait > 0 else None
    try:
        seek = read_seek_as_of_now(flow, command.seek_id, command.seeker)
        if sub is not None and seek.status == WAITING:
            sub.saw(0)
            clock = flow.waiter.clock
            give_up = clock.monotonic() + command.wait
            with flow.waiter.hold(command.client, command.wait, "seek"):
                while seek.status == WAITING and not sub.left:
                    remaining = give_up - clock.monotonic()
                    if remaining <= 0:
                        break
                    due = min(t for t in (seek.expires_at, seek.fill_at) if t is not None)
                    until_due = (due - flow.now()).total_seconds()
                    sub.wait(0, max(0.05, min(remaining, RECHECK_SECONDS, until_due + 0.05)))
                    seek = read_seek_as_of_now(flow, command.seek_id, command.seeker)
    finally:
        if sub is not None:
            sub.close()
    return show_seek(seek, owner=True)


def read_seek_as_of_now(flow: MatchFlow, seek_id: str, seeker: Seeker) -> SeekRecord:
    """The owner's seek as it stands now: a waiting one whose expiry or fill time has come is
    expired or filled first (:func:`expire_or_fill`), without waiting for the sweep."""
    with flow.store.unit_of_work(readonly=True) as uow:
        seek = owned_seek(uow, seek_id, seeker)
    now = flow.now()
    if seek.status == WAITING and (seek.expires_at <= now or (seek.fill_at is not None and seek.fill_at <= now)):
        expire_or_fill(flow, seek)
        with flow.store.unit_of_work(readonly=True) as uow:
            seek = owned_seek(uow, seek_id, seeker)
    return seek


def expire_or_fill(flow: MatchFlow, seek: SeekRecord) -> bool:
    """Expire a seek past its expiry, or fill one past its fill time with bots; True if it changed."""
    now = flow.now()
    with flow.store.unit_of_work() as uow:
        uow.matchmaking.lock_pool(seek.pool)
        if seek.expires_at <= now:
            changed = uow.matchmaking.finish_seek(seek.id, EXPIRED)
            if changed:
                uow.commit()
                flow.waiter.announce(seek_key(seek.id), 1)
            return changed
        waiting = uow.matchmaking.waiting_in_pool(seek.pool, now, limit=POOL_READ)
        due = next((s for s in waiting if s.id == seek.id), None)
        if due is None:
            return False  # paired, cancelled or taken by another sweep meanwhile
        others = [s for s in waiting if s.id != seek.id]
        made = pair(uow, flow, [due, *others], due.players, due.fill_level)
        uow.commit()
    after_pairing(flow, made)
    return made is not None


def cancel_seek_handler(command: CancelSeek, flow: MatchFlow) -> Answer:
    """Cancel a waiting seek (409 ``seek_paired`` once paired; an ended one is answered as it is)."""
    with flow.store.unit_of_work() as uow:
        seek = owned_seek(uow, command.seek_id, command.seeker, for_update=True)
        if seek.status == PAIRED:
            raise errors.SeekPaired(f"seek {seek.id} is paired already (match {seek.match_id})", match_id=seek.match_id)
        if seek.status == WAITING:
            uow.matchmaking.finish_seek(seek.id, CANCELED)
            seek = replace(seek, status=CANCELED)
        uow.commit()
    flow.waiter.announce(seek_key(seek.id), 1)
    return show_seek(seek, owner=True)


def show_seek(seek: SeekRecord, *, owner: bool) -> Answer:
    return {
        "id": seek.id,
        "status": seek.status,
        "preset": seek.preset,
        "rules": seek.rules,
        "players": seek.players,
        "rated": seek.rated,
        "player_ref": seek.player_ref,
        "rating_min": seek.rating_min,
        "rating_max": seek.rating_max,
        "fill_at": None if seek.fill_at is None else seek.fill_at.isoformat(),
        "fill_level": seek.fill_level,
        "created_at": seek.created_at.isoformat(),
        "expires_at": seek.expires_at.isoformat(),
        "match_id": seek.match_id,
        "seat": seek.seat,
        "token": seek.seat_token if owner else None,
    }
