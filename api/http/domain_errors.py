"""Errors of the engine and the use cases, translated to problem documents."""

from __future__ import annotations

from flask import Flask, Response

from api.http.errors import problem
from api.rules import errors as rules
from api.services import errors as services
from api.services import idempotency

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
    idempotency.IdempotencyKeyReused: (422, "Idempotency key reused"),
    idempotency.IdempotencyInFlight: (409, "Request in flight"),
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
    return problem(status, error.code, title, str(error), headers=headers, **error.extra)


def register(app: Flask) -> None:
    app.register_error_handler(rules.RulesError, handle_rules_error)
    app.register_error_handler(services.ServiceError, handle_service_error)
