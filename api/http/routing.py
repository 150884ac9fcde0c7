"""An app that asks once whether a view is async (Flask asks on every request)."""

from __future__ import annotations

import weakref
from collections.abc import Callable
from types import FunctionType
from typing import Any

from flask import Flask


class SyncChecksOnce(Flask):
    """A Flask app that asks once per function whether it is a coroutine function.

    Flask's ``ensure_sync`` asks ``inspect.iscoroutinefunction`` of every hook, view and error
    handler on every request (about twenty a request here), and the answer for a function
    never changes. Plain functions found synchronous are remembered (weakly: a function made
    and dropped is forgotten with it); anything else is asked as Flask asks it, every time."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._synchronous: weakref.WeakSet[Callable[..., Any]] = weakref.WeakSet()

    def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        if type(func) is FunctionType:
            if func in self._synchronous:
                return func
            checked = super().ensure_sync(func)
            if checked is func:
                self._synchronous.add(func)
            return checked
        return super().ensure_sync(func)
