"""Who is asking: a portal, by its ``X-API-Key``, or a keyless client of the public space.

A request's caller is worked out once (``caller()``, kept on ``flask.g``) and read by the
views (whose space a match is created in or listed from), by the rate limits (a portal's
budget is its own, whatever its addresses) and by the scope check of every ``/v1/matches/{id}``
route: a match of another portal does not exist for a portal key (404 ``unknown_match``).
A key that is sent but is no live portal key is refused (401 ``invalid_api_key``), never
taken for no key.
"""

from __future__ import annotations

from flask import current_app, g, request

from api.services.bus import MessageBus
from api.services.commands import PUBLIC, Caller, GetMatchPortal, IdentifyPortal
from api.services.errors import PortalKeyRequired, UnknownMatch
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
