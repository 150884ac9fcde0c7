"""gunicorn settings; every value can be overridden from the environment.

BIND (default 127.0.0.1:$PORT, PORT default 8000), WEB_CONCURRENCY (workers, default 2),
GUNICORN_WORKER_CONNECTIONS (connections per worker, default 10000), GUNICORN_TIMEOUT
(default 30). METRICS_BIND (host:port: the master serves every process's /metrics there; default
none), PROMETHEUS_MULTIPROC_DIR (where each process writes its metrics; default a new temporary
directory).

Workers are gevent workers (``api.serving.Worker``): a waiting client (a long-poll, an
event stream, a request body still arriving) holds a greenlet, not a thread, so one worker
holds thousands of them; docs/deployment.md says why and what was measured.
"""

import os
import shutil
import tempfile

from api import serving

# Multiprocess metrics (api/metrics.py): each worker writes its own files here and a scrape sums
# them. Set before anything imports prometheus-client (it picks its mode at import) and
# inherited by the workers; kept across a reload, which reads this file again.
if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="boneyard-metrics-")
    # Made here, so removed by on_exit (an environment mark: a reload reads this file again).
    os.environ["BONEYARD_MADE_METRICS_DIR"] = os.environ["PROMETHEUS_MULTIPROC_DIR"]
os.makedirs(os.environ["PROMETHEUS_MULTIPROC_DIR"], exist_ok=True)
metrics_bind = os.environ.get("METRICS_BIND", "")

bind = os.environ.get("BIND") or f"127.0.0.1:{os.environ.get('PORT', '8000')}"
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
worker_class = "api.serving.Worker"
# Open connections per worker, idle waiters included (each is one file descriptor: see on_starting).
worker_connections = int(os.environ.get("GUNICORN_WORKER_CONNECTIONS", "10000"))
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
graceful_timeout = 10
accesslog = "-"
errorlog = "-"
# Seat tokens (``/stream?token=``) and the Authorization header never reach the logs.
logger_class = "api.serving.AccessLogger"
loglevel = os.environ.get("LOG_LEVEL", "info").lower()
# gunicorn >= 25 opens a control socket at $HOME/.gunicorn/gunicorn.ctl by
# default: one fixed path shared by every instance of the user, and no HOME in
# the container.  Boneyard does not use it.
control_socket_disable = True


def on_starting(server):
    """Before the workers fork: room for every connection they may hold."""
    limit = serving.raise_open_files_limit(server.log)
    wanted = worker_connections + 256  # per process: each worker has its own descriptors
    if limit < wanted:
        server.log.warning(
            "open-files limit %s is below %s (worker_connections + files): raise the "
            "hard limit (ulimit -Hn) for a worker to hold that many connections",
            limit,
            wanted,
        )
    # prometheus-client's lock is made here, before a worker patches the standard library for
    # gevent, so it is a real lock: every metric write of a worker happens in its greenlets and
    # holds it across no switch, so it never blocks a worker.
    from api import metrics

    # A former run's files go (its counts restart with the server); a runner's already writing stay.
    metrics.empty_directory(os.environ["PROMETHEUS_MULTIPROC_DIR"])


def child_exit(server, worker):
    """A worker is gone: its live gauges (waiters) stop counting; its counters stay in the sums."""
    from api import metrics

    metrics.mark_dead(worker.pid)


def when_ready(server):
    """Listening now: tell whoever started this server, if they asked (the tests pass a pipe's
    descriptor in BONEYARD_READY_FD and wait on it instead of polling). Closed before the
    workers fork, so the reader's end sees the end of it here.

    With METRICS_BIND, the master serves /metrics there first: every worker's counts (and a
    runner's writing in the same directory), off the public listener."""
    if metrics_bind:
        from api import metrics

        metrics.serve(metrics_bind)
        server.log.info("metrics at http://%s/metrics", metrics_bind)
    ready_fd = os.environ.get("BONEYARD_READY_FD")
    if ready_fd:
        os.write(int(ready_fd), b"ready")
        os.close(int(ready_fd))


def on_exit(server):
    """The server stops: a metrics directory it made itself goes with it (one given to it, as
    scripts/run gives the runner's, is the giver's to keep)."""
    made = os.environ.get("BONEYARD_MADE_METRICS_DIR")
    if made and made == os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        shutil.rmtree(made, ignore_errors=True)
