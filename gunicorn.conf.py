"""gunicorn settings; every value can be overridden from the environment.

BIND (default 127.0.0.1:$PORT, PORT default 8000), WEB_CONCURRENCY (workers,
default 2), GUNICORN_THREADS (default 32), GUNICORN_TIMEOUT (default 30).
"""

import os

bind = os.environ.get("BIND") or f"127.0.0.1:{os.environ.get('PORT', '8000')}"
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
worker_class = "gthread"
# Waiting clients (long-polls, streams) each hold a thread but no database connection.
threads = int(os.environ.get("GUNICORN_THREADS", "32"))
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
graceful_timeout = 10
accesslog = "-"
errorlog = "-"
loglevel = os.environ.get("LOG_LEVEL", "info").lower()
# gunicorn >= 25 opens a control socket at $HOME/.gunicorn/gunicorn.ctl by
# default: one fixed path shared by every instance of the user, and no HOME in
# the container.  Boneyard does not use it.
control_socket_disable = True
