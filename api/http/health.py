"""``GET /healthz`` (readiness: the database answers and takes writes) and ``GET /livez``."""

from __future__ import annotations

import math

import marshmallow as ma
from flask import current_app
from flask.views import MethodView
from flask_smorest import Blueprint

from api.http.errors import PROBLEM_CONTENT_TYPE, ProblemError, ProblemSchema
from api.services.health import BUSY, UNAVAILABLE, Readiness

READINESS_KEY = "boneyard.readiness"

blp = Blueprint("health", __name__, description="Service health")


class HealthSchema(ma.Schema):
    status = ma.fields.String(
        required=True, metadata={"description": "Always `ok` when healthy", "example": "ok"}
    )


@blp.route("/healthz")
class Health(MethodView):
    @blp.response(200, HealthSchema)
    @blp.alt_response(
        503,
        schema=ProblemSchema,
        content_type=PROBLEM_CONTENT_TYPE,
        description="Not ready: the database is unreachable (`database_unavailable`), answers but "
                    "refuses writes (`database_read_only`), or held its write lock past the busy timeout "
                    "(`database_busy`); see `Retry-After`",
    )
    def get(self):
        """Report that the server can serve: its database answers and takes a write (each process
        writes its own row in `health_probes`, at most once per `HEALTH_CHECK_INTERVAL` seconds;
        answers in between repeat the last outcome)."""
        readiness: Readiness = current_app.extensions[READINESS_KEY]
        health = readiness.check()
        if not health.ok:
            title = {UNAVAILABLE: "Database unavailable", BUSY: "Database busy"}.get(health.status, "Database read-only")
            raise ProblemError(503, health.status, title, health.detail,
                               headers={"Retry-After": str(max(1, math.ceil(readiness.interval)))})
        return {"status": "ok"}


@blp.route("/livez")
class Live(MethodView):
    @blp.response(200, HealthSchema)
    def get(self):
        """Report that the process is up (no database round trip: for load-balancer liveness)."""
        return {"status": "ok"}
