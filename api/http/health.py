"""``GET /healthz``: liveness plus a database round trip."""

from __future__ import annotations

import logging

import marshmallow as ma
from flask import current_app
from flask.views import MethodView
from flask_smorest import Blueprint

from api.http.errors import PROBLEM_CONTENT_TYPE, ProblemError, ProblemSchema
from api.store import Store

log = logging.getLogger(__name__)

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
        description="The database is unreachable",
    )
    def get(self):
        """Report that the server is up and can reach its database."""
        store: Store = current_app.extensions["boneyard.store"]
        try:
            store.ping()
        except Exception as exc:
            log.warning("health check: database unreachable: %s", exc)
            raise ProblemError(
                503, "database_unavailable", "Database unavailable", "The database is unreachable."
            ) from exc
        return {"status": "ok"}


@blp.route("/livez")
class Live(MethodView):
    @blp.response(200, HealthSchema)
    def get(self):
        """Report that the process is up (no database round trip: for load-balancer liveness)."""
        return {"status": "ok"}
