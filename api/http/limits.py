"""Rate limits (flask-limiter) and portal API keys.

Limits apply per seat token and per client address on the two writing endpoints that
clients could hammer: match creation and actions. Counters live in the limiter's
storage (``RATELIMIT_STORAGE_URI``: ``memory://`` per process by default; point every
worker at one Redis for a shared budget). A breach is a 429 problem with ``Retry-After``.
"""

from __future__ import annotations

import hashlib
import hmac

from flask import current_app, request
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address

from api.http.errors import ProblemError

limiter = Limiter(key_func=get_remote_address, headers_enabled=True, default_limits=[])


def token_key() -> str:
    """Rate-limit bucket of a seat token (hashed: never keep the token itself)."""
    header = request.headers.get("Authorization", "")
    if header.lower().startswith("bearer "):
        return "token:" + hashlib.sha256(header[7:].strip().encode()).hexdigest()
    return "address:" + get_remote_address()


def create_limit() -> str:
    return current_app.config["RATE_LIMIT_CREATE"]


def action_limit_per_token() -> str:
    return current_app.config["RATE_LIMIT_ACTIONS_PER_TOKEN"]


def action_limit_per_address() -> str:
    return current_app.config["RATE_LIMIT_ACTIONS_PER_ADDRESS"]


limit_creation = limiter.limit(create_limit, key_func=get_remote_address)
limit_actions = [limiter.limit(action_limit_per_token, key_func=token_key),
                 limiter.limit(action_limit_per_address, key_func=get_remote_address)]


def rate_limited_actions(view):
    for decorate in limit_actions:
        view = decorate(view)
    return view


def require_portal_key() -> None:
    """When the server has API keys, creating and listing matches needs one (``X-API-Key``)."""
    keys = current_app.config["API_KEYS"]
    if not keys:
        return
    offered = request.headers.get("X-API-Key", "")
    if not any(hmac.compare_digest(offered.encode(), key.encode()) for key in keys):
        raise ProblemError(401, "invalid_api_key", "API key required",
                           "This server needs a portal API key in the X-API-Key header to create or list matches.")
