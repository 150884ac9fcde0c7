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
