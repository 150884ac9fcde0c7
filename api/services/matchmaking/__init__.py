"""Matchmaking: player tokens, seeks (a queue), challenges, and each portal player's event stream.

One module per part, each with its own account:

* :mod:`.player_tokens`: who acts. A portal gives one of its players a **player token**
  (``bypl_…``) so that the player's bot acts as that player without the portal's key; the
  portal's key with a ``player_ref`` acts as that player too. A keyless client (where the
  public space is on) or a portal key without ``player_ref`` may seek, unrated.
* :mod:`.seeks`: the queue. A seek waits in a pool and is paired, in the transaction that
  stores it, with the others of its pool that :mod:`.pairing` picks; it expires, or is filled
  with computer players, when its time comes.
* :mod:`.pairing`: which waiting seeks make a match, decided from plain values (pure).
* :mod:`.challenges`: a portal player names others of its portal; the last acceptance
  starts the match.
* :mod:`.player_events`: each portal player's durable event stream, long-polled.
* :mod:`.sweep`: what time alone changes (expiries, bot fills), every second.

Waiting (a seek's read with ``wait``, the event stream's long-poll) uses the process's waiter
hub (``api.services.waiting``) with keys of their own (``seek-<id>``, ``player-<hash>``): the
transaction that pairs a seek or writes a player's event announces it after the commit here,
and in every other app server through the wake-up source (LISTEN/NOTIFY, or the SQLite poller).

The names below are those the rest of the code uses (the bus's handlers, the HTTP layer's).
"""

from __future__ import annotations

from .challenges import (
    answer_challenge_handler,
    cancel_challenge_handler,
    create_challenge_handler,
    get_challenge_handler,
)
from .player_events import player_events_handler, sleep_for, stream_key
from .player_tokens import (
    PLAYER_TOKEN_PREFIX,
    identify_player_handler,
    issue_token_handler,
    list_tokens_handler,
    revoke_token_handler,
)
from .seeks import cancel_seek_handler, create_seek_handler, get_seek_handler
from .sweep import sweep_handler

__all__ = [
    "PLAYER_TOKEN_PREFIX",
    "answer_challenge_handler",
    "cancel_challenge_handler",
    "cancel_seek_handler",
    "create_challenge_handler",
    "create_seek_handler",
    "get_challenge_handler",
    "get_seek_handler",
    "identify_player_handler",
    "issue_token_handler",
    "list_tokens_handler",
    "player_events_handler",
    "revoke_token_handler",
    "sleep_for",
    "stream_key",
    "sweep_handler",
]
