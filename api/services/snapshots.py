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
from dataclasses import dataclass

from api.rules import MatchState, event_from_dict
from api.rules.engine import initial_state, mutate
from api.rules.state import ENDED


@dataclass(frozen=True)
class Snapshot:
    seq: int
    state: MatchState
    hand_log: tuple[dict, ...]  # the current hand's events (full, with seq), for the bots


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


def fold(snapshot: Snapshot | None, rows: list[dict]) -> Snapshot:
    """Extend a snapshot (or start one) by stored event dicts carrying their ``seq``."""
    if snapshot is None:
        first, rows = rows[0], rows[1:]
        state = initial_state(event_from_dict(_without_seq(first)))
        seq, hand_log = first["seq"], []
    else:
        state, seq, hand_log = snapshot.state.copy(), snapshot.seq, list(snapshot.hand_log)
    for row in rows:
        mutate(state, event_from_dict(_without_seq(row)))
        if row["type"] == "hand_started":
            hand_log = []
        hand_log.append(row)
        seq = row["seq"]
    if state.status == ENDED:
        # Nobody moves in an ended match, so its hand log is never read again: drop it.
        # It was about nine tenths of a cached finished match (bench/http_memory.py).
        hand_log = []
    return Snapshot(seq, state, tuple(hand_log))


def _without_seq(row: dict) -> dict:
    return {k: v for k, v in row.items() if k != "seq"}
