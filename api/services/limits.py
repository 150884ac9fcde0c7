"""How much work one client can cause: the server's bounds, in one record.

Read from the configuration by ``api.bootstrap`` (``LIMIT_SETTINGS``: ``INLINE_BOT_MOVES``,
``MAX_EVENTS_PER_MATCH``, ``BOT_MATCHES_PER_ADDRESS``, ``AUTOPLAY_PACE_SECONDS``,
``STATS_ABANDONED_AFTER_HOURS``, ``RATED_TURN_SECONDS``, ``RATED_TIMEOUT_LIMIT``) and handed
to the services in the match flow, so every use case reads the same numbers. The largest ``target`` is a rule-set bound
(``api.rules.ruleset.MAX_TARGET``), since it is validated with the rules.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class WorkLimits:
    #: Computer moves a request plays in its own answer before leaving the rest to the
    #: autoplay runner (a human's action usually needs one to three).
    inline_bot_moves: int = 64
    #: The longest log a match may have; an append past it is refused (422).
    max_events_per_match: int = 20_000
    #: Unfinished all-bot matches one client address may have at once (422 beyond).
    bot_matches_per_creator: int = 5
    #: Seconds between two steps of an all-bot match played by the autoplay runner.
    autoplay_pace: float = 0.1
    #: A portal match with no move for this long counts as lost for the player to move
    #: (``api.services.stats``): leaving a bad deal is not free.
    stats_abandoned_after_hours: float = 24.0
    #: The turn clock a rated match gets when its rules name none: seconds per turn, and
    #: timeouts in a row before a bot takes the seat (and the player's rating counts a loss).
    rated_turn_seconds: int = 300
    rated_timeout_limit: int = 3
