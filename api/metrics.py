"""Every Prometheus metric the server exports, in one place (docs/operations.md lists them).

The use cases count what happens where it happens (``api.services``: actions, matches, waiters,
bot decisions, the autoplay backlog, turn clocks, webhook deliveries); the HTTP edge counts
requests and the refusals it makes (``api.http.metrics``). Each name follows Prometheus'
conventions (``_total`` for counters, base units: ``_seconds``) and has a help text.

Labels are bounded by construction, never a match id, a token or a path: a route is the
template Flask matched (``/v1/matches/<match_id>``) or ``unmatched``; a method is one of
:data:`METHODS` or ``other``; a preset (the game), level or action type comes from the registries
once the rules have accepted it; the rest are small fixed sets named below.

Processes: gunicorn's workers and the autoplay runner each write their own files in
``PROMETHEUS_MULTIPROC_DIR`` (multiprocess mode, chosen by ``prometheus-client`` when the
variable is set before it is imported; ``gunicorn.conf.py`` sets it up, empties it at start
and marks a dead worker's files dead); :func:`exposition` sums them. Without the variable (the
tests' in-process apps, a lone runner) the process counts in its own registry.
"""

from __future__ import annotations

import os
from typing import Literal

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    multiprocess,
    start_http_server,
)
from prometheus_client import generate_latest as prometheus_text

#: The variable that puts ``prometheus-client`` in multiprocess mode: the directory of every
#: process's files.
MULTIPROC_DIR_VARIABLE = "PROMETHEUS_MULTIPROC_DIR"
CONTENT_TYPE = CONTENT_TYPE_LATEST

#: The route label of a request no route matched (an unknown path), or refused before routing.
UNMATCHED = "unmatched"
#: The request methods counted by name; any other is ``other``.
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
OTHER_METHOD = "other"
#: What a waiter waits on: a long-poll of a match's events or of a player's events, a seek's
#: wait to be paired, an event stream (a match's or a player's).
WaiterKind = Literal["match_events", "player_events", "seek", "stream"]
WAITER_KINDS: tuple[WaiterKind, ...] = ("match_events", "player_events", "seek", "stream")
#: What became of a webhook delivery's attempt (``api.services.webhook_delivery``).
WebhookOutcome = Literal["delivered", "retrying", "failed"]
#: A delivery's attempt in its round, by number up to this one; later ones share ``"<n>+"``.
ATTEMPT_LABELS_UP_TO = 5

#: Seconds: from a fast read to a long-poll held a minute (``LONG_POLL_MAX_SECONDS``).
REQUEST_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
#: Seconds: a random bot's microseconds to an expert's slowest (its floor is 0.3 s).
DECISION_BUCKETS = (0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0, 2.5)

HTTP_REQUESTS = Counter(
    "boneyard_http_requests_total",
    "HTTP requests answered, by route template, method and status.",
    ["route", "method", "status"],
)
HTTP_REQUEST_DURATION = Histogram(
    "boneyard_http_request_duration_seconds",
    "Time from a request's arrival to its answer's headers (a stream's first bytes), by route template and method.",
    ["route", "method"],
    buckets=REQUEST_BUCKETS,
)
ACTIONS_APPLIED = Counter(
    "boneyard_actions_applied_total",
    "Seats' actions accepted and committed (POST .../actions), by game (its preset) and action type.",
    ["preset", "type"],
)
MATCHES_CREATED = Counter(
    "boneyard_matches_created_total",
    "Matches created (directly, by a seek's pairing or a challenge), by preset.",
    ["preset"],
)
MATCHES_ENDED = Counter("boneyard_matches_ended_total", "Matches that reached their end, by preset.", ["preset"])
WAITERS = Gauge(
    "boneyard_waiters",
    "Clients waiting now (long-polls, seek waits, event streams), by kind; live processes only.",
    ["kind"],
    multiprocess_mode="livesum",
)
for _kind in WAITER_KINDS:  # each kind scraped from the start, at 0 (a dashboard's lines start there)
    WAITERS.labels(_kind)
BOT_DECISION = Histogram(
    "boneyard_bot_decision_seconds",
    "A computer player's decision time before any reply-floor padding, by level and whether it took "
    "longer than the level's floor (its reply time then shows).",
    ["level", "over_floor"],
    buckets=DECISION_BUCKETS,
)
AUTOPLAY_BACKLOG = Gauge(
    "boneyard_autoplay_backlog_matches",
    "Matches whose computer player is owed a move now, as the autoplay runner last counted them.",
    multiprocess_mode="livemax",
)
AUTOPLAY_LAG = Gauge(
    "boneyard_autoplay_lag_seconds",
    "How long the oldest owed computer move has been due, as the autoplay runner last looked (0: none).",
    multiprocess_mode="livemax",
)
TURN_TIMEOUTS = Counter("boneyard_turn_timeouts_total", "Turns played by the server because their clock ran out.")
WEBHOOK_DELIVERIES = Counter(
    "boneyard_webhook_deliveries_total",
    "Webhook delivery attempts, by outcome (delivered, retrying, failed: given up) and attempt in its round.",
    ["outcome", "attempt"],
)
DATABASE_BUSY = Counter(
    "boneyard_database_busy_total",
    "Requests refused with 503 database_busy (a write lock not had in time), by route template.",
    ["route"],
)
RATE_LIMITED = Counter(
    "boneyard_rate_limited_total",
    "Requests refused with 429 by a rate limit, by route template.",
    ["route"],
)
WAITERS_REFUSED = Counter(
    "boneyard_waiters_refused_total",
    "Requests refused with 429 too_many_waiters (an address's cap on open long-polls, streams and "
    "request bodies on their way), by route template (unmatched: a body refused before routing).",
    ["route"],
)
IDEMPOTENT_REPLAYS = Counter(
    "boneyard_idempotent_replays_total",
    "Actions answered with the stored answer of an earlier request with the same Idempotency-Key.",
)

#: Every metric above: the exported names are read from here (docs, dashboard test).
ALL: tuple[Counter | Gauge | Histogram, ...] = (
    HTTP_REQUESTS,
    HTTP_REQUEST_DURATION,
    ACTIONS_APPLIED,
    MATCHES_CREATED,
    MATCHES_ENDED,
    WAITERS,
    BOT_DECISION,
    AUTOPLAY_BACKLOG,
    AUTOPLAY_LAG,
    TURN_TIMEOUTS,
    WEBHOOK_DELIVERIES,
    DATABASE_BUSY,
    RATE_LIMITED,
    WAITERS_REFUSED,
    IDEMPOTENT_REPLAYS,
)


def exported_names() -> dict[str, str]:
    """``{name as scraped: type}`` of every metric, with a histogram's ``_bucket``, ``_sum``
    and ``_count`` series and a counter's ``_total``."""
    names: dict[str, str] = {}
    for metric in ALL:
        for family in metric.describe():
            if family.type == "counter":
                names[f"{family.name}_total"] = "counter"
            elif family.type == "histogram":
                for suffix in ("_bucket", "_sum", "_count"):
                    names[family.name + suffix] = "histogram"
            else:
                names[family.name] = family.type
    return names


def method_label(method: str) -> str:
    return method if method in METHODS else OTHER_METHOD


def attempt_label(attempt: int) -> str:
    return str(attempt) if attempt <= ATTEMPT_LABELS_UP_TO else f"{ATTEMPT_LABELS_UP_TO + 1}+"


def bool_label(value: bool) -> str:
    return "true" if value else "false"


def multiprocess_dir() -> str | None:
    """The multiprocess directory this process writes in (None: its own registry alone)."""
    return os.environ.get(MULTIPROC_DIR_VARIABLE) or None


def registry() -> CollectorRegistry:
    """What a scrape reads: every process's files in multiprocess mode, else this process's."""
    if multiprocess_dir() is None:
        return REGISTRY
    collected = CollectorRegistry()
    multiprocess.MultiProcessCollector(collected)
    return collected


def exposition() -> bytes:
    """The text exposition of every metric, summed over the processes."""
    return prometheus_text(registry())


def empty_directory(path: str) -> None:
    """Remove the files of every process that is gone (``gunicorn.conf.py``'s ``on_starting``):
    a former run's counts restart at zero with the server and no dead process's gauge lingers,
    while a runner already writing here (``scripts/run`` starts it first) keeps its files."""
    for name in os.listdir(path):
        pid = name.removesuffix(".db").rpartition("_")[2]
        if name.endswith(".db") and not (pid.isdigit() and is_running(int(pid))):
            os.remove(os.path.join(path, name))


def is_running(pid: int) -> bool:
    try:
        os.kill(pid, 0)  # no signal sent: only whether the process exists
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists, as another user's
    except OverflowError:
        return False
    return True


def mark_dead(pid: int) -> None:
    """A process ended: its live gauges (waiters, backlog) stop counting; its counters stay summed."""
    if multiprocess_dir() is not None:
        multiprocess.mark_process_dead(pid)


def serve(bind: str) -> None:
    """Serve :func:`exposition` at ``http://<bind>/metrics`` (``host:port``; no host: every
    interface) from a daemon thread of this process (``METRICS_BIND``: gunicorn's master, the
    autoplay runner)."""
    host, _, port = bind.rpartition(":")
    start_http_server(int(port), addr=host.strip("[]") or "0.0.0.0", registry=registry())
