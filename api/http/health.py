"""The probes: ``GET /readyz`` (send this server requests?), ``GET /livez`` (is the process
up?) and ``GET /healthz`` (does the database answer and take writes?: kept for the clients
that use it; ``/readyz`` asks that and more). docs/operations.md says how to use each."""

from __future__ import annotations

import math

import marshmallow as ma
from flask import current_app
from flask.views import MethodView
from flask_smorest import Blueprint

from api.http.problem_codes import (
    CATALOGUE,
    DATABASE_BUSY,
    DATABASE_READ_ONLY,
    DATABASE_UNAVAILABLE,
    DRAINING,
    MIGRATIONS_PENDING,
    problem_responses,
)
from api.services import health as service_health
from api.services.health import Readiness

READINESS_KEY = "boneyard.readiness"

blp = Blueprint("health", __name__, description="Service health")


class HealthSchema(ma.Schema):
    status = ma.fields.String(required=True, metadata={"description": "Always `ok` when healthy", "example": "ok"})


@blp.route("/healthz")
class Health(MethodView):
    @blp.response(200, HealthSchema)
    @problem_responses(blp, DATABASE_UNAVAILABLE, DATABASE_READ_ONLY, DATABASE_BUSY)
    def get(self) -> dict[str, str]:
        """Report that the server can serve: its database answers and takes a write (each process
        writes its own row in `health_probes`, at most once per `HEALTH_CHECK_INTERVAL` seconds;
        answers in between repeat the last outcome)."""
        readiness: Readiness = current_app.extensions[READINESS_KEY]
        return _answer(readiness, readiness.check())


@blp.route("/readyz")
class Ready(MethodView):
    @blp.response(200, HealthSchema)
    @problem_responses(blp, DRAINING, MIGRATIONS_PENDING, DATABASE_UNAVAILABLE, DATABASE_READ_ONLY, DATABASE_BUSY)
    def get(self) -> dict[str, str]:
        """Report that this server should be sent requests (for a load balancer's readiness
        check): it is not shutting down, its database is at the migrations' head, and the
        database answers and takes a write (the probe of `/healthz`, reused the same way)."""
        readiness: Readiness = current_app.extensions[READINESS_KEY]
        return _answer(readiness, readiness.ready())


def _answer(readiness: Readiness, health: service_health.Health) -> dict[str, str]:
    if not health.ok:
        raise CATALOGUE[health.status].error(
            health.detail, headers={"Retry-After": str(max(1, math.ceil(readiness.interval)))}
        )
    return {"status": "ok"}


@blp.route("/livez")
class Live(MethodView):
    @blp.response(200, HealthSchema)
    def get(self) -> dict[str, str]:
        """Report that the process is up (no database round trip: for load-balancer liveness)."""
        return {"status": "ok"}
