"""Who is asking: a portal, by its ``X-API-Key``; a portal's player, by its player token
(``Authorization: Bearer bypl_…``); or a keyless client of the public space.

A request's caller is worked out once (``caller()``, ``caller_player()``, kept on ``flask.g``)
and read by the views (whose space a match is created in or listed from, who acts on the
matchmaking endpoints), by the rate limits (a portal's budget is its own, whatever its
addresses, and its players' tokens spend it too) and by the scope check of every
``/v1/matches/{id}`` route: a match of another portal does not exist for a portal key (404
``unknown_match``). A key or player token that is sent but is no live one is refused (401
``invalid_api_key``, ``invalid_token``), never taken for none.
"""

from __future__ import annotations

from flask import current_app, g, request

from api.http import problem_codes as codes
from api.services.bus import MessageBus
from api.services.commands import PUBLIC, Caller, GetMatchPortal, IdentifyPlayer, IdentifyPortal, TokenPlayer
from api.services.errors import PortalKeyRequired, UnknownMatch
from api.services.matchmaking import PLAYER_TOKEN_PREFIX
from api.store.records import PortalRecord

BUS_KEY = "boneyard.bus"  # app.extensions key of the MessageBus (set by create_app)
API_KEY_HEADER = "X-API-Key"


def bus() -> MessageBus:
    """The app's entry to the use cases (``api.services.bus``)."""
    found: MessageBus = current_app.extensions[BUS_KEY]
    return found


def caller_portal() -> PortalRecord | None:
    """The portal whose key this request carries (None: no key)."""
    if "boneyard_caller" not in g:
        offered = request.headers.get(API_KEY_HEADER)
        g.boneyard_caller = None if offered is None else bus().handle(IdentifyPortal(offered.strip()))
    portal: PortalRecord | None = g.boneyard_caller
    return portal


def bearer_token() -> str | None:
    """The token from ``Authorization: Bearer <token>`` (a seat's, a player's or a seek's
    secret), or None when absent; any other ``Authorization`` is refused (401)."""
    header = request.headers.get("Authorization")
    if header is None:
        return None
    token = bearer_in(header)
    if token is None:
        raise codes.INVALID_TOKEN.error(
            "Send the seat token as 'Authorization: Bearer <token>'.", headers=codes.BEARER_CHALLENGE
        )
    return token


def bearer_in(header: str) -> str | None:
    """The token of an ``Authorization`` value ``Bearer <token>``; None for any other value."""
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def caller_player() -> TokenPlayer | None:
    """The portal player whose player token this request carries as ``Authorization: Bearer``
    (None: it carries none; a ``bypl_`` token of no live player is refused, 401 ``invalid_token``)."""
    if "boneyard_player" not in g:
        token = bearer_in(request.headers.get("Authorization", ""))
        is_player_token = token is not None and token.startswith(PLAYER_TOKEN_PREFIX)
        # kept only once verified: a refused token is refused again at every ask, never taken for none
        g.boneyard_player = bus().handle(IdentifyPlayer(token)) if token is not None and is_player_token else None
    player: TokenPlayer | None = g.boneyard_player
    return player


def caller() -> Caller:
    portal = caller_portal()
    return PUBLIC if portal is None else Caller(portal.id)


def space_caller() -> Caller:
    """The caller of a request that creates or lists matches: a keyless one only where the
    server has a public space (``PUBLIC_MATCHES``)."""
    found = caller()
    if found.portal_id is None and not current_app.config["PUBLIC_MATCHES"]:
        raise PortalKeyRequired(
            "this server has no public space: creating and listing matches need a portal key (X-API-Key)"
        )
    return found


def check_match_scope() -> None:
    """Before every ``/v1/matches/{match_id}/…`` route: with a portal key, a match of another
    portal is unknown (one read, and only for requests that carry a key)."""
    match_id = (request.view_args or {}).get("match_id")
    if match_id is None or API_KEY_HEADER not in request.headers:
        return
    mine = caller()
    if not mine.may_see(bus().handle(GetMatchPortal(match_id))):
        raise UnknownMatch(f"no match {match_id}")
