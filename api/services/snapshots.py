"""The state of a match at a seq, cached per process and checked against the log.

Folding a long log on every request would make requests slower as matches grow, so
each process keeps a bounded LRU of recent states. An entry is only trusted for the
seq it was built at: a request that finds the log further on folds just the missing
events. Entries are shared between threads; states are never mutated after caching
(the engine's ``apply``/``decide`` copy).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from api.lru import Lru
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
    """Each match's latest snapshot kept, an LRU of ``max_entries``: an older snapshot never
    replaces a newer one."""

    def __init__(self, max_entries: int = 2048):
        self._kept = Lru(max_entries)
        self.max_entries = max_entries

    def get(self, match_id: str) -> Snapshot | None:
        found: Snapshot | None = self._kept.get(match_id)
        return found

    def put(self, match_id: str, snap: Snapshot) -> None:
        self._kept.put(match_id, snap, keep=lambda kept: kept.seq > snap.seq)

    def clear(self) -> None:
        """Forget every snapshot."""
        self._kept.clear()

    def __len__(self) -> int:
        return len(self._kept)


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
    return _extended(state, seq, hand_log, ((row, event_from_dict(without_seq(row))) for row in stored))


def fold_decided(snapshot: Snapshot, events: Iterable[Event]) -> tuple[Snapshot, list[Row]]:
    """Extend a snapshot by events just decided on its state, and their rows (``rows``).

    The events are folded as they are, not read back from their rows: an event reads back
    equal to itself (the rules' property tests replay logs written to JSON and read back), and
    reading back cost an action about as much as deciding."""
    decided = list(events)
    made = rows(decided, snapshot.seq)
    return _extended(snapshot.state.copy(), snapshot.seq, list(snapshot.hand_log), zip(made, decided)), made


def _extended(state: MatchState, seq: int, hand_log: list[Row], folded: Iterable[tuple[Row, Event]]) -> Snapshot:
    """The snapshot after folding each ``(row, event)`` into ``state`` (a copy of its own)."""
    for row, event in folded:
        mutate(state, event)
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
