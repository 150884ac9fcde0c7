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
from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from flask import Flask, Response, current_app
from flask.cli import AppGroup
from flask_cors import CORS
from flask_smorest import Api
from werkzeug.exceptions import HTTPException
from werkzeug.middleware.proxy_fix import ProxyFix

from api import config as config_module
from api.commit_notice import commit_notice
from api.http import domain_errors, errors, input_guard, problem_codes
from api.http.callers import BUS_KEY  # the MessageBus: the HTTP layer's one entry to the use cases
from api.http.docs_ui import blp as docs_ui_blp
from api.http.event_schemas import register_event_schemas
from api.http.health import READINESS_KEY
from api.http.limits import limiter, settle_retry_after
from api.http.matches import UNIONS
from api.http.openapi_shapes import field_shape, register_shapes, register_unions
from api.http.rate_limit_storage import COUNTERS_KEY
from api.http.request_body import RequestBodyDeadline
from api.http.work_limit import WorkLimit
from api.portal_cli import portal_cli
from api.services.bus import MessageBus
from api.services.flow import MatchFlow
from api.services.health import Readiness
from api.services.limits import WorkLimits
from api.services.pacing import ReplyFloor
from api.services.rate_limits import RateLimitCounters
from api.services.snapshots import SnapshotCache
from api.services.waiting import Waiter
from api.serving import cpu_offload
from api.store import Store, make_engine
from api.store.migrate import upgrade
from api.web import blp as web_blp
from api.webhook_cli import portal_webhook_cli, start_webhook_worker, webhooks_cli

STORE_KEY = "boneyard.store"
API_KEY = "boneyard.api"
MATCHES_KEY = "boneyard.matches"  # the process's MatchFlow (store, cache, waiters, clock, limits)


class BoneyardApi(Api):
    """flask-smorest ``Api`` whose errors (and their docs) are problem documents."""

    ERROR_SCHEMA = errors.ProblemSchema

    def handle_http_exception(self, error: HTTPException) -> Response:
        return errors.handle_http_exception(error)


class ShapedMarshmallowPlugin(MarshmallowPlugin):
    """apispec's marshmallow plugin, documenting fields by their shape (``openapi_shapes``)
    from the first schema it converts on (the problem document's, at the Api's start)."""

    def init_spec(self, spec: APISpec) -> None:
        super().init_spec(spec)
        assert self.converter is not None  # made by init_spec
        self.converter.add_attribute_function(field_shape)


def problem_responses_documented(api: Api) -> None:
    """flask-smorest registers its error responses as ``application/json``; ours are
    problem+json. Every operation's default response lists what any request may be answered.
    flask-smorest's ``X-Pagination`` header is dropped: our lists page by cursor (``next_cursor``,
    ``Link``), so it would be an unused model in every generated client."""
    for response in api.spec.components.responses_lazy.values():
        content = response.get("content", {})
        if "application/json" in content:
            content[errors.PROBLEM_CONTENT_TYPE] = content.pop("application/json")
    api.spec.components.responses_lazy["DEFAULT_ERROR"].update(problem_codes.default_response_doc())
    api.spec.components.headers_lazy.pop("PAGINATION", None)
    api.spec.components.schemas.pop("PaginationMetadata", None)


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

    store = Store(
        make_engine(app.config["DATABASE_URL"], pool_size=app.config["DB_POOL_SIZE"]),
        on_commit=commit_notice(app.config["COMMIT_NOTICE_FD"]),
    )
    app.extensions[STORE_KEY] = store
    if app.config["AUTO_MIGRATE"]:
        upgrade(store.engine, script_location=app.config["MIGRATIONS_DIR"])

    origins = app.config["CORS_ORIGINS"]
    # Working requests queue for a permit (waiters and probes do not): a bounded pool's tail.
    app.wsgi_app = WorkLimit(app.wsgi_app, limit=app.config["WORKING_REQUESTS_PER_WORKER"])  # type: ignore[method-assign]  # Flask's documented way to add WSGI middleware
    # A body is read whole, within the deadline, before anything else runs; an address may
    # have only so many bodies on their way at once.
    app.wsgi_app = RequestBodyDeadline(  # type: ignore[method-assign]  # Flask's documented way to add WSGI middleware
        app.wsgi_app,
        timeout=app.config["REQUEST_BODY_TIMEOUT_SECONDS"],
        max_length=app.config["MAX_CONTENT_LENGTH"],
        per_address=app.config["WAITERS_PER_ADDRESS"],
    )
    if app.config["PROXY_HOPS"]:
        # Outermost: behind N trusted proxies the client address (rate limits, caps) comes from
        # X-Forwarded-For, for everything inside.
        app.wsgi_app = ProxyFix(  # type: ignore[method-assign]  # as above
            app.wsgi_app, x_for=app.config["PROXY_HOPS"], x_proto=app.config["PROXY_HOPS"]
        )
    input_guard.install(app)  # before the limiter: refused input costs no counter
    app.extensions[COUNTERS_KEY] = RateLimitCounters(store)  # database:// (the default storage)
    app.extensions[READINESS_KEY] = Readiness(store, interval=app.config["HEALTH_CHECK_INTERVAL"])
    app.after_request(settle_retry_after)  # registered first: runs after the limiter's own hook
    limiter.init_app(app)
    CORS(app, origins=origins, send_wildcard=origins == "*")
    api = BoneyardApi(app, spec_kwargs={"marshmallow_plugin": ShapedMarshmallowPlugin()})
    problem_responses_documented(api)
    input_guard.document(api)
    app.extensions[API_KEY] = api
    errors.register_error_handlers(app)
    domain_errors.register(app)
    app.extensions[MATCHES_KEY] = flow = MatchFlow(
        store,
        SnapshotCache(app.config["SNAPSHOT_CACHE_SIZE"]),
        allow_client_seed=app.config["ALLOW_CLIENT_SEED"],
        waiter=Waiter(store, per_address=app.config["WAITERS_PER_ADDRESS"]),
        limits=work_limits(app.config),
        offload=cpu_offload(),
        reply_floor=ReplyFloor.from_millis(app.config["BOT_REPLY_FLOOR_MS"]),
    )
    app.extensions[BUS_KEY] = MessageBus(flow)
    api.spec.components.security_scheme(
        "seatToken",
        {"type": "http", "scheme": "bearer", "description": "The seat's secret token, from match creation or a claim"},
    )
    api.spec.components.security_scheme(
        "playerToken",
        {
            "type": "http",
            "scheme": "bearer",
            "description": "A player token (bypl_…) a portal issued for one of its players: acts as that "
            "player on seeks, challenges and /v1/me/events (docs/matchmaking.md)",
        },
    )
    api.spec.components.security_scheme(
        "portalKey",
        {
            "type": "apiKey",
            "in": "header",
            "name": "X-API-Key",
            "description": "A portal's key (`flask boneyard portal create`): scopes matches, players "
            "and statistics to the portal; needed to create and list where PUBLIC_MATCHES is off",
        },
    )
    register_blueprints(api)
    register_event_schemas(api.spec)
    register_unions(api.spec, UNIONS)
    register_shapes(api.spec)
    app.register_blueprint(web_blp)  # the reference web table: not part of the API document
    app.register_blueprint(docs_ui_blp)  # Swagger UI at /docs, from installed files: works offline
    app.cli.add_command(boneyard_cli)
    return app


def register_blueprints(api: Api) -> None:
    """Every blueprint the service exposes."""
    from api.http.health import blp as health_blp
    from api.http.matches import blp as matches_blp
    from api.http.matchmaking import BLUEPRINTS as matchmaking_blps
    from api.http.players import blp as players_blp
    from api.http.portals import blp as portal_blp
    from api.http.presets import blp as presets_blp
    from api.http.ratings import blp as ratings_blp
    from api.http.stream import blp as stream_blp
    from api.http.webhooks import blp as webhooks_blp

    api.register_blueprint(health_blp)
    api.register_blueprint(matches_blp)
    api.register_blueprint(portal_blp)
    api.register_blueprint(webhooks_blp)
    api.register_blueprint(players_blp)
    api.register_blueprint(presets_blp)
    api.register_blueprint(ratings_blp)
    api.register_blueprint(stream_blp)
    for matchmaking_blp in matchmaking_blps:
        api.register_blueprint(matchmaking_blp)


def work_limits(config: Mapping[str, Any]) -> WorkLimits:
    """The bounds on work one client can cause, from the configuration."""
    return WorkLimits(
        inline_bot_moves=config["INLINE_BOT_MOVES"],
        max_events_per_match=config["MAX_EVENTS_PER_MATCH"],
        bot_matches_per_creator=config["BOT_MATCHES_PER_ADDRESS"],
        autoplay_pace=config["AUTOPLAY_PACE_SECONDS"],
        stats_abandoned_after_hours=config["STATS_ABANDONED_AFTER_HOURS"],
        rated_turn_seconds=config["RATED_TURN_SECONDS"],
        rated_timeout_limit=config["RATED_TIMEOUT_LIMIT"],
    )


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
portal_cli.add_command(portal_webhook_cli)  # flask boneyard portal webhook …
boneyard_cli.add_command(portal_cli)
boneyard_cli.add_command(webhooks_cli)


@boneyard_cli.command("migrate")
@click.option("--revision", default="head", show_default=True, help="Target revision.")
def migrate_command(revision: str) -> None:
    """Apply database migrations up to REVISION."""
    store = get_store()
    upgrade(store.engine, revision, script_location=current_app.config["MIGRATIONS_DIR"])
    click.echo(f"database at {revision}: {store.engine.url.render_as_string(hide_password=True)}")


@boneyard_cli.command("autoplay")
@click.option("--step-moves", default=1, show_default=True, help="Computer moves per step (one transaction).")
def autoplay_command(step_moves: int) -> None:
    """Play the computer players' owed moves and expired turn clocks until stopped (SIGTERM/SIGINT)."""
    import signal
    import threading

    from api.services.autoplay import Autoplay

    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    logging.getLogger("api").info("autoplay runner started")
    # The webhook deliveries are sent beside it, in a thread of their own (a slow endpoint
    # must not hold up a computer player's move): one runner process for all background work.
    webhooks = start_webhook_worker(stop)
    Autoplay(current_app.extensions[MATCHES_KEY], step_moves=step_moves).run(stop)
    webhooks.join(timeout=15)
    click.echo("autoplay runner stopped")


@boneyard_cli.command("sweep")
def sweep_command() -> None:
    """Play every turn whose clock ran out, once (the autoplay runner does it every second)."""
    from api.services.commands import SweepClocks

    done = current_app.extensions[BUS_KEY].handle(SweepClocks())
    click.echo(f"timed out {done} turn{'' if done == 1 else 's'}")
