"""Answers' parts rendered once and kept per process: seats' views, and log events as a seat sees them.

Why: a client polls its view (``GET /view``) far more often than the match moves, and every
poll redacted the state afresh (the rules' ``view``) and serialised it field by field into the
same bytes; a client paging the log (``GET /events``) read, decoded and redacted the same rows
again and again. Both are pure functions of what never changes once committed:

* a seat's view, of the match's state at a seq and the seat, plus what the match's row says at
  that seq (its chain head and its turn clock's deadline), so a rendering of it is kept under
  ``ViewKey``: (match id, seq, chain head's hash, deadline, seat, the rendering function). The
  seq and the head's hash name the very log the state was folded from: a rolled-back append
  that reached the same seq has another head hash, so its rendering never serves the committed
  one. The rendering function is part of the key, so two callers rendering differently never
  share;
* an event as a seat sees it (the rules' ``redact_event``), of the stored row and the seat:
  kept under ``EventKey``: (match id, seq, seat), with the row's hashes so that a page made of
  kept events is checked to be one chain, ending at the match's head when it reaches it. Rows are
  only ever appended, and only rows read by a read-only transaction (committed) are kept.

The seat is part of every key, so one seat's view or event is never served to another seat or
to a spectator (``None``): the caches can only repeat what the rules' redaction gave that seat.
What is kept must not be mutated by its readers (the HTTP layer keeps bytes; events are handed
out as copies). Each cache is an LRU of at most ``max_entries`` entries, shared by the threads
of one process.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, NamedTuple

from api.lru import Lru

#: Renderings one process keeps by default (a view is 1 to 3 kB of JSON).
DEFAULT_RENDERED_VIEWS = 2048
#: Events as seats see them one process keeps by default (enough for the tails of many logs).
DEFAULT_VISIBLE_EVENTS = 8192


class ViewKey(NamedTuple):
    """What a seat's rendered view is a function of."""

    match_id: str
    seq: int
    head_hash: str
    deadline_at: datetime | None
    seat: int | None
    render: Callable[[dict[str, Any]], Any]


class EventKey(NamedTuple):
    """What an event as a seat sees it is a function of (the row at that seq never changes)."""

    match_id: str
    seq: int
    seat: int | None


class VisibleEvent(NamedTuple):
    """An event as one seat sees it (``{"seq": ..., **redacted}``), and its row's hashes."""

    item: dict[str, Any]
    prev_hash: str
    hash: str


class RenderedCache(Lru):
    """Renderings kept: an LRU of ``max_entries`` (``api.lru``)."""

    def __init__(self, max_entries: int = DEFAULT_RENDERED_VIEWS):
        super().__init__(max_entries)
