"""Matchmaking: player tokens, seeks (a queue), challenges, and each portal player's event stream.

Identity. A portal gives one of its players a **player token** (``bypl_<id>_<secret>``; only its
SHA-256 is kept, as for portal keys) so that the player's bot acts as that player without the
portal's key; the portal's key with a ``player_ref`` acts as that player too. A keyless client
(where the public space is on) or a portal key without ``player_ref`` may seek, unrated: such a
seek is owned by the **seek secret** (``bysk_…``) answered at its creation, sent back as
``Authorization: Bearer``.

Seeks. A seek waits in a **pool**: everything two seeks must share to meet (the space — the
portal or the public one —, the preset, the rules resolved for the player count, the player
count, rated or not), hashed. Each new seek tries to pair in the transaction that stores it:
the pool is locked (``lock_pool``), its waiting seeks are read oldest first ``FOR UPDATE SKIP
LOCKED``, and when there are enough (one seek per player: a player holds at most one waiting
seek per pool), ONE match is made in that same transaction (``creating.insert_match``) and
each of the group's seeks gets its seat and that seat's token by a compare-and-set from
``waiting``. So a seek is in one match or none, and a paired seek always has its token: both
are written together or not at all. The token stays readable by the seek's owner (every read
of the paired seek shows it: a lost answer loses nothing) and by no one else; only its
SHA-256 is in the match's seats, as for any seat.

A seek ``expires`` at its ``expires_at`` (on a read, and by the sweep the autoplay runner runs
every second); a seek with ``fill_after_seconds`` is completed with computer players of its
``fill_level`` once that time has passed without a pairing (with any other waiting seeks of
its pool). A seek's rating range (``rating_min``, ``rating_max``) admits the players whose
rating in the pool's rules family (the leaderboards' ``ordinal``; a newcomer's where none is
kept) falls in it; each seek of a group is in every other's range.

Challenges. A portal player names others of its portal (and computer players); each named
player accepts or declines; the match is made in the transaction of the last acceptance, each
player's seat token kept on the challenge for that player as for seeks. A decline, the
challenger's cancel, or the expiry (``ttl_seconds``) closes it.

Player events. Every portal player has a durable stream, numbered per player
(``player_events``): ``challenge`` (an incoming one), ``challenge_declined``,
``challenge_canceled`` (``reason``: ``canceled`` or ``expired``) and ``match_started``
(``match_id``, ``seat`` and the seek or challenge it came from; the seat's token is read from
that seek or challenge, never written to the stream). A bot long-polls it with ``after`` and
misses nothing across reconnects.

Waiting (a seek's read with ``wait``, the event stream's long-poll) uses the process's waiter
hub (``api.services.waiting``) with keys of their own (``seek-<id>``, ``player-<hash>``): the
transaction that pairs a seek or writes a player's event announces it after the commit here,
and in every other app server through the wake-up source (LISTEN/NOTIFY, or the SQLite poller).
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from api.rules import BOT_SEAT, REMOTE_SEAT, resolve_rules
from api.store.matchmaking import ChallengeRecord, SeekRecord, player_key, seek_key
from api.store.records import MatchRecord

from . import errors
from .commands import (
    Answer,
    AnswerChallenge,
    Caller,
    CancelChallenge,
    CancelSeek,
    CreateChallenge,
    CreateMatch,
    CreateSeek,
    GetChallenge,
    GetPlayerEvents,
    GetSeek,
    IdentifyPlayer,
    IssuePlayerToken,
    ListPlayerTokens,
    RevokePlayerToken,
    SeatSpec,
    Seeker,
    SweepMatchmaking,
)
from .creating import NewMatch, insert_match, prepare_match, shown
from .flow import MatchFlow
from .portals import hash_key
from .ports import UnitOfWork
from .ratings import newcomer_record
from .waiting import Subscription

log = logging.getLogger(__name__)

PLAYER_TOKEN_PREFIX = "bypl_"
SEEK_SECRET_PREFIX = "bysk_"
#: Rows the sweep handles per round (it runs every second).
SWEEP_BATCH = 50
#: A waiter re-reads at least this often (a safety net under the wake-ups, and the seek's own
#: expiry and fill times, which no write announces).
RECHECK_SECONDS = 5.0
WAITING, PAIRED, EXPIRED, CANCELED = "waiting", "paired", "expired", "canceled"
PENDING, STARTED, DECLINED = "pending", "started", "declined"
ACCEPTED = "accepted"
#: Every member a player event may have: those its type has no use for are shown null.
EVENT_MEMBERS: dict[str, Any] = dict.fromkeys(
    ("challenge_id", "challenge", "by", "reason", "match_id", "seat", "seek_id")
)


# --- player tokens ------------------------------------------------------------------------------------
def identify_player_handler(command: IdentifyPlayer, flow: MatchFlow) -> Seeker:
    """The portal player of a live player token (else ``InvalidToken``: malformed, unknown or revoked)."""
    parts = command.token.split("_")
    if len(parts) < 3 or not command.token.startswith(PLAYER_TOKEN_PREFIX) or len(command.token) > 128:
        raise errors.InvalidToken("this is not a player token: a player token looks like bypl_<12 hex>_<43 chars>")
    with flow.store.unit_of_work(readonly=True) as uow:
        found = uow.matchmaking.player_by_token_hash(hash_key(command.token))
    if found is None:
        raise errors.InvalidToken("no player has this token (it may have been revoked)")
    return Seeker(found[0], found[1])


def issue_token_handler(command: IssuePlayerToken, flow: MatchFlow) -> Answer:
    token_id = secrets.token_hex(6)
    token = f"{PLAYER_TOKEN_PREFIX}{token_id}_{secrets.token_urlsafe(32)}"
    with flow.store.unit_of_work() as uow:
        record = uow.matchmaking.add_player_token(
            token_id, command.portal_id, command.player_ref, hash_key(token), command.label, flow.now()
        )
        uow.commit()
    return {**show_token(record.id, record.label, record.created_at, None), "token": token}


def list_tokens_handler(command: ListPlayerTokens, flow: MatchFlow) -> Answer:
    with flow.store.unit_of_work(readonly=True) as uow:
        found = uow.matchmaking.player_tokens(command.portal_id, command.player_ref)
    return {
        "player_ref": command.player_ref,
        "tokens": [show_token(t.id, t.label, t.created_at, t.revoked_at) for t in found],
    }


def revoke_token_handler(command: RevokePlayerToken, flow: MatchFlow) -> None:
    with flow.store.unit_of_work() as uow:
        if not uow.matchmaking.revoke_player_token(command.portal_id, command.player_ref, command.token_id, flow.now()):
            raise errors.UnknownPlayerToken(f"player {command.player_ref!r} has no live token {command.token_id!r}")
        uow.commit()


def show_token(token_id: str, label: str | None, created_at: datetime, revoked_at: datetime | None) -> Answer:
    return {
        "token_id": token_id,
        "label": label,
        "created_at": created_at.isoformat(),
        "revoked_at": None if revoked_at is None else revoked_at.isoformat(),
    }


# --- seeks -----------------------------------------------------------------------------------------------
def pool_of(portal_id: str | None, preset: str, rules: dict[str, Any], players: int, rated: bool) -> str:
    """The pool's name: a hash of everything two seeks must share to meet."""
    text = json.dumps([portal_id, preset, rules, players, rated], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def create_seek_handler(command: CreateSeek, flow: MatchFlow) -> Answer:
    """Store the seek and pair it at once when its pool holds enough (one transaction)."""
    seeker = command.seeker
    if command.rated and seeker.player_ref is None:
        raise errors.RatedNeedsPlayer("a rated seek is a portal player's (a player token, or player_ref)")
    if command.rating_min is not None and command.rating_max is not None and command.rating_min > command.rating_max:
        raise errors.InvalidSeek("rating_min is above rating_max", reason="rating_range")
    if (command.fill_after_seconds is None) != (command.fill_level is None):
        raise errors.InvalidSeek("fill_after_seconds and fill_level go together", reason="fill")
    rules = resolve_rules(command.preset, command.overrides or {}, command.players)  # InvalidRules: 422
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
        waiting = uow.matchmaking.waiting_in_pool(pool, now, limit=1000)
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


Note = tuple[str, int]  # a waiter key and its new seq, announced after the commit
Made = tuple[NewMatch, MatchRecord, datetime | None, list[str], list[Note]]


def pair(
    uow: UnitOfWork, flow: MatchFlow, waiting: list[SeekRecord], players: int, fill_level: str | None
) -> Made | None:
    """Make one match of the oldest compatible group of ``waiting`` (all of one pool, locked),
    or of the oldest ones completed with bots of ``fill_level``; None when there are too few.
    Answers what :func:`after_pairing` needs after the commit."""
    rated = ratings_of(uow, waiting)
    group = next(
        (g for g in (grouped(waiting, start, players, rated) for start in range(len(waiting))) if len(g) == players),
        grouped(waiting, 0, players, rated) if fill_level is not None and waiting else [],
    )
    if len(group) < players and (fill_level is None or not group):
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


def grouped(waiting: list[SeekRecord], start: int, players: int, rated: dict[str, float]) -> list[SeekRecord]:
    """Up to ``players`` mutually compatible seeks: ``waiting[start]``, then the oldest others that
    fit (one seat per player; each in every other's rating range)."""
    group = [waiting[start]]
    for seek in waiting:
        if len(group) == players:
            break
        if seek is waiting[start] or (seek.player_ref is not None and seek.player_ref in {g.player_ref for g in group}):
            continue
        if all(in_range(seek, other, rated) and in_range(other, seek, rated) for other in group):
            group.append(seek)
    return group


def seat_name(seek: SeekRecord, number: int) -> str:
    return (seek.player_ref or f"Player {number + 1}")[:40]


def ratings_of(uow: UnitOfWork, waiting: list[SeekRecord]) -> dict[str, float]:
    """The pool's players' ratings (the ``ordinal`` leaderboards order by, in the pool's rules
    family; a newcomer's where none is kept), read only when a seek of the pool names a range."""
    ranged = any(s.rating_min is not None or s.rating_max is not None for s in waiting)
    portal_id = waiting[0].portal_id if waiting else None
    if not ranged or portal_id is None:
        return {}
    first = waiting[0]
    family = str(resolve_rules(first.preset, first.rules, first.players).family)
    refs = [s.player_ref for s in waiting if s.player_ref is not None]
    kept = uow.ratings.current(portal_id, family, refs)
    return {ref: kept.get(ref, newcomer_record(ref, family)).ordinal for ref in refs}


def in_range(seek: SeekRecord, other: SeekRecord, rated: dict[str, float]) -> bool:
    """Does ``other``'s rating fall in ``seek``'s range? A seeker with no rating (no player)
    meets only seeks that name no range."""
    if seek.rating_min is None and seek.rating_max is None:
        return True
    rating = rated.get(other.player_ref) if other.player_ref is not None else None
    if rating is None:
        return False
    return (seek.rating_min is None or rating >= seek.rating_min) and (
        seek.rating_max is None or rating <= seek.rating_max
    )


def after_pairing(flow: MatchFlow, made: Made | None) -> None:
    """After the commit: the match's waiters and cache, then each paired seek's and player's waiters."""
    if made is None:
        return
    new, record, deadline, seek_ids, notes = made
    shown(new, record, deadline, flow)
    for seek_id in seek_ids:
        flow.waiter.announce(seek_key(seek_id), 1)
    announce_notes(flow, notes)


def announce_notes(flow: MatchFlow, notes: list[Note]) -> None:
    for key, seq in notes:
        flow.waiter.announce(key, seq)


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
        seek = settle(flow, command.seek_id, command.seeker)
        if sub is not None and seek.status == WAITING:
            sub.saw(0)
            clock = flow.waiter.clock
            give_up = clock.monotonic() + command.wait
            with flow.waiter.hold(command.client, command.wait):
                while seek.status == WAITING and not sub.left:
                    remaining = give_up - clock.monotonic()
                    if remaining <= 0:
                        break
                    due = min(t for t in (seek.expires_at, seek.fill_at) if t is not None)
                    until_due = (due - flow.now()).total_seconds()
                    sub.wait(0, max(0.05, min(remaining, RECHECK_SECONDS, until_due + 0.05)))
                    seek = settle(flow, command.seek_id, command.seeker)
    finally:
        if sub is not None:
            sub.close()
    return show_seek(seek, owner=True)


def settle(flow: MatchFlow, seek_id: str, seeker: Seeker) -> SeekRecord:
    """Read the seek; a waiting one whose expiry or fill time has come is expired or filled first."""
    with flow.store.unit_of_work(readonly=True) as uow:
        seek = owned_seek(uow, seek_id, seeker)
    now = flow.now()
    if seek.status == WAITING and (seek.expires_at <= now or (seek.fill_at is not None and seek.fill_at <= now)):
        settle_due(flow, seek)
        with flow.store.unit_of_work(readonly=True) as uow:
            seek = owned_seek(uow, seek_id, seeker)
    return seek


def settle_due(flow: MatchFlow, seek: SeekRecord) -> bool:
    """Expire a seek past its expiry, or fill one past its fill time with bots; True if it changed."""
    now = flow.now()
    with flow.store.unit_of_work() as uow:
        uow.matchmaking.lock_pool(seek.pool)
        made: Made | None = None
        if seek.expires_at <= now:
            changed = uow.matchmaking.finish_seek(seek.id, EXPIRED)
            if changed:
                uow.commit()
                flow.waiter.announce(seek_key(seek.id), 1)
            return changed
        waiting = uow.matchmaking.waiting_in_pool(seek.pool, now, limit=1000)
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


# --- challenges ------------------------------------------------------------------------------------------------
def the_player(seeker: Seeker) -> tuple[str, str]:
    if seeker.portal_id is None or seeker.player_ref is None:
        raise errors.PlayerRequired(
            "this acts as a portal's player: send a player token (Authorization: Bearer bypl_…), or the "
            "portal's key (X-API-Key) with player_ref"
        )
    return seeker.portal_id, seeker.player_ref


def create_challenge_handler(command: CreateChallenge, flow: MatchFlow) -> Answer:
    portal_id, me = the_player(command.challenger)
    opponents = list(command.opponents)
    if not opponents or len(set(opponents)) != len(opponents) or me in opponents:
        raise errors.InvalidChallenge(
            "opponents names 1 to 3 distinct players of the portal, not the challenger", reason="opponents"
        )
    players = 1 + len(opponents) + len(command.bots)
    if not 2 <= players <= 4:
        raise errors.InvalidChallenge(f"a match has 2 to 4 seats, not {players}", reason="seats")
    resolve_rules(command.preset, command.overrides or {}, players)  # InvalidRules: 422
    now = flow.now()
    seats = [{"player_ref": me, "type": REMOTE_SEAT, "level": None, "answer": ACCEPTED, "token": None}]
    seats += [
        {"player_ref": ref, "type": REMOTE_SEAT, "level": None, "answer": PENDING, "token": None} for ref in opponents
    ]
    seats += [
        {"player_ref": None, "type": BOT_SEAT, "level": level, "answer": None, "token": None} for level in command.bots
    ]
    with flow.store.unit_of_work() as uow:
        challenge = uow.matchmaking.add_challenge(
            {
                "id": secrets.token_hex(16),
                "portal_id": portal_id,
                "challenger_ref": me,
                "preset": command.preset,
                "rules": command.overrides or {},
                "rated": command.rated,
                "seats": seats,
                "status": PENDING,
                "created_at": now,
                "expires_at": now + timedelta(seconds=command.ttl_seconds),
            }
        )
        notes = [
            uow.matchmaking.add_player_event(
                portal_id,
                ref,
                "challenge",
                {"challenge_id": challenge.id, "challenge": show_challenge(challenge, ref)},
                now,
            )
            for ref in sorted(opponents)
        ]
        uow.commit()
    announce_notes(flow, notes)
    return show_challenge(challenge, me)


def visible_challenge(
    uow: UnitOfWork, challenge_id: str, player: Seeker, *, for_update: bool = False
) -> ChallengeRecord:
    portal_id, me = the_player(player)
    found = uow.matchmaking.get_challenge(challenge_id, for_update=for_update)
    if found is None or found.portal_id != portal_id or me not in refs_of(found):
        raise errors.UnknownChallenge(f"no challenge {challenge_id} that names you")
    return found


def refs_of(challenge: ChallengeRecord) -> list[str]:
    """The players a challenge names, sorted: their stream heads are locked in this order."""
    return sorted(s["player_ref"] for s in challenge.seats if s["player_ref"] is not None)


def get_challenge_handler(command: GetChallenge, flow: MatchFlow) -> Answer:
    with flow.store.unit_of_work(readonly=True) as uow:
        challenge = visible_challenge(uow, command.challenge_id, command.player)
    if challenge.status == PENDING and challenge.expires_at <= flow.now():
        expire_challenge(flow, challenge.id)
        with flow.store.unit_of_work(readonly=True) as uow:
            challenge = visible_challenge(uow, command.challenge_id, command.player)
    return show_challenge(challenge, command.player.player_ref)


def answer_challenge_handler(command: AnswerChallenge, flow: MatchFlow) -> Answer:
    """Accept or decline; the last acceptance makes the match in its own transaction."""
    me = command.player.player_ref
    now = flow.now()
    made: tuple[NewMatch, MatchRecord, datetime | None] | None = None
    with flow.store.unit_of_work() as uow:
        challenge = visible_challenge(uow, command.challenge_id, command.player, for_update=True)
        if me == challenge.challenger_ref:
            raise errors.NotYourChallenge("the challenger does not answer its own challenge (cancel it instead)")
        expired = challenge.status == PENDING and challenge.expires_at <= now
        if expired or challenge.status != PENDING:
            status = EXPIRED if expired else challenge.status
            raise errors.ChallengeClosed(f"challenge {challenge.id} is {status}", challenge_status=status)
        seats = [dict(s) for s in challenge.seats]
        mine = next(s for s in seats if s["player_ref"] == me)
        mine["answer"] = ACCEPTED if command.accept else DECLINED
        notes: list[Note] = []
        fields: dict[str, Any] = {"seats": seats}
        if not command.accept:
            fields["status"] = DECLINED
            for ref in refs_of(challenge):
                if ref != me:
                    notes.append(
                        uow.matchmaking.add_player_event(
                            challenge.portal_id,
                            ref,
                            "challenge_declined",
                            {"challenge_id": challenge.id, "by": me},
                            now,
                        )
                    )
        elif all(s["answer"] in (ACCEPTED, None) for s in seats):
            new = prepare_match(
                CreateMatch(
                    challenge.preset,
                    challenge.rules,
                    tuple(
                        SeatSpec(
                            name=(s["player_ref"] or "Computer")[:40],
                            type=s["type"],
                            level=s["level"],
                            player_ref=s["player_ref"],
                        )
                        for s in seats
                    ),
                    caller=Caller(challenge.portal_id),
                    rated=challenge.rated,
                ),
                flow,
            )
            record, deadline = insert_match(uow, new, flow)
            made = (new, record, deadline)
            for number, seat in enumerate(seats):
                if seat["type"] == REMOTE_SEAT:
                    seat["token"] = new.issued[number]
            # Stream heads locked in player_ref order (as pairing does): no two transactions wait in a ring.
            for number, seat in sorted(enumerate(seats), key=lambda pair: pair[1]["player_ref"] or ""):
                if seat["type"] == REMOTE_SEAT:
                    notes.append(
                        uow.matchmaking.add_player_event(
                            challenge.portal_id,
                            seat["player_ref"],
                            "match_started",
                            {"match_id": record.id, "seat": number, "seek_id": None, "challenge_id": challenge.id},
                            now,
                        )
                    )
            fields.update(status=STARTED, match_id=record.id)
        changed = uow.matchmaking.update_challenge(challenge.id, PENDING, **fields)
        assert changed, "a locked pending challenge changed under its lock"
        uow.commit()
    if made is not None:
        shown(*made, flow)
    announce_notes(flow, notes)
    with flow.store.unit_of_work(readonly=True) as uow:
        challenge = visible_challenge(uow, command.challenge_id, command.player)
    return show_challenge(challenge, me)


def cancel_challenge_handler(command: CancelChallenge, flow: MatchFlow) -> Answer:
    now = flow.now()
    with flow.store.unit_of_work() as uow:
        challenge = visible_challenge(uow, command.challenge_id, command.player, for_update=True)
        if command.player.player_ref != challenge.challenger_ref:
            raise errors.NotYourChallenge("only the challenger cancels a challenge (decline it instead)")
        if challenge.status != PENDING:
            raise errors.ChallengeClosed(
                f"challenge {challenge.id} is {challenge.status}", challenge_status=challenge.status
            )
        uow.matchmaking.update_challenge(challenge.id, PENDING, status=CANCELED)
        notes = close_notes(uow, challenge, CANCELED, now)
        uow.commit()
    announce_notes(flow, notes)
    return show_challenge(replace(challenge, status=CANCELED), command.player.player_ref)


def close_notes(uow: UnitOfWork, challenge: ChallengeRecord, reason: str, now: datetime) -> list[Note]:
    """``challenge_canceled`` to each player named in it but the challenger (who canceled) — to
    every one of them when it expired."""
    return [
        uow.matchmaking.add_player_event(
            challenge.portal_id, ref, "challenge_canceled", {"challenge_id": challenge.id, "reason": reason}, now
        )
        for ref in refs_of(challenge)
        if reason == EXPIRED or ref != challenge.challenger_ref
    ]


def expire_challenge(flow: MatchFlow, challenge_id: str) -> bool:
    now = flow.now()
    with flow.store.unit_of_work() as uow:
        challenge = uow.matchmaking.get_challenge(challenge_id, for_update=True)
        if challenge is None or challenge.status != PENDING or challenge.expires_at > now:
            return False
        uow.matchmaking.update_challenge(challenge.id, PENDING, status=EXPIRED)
        notes = close_notes(uow, challenge, EXPIRED, now)
        uow.commit()
    announce_notes(flow, notes)
    return True


def show_challenge(challenge: ChallengeRecord, viewer: str | None) -> Answer:
    """The challenge; the viewer's own seat number and, once started, that seat's token."""
    mine = next((n for n, s in enumerate(challenge.seats) if viewer is not None and s["player_ref"] == viewer), None)
    return {
        "id": challenge.id,
        "status": challenge.status,
        "challenger": challenge.challenger_ref,
        "preset": challenge.preset,
        "rules": challenge.rules,
        "rated": challenge.rated,
        "seats": [
            {"seat": n, "player_ref": s["player_ref"], "type": s["type"], "level": s["level"], "answer": s["answer"]}
            for n, s in enumerate(challenge.seats)
        ],
        "created_at": challenge.created_at.isoformat(),
        "expires_at": challenge.expires_at.isoformat(),
        "match_id": challenge.match_id,
        "seat": mine,
        "token": None if mine is None else challenge.seats[mine]["token"],
    }


# --- the player's event stream -----------------------------------------------------------------------
def player_events_handler(command: GetPlayerEvents, flow: MatchFlow) -> Answer:
    portal_id, me = the_player(command.player)
    limit = max(1, min(command.limit, 100))
    sub = flow.waiter.subscribe(player_key(portal_id, me), command.client) if command.wait > 0 else None
    try:
        with flow.store.unit_of_work(readonly=True) as uow:
            last = uow.matchmaking.player_last_seq(portal_id, me)
            found = uow.matchmaking.player_events(portal_id, me, command.after, limit)
        if sub is not None and not found:
            sub.saw(last)
            with flow.waiter.hold(command.client, command.wait):
                seq = sleep_for(flow, sub, command.after, command.wait)
            if seq > command.after and not sub.left:
                with flow.store.unit_of_work(readonly=True) as uow:
                    last = uow.matchmaking.player_last_seq(portal_id, me)
                    found = uow.matchmaking.player_events(portal_id, me, command.after, limit)
    finally:
        if sub is not None:
            sub.close()
    items = [{"seq": e.seq, "type": e.type, "at": e.created_at.isoformat(), **EVENT_MEMBERS, **e.data} for e in found]
    end = items[-1]["seq"] if items else command.after
    return {"player_ref": me, "seq": last, "events": items, "next_after": end if end < last else None}


def stream_key(player: Seeker) -> str:
    """The waiters' key of the player's event stream (a server-sent-events stream stays subscribed to it)."""
    return player_key(*the_player(player))


def sleep_for(flow: MatchFlow, sub: Subscription, after: int, wait: float) -> int:
    """Sleep until the subscription is past ``after`` or ``wait`` seconds pass (re-reading the
    head every ``RECHECK_SECONDS``, the safety net under the wake-ups)."""
    clock = flow.waiter.clock
    give_up = clock.monotonic() + wait
    seq = sub.seq
    while (remaining := give_up - clock.monotonic()) > 0 and seq <= after and not sub.left:
        seq = sub.wait(after, min(remaining, RECHECK_SECONDS))
    return seq


# --- the sweep ---------------------------------------------------------------------------------------
def sweep_handler(command: SweepMatchmaking, flow: MatchFlow) -> int:
    """Expire seeks and challenges past their time and fill due seeks with bots (the autoplay
    runner calls this every second); answers how many changed."""
    now = flow.now()
    with flow.store.unit_of_work(readonly=True) as uow:
        due = uow.matchmaking.due_seeks(now, SWEEP_BATCH)
        stale = uow.matchmaking.expired_challenges(now, SWEEP_BATCH)
    changed = 0
    for seek in due:
        try:
            changed += settle_due(flow, seek)
        except Exception:  # one seek that cannot be settled must not hold up the others
            log.exception("seek %s not settled; retried by the next sweep", seek.id)
    for challenge in stale:
        changed += expire_challenge(flow, challenge.id)
    return changed
