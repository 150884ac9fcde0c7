"""Errors of the use cases (the rules engine has its own, in ``api.rules.errors``)."""

from __future__ import annotations

from typing import Any


class ServiceError(Exception):
    code = "service_error"

    def __init__(self, message: str, **extra: Any):
        super().__init__(message)
        self.extra = extra


class UnknownMatch(ServiceError):
    code = "unknown_match"


class InvalidToken(ServiceError):
    """Missing, malformed or unknown seat token."""

    code = "invalid_token"


class WrongMatch(ServiceError):
    """A real seat token, but of another match."""

    code = "wrong_match"


class StaleSeq(ServiceError):
    """The caller's ``expected_seq`` is not the match's last seq."""

    code = "stale_seq"

    def __init__(self, expected: int, current: int):
        super().__init__(f"expected seq {expected} but the match is at seq {current}", current_seq=current)
        self.current_seq = current


class MatchNotOver(ServiceError):
    code = "match_not_over"


class AnalysisNotReady(ServiceError):
    """An ended match whose analysis the runner has not stored yet (it makes one after each end)."""

    code = "analysis_not_ready"


class AnalysisFailed(ServiceError):
    """An ended match whose analysis failed every time the runner made it (``ANALYSIS_ATTEMPTS``):
    none will be made again; its log names the match for an operator."""

    code = "analysis_failed"


class HintNotOffered(ServiceError):
    """A hint asked in a rated match, or at a table with another person: it would be help no
    opponent gets."""

    code = "hint_not_offered"


class SeatPlayedByComputer(ServiceError):
    """An action sent with the token of a seat a computer player holds now (handed to one after
    ``timeout_limit`` turns timed out in a row): only that computer moves for it, so its every
    move is the one the fairness check asks it for again."""

    code = "seat_played_by_computer"


class UnknownSeat(ServiceError):
    code = "unknown_seat"


class InvalidCursor(ServiceError):
    code = "invalid_cursor"


class PreconditionFailed(StaleSeq):
    """An ``If-Match`` that names another seq than the match's."""

    code = "precondition_failed"


class ClientSeedNotAllowed(ServiceError):
    code = "client_seed_not_allowed"


class TooManyWaiters(ServiceError):
    """The client's address already holds as many open long-polls and streams as one may."""

    code = "too_many_waiters"

    def __init__(self, message: str, retry_after: int):
        super().__init__(message)
        self.retry_after = retry_after


class SeatReserved(ServiceError):
    """A rematch seat kept for the previous match's player: claimed only with that seat's token."""

    code = "seat_reserved"


class EventLimitReached(ServiceError):
    """The match's log is as long as this server lets one grow (``MAX_EVENTS_PER_MATCH``)."""

    code = "event_limit_reached"


class TooManyBotMatches(ServiceError):
    """The creator already has as many unfinished all-bot matches as one address may run."""

    code = "too_many_bot_matches"


class InvalidPortalKey(ServiceError):
    """An ``X-API-Key`` that is no live key of any portal (malformed, unknown or revoked)."""

    code = "invalid_api_key"


class PortalKeyRequired(ServiceError):
    """This server has no public space (``PUBLIC_MATCHES`` off): creating and listing need a portal key."""

    code = "portal_key_required"


class PlayerRefNeedsPortal(ServiceError):
    """A ``player_ref`` (or a player's statistics) without the key of the portal the match belongs to."""

    code = "player_ref_needs_portal"


class RatedNeedsPortal(ServiceError):
    """A rated match asked for without a portal's key: ratings are a portal's, kept for the
    players it names."""

    code = "rated_needs_portal"


class InvalidRatedSeats(ServiceError):
    """A rated match whose seats cannot be rated (``reason``): a remote or open seat without a
    ``player_ref`` (``missing_player_ref``), a player_ref at two seats (``duplicate_player_ref``),
    or no seat for a player at all (``no_players``)."""

    code = "invalid_rated_seats"


class InvalidPortal(ServiceError):
    """A portal name or rate that cannot be used, or a name already taken."""

    code = "invalid_portal"


class UnknownPortalKey(ServiceError):
    """The portal has no live key with this id."""

    code = "unknown_portal_key"


class LastPortalKey(ServiceError):
    """Revoking the portal's last live key would lock its owner out: add another first."""

    code = "last_portal_key"


class InvalidWebhookUrl(ServiceError):
    """A webhook URL that cannot be used: not http(s), malformed, with credentials, not
    resolving, or (unless the server allows) a loopback, private or link-local address; ``reason``."""

    code = "invalid_webhook_url"


class InvalidWebhookEvents(ServiceError):
    """Webhook event types of which some are unknown (``unknown``), or none at all."""

    code = "invalid_webhook_events"


class TooManyWebhooks(ServiceError):
    """The portal has as many webhook endpoints as one may (``limit``)."""

    code = "too_many_webhooks"


class UnknownWebhook(ServiceError):
    """The calling portal has no webhook with this id (another portal's is unknown too)."""

    code = "unknown_webhook"


class UnknownDelivery(ServiceError):
    """The webhook has no delivery with this id."""

    code = "unknown_delivery"


# --- matchmaking (api.services.matchmaking) --------------------------------------------------------
class PlayerRequired(ServiceError):
    """The operation acts as a portal's player: a player token, or the portal's key with ``player_ref``."""

    code = "player_required"


class UnknownPlayerToken(ServiceError):
    """The player has no live player token with this id."""

    code = "unknown_player_token"


class UnknownSeek(ServiceError):
    """No seek with this id that the caller owns (another's is unknown too)."""

    code = "unknown_seek"


class InvalidSeek(ServiceError):
    """A seek that cannot be: ``reason`` (``rating_range``, ``fill``)."""

    code = "invalid_seek"


class RatedNeedsPlayer(ServiceError):
    """A rated seek from a caller who is no portal player (an anonymous seeker, or the portal's
    key without ``player_ref``): the body is valid, the caller may not rate. Ratings are kept
    for the players a portal names."""

    code = "rated_needs_player"


class AlreadySeeking(ServiceError):
    """The player already waits in this pool (``seek_id``): one seek per player and pool."""

    code = "already_seeking"


class SeekPaired(ServiceError):
    """The seek is paired already (``match_id``): it cannot be cancelled."""

    code = "seek_paired"


class UnknownChallenge(ServiceError):
    """No challenge with this id that names the caller."""

    code = "unknown_challenge"


class InvalidChallenge(ServiceError):
    """A challenge that cannot be: ``reason`` (``opponents``, ``seats``, ``rated_bots``)."""

    code = "invalid_challenge"


class NotYourChallenge(ServiceError):
    """Only the challenger cancels a challenge, and only the challenged answer it."""

    code = "not_your_challenge"


class ChallengeClosed(ServiceError):
    """The challenge is no longer pending (``challenge_status``)."""

    code = "challenge_closed"


class UnknownTournament(ServiceError):
    """No such tournament for this caller (another portal's is not shown)."""

    code = "unknown_tournament"


class NotYourEntrant(ServiceError):
    """A player withdraws its own entry only (its portal withdraws any)."""

    code = "not_your_entrant"


class EntryRefused(ServiceError):
    """The tournament's entry rules refuse this entrant (``reason``: ``bot_level``, ``rating``,
    ``members``: only the portal enters others, and partner teams)."""

    code = "entry_refused"
