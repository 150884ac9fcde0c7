"""Errors of the engine and the use cases, translated to problem documents."""

from __future__ import annotations

from flask import Flask, Response
from sqlalchemy.exc import OperationalError

from api.http.errors import handle_unexpected, problem
from api.rules import errors as rules
from api.services import errors as services
from api.services import idempotency
from api.store import DatabaseBusy, is_busy_error

DATABASE_BUSY_RETRY_AFTER = 1      # seconds: writers hold the lock for milliseconds

_SERVICE_STATUS = {
    services.UnknownMatch: (404, "Unknown match"),
    services.UnknownSeat: (404, "Unknown seat"),
    services.InvalidToken: (401, "Invalid token"),
    services.WrongMatch: (403, "Token of another match"),
    services.StaleSeq: (409, "Stale seq"),
    services.MatchNotOver: (409, "Match not over"),
    services.InvalidCursor: (422, "Invalid cursor"),
    services.PreconditionFailed: (412, "Precondition failed"),
    services.ClientSeedNotAllowed: (422, "Client seeds not allowed"),
    services.SeatReserved: (403, "Seat reserved"),
    services.TooManyWaiters: (429, "Too many waiters"),
    services.EventLimitReached: (422, "Event limit reached"),
    services.TooManyBotMatches: (422, "Too many all-bot matches"),
    idempotency.IdempotencyKeyReused: (422, "Idempotency key reused"),
    idempotency.InvalidIdempotencyKey: (422, "Invalid idempotency key"),
}


def handle_rules_error(error: rules.RulesError) -> Response:
    if isinstance(error, rules.InvalidRules):
        return problem(422, error.code, "Invalid rules", error.message, field=error.field)
    if isinstance(error, rules.InvalidAction):
        return problem(422, error.code, "Invalid action", error.message)
    return problem(409, error.code, "Refused by the rules", error.message)


def handle_service_error(error: services.ServiceError) -> Response:
    status, title = _SERVICE_STATUS.get(type(error), (400, "Bad request"))
    headers = {"WWW-Authenticate": 'Bearer realm="boneyard"'} if status == 401 else None
    if isinstance(error, services.TooManyWaiters):
        headers = {"Retry-After": str(error.retry_after)}
    return problem(status, error.code, title, str(error), headers=headers, **error.extra)


def handle_database_error(error: Exception) -> Response:
    """A write lock not had in time (SQLite "database is locked", ``DatabaseBusy``): 503 with
    Retry-After, never a 500. Any other database error is unexpected."""
    if is_busy_error(error):
        return problem(503, "database_busy", "Database busy",
                       "The database is busy with other writes; retry shortly.",
                       headers={"Retry-After": str(DATABASE_BUSY_RETRY_AFTER)})
    return handle_unexpected(error)


def register(app: Flask) -> None:
    app.register_error_handler(rules.RulesError, handle_rules_error)
    app.register_error_handler(services.ServiceError, handle_service_error)
    app.register_error_handler(DatabaseBusy, handle_database_error)
    app.register_error_handler(OperationalError, handle_database_error)
