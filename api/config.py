"""Configuration read from the environment, with per-app overrides.

``create_app(overrides)`` starts from :func:`from_environ` and applies the
overrides mapping on top; tests pass ``{"DATABASE_URL": ..., "TESTING": True}``.
``api.bootstrap`` alone turns the use cases' settings into their dependencies.

Environment variables (all optional):

``DATABASE_URL``
    SQLAlchemy URL.  Default: ``sqlite:///<repo root>/boneyard.db``.
    PostgreSQL: ``postgresql+psycopg://user:pass@host:5432/dbname``.
``CORS_ORIGINS``
    Comma-separated allowed origins, or ``*`` (default).
``MAX_CONTENT_LENGTH``
    Largest accepted request body in bytes (default 65536).
``AUTO_MIGRATE``
    Apply pending migrations when the app starts (default ``true``).
``DB_POOL_SIZE``
    Connections kept per process on PostgreSQL (default 5).
``ALLOW_CLIENT_SEED``
    Accept a creator-chosen server seed (``seed`` in ``POST /v1/matches``) for
    reproducible tests and research (default ``false``); such matches are marked
    ``seeded_by_client`` in every view.
``PROXY_HOPS``
    Number of trusted reverse proxies in front of the app (default 0); with N > 0 the
    client address used by rate limits comes from ``X-Forwarded-For``.
``STREAM_MAX_SECONDS``
    How long one server-sent-events stream stays open before the server closes it
    (default 900; clients reconnect with ``Last-Event-ID`` and miss nothing).
``LONG_POLL_MAX_SECONDS``
    The longest a ``GET /events?wait=`` is held (default 60, the API's maximum).
``WAITERS_PER_ADDRESS``
    Open long-polls (while they wait) and streams one client address may hold at once,
    counted in the database so the cap holds across servers (default 64; 0: no cap).
    One more is refused with 429 ``too_many_waiters``.
``REQUEST_BODY_TIMEOUT_SECONDS``
    A request body must arrive whole within this many seconds, or the answer is 408
    ``request_timeout`` and the connection is closed (default 10).
``PUBLIC_MATCHES``
    Whether keyless clients may create and list matches, in the public space no portal
    owns (default ``true``, the embedded default). With ``false`` creating and listing
    need a portal key (``X-API-Key``); portals are made with ``flask boneyard portal create``
    (``api.services.portals``). ``API_KEYS``, the flat key list of old, is refused at start.
``RATE_LIMIT_PORTAL_CREATE``
    A portal's budget for creating matches (seeks and challenges included), spent by its key
    and its players' tokens alike, whatever addresses its requests come from (default
    ``600 per minute``; ``flask boneyard portal limit`` sets one portal's own).
``STATS_ABANDONED_AFTER_HOURS``
    A portal match with no move for this long counts, in its players' statistics, as played
    and lost for the player whose turn it is (default 24).
``RATED_TURN_SECONDS`` / ``RATED_TIMEOUT_LIMIT``
    The turn clock a rated match gets when its rules name none (defaults 300 and 3): a
    player who walks away times out, a bot takes the seat, and the rating counts a loss.
``RATELIMIT_ENABLED`` / ``RATELIMIT_STORAGE_URI``
    Rate limits on (default ``true``) and where counters live (default ``database://``:
    the app's own database, one budget across every worker and server on it;
    ``memory://`` counts per process; ``redis://…`` needs ``pip install redis``).
``RATE_LIMIT_CREATE`` / ``RATE_LIMIT_ACTIONS_PER_TOKEN`` / ``RATE_LIMIT_ACTIONS_PER_ADDRESS``
    Limits in flask-limiter notation (defaults ``30 per minute``, ``600 per minute``,
    ``3000 per minute``); a rematch, a seek and a challenge count against the creation budget.
``RATE_LIMIT_AUDIT``
    Per client address, for each of ``/audit`` (per page), ``/record``, ``/fairness``,
    ``/analysis`` and ``/hint`` (default ``60 per minute``).
``HEALTH_CHECK_INTERVAL``
    Seconds a ``/healthz`` probe (a write to the database) is reused by its process
    (default 2).
``SNAPSHOT_CACHE_SIZE``
    Match states kept in memory per process (default 2048; a bounded LRU checked
    against the log's seq, so it is only ever a shortcut).
``WORKING_REQUESTS_PER_WORKER``
    Requests one worker process works on at once (default 8; 0: no limit); the rest queue,
    first come first served. Long-polls, streams and the probes are not counted.
``INLINE_BOT_MOVES``
    Computer moves one request plays in its own answer (default 64); the rest, and every
    move of an all-bot match, are played by the autoplay runner (``flask boneyard autoplay``).
``AUTOPLAY_PACE_SECONDS``
    Seconds between two moves of an all-bot match (default 0.1).
``ANALYSIS_SLOTS``
    Analyses after a match the autoplay runner makes at once, each in a worker process of its
    own (default: empty, the cores the runner may run on; 0: none). docs/analysis.md.
``BOT_REPLY_FLOOR_MS``
    The least time one computer decision takes, per level, as ``level=ms`` pairs (default
    ``random=5,greedy=5,intermediate=30,expert=300``; a level left out has none): a decision is padded up to
    it, so how long a reply takes does not tell what the bot's hand allowed
    (``api.services.pacing``). Keep each above the level's slowest decision on the machine
    (``bench/bot_timing.py``, ``bench/reply_floor.py``); a decision over its floor is logged as a
    warning and counted.
``MAX_EVENTS_PER_MATCH``
    The longest log a match may have (default 20000; an append past it is a 422).
``BOT_MATCHES_PER_ADDRESS``
    Unfinished all-bot matches one client address may have at once (default 5; 422 beyond).
``WEBHOOK_TIMEOUT_SECONDS``
    How long a webhook delivery waits for each of connecting, sending and the answer (default 5).
``WEBHOOK_MAX_ATTEMPTS``
    Attempts in a row before a delivery is given up as ``failed`` (default 12; retried after
    ``WEBHOOK_RETRY_SECONDS``, default 10, doubling up to an hour). docs/webhooks.md.
``WEBHOOK_SECRET_OVERLAP_SECONDS``
    After a webhook's secret is rotated, how long the replaced one still signs beside it
    (default 86400, a day; 0 to 604800). docs/webhooks.md.
``WEBHOOK_ALLOW_PRIVATE_ADDRESSES``
    Let webhooks go to loopback, private and link-local addresses (default ``false``: such
    URLs are refused at registration and before every attempt, against server-side request forgery).
``METRICS_TOKEN``
    Serve Prometheus' ``/metrics`` on the public listener to ``Authorization: Bearer <METRICS_TOKEN>``
    alone (default empty: ``/metrics`` answers 404 there, as any unknown path). docs/operations.md.
``METRICS_BIND``
    ``host:port`` where this process serves ``/metrics`` apart from the API, to anyone who can reach
    it: gunicorn's master (every worker's counts) and the autoplay runner (default empty: none).
``PROMETHEUS_MULTIPROC_DIR``
    The directory the processes of one host write their metrics in (gunicorn makes a temporary
    one when unset; give the runner the server's to have one scrape count both).
``LOG_LEVEL``
    Root log level for the ``api`` logger (default ``INFO``).
``LOG_FORMAT``
    ``text`` (default: readable lines) or ``json``: one JSON object per line from gunicorn's
    access and error logs, the app and the runner alike (``api/logs.py``, docs/operations.md).
``OTEL_EXPORTER_OTLP_ENDPOINT`` / ``OTEL_SERVICE_NAME``
    Where OpenTelemetry traces go over OTLP/HTTP (default unset: no traces, and nothing of
    OpenTelemetry imported; needs ``pip install .[traces]``), and the service's name in them
    (default ``boneyard``). ``api/traces.py``, docs/operations.md.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from api import logs

#: The repository root (the folder holding ``pyproject.toml`` and ``migrations/``).
REPO_ROOT = Path(__file__).resolve().parent.parent

#: Default database: a SQLite file next to ``pyproject.toml``.
DEFAULT_DATABASE_URL = f"sqlite:///{REPO_ROOT / 'boneyard.db'}"

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


#: Each above its level's slowest decision with room to spare: bench/bot_timing.py printed the expert's
#: slowest at 156 to 185 ms of CPU on a busy shared machine (2p draw; p99 about 80 ms), so its floor is
#: 300 ms (1.6x); the intermediate's slowest was 10 ms (floor 30), random's and greedy's under 1 ms.
DEFAULT_BOT_REPLY_FLOOR_MS = "random=5,greedy=5,intermediate=30,expert=300"


def parse_bool(value: str | bool) -> bool:
    """Read ``1/true/yes/on`` or ``0/false/no/off`` (any case) as a bool."""
    if isinstance(value, bool):
        return value
    lowered = value.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ValueError(f"not a boolean: {value!r}")


def parse_level_millis(value: str) -> dict[str, float]:
    """``"random=5, expert=60"`` as ``{"random": 5.0, "expert": 60.0}`` (milliseconds, >= 0);
    the level names are checked where they are used (``api.services.pacing``)."""
    out: dict[str, float] = {}
    for pair in value.split(","):
        if not pair.strip():
            continue
        name, sep, number = pair.partition("=")
        try:
            millis = float(number) if sep else float("nan")
        except ValueError:
            millis = float("nan")
        if not name.strip() or not 0 <= millis <= 10_000:
            raise ValueError(f"not level=milliseconds (0 to 10000): {pair.strip()!r}")
        out[name.strip()] = millis
    return out


def parse_fd(value: str) -> int | None:
    """An inherited file descriptor's number (empty: none)."""
    value = value.strip()
    if not value:
        return None
    fd = int(value)
    if fd < 0:
        raise ValueError(f"not a file descriptor: {value}")
    return fd


def parse_origins(value: str) -> str | list[str]:
    """``"*"`` stays ``"*"``; ``"a, b"`` becomes ``["a", "b"]``."""
    value = value.strip()
    if value in ("", "*"):
        return "*"
    return [origin.strip() for origin in value.split(",") if origin.strip()]


def migrations_dir() -> Path:
    """Where the alembic scripts live: ``<repo>/migrations``, else ``./migrations``.

    The second case covers a non-editable install (the Docker image), where the
    package sits in site-packages and the scripts sit in the working directory.
    """
    beside_package = REPO_ROOT / "migrations"
    if (beside_package / "env.py").is_file():
        return beside_package
    return Path.cwd() / "migrations"


def database_url_from_environ(environ: Mapping[str, str] | None = None) -> str:
    """``DATABASE_URL`` from the environment, or the default SQLite file."""
    environ = os.environ if environ is None else environ
    return environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL


API_DESCRIPTION = """Dominoes matches over HTTP: the double-six Draw and Block games for 2-4 players,
All Fives and Muggins, with house rules as options and named presets.

Every match is an append-only log of events; the state is whatever replaying it gives.
Seats act with their secret token (`Authorization: Bearer <token>`); without a token
you are a spectator. Views and events are redacted per seat: you never see another
hand or the boneyard while a hand is live. `legal_actions` in a view lists exactly the
actions the seat may send. Errors are RFC 9457 problem documents with a stable `code`.
The event vocabulary, the fold and the seeded shuffle are specified in `openapi/*.md`.
"""


def from_environ(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The full app configuration built from environment variables."""
    environ = os.environ if environ is None else environ
    if environ.get("API_KEYS", "").strip():
        # Refused, not ignored: a server that used to require keys must not silently open up.
        raise ValueError(
            "API_KEYS is no longer read: portal keys are made with `flask --app wsgi boneyard portal "
            "create NAME`; set PUBLIC_MATCHES=false to require a portal key for creating and listing"
        )
    return {
        "DATABASE_URL": database_url_from_environ(environ),
        "DB_POOL_SIZE": int(environ.get("DB_POOL_SIZE", "5")),
        "SNAPSHOT_CACHE_SIZE": int(environ.get("SNAPSHOT_CACHE_SIZE", "2048")),
        "ALLOW_CLIENT_SEED": parse_bool(environ.get("ALLOW_CLIENT_SEED", "false")),
        "PROXY_HOPS": int(environ.get("PROXY_HOPS", "0")),
        "STREAM_MAX_SECONDS": int(environ.get("STREAM_MAX_SECONDS", "900")),
        "LONG_POLL_MAX_SECONDS": float(environ.get("LONG_POLL_MAX_SECONDS", "60")),
        "WAITERS_PER_ADDRESS": int(environ.get("WAITERS_PER_ADDRESS", "64")),
        "REQUEST_BODY_TIMEOUT_SECONDS": float(environ.get("REQUEST_BODY_TIMEOUT_SECONDS", "10")),
        "PUBLIC_MATCHES": parse_bool(environ.get("PUBLIC_MATCHES", "true")),
        "RATE_LIMIT_PORTAL_CREATE": environ.get("RATE_LIMIT_PORTAL_CREATE", "600 per minute"),
        "STATS_ABANDONED_AFTER_HOURS": float(environ.get("STATS_ABANDONED_AFTER_HOURS", "24")),
        "RATED_TURN_SECONDS": int(environ.get("RATED_TURN_SECONDS", "300")),
        "RATED_TIMEOUT_LIMIT": int(environ.get("RATED_TIMEOUT_LIMIT", "3")),
        "RATELIMIT_ENABLED": parse_bool(environ.get("RATELIMIT_ENABLED", "true")),
        "RATELIMIT_STORAGE_URI": environ.get("RATELIMIT_STORAGE_URI", "database://"),
        "RATE_LIMIT_AUDIT": environ.get("RATE_LIMIT_AUDIT", "60 per minute"),
        "HEALTH_CHECK_INTERVAL": float(environ.get("HEALTH_CHECK_INTERVAL", "2")),
        "RATE_LIMIT_CREATE": environ.get("RATE_LIMIT_CREATE", "30 per minute"),
        "RATE_LIMIT_ACTIONS_PER_TOKEN": environ.get("RATE_LIMIT_ACTIONS_PER_TOKEN", "600 per minute"),
        "RATE_LIMIT_ACTIONS_PER_ADDRESS": environ.get("RATE_LIMIT_ACTIONS_PER_ADDRESS", "3000 per minute"),
        "AUTO_MIGRATE": parse_bool(environ.get("AUTO_MIGRATE", "true")),
        "MIGRATIONS_DIR": str(migrations_dir()),
        "CORS_ORIGINS": parse_origins(environ.get("CORS_ORIGINS", "*")),
        "MAX_CONTENT_LENGTH": int(environ.get("MAX_CONTENT_LENGTH", str(64 * 1024))),
        "LOG_LEVEL": environ.get("LOG_LEVEL", "INFO").upper(),
        "METRICS_TOKEN": environ.get("METRICS_TOKEN", ""),
        "METRICS_BIND": environ.get("METRICS_BIND", ""),
        "LOG_FORMAT": logs.log_format(environ),
        "OTEL_EXPORTER_OTLP_ENDPOINT": environ.get("OTEL_EXPORTER_OTLP_ENDPOINT", "").strip() or None,
        "OTEL_SERVICE_NAME": environ.get("OTEL_SERVICE_NAME", "").strip() or None,
        "WORKING_REQUESTS_PER_WORKER": int(environ.get("WORKING_REQUESTS_PER_WORKER", "8")),
        "INLINE_BOT_MOVES": int(environ.get("INLINE_BOT_MOVES", "64")),
        "AUTOPLAY_PACE_SECONDS": float(environ.get("AUTOPLAY_PACE_SECONDS", "0.1")),
        "ANALYSIS_SLOTS": int(slots) if (slots := environ.get("ANALYSIS_SLOTS", "").strip()) else None,
        "MAX_EVENTS_PER_MATCH": int(environ.get("MAX_EVENTS_PER_MATCH", "20000")),
        "BOT_MATCHES_PER_ADDRESS": int(environ.get("BOT_MATCHES_PER_ADDRESS", "5")),
        "BOT_REPLY_FLOOR_MS": parse_level_millis(environ.get("BOT_REPLY_FLOOR_MS", DEFAULT_BOT_REPLY_FLOOR_MS)),
        "WEBHOOK_TIMEOUT_SECONDS": float(environ.get("WEBHOOK_TIMEOUT_SECONDS", "5")),
        "WEBHOOK_MAX_ATTEMPTS": int(environ.get("WEBHOOK_MAX_ATTEMPTS", "12")),
        "WEBHOOK_RETRY_SECONDS": float(environ.get("WEBHOOK_RETRY_SECONDS", "10")),
        "WEBHOOK_ALLOW_PRIVATE_ADDRESSES": parse_bool(environ.get("WEBHOOK_ALLOW_PRIVATE_ADDRESSES", "false")),
        "WEBHOOK_SECRET_OVERLAP_SECONDS": float(environ.get("WEBHOOK_SECRET_OVERLAP_SECONDS", "86400")),
        "COMMIT_NOTICE_FD": parse_fd(environ.get("BONEYARD_COMMIT_FD", "")),
        # Keep key order as declared in schemas; JSON bodies are small.
        "JSON_SORT_KEYS": False,
        # flask-smorest / OpenAPI: the document is served at /v1/openapi.json
        # and Swagger UI at /docs by api.http.docs_ui, from files installed with the app (no CDN).
        "API_TITLE": "Boneyard",
        "API_SPEC_OPTIONS": {"info": {"description": API_DESCRIPTION}},
        "API_VERSION": "1.0.0",
        "OPENAPI_VERSION": "3.0.3",
        "OPENAPI_URL_PREFIX": "/",
        "OPENAPI_JSON_PATH": "v1/openapi.json",
    }
