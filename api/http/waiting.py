"""Who is waiting, in HTTP terms: the client's address (its waiter cap) and its socket (has it gone?).

The services see a :class:`~api.services.waiting.Client`: an address and a ``gone()`` callable.
Under gunicorn the connection is ``environ["gunicorn.socket"]``; a client that went away
leaves it readable with nothing to read (``recv(1, MSG_PEEK) == b""``) or in error.
A request pipelined behind this one also makes it readable, but with bytes: not gone.
"""

from __future__ import annotations

import select
import socket
from collections.abc import Callable

from flask import request

from api.services.waiting import Client

try:  # the real poll(), even where gevent patched select
    from gevent.monkey import get_original

    _poll = get_original("select", "poll")
except ImportError:  # pragma: no cover - gevent is a dependency
    _poll = select.poll

_READ = select.POLLIN | select.POLLPRI | getattr(select, "POLLRDHUP", 0)
_BROKEN = select.POLLERR | select.POLLHUP | select.POLLNVAL


def waiting_client() -> Client:
    """The current request's client: its (proxy-aware) address, and how to tell it has gone."""
    return Client(request.remote_addr or "unknown", gone_check(request.environ.get("gunicorn.socket")))


def gone_check(sock: socket.socket | None) -> Callable[[], bool] | None:
    """``gone()`` for a client socket (None without one: in-process test clients never go)."""
    if sock is None:
        return None
    return lambda: socket_gone(sock)


def socket_gone(sock: socket.socket) -> bool:
    """True when the peer closed or reset the connection. Never blocks: one ``poll`` with no
    timeout (``select`` cannot take descriptors past 1024), then a peek only if readable."""
    try:
        fd = sock.fileno()
    except OSError:
        return True
    if fd < 0:
        return True
    poller = _poll()
    poller.register(fd, _READ)
    ready = poller.poll(0)
    if not ready:
        return False
    if ready[0][1] & _BROKEN:
        return True
    try:
        return sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
    except (BlockingIOError, InterruptedError):
        return False
    except OSError:
        return True
