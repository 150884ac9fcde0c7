"""Each portal player's event stream: durable, numbered per player (``player_events``).

The events: ``challenge`` (an incoming one), ``challenge_declined``, ``challenge_canceled``
(``reason``: ``canceled`` or ``expired``) and ``match_started`` (``match_id``, ``seat`` and the
seek or challenge it came from; the seat's token is read from that seek or challenge, or from a
tournament's rounds, never written to the stream); a tournament's players also hear of
``tournament_started``, ``round_paired`` (their ``match_id`` and ``seat``), ``round_ended`` and
``tournament_ended`` (``tournament_id``, ``round``: ``api.services.tournament_log``). A bot
long-polls the stream with ``after`` and misses nothing across reconnects. The transaction that
writes an event answers its :data:`Note`, announced to the waiters after the commit
(:func:`announce_notes`).
"""

from __future__ import annotations

from typing import Any

from api.store.matchmaking import player_key

from ..commands import Answer, GetPlayerEvents, Seeker
from ..flow import MatchFlow
from ..waiting import Subscription
from .player_tokens import the_player

#: A waiter re-reads at least this often (a safety net under the wake-ups, and the seek's own
#: expiry and fill times, which no write announces).
RECHECK_SECONDS = 5.0
#: Every member a player event may have: those its type has no use for are shown null.
EVENT_MEMBERS: dict[str, Any] = dict.fromkeys(
    ("challenge_id", "challenge", "by", "reason", "match_id", "seat", "seek_id", "tournament_id", "round")
)

Note = tuple[str, int]  # a waiter key and its new seq, announced after the commit


def announce_notes(flow: MatchFlow, notes: list[Note]) -> None:
    for key, seq in notes:
        flow.waiter.announce(key, seq)


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
            with flow.waiter.hold(command.client, command.wait, "player_events"):
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
