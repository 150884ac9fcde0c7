"""The Flask application: wiring only.

``create_app(overrides)`` is the one place that wires the application:
configuration, the store (engine + unit-of-work factory), migrations, the
OpenAPI/flask-smorest ``Api``, CORS, error handlers, blueprints and CLI.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import click
from flask import Flask, current_app
from flask.cli import AppGroup
from flask_cors import CORS
from werkzeug.middleware.proxy_fix import ProxyFix
from flask_smorest import Api

from api import config as config_module
from api.http import domain_errors, errors
from api.http.event_schemas import register_event_schemas
from api.http.limits import limiter
from api.web import blp as web_blp
from api.services.idempotency import IdempotencyService
from api.services.matches import MatchService
from api.services.snapshots import SnapshotCache
from api.store import Store, make_engine
from api.store.migrate import upgrade

STORE_KEY = "boneyard.store"
API_KEY = "boneyard.api"
MATCHES_KEY = "boneyard.matches"
IDEMPOTENCY_KEY = "boneyard.idempotency"


class BoneyardApi(Api):
    """flask-smorest ``Api`` whose errors (and their docs) are problem documents."""

    ERROR_SCHEMA = errors.ProblemSchema

    def handle_http_exception(self, error):
        return errors.handle_http_exception(error)

    def _register_responses(self):
        # flask-smorest documents its error responses as application/json; ours are problem+json.
        self.DEFAULT_RESPONSE_CONTENT_TYPE = errors.PROBLEM_CONTENT_TYPE
        try:
            super()._register_responses()
        finally:
            del self.DEFAULT_RESPONSE_CONTENT_TYPE


def create_app(overrides: Mapping[str, Any] | None = None) -> Flask:
    """Build the Flask app.

    ``overrides`` is applied on top of the environment configuration
    (:func:`api.config.from_environ`), e.g. ``{"DATABASE_URL": ..., "TESTING": True}``.
    """
    app = Flask(__name__, instance_relative_config=False)
    app.config.from_mapping(config_module.from_environ())
    if overrides:
        app.config.update(overrides)
    _configure_logging(app)

    store = Store(make_engine(app.config["DATABASE_URL"], pool_size=app.config["DB_POOL_SIZE"]))
    app.extensions[STORE_KEY] = store
    if app.config["AUTO_MIGRATE"]:
        upgrade(store.engine, script_location=app.config["MIGRATIONS_DIR"])

    origins = app.config["CORS_ORIGINS"]
    if app.config["PROXY_HOPS"]:
        # Behind N trusted proxies the client address (rate limits) comes from X-Forwarded-For.
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=app.config["PROXY_HOPS"], x_proto=app.config["PROXY_HOPS"])
    limiter.init_app(app)
    CORS(app, origins=origins, send_wildcard=origins == "*")
    api = BoneyardApi(app)
    app.extensions[API_KEY] = api
    errors.register_error_handlers(app)
    domain_errors.register(app)
    app.extensions[MATCHES_KEY] = MatchService(store, SnapshotCache(app.config["SNAPSHOT_CACHE_SIZE"]),
                                               allow_client_seed=app.config["ALLOW_CLIENT_SEED"])
    app.extensions[IDEMPOTENCY_KEY] = IdempotencyService(store)
    api.spec.components.security_scheme(
        "seatToken", {"type": "http", "scheme": "bearer",
                      "description": "The seat's secret token, from match creation or a claim"})
    api.spec.components.security_scheme(
        "portalKey", {"type": "apiKey", "in": "header", "name": "X-API-Key",
                      "description": "A portal key, when the server is configured with API_KEYS"})
    register_blueprints(api)
    register_event_schemas(api.spec)
    app.register_blueprint(web_blp)          # the reference web table: not part of the API document
    app.cli.add_command(boneyard_cli)
    return app


def register_blueprints(api: Api) -> None:
    """Every blueprint the service exposes."""
    from api.http.health import blp as health_blp
    from api.http.matches import blp as matches_blp
    from api.http.players import blp as players_blp
    from api.http.stream import blp as stream_blp

    api.register_blueprint(health_blp)
    api.register_blueprint(matches_blp)
    api.register_blueprint(players_blp)
    api.register_blueprint(stream_blp)


def get_store() -> Store:
    """The current app's :class:`~api.store.Store`."""
    return current_app.extensions[STORE_KEY]


def _configure_logging(app: Flask) -> None:
    logger = logging.getLogger("api")
    logger.setLevel(app.config["LOG_LEVEL"])
    if not logging.getLogger().handlers and not logger.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s [%(name)s] %(message)s"))
        logger.addHandler(handler)


boneyard_cli = AppGroup("boneyard", help="Boneyard maintenance commands.")


@boneyard_cli.command("migrate")
@click.option("--revision", default="head", show_default=True, help="Target revision.")
def migrate_command(revision: str) -> None:
    """Apply database migrations up to REVISION."""
    store = get_store()
    upgrade(store.engine, revision, script_location=current_app.config["MIGRATIONS_DIR"])
    click.echo(f"database at {revision}: {store.engine.url.render_as_string(hide_password=True)}")


@boneyard_cli.command("sweep")
def sweep_command() -> None:
    """Play every turn whose clock ran out (tables nobody is looking at); run it from cron."""
    from api.services.clocks import sweep

    done = sweep(current_app.extensions[MATCHES_KEY])
    click.echo(f"timed out {done} turn{'' if done == 1 else 's'}")
