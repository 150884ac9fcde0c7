"""The state of a match at a seq, cached per process and checked against the log.

Folding a long log on every request would make requests slower as matches grow, so
each process keeps a bounded LRU of recent states. An entry is only trusted for the
seq it was built at: a request that finds the log further on folds just the missing
events. Entries are shared between threads; states are never mutated after caching
(the engine's ``apply``/``decide`` copy).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from api.rules import ENDED, Event, MatchState, event_from_dict
from api.rules.engine import initial_state, mutate
from api.rules.events import DEAL_TYPES, MatchCreated

#: A stored event as the services pass it around: ``{"seq": n, "type": ..., **fields}``.
Row = dict[str, Any]


@dataclass(frozen=True)
class Snapshot:
    seq: int
    state: MatchState
    hand_log: tuple[Row, ...]  # the current hand's events (full, with seq), for the bots


class SnapshotCache:
    def __init__(self, max_entries: int = 2048):
        self._entries: OrderedDict[str, Snapshot] = OrderedDict()
        self._lock = threading.Lock()
        self.max_entries = max_entries

    def get(self, match_id: str) -> Snapshot | None:
        with self._lock:
            snap = self._entries.get(match_id)
            if snap is not None:
                self._entries.move_to_end(match_id)
            return snap

    def put(self, match_id: str, snap: Snapshot) -> None:
        with self._lock:
            current = self._entries.get(match_id)
            if current is not None and current.seq > snap.seq:
                return
            self._entries[match_id] = snap
            self._entries.move_to_end(match_id)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)

    def __len__(self) -> int:
        return len(self._entries)


def fold(snapshot: Snapshot | None, stored: list[Row]) -> Snapshot:
    """Extend a snapshot (or start one) by stored event dicts carrying their ``seq``."""
    hand_log: list[Row]
    if snapshot is None:
        first, stored = stored[0], stored[1:]
        opening = event_from_dict(without_seq(first))
        assert isinstance(opening, MatchCreated)  # a match's log opens with its creation
        state = initial_state(opening)
        seq, hand_log = first["seq"], []
    else:
        state, seq, hand_log = snapshot.state.copy(), snapshot.seq, list(snapshot.hand_log)
    for row in stored:
        mutate(state, event_from_dict(without_seq(row)))
        if row["type"] in DEAL_TYPES:
            hand_log = []
        hand_log.append(row)
        seq = row["seq"]
    if state.status == ENDED:
        # Nobody moves in an ended match, so its hand log is never read again: drop it.
        # It was about four fifths of a cached match (bench/in_process.py).
        hand_log = []
    return Snapshot(seq, state, tuple(hand_log))


def rows(events: Iterable[Event], after_seq: int) -> list[Row]:
    """Events as stored rows, numbered from ``after_seq + 1``."""
    return [{"seq": after_seq + i, **e.to_dict()} for i, e in enumerate(events, start=1)]


def without_seq(row: Row) -> dict[str, Any]:
    """A row as the engine reads an event: without its ``seq``."""
    return {k: v for k, v in row.items() if k != "seq"}
