"""Answers rendered once and kept per process: a seat's view, keyed by what it is a function of.

Why: a client polls its view (``GET /view``) far more often than the match moves, and every
poll redacted the state afresh (the rules' ``view``) and serialised it field by field into the
same bytes. A seat's view is a pure function of the match's state at a seq and the seat, plus
what the match's row says at that seq (its chain head and its turn clock's deadline), so a
rendering of it may be kept under exactly those:

    (match id, seq, chain head's hash, deadline, seat, the rendering function)

* the seq and the chain head's hash name the very log the state was folded from: a rolled-back
  append that reached the same seq has another head hash, so its rendering is never served for
  the committed one (and a rendering made before a commit can only serve that commit);
* the seat is part of the key, so one seat's view is never served to another seat or to a
  spectator (``None``): the cache can only repeat what the rules' redaction gave that seat;
* the rendering function is part of the key, so two callers rendering differently never share.

What is kept must not be mutated by its readers (the HTTP layer keeps bytes). The cache is an
LRU of at most ``max_entries`` renderings, shared by the threads of one process.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from datetime import datetime
from typing import Any, NamedTuple

#: Renderings one process keeps by default: a few kB each (a view of 1 to 3 kB).
DEFAULT_RENDERED_VIEWS = 4096


class ViewKey(NamedTuple):
    """What a seat's rendered view is a function of."""

    match_id: str
    seq: int
    head_hash: str
    deadline_at: datetime | None
    seat: int | None
    render: Callable[[dict[str, Any]], Any]


class RenderedCache:
    """A bounded, thread-safe LRU of renderings (``get`` answers None when absent)."""

    def __init__(self, max_entries: int = DEFAULT_RENDERED_VIEWS):
        if max_entries < 0:
            raise ValueError("max_entries must be at least 0 (0 keeps nothing)")
        self.max_entries = max_entries
        self._entries: OrderedDict[Hashable, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> Any | None:
        with self._lock:
            value = self._entries.get(key)
            if value is not None:
                self._entries.move_to_end(key)
            return value

    def put(self, key: Hashable, value: Any) -> None:
        if self.max_entries == 0 or value is None:
            return
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)

    def kept(self) -> list[Hashable]:
        """The keys kept, least recently used first."""
        with self._lock:
            return list(self._entries)

    def __len__(self) -> int:
        return len(self._entries)
