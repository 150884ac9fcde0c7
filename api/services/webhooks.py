"""Webhooks: a portal's endpoints, and the outbox of what they are sent.

A portal registers endpoints (``POST /v1/portal/webhooks``, ``flask boneyard portal webhook
add``): a URL, the event types it wants (:data:`EVENT_TYPES`, all by default) and a signing
secret the server makes (``whsec_`` and 32 random bytes in base64: a Standard Webhooks secret
as it is; shown when made or rotated; kept, since signing needs it).

The outbox is durable and exact: :func:`record_webhooks` runs inside the transaction that
appends a portal match's events (``api.services.effects``) and writes one delivery row per
endpoint and event, so a rolled-back append sends nothing and a committed one is never lost.
It costs nothing for a match of the public space, and for a portal match one indexed read of
the portal's endpoints, only when the append holds an event some endpoint could want (nothing
is cached between processes, so a new endpoint is seen by the very next append).

What is sent is public: every payload is built from the spectator's copy of an event
(``redact_event(event, None)``) or the public summary, and leaves out even what the public
may see at the end (the hands turned face up, the revealed seed), so a payload never holds a
hand, the boneyard or a seed. A portal's own ``player_ref`` is in it: only that portal's
endpoints receive it. Sending, signing, retries and the delivery log are
``api.services.webhook_delivery``'s.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
import json
import re
import secrets
import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol
from urllib.parse import urlsplit

from api.rules import PLAYING, REMOTE_SEAT, MatchState, redact_event
from api.rules.events import (
    DEAL_TYPES,
    HandEnded,
    HandStarted,
    Knocked,
    MatchCreated,
    MatchEnded,
    Passed,
    RoundEnded,
    RoundStarted,
    SeatReplaced,
    TilePlaced,
    TilePlayed,
    TurnTimedOut,
)
from api.rules.vocabulary import HandEndReason
from api.store.records import InvalidCursor as StoreInvalidCursor
from api.store.repositories import decode_cursor, encode_cursor
from api.store.webhooks import DeliveryRecord, NewDelivery, WebhookRecord

from . import errors
from .commands import (
    AddWebhook,
    Answer,
    GetWebhook,
    ListDeliveries,
    ListWebhooks,
    RemoveWebhook,
    ReplayDelivery,
    RotateWebhookSecret,
)
from .ports import Store, UnitOfWork
from .snapshots import Row, Snapshot, without_seq

# --- the event types: stable names, defined here only ----------------------------------------
MATCH_CREATED = "match.created"
MATCH_STARTED = "match.started"  # the first deal
HAND_ENDED = "hand.ended"
MATCH_ENDED = "match.ended"
TURN_STARTED = "turn.started"  # a remote seat is to act
SEAT_TIMED_OUT = "seat.timed_out"  # turn_timed_out, or seat_replaced
#: A tournament's (api.services.tournament_log): each is one event of the tournament's own log.
TOURNAMENT_STARTED = "tournament.started"
ROUND_PAIRED = "tournament.round_paired"
ROUND_ENDED = "tournament.round_ended"
TOURNAMENT_ENDED = "tournament.ended"
#: The webhook type of each tournament event that is sent.
TOURNAMENT_EVENTS = {
    "tournament_started": TOURNAMENT_STARTED,
    "round_paired": ROUND_PAIRED,
    "round_ended": ROUND_ENDED,
    "tournament_ended": TOURNAMENT_ENDED,
}
EVENT_TYPES: tuple[str, ...] = (
    MATCH_CREATED,
    MATCH_STARTED,
    HAND_ENDED,
    MATCH_ENDED,
    TURN_STARTED,
    SEAT_TIMED_OUT,
    TOURNAMENT_STARTED,
    ROUND_PAIRED,
    ROUND_ENDED,
    TOURNAMENT_ENDED,
)

SECRET_PREFIX = "whsec_"
SECRET_BYTES = 32
#: After a rotation the replaced secret signs too for an overlap: by default a day (time for a
#: receiver's deploy to take the new one up), at most a week (a secret rotated away after a leak
#: must stop being honoured); 0 stops it at once.
DEFAULT_SECRET_OVERLAP = 24 * 3600.0
MAX_SECRET_OVERLAP = 7 * 24 * 3600.0
#: A portal may have this many endpoints (each costs every delivery a row).
MAX_WEBHOOKS_PER_PORTAL = 16
MAX_URL_LENGTH = 2048
#: Deliveries per page of the log: by default, and at most.
DELIVERIES_PAGE, MAX_DELIVERIES_PAGE = 20, 100
ID_PATTERN = r"^[0-9a-f]{32}$"

#: Events after which the turn may have passed (a draw, a muggins call or a timeout notice leave
#: it where it was): a remote seat to act after one of them, other than the seat that acted, has
#: a new turn (a Mexican Train seat that plays a double keeps the turn to cover it).
TURN_PASSING = frozenset(
    {TilePlayed.type, Knocked.type, HandStarted.type, TilePlaced.type, Passed.type, RoundStarted.type}
)


class Flow(Protocol):
    """What the handlers need of ``api.services.flow.MatchFlow`` (not imported: the flow
    imports this module's outbox writer through ``api.services.effects``)."""

    @property
    def store(self) -> Store: ...
    def now(self) -> datetime: ...


class SecretPolicy(Protocol):
    @property
    def secret_overlap(self) -> float: ...


class Courier(Protocol):
    """What a rotation needs of ``api.services.webhook_delivery.Courier`` (not imported: that
    module imports this one): its policy's overlap."""

    @property
    def settings(self) -> SecretPolicy: ...


# --- signing -------------------------------------------------------------------------------
# Two schemes sign every attempt, each with every secret in force (the current one first; the
# one it replaced too during a rotation's overlap): Boneyard's own and Standard Webhooks'.
def new_secret() -> str:
    """``whsec_`` and random bytes in standard base64, which Standard Webhooks' libraries take
    as they are (their key: the bytes; see :func:`standard_key`)."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode("ascii")


def signature(secrets_in_force: Sequence[str], timestamp: int, body: bytes) -> str:
    """The ``Boneyard-Signature`` header: ``t=<unix seconds>,v1=<hex HMAC-SHA256>`` and one more
    ``,v1=`` for each further secret, the HMAC keyed with the whole secret (``whsec_`` included,
    as UTF-8) over ``b"<t>." + body`` (Stripe's scheme: the timestamp is signed, so a captured
    delivery cannot be replayed later as a fresh one)."""
    signed = f"{timestamp}.".encode() + body
    macs = (hmac.new(secret.encode("utf-8"), signed, hashlib.sha256).hexdigest() for secret in secrets_in_force)
    return f"t={timestamp}," + ",".join(f"v1={mac}" for mac in macs)


def check_overlap(seconds: float, name: str = "overlap_seconds") -> float:
    """``seconds`` if it is an overlap a rotation may have (``ValueError`` naming ``name`` if not)."""
    if not 0 <= seconds <= MAX_SECRET_OVERLAP:
        raise ValueError(f"{name} is 0 to {MAX_SECRET_OVERLAP:g} seconds, not {seconds:g}")
    return seconds


def standard_key(secret: str) -> bytes:
    """A secret's Standard Webhooks HMAC key: what follows ``whsec_``, base64-decoded. Secrets
    made before this scheme came are URL-safe base64 without padding (``secrets.token_urlsafe``):
    the alphabets differ only in ``-_`` / ``+/``, so both decode here (docs/webhooks.md tells a
    receiver with such a secret how to give it to the official libraries)."""
    encoded = secret.removeprefix(SECRET_PREFIX).replace("-", "+").replace("_", "/")
    return base64.b64decode(encoded + "=" * (-len(encoded) % 4), validate=True)


def standard_signature(secrets_in_force: Sequence[str], delivery_id: str, timestamp: int, body: bytes) -> str:
    """The ``webhook-signature`` header of Standard Webhooks: ``v1,<base64 HMAC-SHA256>`` for
    each secret, space-separated, keyed with :func:`standard_key` over ``"<id>.<t>." + body``."""
    signed = f"{delivery_id}.{timestamp}.".encode() + body
    macs = (hmac.new(standard_key(secret), signed, hashlib.sha256).digest() for secret in secrets_in_force)
    return " ".join("v1," + base64.b64encode(mac).decode("ascii") for mac in macs)


# --- where deliveries may go (SSRF) --------------------------------------------------------
Resolver = Callable[[str, int], list[str]]


def resolve_host(host: str, port: int) -> list[str]:
    """Every address ``host`` resolves to (what a connection could reach)."""
    return sorted({str(info[4][0]) for info in socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP)})


def refused_address(address: str) -> bool:
    """An address a delivery may not go to unless the operator allows private ones: loopback,
    private, link-local (the cloud metadata services), multicast, reserved, unspecified."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return not ip.is_global or ip.is_multicast


def url_parts(url: str) -> tuple[str, int]:
    """The host and port of an endpoint URL; :class:`~api.services.errors.InvalidWebhookUrl`
    (``reason``) for what is no http(s) URL of a host."""
    if len(url) > MAX_URL_LENGTH or any(ord(c) < 0x21 or ord(c) == 0x7F for c in url):
        raise errors.InvalidWebhookUrl(f"a URL of at most {MAX_URL_LENGTH} visible characters", reason="malformed")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise errors.InvalidWebhookUrl("this is not a URL", reason="malformed") from None
    if parts.scheme not in ("http", "https"):
        raise errors.InvalidWebhookUrl("a webhook URL is http:// or https://", reason="scheme")
    if not parts.hostname:
        raise errors.InvalidWebhookUrl("the URL names no host", reason="malformed")
    if parts.username is not None or parts.password is not None:
        raise errors.InvalidWebhookUrl("no credentials in the URL: verify the signature instead", reason="credentials")
    if parts.fragment:
        raise errors.InvalidWebhookUrl("no #fragment in a webhook URL", reason="malformed")
    return parts.hostname, port or (443 if parts.scheme == "https" else 80)


def check_destination(url: str, allow_private: bool, resolve: Resolver = resolve_host) -> list[str]:
    """The addresses a delivery to ``url`` would reach, refused (``InvalidWebhookUrl``) when
    one of them is loopback, private or link-local and the server does not allow those
    (``WEBHOOK_ALLOW_PRIVATE_ADDRESSES``). Checked at registration and again before every
    attempt (a name may come to resolve elsewhere)."""
    host, port = url_parts(url)
    return check_host(host, port, allow_private, resolve)


def check_host(host: str, port: int, allow_private: bool, resolve: Resolver = resolve_host) -> list[str]:
    """:func:`check_destination` for a host and port: the addresses a connection may use."""
    try:
        addresses = [str(ipaddress.ip_address(host.strip("[]")))]
    except ValueError:
        try:
            addresses = resolve(host, port)
        except (OSError, UnicodeError):
            raise errors.InvalidWebhookUrl(f"{host!r} does not resolve", reason="unresolvable") from None
    if not addresses:
        raise errors.InvalidWebhookUrl(f"{host!r} does not resolve", reason="unresolvable")
    refused = [a for a in addresses if refused_address(a)]
    if refused and not allow_private:
        raise errors.InvalidWebhookUrl(
            f"{host!r} is a loopback, private or link-local address ({', '.join(refused)}): this server "
            "delivers only to public addresses",
            reason="private_address",
        )
    return addresses


# --- the outbox: written in the append's transaction ------------------------------------------
@dataclass(frozen=True)
class Occurrence:
    """A webhook event found in an append: its type, the seq it happened at, its public data."""

    type: str
    seq: int
    data: dict[str, Any]


def occurrences(appended: Sequence[Row], state: MatchState) -> list[Occurrence]:
    """The webhook events an append holds, from the spectator's copy of each event (pure)."""
    found: list[Occurrence] = []
    for row in appended:
        kind, seq = row["type"], row["seq"]
        if kind not in WEBHOOK_SOURCES:
            continue
        public = redact_event(without_seq(row), None)
        if kind == MatchCreated.type:
            seats = [{"seat": i, **pick(s, "name", "type", "level")} for i, s in enumerate(public["seats"])]
            found.append(Occurrence(MATCH_CREATED, seq, {"rules": public["rules"], "seats": seats}))
        elif kind in DEAL_TYPES and public.get("hand_number", public.get("round")) == 1:
            data = {
                "hand_number": 1,
                **pick(public, "leader", "hand_counts"),
                "boneyard_count": public["boneyard"],
            }
            found.append(Occurrence(MATCH_STARTED, seq, data))
        elif kind == HandEnded.type:
            data = pick(public, "hand_number", "reason", "winner", "side", "points", "pips", "scores")
            found.append(Occurrence(HAND_ENDED, seq, data))
        elif kind == RoundEnded.type:  # a trains game's round: its number, who went out, the totals
            reason = HandEndReason.BLOCKED if public["winner"] is None else HandEndReason.DOMINO
            data = {
                "hand_number": public["round"],
                "reason": reason.value,
                "winner": public["winner"],
                "side": public["winner"],
                "pips": public["pips"],
                "scores": public["totals"],
            }
            found.append(Occurrence(HAND_ENDED, seq, data))
        elif kind == MatchEnded.type:
            found.append(Occurrence(MATCH_ENDED, seq, pick(public, "winner", "scores", "winners")))
        elif kind in (TurnTimedOut.type, SeatReplaced.type):
            data = {"seat": public["seat"], "event": kind, **pick(public, "consecutive", "level")}
            found.append(Occurrence(SEAT_TIMED_OUT, seq, data))
    turn = state.turn
    passed = any(row["type"] in TURN_PASSING and row.get("seat") != turn for row in appended)
    if passed and state.status == PLAYING and turn is not None and state.seats[turn].get("type") == REMOTE_SEAT:
        data = {"seat": turn, "hand_number": state.hand_number, "scores": list(state.scores)}
        found.append(Occurrence(TURN_STARTED, appended[-1]["seq"], data))
    return found


#: The log's event types that make a webhook event (``turn.started`` is read off the new state).
WEBHOOK_SOURCES = frozenset(
    {
        MatchCreated.type,
        HandStarted.type,
        HandEnded.type,
        MatchEnded.type,
        TurnTimedOut.type,
        SeatReplaced.type,
        RoundStarted.type,
        RoundEnded.type,
    }
)
#: The webhook events whose data names a seat, given its player_ref too.
SEATED = frozenset({MATCH_CREATED, TURN_STARTED, SEAT_TIMED_OUT})


def pick(source: dict[str, Any], *names: str) -> dict[str, Any]:
    return {name: source[name] for name in names if name in source}


def record_webhooks(
    uow: UnitOfWork, portal_id: str, match_id: str, appended: Sequence[Row], snap: Snapshot, now: datetime
) -> int:
    """Write the outbox rows of this append (in its transaction); answers how many."""
    found = occurrences(appended, snap.state)
    if not found:
        return 0
    endpoints = uow.webhooks.for_portal(portal_id)
    wanted = [(hook, o) for o in found for hook in endpoints if o.type in hook.events]
    if not wanted:
        return 0
    refs: dict[int, str | None] = {}
    if any(o.type in SEATED for _, o in wanted):
        refs = {s.seat: s.player_ref for s in uow.seats.list_for_match(match_id)}
    rows = []
    for hook, o in wanted:
        delivery_id = secrets.token_hex(16)
        payload = {
            "id": delivery_id,
            "type": o.type,
            "created_at": now.isoformat(),
            "match_id": match_id,
            "seq": o.seq,
            "data": with_player_refs(o, refs),
        }
        body = json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
        rows.append(NewDelivery(delivery_id, hook.id, o.type, match_id, o.seq, body))
    uow.webhooks.add_deliveries(rows, now)
    return len(rows)


def record_tournament_webhooks(
    uow: UnitOfWork, portal_id: str, tournament_id: str, logged: Sequence[tuple[int, dict[str, Any]]], now: datetime
) -> int:
    """The outbox rows of a tournament's append: ``logged`` its events (JSON form) by seq, each
    sent whole as ``data`` (a tournament's log holds no secret: seat tokens are kept apart). The
    delivery log names the tournament where a match's delivery names its match."""
    found = [
        (seq, TOURNAMENT_EVENTS[event["type"]], event) for seq, event in logged if event["type"] in TOURNAMENT_EVENTS
    ]
    if not found:
        return 0
    rows = []
    for hook in uow.webhooks.for_portal(portal_id):
        for seq, kind, event in found:
            if kind not in hook.events:
                continue
            delivery_id = secrets.token_hex(16)
            data = {name: value for name, value in event.items() if name != "type"}
            payload = {
                "id": delivery_id,
                "type": kind,
                "created_at": now.isoformat(),
                "tournament_id": tournament_id,
                "seq": seq,
                "data": data,
            }
            body = json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
            rows.append(NewDelivery(delivery_id, hook.id, kind, tournament_id, seq, body))
    if rows:
        uow.webhooks.add_deliveries(rows, now)
    return len(rows)


def with_player_refs(o: Occurrence, refs: dict[int, str | None]) -> dict[str, Any]:
    """A seat's ``player_ref`` (the portal's own id for its player) beside the seat."""
    if o.type not in SEATED:
        return o.data
    if "seats" in o.data:
        return {**o.data, "seats": [{**s, "player_ref": refs.get(s["seat"])} for s in o.data["seats"]]}
    return {**o.data, "player_ref": refs.get(o.data["seat"])}


# --- the use cases -------------------------------------------------------------------------------
def checked_events(events: Sequence[str] | None) -> tuple[str, ...]:
    if events is None:
        return EVENT_TYPES
    unknown = sorted(set(events) - set(EVENT_TYPES))
    if unknown or not events:
        raise errors.InvalidWebhookEvents(
            f"event types are some of {', '.join(EVENT_TYPES)}" + (f"; not {', '.join(unknown)}" if unknown else ""),
            unknown=unknown,
        )
    return tuple(e for e in EVENT_TYPES if e in events)  # in the catalogue's order, once each


def add_handler(command: AddWebhook, flow: Flow) -> Answer:
    """A new endpoint, with its secret (shown this once; rotate to see a new one)."""
    check_destination(command.url, command.allow_private_addresses, command.resolve or resolve_host)
    events = checked_events(command.events)
    hook = WebhookRecord(secrets.token_hex(16), command.portal_id, command.url, events, new_secret(), flow.now())
    with flow.store.unit_of_work() as uow:
        if len(uow.webhooks.for_portal(command.portal_id)) >= MAX_WEBHOOKS_PER_PORTAL:
            raise errors.TooManyWebhooks(
                f"a portal may have {MAX_WEBHOOKS_PER_PORTAL} webhooks: remove one first",
                limit=MAX_WEBHOOKS_PER_PORTAL,
            )
        uow.webhooks.add(hook)
        uow.commit()
    return {**show_webhook(hook), "secret": hook.secret}


def list_handler(command: ListWebhooks, flow: Flow) -> Answer:
    with flow.store.unit_of_work(readonly=True) as uow:
        return {"items": [show_webhook(h) for h in uow.webhooks.for_portal(command.portal_id)]}


def get_handler(command: GetWebhook, flow: Flow) -> Answer:
    with flow.store.unit_of_work(readonly=True) as uow:
        return show_webhook(owned(uow, command.portal_id, command.webhook_id))


def remove_handler(command: RemoveWebhook, flow: Flow) -> Answer:
    """Delete the endpoint, its pending deliveries and its log (nothing more is sent to it)."""
    with flow.store.unit_of_work() as uow:
        if not uow.webhooks.remove(command.portal_id, command.webhook_id):
            raise unknown_webhook(command.webhook_id)
        uow.commit()
    return {"removed": command.webhook_id}


def rotate_handler(command: RotateWebhookSecret, flow: Flow, courier: Courier) -> Answer:
    """A new secret for the endpoint, in force for the next attempt; the one it replaces signs
    too for the overlap (the command's, else ``WebhookSettings.secret_overlap``; a secret
    replaced before is dropped)."""
    secret, now = new_secret(), flow.now()
    given = command.overlap_seconds
    overlap = courier.settings.secret_overlap if given is None else check_overlap(given)
    previous_until = now + timedelta(seconds=overlap) if overlap > 0 else None
    with flow.store.unit_of_work() as uow:
        owned(uow, command.portal_id, command.webhook_id)
        uow.webhooks.set_secret(command.portal_id, command.webhook_id, secret, previous_until)
        hook = owned(uow, command.portal_id, command.webhook_id)
        uow.commit()
    return {**show_webhook(hook), "secret": secret}


def deliveries_handler(command: ListDeliveries, flow: Flow) -> Answer:
    """The endpoint's delivery log, newest first, each delivery with its attempts."""
    limit = min(max(command.limit, 1), MAX_DELIVERIES_PAGE)
    try:
        before = decode_cursor(command.cursor) if command.cursor is not None else None
    except StoreInvalidCursor:
        raise errors.InvalidCursor("cursor is a page's next_cursor: <microseconds>-<delivery id>") from None
    with flow.store.unit_of_work(readonly=True) as uow:
        owned(uow, command.portal_id, command.webhook_id)
        found = uow.webhooks.deliveries(command.webhook_id, limit + 1, before)
    page = found[:limit]
    more = len(found) > limit
    return {
        "items": [show_delivery(d) for d in page],
        "next_cursor": encode_cursor(page[-1].created_at, page[-1].id) if more else None,
    }


def replay_handler(command: ReplayDelivery, flow: Flow) -> Answer:
    """Queue the delivery again, due now, with a new round of attempts (same id and body: a
    receiver that already has it recognises it by ``Boneyard-Delivery``)."""
    with flow.store.unit_of_work() as uow:
        owned(uow, command.portal_id, command.webhook_id)
        if not uow.webhooks.requeue(command.webhook_id, command.delivery_id, flow.now()):
            raise errors.UnknownDelivery(f"webhook {command.webhook_id} has no delivery {command.delivery_id}")
        delivery = uow.webhooks.delivery(command.webhook_id, command.delivery_id)
        uow.commit()
    assert delivery is not None  # requeued just now, in this transaction
    return show_delivery(delivery)


def owned(uow: UnitOfWork, portal_id: str, webhook_id: str) -> WebhookRecord:
    """The portal's endpoint; another portal's is unknown (404), as a missing one."""
    hook = uow.webhooks.get(portal_id, webhook_id) if re.fullmatch(ID_PATTERN, webhook_id) else None
    if hook is None:
        raise unknown_webhook(webhook_id)
    return hook


def unknown_webhook(webhook_id: str) -> errors.UnknownWebhook:
    return errors.UnknownWebhook(f"this portal has no webhook {webhook_id}")


def show_webhook(hook: WebhookRecord) -> dict[str, Any]:
    until = hook.previous_secret_until
    return {
        "id": hook.id,
        "url": hook.url,
        "events": list(hook.events),
        "created_at": hook.created_at.isoformat(),
        "previous_secret_until": None if until is None else until.isoformat(),
    }


def show_delivery(d: DeliveryRecord) -> dict[str, Any]:
    return {
        "id": d.id,
        "webhook_id": d.webhook_id,
        "type": d.event_type,
        "match_id": d.match_id,
        "seq": d.seq,
        "status": d.status,
        "attempts": d.attempts,
        "created_at": d.created_at.isoformat(),
        "next_attempt_at": None if d.next_attempt_at is None else d.next_attempt_at.isoformat(),
        "delivered_at": None if d.delivered_at is None else d.delivered_at.isoformat(),
        "payload": json.loads(d.body),
        "log": [
            {
                "attempt": a.number,
                "attempted_at": a.attempted_at.isoformat(),
                "duration_ms": a.duration_ms,
                "status_code": a.status_code,
                "error": a.error,
            }
            for a in d.log
        ],
    }
