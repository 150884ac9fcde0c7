"""Challenges: a portal player names others of its portal (and computer players) to a match.

Each named player accepts or declines; the match is made in the transaction of the last
acceptance, each player's seat token kept on the challenge for that player (as a paired seek
keeps its own). A decline, the challenger's cancel, or the expiry (``ttl_seconds``) closes it.
Every player it names hears of it on its event stream (:mod:`.player_events`).
"""

from __future__ import annotations

import secrets
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from api.rules import BOT_SEAT, REMOTE_SEAT, resolve_requested_rules
from api.rules.ruleset import MAX_PLAYERS, MIN_PLAYERS
from api.store.matchmaking import ChallengeRecord
from api.store.records import MatchRecord

from .. import errors
from ..commands import (
    SEAT_NAME_MAX,
    Answer,
    AnswerChallenge,
    Caller,
    CancelChallenge,
    CreateChallenge,
    CreateMatch,
    GetChallenge,
    SeatSpec,
    Seeker,
)
from ..creating import NewMatch, insert_match, prepare_match, shown
from ..flow import MatchFlow
from ..ports import UnitOfWork
from .player_events import Note, announce_notes
from .player_tokens import the_player

#: A challenge's statuses (the store's ``challenges.status``); a closed one's ``challenge_canceled``
#: event names CANCELED or EXPIRED as its ``reason``.
PENDING, STARTED, DECLINED, CANCELED, EXPIRED = "pending", "started", "declined", "canceled", "expired"
#: A named player's answer: ACCEPTED or DECLINED (PENDING until given; a bot's is None).
ACCEPTED = "accepted"
CHALLENGE_STATUSES = (PENDING, STARTED, DECLINED, CANCELED, EXPIRED)
ANSWERS = (PENDING, ACCEPTED, DECLINED)


def create_challenge_handler(command: CreateChallenge, flow: MatchFlow) -> Answer:
    portal_id, me = the_player(command.challenger)
    opponents = list(command.opponents)
    if not opponents or len(set(opponents)) != len(opponents) or me in opponents:
        raise errors.InvalidChallenge(
            f"opponents names 1 to {MAX_PLAYERS - 1} distinct players of the portal, not the challenger",
            reason="opponents",
        )
    players = 1 + len(opponents) + len(command.bots)
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise errors.InvalidChallenge(
            f"a match has {MIN_PLAYERS} to {MAX_PLAYERS} seats, not {players}", reason="seats"
        )
    resolve_requested_rules(command.preset, command.overrides or {}, players)  # InvalidRules: 422
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
                            name=(s["player_ref"] or "Computer")[:SEAT_NAME_MAX],
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
