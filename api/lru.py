"""A bounded, thread-safe least-recently-used map: what a process keeps of matches (their
snapshots, ``api.services.snapshots``), of answers (``api.services.rendered``) and of the
records its reads made (``api.store.repositories.RecordsRead``). Standard library only, so
the store and the services share it."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any


class Lru:
    """A bounded, thread-safe LRU (``get`` answers None when absent; a None value is never kept)."""

    def __init__(self, max_entries: int):
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

    def get_many(self, keys: list[Hashable]) -> list[Any | None]:
        """``get`` of each key, under one lock."""
        with self._lock:
            found = [self._entries.get(key) for key in keys]
            for key, value in zip(keys, found, strict=True):
                if value is not None:
                    self._entries.move_to_end(key)
            return found

    def put(self, key: Hashable, value: Any, keep: Callable[[Any], bool] | None = None) -> None:
        """Keep ``value`` under ``key``, unless ``keep`` says to keep the value kept there instead."""
        if self.max_entries == 0 or value is None:
            return
        with self._lock:
            if keep is not None and (kept := self._entries.get(key)) is not None and keep(kept):
                return
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)

    def put_many(self, pairs: list[tuple[Hashable, Any]]) -> None:
        """``put`` of each pair, under one lock."""
        if self.max_entries == 0:
            return
        with self._lock:
            for key, value in pairs:
                if value is not None:
                    self._entries[key] = value
                    self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)

    def kept(self) -> list[Hashable]:
        """The keys kept, least recently used first."""
        with self._lock:
            return list(self._entries)

    def clear(self) -> None:
        """Forget everything kept."""
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)
