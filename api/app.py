"""The Flask application: HTTP only, over the bus that ``api.bootstrap`` wires.

``create_app(overrides)`` reads the configuration, opens the store, calls
:func:`api.bootstrap.bootstrap` once for the message bus, and adds what HTTP needs around it:
the WSGI middleware, rate limits, CORS, the OpenAPI ``Api`` (``api.http.spec``), error
handlers, blueprints and the ``flask boneyard`` CLI.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from typing import Any

import click
from flask import Flask, current_app
from flask.cli import AppGroup
from flask_cors import CORS
from flask_smorest import Api
from werkzeug.middleware.proxy_fix import ProxyFix

from api import config as config_module
from api import logs, metrics, traces
from api.bootstrap import bootstrap, open_store
from api.http import domain_errors, errors, input_guard
from api.http import metrics as http_metrics
from api.http.callers import BUS_KEY  # the MessageBus: the HTTP layer's one entry to the use cases
from api.http.docs_ui import blp as docs_ui_blp
from api.http.health import READINESS_KEY
from api.http.limits import limiter, rate_limit_fields, settle_retry_after
from api.http.rate_limit_storage import COUNTERS_KEY
from api.http.request_body import RequestBodyDeadline
from api.http.request_ids import RequestIds, note_route
from api.http.routing import SyncChecksOnce
from api.http.spec import complete_spec, make_api
from api.http.tracing import TracedRequests
from api.http.work_limit import WorkLimit
from api.portal_cli import portal_cli
from api.services.health import Readiness
from api.services.rate_limits import RateLimitCounters
from api.serving import is_draining
from api.store import Store
from api.store.migrate import upgrade
from api.web import blp as web_blp
from api.webhook_cli import portal_webhook_cli, start_webhook_worker, webhooks_cli

STORE_KEY = "boneyard.store"
API_KEY = "boneyard.api"


def create_app(overrides: Mapping[str, Any] | None = None) -> Flask:
    """Build the Flask app.

    ``overrides`` is applied on top of the environment configuration
    (:func:`api.config.from_environ`), e.g. ``{"DATABASE_URL": ..., "TESTING": True}``.
    """
    app = SyncChecksOnce(__name__, instance_relative_config=False)
    app.config.from_mapping(config_module.from_environ())
    if overrides:
        app.config.update(overrides)
    logs.configure(app.config["LOG_FORMAT"], app.config["LOG_LEVEL"])

    app.extensions[STORE_KEY] = store = open_store(app.config)
    app.extensions[BUS_KEY] = bootstrap(store, app.config)

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
    # Every request counted and timed by its route template (the first hook notes it); only the
    # request-id middleware is outside it.
    http_metrics.install(app)
    if traces.configure(app.config):  # OTEL_EXPORTER_OTLP_ENDPOINT set: a span per request
        app.wsgi_app = TracedRequests(app.wsgi_app)  # type: ignore[method-assign]  # as above
    # Outermost of all: every answer, a middleware's refusal too, echoes the request's id.
    app.wsgi_app = RequestIds(app.wsgi_app)  # type: ignore[method-assign]  # as above
    app.before_request(note_route)  # before the guards: a refusal by the next hooks knows its route
    input_guard.install(app)  # before the limiter: refused input costs no counter
    app.extensions[COUNTERS_KEY] = RateLimitCounters(store)  # database:// (the default storage)
    app.extensions[READINESS_KEY] = Readiness(
        store,
        interval=app.config["HEALTH_CHECK_INTERVAL"],
        draining=is_draining,  # SIGTERM to a gunicorn worker (api.serving.Worker)
        script_location=app.config["MIGRATIONS_DIR"],
    )
    app.after_request(settle_retry_after)  # registered first: runs after the limiter's own hook
    app.after_request(rate_limit_fields)  # runs after the limiter's hook too, before settle_retry_after
    limiter.init_app(app)
    CORS(app, origins=origins, send_wildcard=origins == "*")
    app.extensions[API_KEY] = api = make_api(app)
    errors.register_error_handlers(app)
    domain_errors.register(app)
    register_blueprints(api)
    complete_spec(api)
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
    from api.http.records import blp as records_blp
    from api.http.stream import blp as stream_blp
    from api.http.tournaments import blp as tournaments_blp
    from api.http.webhooks import blp as webhooks_blp

    api.register_blueprint(health_blp)
    api.register_blueprint(matches_blp)
    api.register_blueprint(portal_blp)
    api.register_blueprint(webhooks_blp)
    api.register_blueprint(players_blp)
    api.register_blueprint(presets_blp)
    api.register_blueprint(ratings_blp)
    api.register_blueprint(stream_blp)
    api.register_blueprint(records_blp)
    for matchmaking_blp in matchmaking_blps:
        api.register_blueprint(matchmaking_blp)
    api.register_blueprint(tournaments_blp)


def get_store() -> Store:
    """The current app's :class:`~api.store.Store`."""
    return current_app.extensions[STORE_KEY]


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
@click.option(
    "--analysis-slots",
    type=int,
    default=None,
    help="Analyses after a match made at once, each in a process of its own (default: ANALYSIS_SLOTS, "
    "else the cores this process may run on; 0: none).",
)
def autoplay_command(step_moves: int, analysis_slots: int | None) -> None:
    """Play the computer players' owed moves and expired turn clocks until stopped (SIGTERM/SIGINT);
    make the analysis after each ended match in the background."""
    import multiprocessing
    import signal
    import threading
    from concurrent.futures import ProcessPoolExecutor

    from api.services.analyses import AnalysisRunner
    from api.services.autoplay import Autoplay

    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    logging.getLogger("api").info("autoplay runner started")
    if current_app.config["METRICS_BIND"]:  # its own /metrics, as in docker-compose (docs/operations.md)
        metrics.serve(current_app.config["METRICS_BIND"])
    # The webhook deliveries are sent beside it, in a thread of their own (a slow endpoint
    # must not hold up a computer player's move): one runner process for all background work.
    webhooks = start_webhook_worker(stop)
    bus = current_app.extensions[BUS_KEY]
    if analysis_slots is None:
        analysis_slots = current_app.config["ANALYSIS_SLOTS"]
    slots = len(os.sched_getaffinity(0)) if analysis_slots is None else max(0, analysis_slots)
    # one analysis per core at most: a pool of that many worker processes ("spawn": no copy of
    # this process's threads, connections or locks)
    pool = ProcessPoolExecutor(slots, mp_context=multiprocessing.get_context("spawn")) if slots else None
    analyses = AnalysisRunner(bus.handle, slots, pool) if pool is not None else None
    try:
        Autoplay(bus, step_moves=step_moves, analyses=analyses).run(stop)
    finally:
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
    webhooks.join(timeout=15)
    metrics.mark_dead(os.getpid())  # its backlog gauges leave a shared directory's sums
    logging.getLogger("api").info("autoplay runner stopped")  # a log line: JSON with LOG_FORMAT=json


@boneyard_cli.command("sweep")
def sweep_command() -> None:
    """Play every turn whose clock ran out, once (the autoplay runner does it every second)."""
    from api.services.commands import SweepClocks

    done = current_app.extensions[BUS_KEY].handle(SweepClocks())
    click.echo(f"timed out {done} turn{'' if done == 1 else 's'}")
