"""Errors of the engine and the use cases, translated to problem documents."""

from __future__ import annotations

import logging
from typing import Any

from flask import Flask, Response
from sqlalchemy.exc import OperationalError

from api import metrics
from api.http.errors import handle_unexpected, problem
from api.http.metrics import route_label
from api.http.problem_codes import BEARER_CHALLENGE, DATABASE_BUSY, ProblemCode, entry_of
from api.rules import errors as rules
from api.services import errors as services
from api.store import DatabaseBusy, is_busy_error
from api.tournaments import InvalidTournament, TournamentError

log = logging.getLogger(__name__)

DATABASE_BUSY_RETRY_AFTER = 1  # seconds: writers hold the lock for milliseconds


def _entry(error: rules.RulesError | services.ServiceError | TournamentError) -> ProblemCode:
    """The catalogue's entry for an error's code. A code the catalogue does not know is a bug
    (an undocumented answer): it is still answered, by its family's status, and logged."""
    entry = entry_of(error.code)
    if entry is not None:
        return entry
    log.error("problem code %r is not in api.http.problem_codes", error.code)
    if isinstance(error, rules.IllegalAction):
        status = 409
    elif isinstance(error, rules.RulesError):
        status = 422
    else:
        status = 400
    return ProblemCode(error.code, status, "Refused", str(error))


def handle_rules_error(error: rules.RulesError) -> Response:
    entry = _entry(error)
    extra: dict[str, Any] = {"field": error.field} if isinstance(error, rules.InvalidRules) else {}
    return problem(entry.status, entry.code, entry.title, error.message, **extra)


def handle_tournament_error(error: TournamentError) -> Response:
    """A refusal of the tournament core: 422 for settings that cannot work (with ``field``),
    409 for what the tournament's state refuses, 404 for an unknown entrant."""
    entry = _entry(error)
    extra: dict[str, Any] = {"field": error.field} if isinstance(error, InvalidTournament) else {}
    return problem(entry.status, entry.code, entry.title, error.message, **extra)


def handle_service_error(error: services.ServiceError) -> Response:
    entry = _entry(error)
    headers = BEARER_CHALLENGE if entry.status == 401 else None
    if isinstance(error, services.TooManyWaiters):
        metrics.WAITERS_REFUSED.labels(route_label()).inc()
        headers = {"Retry-After": str(error.retry_after)}
    return problem(entry.status, entry.code, entry.title, str(error), headers=headers, **error.extra)


def handle_database_error(error: Exception) -> Response:
    """A write lock not had in time (SQLite "database is locked", ``DatabaseBusy``): 503 with
    Retry-After, never a 500. Any other database error is unexpected."""
    if is_busy_error(error):
        metrics.DATABASE_BUSY.labels(route_label()).inc()
        return problem(
            DATABASE_BUSY.status,
            DATABASE_BUSY.code,
            DATABASE_BUSY.title,
            "The database is busy with other writes; retry shortly.",
            headers={"Retry-After": str(DATABASE_BUSY_RETRY_AFTER)},
        )
    return handle_unexpected(error)


def register(app: Flask) -> None:
    app.register_error_handler(rules.RulesError, handle_rules_error)
    app.register_error_handler(services.ServiceError, handle_service_error)
    app.register_error_handler(TournamentError, handle_tournament_error)
    app.register_error_handler(DatabaseBusy, handle_database_error)
    app.register_error_handler(OperationalError, handle_database_error)
