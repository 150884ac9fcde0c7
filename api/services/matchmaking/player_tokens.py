"""Player tokens: a portal lets its player's bot act as that player, without the portal's key.

A token is ``bypl_<12 hex id>_<secret>``; only its SHA-256 is kept, as for portal keys. The
portal issues, lists (ids, labels, dates; never a token) and revokes its players' tokens.
"""

from __future__ import annotations

import secrets
from datetime import datetime

from .. import errors
from ..commands import (
    Answer,
    IdentifyPlayer,
    IssuePlayerToken,
    ListPlayerTokens,
    RevokePlayerToken,
    Seeker,
    TokenPlayer,
)
from ..flow import MatchFlow
from ..portals import hash_key

PLAYER_TOKEN_PREFIX = "bypl_"


def identify_player_handler(command: IdentifyPlayer, flow: MatchFlow) -> TokenPlayer:
    """The portal player of a live player token, with its portal (else ``InvalidToken``:
    malformed, unknown or revoked)."""
    parts = command.token.split("_")
    if len(parts) < 3 or not command.token.startswith(PLAYER_TOKEN_PREFIX) or len(command.token) > 128:
        raise errors.InvalidToken("this is not a player token: a player token looks like bypl_<12 hex>_<43 chars>")
    with flow.store.unit_of_work(readonly=True) as uow:
        found = uow.matchmaking.player_by_token_hash(hash_key(command.token))
        portal = None if found is None else uow.portals.get(found[0])
    if found is None or portal is None:
        raise errors.InvalidToken("no player has this token (it may have been revoked)")
    return TokenPlayer(portal, found[1])


def the_player(seeker: Seeker) -> tuple[str, str]:
    """The portal and player ``seeker`` acts as (else ``PlayerRequired``: the portal itself, or
    a keyless client, is no player)."""
    if seeker.portal_id is None or seeker.player_ref is None:
        raise errors.PlayerRequired(
            "this acts as a portal's player: send a player token (Authorization: Bearer bypl_…), or the "
            "portal's key (X-API-Key) with player_ref"
        )
    return seeker.portal_id, seeker.player_ref


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
