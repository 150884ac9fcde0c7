"""Rate limits (flask-limiter).

Match creation (a rematch, a seek and a challenge count against the same budget) is limited
per portal for a request with a portal key or one of its players' tokens (its own
``create_limit``, else ``RATE_LIMIT_PORTAL_CREATE``: a portal's many players reach the server
from its few addresses) and per client address for a keyless one (``RATE_LIMIT_CREATE``). A
key or player token that does not verify spends the address's budget, never a portal's.
Other limits apply per seat token and per address to actions, and per address to the
expensive reads, ``/audit``, ``/record``, ``/fairness``, ``/analysis`` and ``/hint``. Counters
live in the limiter's storage (``RATELIMIT_STORAGE_URI``): ``database://`` by default, the app's own database, so every
worker of every server on it shares one budget (``api.http.rate_limit_storage``);
``memory://`` counts per process; ``redis://…`` (with the ``redis`` package) in one Redis.
A breach is a 429 problem with ``Retry-After``.

Every answer of a limited operation, a success or a 429 alike, says which budgets it was
counted against and what is left of them (``RateLimit-Policy``, ``RateLimit``: the policies
and the fields' syntax are in ``api.http.rate_limit_policies``). Both are read from the
limiter's own evaluation of this request (:func:`rate_limit_fields`), so the limit strings
stay their one home. flask-limiter's older ``X-RateLimit-Limit``/``-Remaining``/``-Reset``
(one budget only) stay too.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable
from functools import wraps
from typing import ParamSpec, TypeVar

from flask import Response, current_app, request
from flask_limiter import Limiter, RequestLimit
from flask_limiter.util import get_remote_address

from api.http import rate_limit_policies as policies
from api.http.callers import bearer_in, caller_player, caller_portal
from api.http.problem_codes import WAIT_STATUSES
from api.http.rate_limit_storage import DatabaseStorage  # importing it registers the database:// scheme
from api.services.errors import InvalidPortalKey, InvalidToken
from api.store.records import PortalRecord

P = ParamSpec("P")
R = TypeVar("R")

limiter = Limiter(key_func=get_remote_address, headers_enabled=True, default_limits=[])

#: The view attribute that marks a limited operation (its OpenAPI responses document the fields).
POLICIES_ATTRIBUTE = "rate_limit_policies"


def token_key() -> str:
    """Rate-limit bucket of a seat token (hashed: never keep the token itself)."""
    token = bearer_in(request.headers.get("Authorization", ""))
    if token is not None:
        return "token:" + hashlib.sha256(token.encode()).hexdigest()
    return "address:" + get_remote_address()


def _marked(
    decorator: Callable[[Callable[P, R]], Callable[P, R]], *names: str
) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """``decorator``, whose views are also marked with the policies (``names``) they are counted against."""

    def mark(view: Callable[P, R]) -> Callable[P, R]:
        limited = unless_limits_off(decorator(view), view)
        setattr(limited, POLICIES_ATTRIBUTE, names)
        return limited

    return mark


def unless_limits_off(limited: Callable[P, R], view: Callable[P, R]) -> Callable[P, R]:
    """``limited`` (``view`` under flask-limiter's decorators), or ``view`` itself in an app whose
    limits are off (``RATELIMIT_ENABLED`` false): there the limiter's wrapper counts nothing, but
    only finds that out on every request after identifying it and filtering its limits."""

    @wraps(limited)
    def gate(*args: P.args, **kwargs: P.kwargs) -> R:
        if current_app.config.get("RATELIMIT_ENABLED", True):
            return limited(*args, **kwargs)
        return view(*args, **kwargs)

    return gate


def budget_portal(*, player_token: bool) -> PortalRecord | None:
    """The portal whose creation budget this request spends: with ``player_token`` (an endpoint
    where a player token acts for its portal's player) that token's portal, else its key's;
    None, the client address's budget, without either. A token or key that does not verify
    spends the address's too (the view then refuses it): a forged credential neither picks a
    portal's bucket nor escapes its own."""
    try:
        player = caller_player() if player_token else None
        return caller_portal() if player is None else player.portal
    except (InvalidToken, InvalidPortalKey):
        return None


def creation_budget(*, player_token: bool) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """A limit on what may make a match: the portal's budget or the address's
    (:func:`budget_portal`), one counter (the ``create`` scope) whichever endpoint spends it."""

    def bucket() -> str:
        portal = budget_portal(player_token=player_token)
        return "address:" + get_remote_address() if portal is None else "portal:" + portal.id

    def limit() -> str:
        portal = budget_portal(player_token=player_token)
        if portal is None:
            return str(current_app.config["RATE_LIMIT_CREATE"])
        return portal.create_limit or str(current_app.config["RATE_LIMIT_PORTAL_CREATE"])

    return _marked(limiter.shared_limit(limit, scope=policies.CREATE, key_func=bucket), policies.CREATE)


def action_limit_per_token() -> str:
    return current_app.config["RATE_LIMIT_ACTIONS_PER_TOKEN"]


def action_limit_per_address() -> str:
    return current_app.config["RATE_LIMIT_ACTIONS_PER_ADDRESS"]


def audit_limit() -> str:
    return current_app.config["RATE_LIMIT_AUDIT"]


#: Creating a match, asking for a rematch: the key's portal's budget, or the address's.
limit_creation = creation_budget(player_token=False)
#: Seeking, challenging: the same budget, which a player token spends for its portal.
limit_player_creation = creation_budget(player_token=True)
#: /audit, /record, /fairness, /analysis and /hint: per address, each endpoint its own budget (a scope not shared).
limit_audit_reads = _marked(
    limiter.limit(audit_limit, key_func=get_remote_address, scope=policies.EXPENSIVE_READS), policies.EXPENSIVE_READS
)
limit_actions = [
    limiter.limit(action_limit_per_token, key_func=token_key, scope=policies.ACTIONS_PER_TOKEN),
    limiter.limit(action_limit_per_address, key_func=get_remote_address, scope=policies.ACTIONS_PER_ADDRESS),
]


def rate_limited_actions(view: Callable[P, R]) -> Callable[P, R]:
    limited = view
    for decorate in limit_actions:
        limited = decorate(limited)
    gate = unless_limits_off(limited, view)
    setattr(gate, POLICIES_ATTRIBUTE, (policies.ACTIONS_PER_TOKEN, policies.ACTIONS_PER_ADDRESS))
    return gate


def policy_name(request_limit: RequestLimit) -> str:
    """The policy a limit evaluated for this request belongs to: its scope, which for a limit
    not shared between endpoints flask-limiter writes as ``<endpoint>:<scope>``."""
    return request_limit.request_args[-1].rsplit(":", 1)[-1]


def _storage_now() -> float:
    """Now, by the clock the counters' windows are kept in (epoch seconds)."""
    storage = limiter.storage
    return DatabaseStorage.counters().clock() if isinstance(storage, DatabaseStorage) else time.time()


def rate_limit_fields(response: Response) -> Response:
    """``RateLimit-Policy`` and ``RateLimit`` on every answer of a limited operation: each
    budget the limiter counted this request against (on a breach, the ones counted up to the
    spent one), with ``Retry-After`` on a 429 the seconds until the spent budget's window ends.
    Registered before the limiter so it runs after it; nothing on an operation without limits."""
    counted = limiter.current_limits
    if not counted:
        return response
    now = _storage_now()
    policy_fields, states, spent = [], [], []
    for request_limit in counted:
        name, item = policy_name(request_limit), request_limit.limit
        reset_at, remaining = request_limit.window  # database://: read from this request's own hits
        reset_in = max(0, math.ceil(reset_at - now))
        policy_fields.append(f'"{name}";q={item.amount};w={item.get_expiry()}')
        states.append(f'"{name}";r={remaining};t={reset_in}')
        if request_limit.breached:
            spent.append(reset_in)
    response.headers["RateLimit-Policy"] = ", ".join(policy_fields)
    response.headers["RateLimit"] = ", ".join(states)
    if spent and response.status_code == 429:
        response.headers["Retry-After"] = str(max(1, *spent))
    return response


def settle_retry_after(response: Response) -> Response:
    """``Retry-After`` only where a client is told to wait (429, 503), always there, and at least 1 s.

    flask-limiter writes it on every response of a limited endpoint, as the seconds left in
    the window, which rounds down to 0 in the window's last second: a client that obeys a
    ``Retry-After: 0`` on a 429 spins. Registered before the limiter so it runs after it.
    """
    value = response.headers.get("Retry-After")
    if response.status_code not in WAIT_STATUSES:
        if value is not None:
            del response.headers["Retry-After"]
    elif value is None or (value.strip().lstrip("-").isdigit() and int(value) < 1):
        response.headers["Retry-After"] = "1"  # the document promises it on every 429 and 503
    return response
