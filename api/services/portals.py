"""Portals: the tenants of one server, each with its own keys, matches and players.

A portal is made by its operator (``flask --app wsgi boneyard portal create NAME``), which
prints its first key once. A key is ``bypk_<key id>_<secret>``: the key id is public (it names
the key in lists, logs and ``revoke``), the secret is 256 random bits, and the server keeps
only the SHA-256 of the whole key (with that much entropy a plain hash is as strong as a slow
one, and a lookup is one indexed read). Keys rotate: add a new one, move the portal over,
revoke the old one; every live key of a portal works.

What a portal key scopes (:class:`Caller`): the matches it creates belong to the portal; it
lists only the portal's matches, reads only the portal's players' statistics, and a match of
another portal does not exist for it. ``player_ref`` — the portal's own id for a player — is
accepted only with a portal key, and shown only to that portal. Keyless clients (where the
server allows them, ``PUBLIC_MATCHES``) have the public space: matches no portal owns, and no
player ids at all.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from typing import Any

from api.store.records import PortalKeyRecord, PortalNameTaken, PortalRecord

from . import errors
from .commands import (
    PUBLIC,
    AddPortalKey,
    Answer,
    Caller,
    CreatePortal,
    GetPortal,
    IdentifyPortal,
    ListPortals,
    RevokePortalKey,
    SetPortalLimit,
)
from .flow import MatchFlow
from .ports import UnitOfWork

__all__ = ["PUBLIC", "Caller", "hash_key", "new_key"]

KEY_PREFIX = "bypk_"
#: Exactly the keys :func:`new_key` makes; anything else is refused before any lookup.
KEY_PATTERN = re.compile(r"^bypk_([0-9a-f]{12})_[A-Za-z0-9_-]{43}$")
#: What a portal may be called (a name an operator types, and a log shows); never what an id
#: looks like, since the operator's commands take either.
NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")
ID_PATTERN = re.compile(r"^[0-9a-f]{32}$")


def new_key() -> tuple[str, str]:
    """A fresh key and its id."""
    key_id = secrets.token_hex(6)
    return f"{KEY_PREFIX}{key_id}_{secrets.token_urlsafe(32)}", key_id


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def identify_handler(command: IdentifyPortal, flow: MatchFlow) -> PortalRecord:
    """The portal whose live key this is; :class:`~api.services.errors.InvalidPortalKey` for a
    key of no portal (malformed, unknown or revoked: the answer does not say which)."""
    if KEY_PATTERN.fullmatch(command.key) is None:
        raise errors.InvalidPortalKey("this is not a portal key: a portal key looks like bypk_<12 hex>_<43 chars>")
    with flow.store.unit_of_work(readonly=True) as uow:
        found = uow.portals.by_key_hash(hash_key(command.key))
    if found is None:
        raise errors.InvalidPortalKey("no portal has this key (it may have been revoked)")
    return found[0]


def create_portal_handler(command: CreatePortal, flow: MatchFlow) -> Answer:
    """A new portal and its first key (the only time the key is shown)."""
    if NAME_PATTERN.fullmatch(command.name) is None or ID_PATTERN.fullmatch(command.name):
        raise errors.InvalidPortal(
            f"a portal name is 1 to 64 of a-z 0-9 . _ - , starts with a letter or digit and is not "
            f"32 hex digits (an id), not {command.name!r}"
        )
    key, key_id = new_key()
    now = flow.now()
    with flow.store.unit_of_work() as uow:
        try:
            portal = uow.portals.add(secrets.token_hex(16), command.name, now, command.create_limit)
        except PortalNameTaken:
            raise errors.InvalidPortal(f"a portal named {command.name!r} exists") from None
        uow.portals.add_key(key_id, portal.id, hash_key(key), now)
        uow.commit()
    return {**show_portal(portal, []), "key": key, "key_id": key_id}


def add_key_handler(command: AddPortalKey, flow: MatchFlow) -> Answer:
    """Another live key for the portal (rotation: the old ones work until revoked)."""
    key, key_id = new_key()
    with flow.store.unit_of_work() as uow:
        portal = named_portal(uow, command.portal)
        uow.portals.add_key(key_id, portal.id, hash_key(key), flow.now())
        uow.commit()
    return {"portal": portal.name, "key": key, "key_id": key_id}


def revoke_key_handler(command: RevokePortalKey, flow: MatchFlow) -> Answer:
    """Revoke one key; the portal's last live key may not go (it would lock its owner out)."""
    with flow.store.unit_of_work() as uow:
        portal = named_portal(uow, command.portal)
        live = [k.id for k in uow.portals.keys(portal.id) if k.revoked_at is None]
        if command.key_id not in live:
            raise errors.UnknownPortalKey(f"portal {portal.name!r} has no live key {command.key_id!r}")
        if live == [command.key_id]:
            raise errors.LastPortalKey(f"{command.key_id!r} is the last live key of {portal.name!r}: add one first")
        uow.portals.revoke_key(portal.id, command.key_id, flow.now())
        uow.commit()
    return {"portal": portal.name, "revoked": command.key_id}


def set_limit_handler(command: SetPortalLimit, flow: MatchFlow) -> Answer:
    with flow.store.unit_of_work() as uow:
        portal = named_portal(uow, command.portal)
        uow.portals.set_create_limit(portal.id, command.create_limit)
        uow.commit()
    return {"portal": portal.name, "create_limit": command.create_limit}


def get_portal_handler(command: GetPortal, flow: MatchFlow) -> Answer:
    with flow.store.unit_of_work(readonly=True) as uow:
        portal = named_portal(uow, command.portal)
        return show_portal(portal, uow.portals.keys(portal.id))


def list_handler(command: ListPortals, flow: MatchFlow) -> list[Answer]:
    with flow.store.unit_of_work(readonly=True) as uow:
        return [show_portal(p, uow.portals.keys(p.id)) for p in uow.portals.all()]


def named_portal(uow: UnitOfWork, name_or_id: str) -> PortalRecord:
    portal = uow.portals.by_name(name_or_id) or uow.portals.get(name_or_id)
    if portal is None:
        raise errors.InvalidPortal(f"no portal {name_or_id!r}")
    return portal


def show_portal(portal: PortalRecord, keys: list[PortalKeyRecord]) -> dict[str, Any]:
    return {
        "id": portal.id,
        "name": portal.name,
        "created_at": portal.created_at.isoformat(),
        "create_limit": portal.create_limit,
        "keys": [
            {
                "key_id": k.id,
                "created_at": k.created_at.isoformat(),
                "revoked_at": None if k.revoked_at is None else k.revoked_at.isoformat(),
            }
            for k in keys
        ],
    }
