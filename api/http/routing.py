"""Routes whose URL builders are made when first used; an app that asks once whether a view is async.

For each route, werkzeug writes and compiles Python code that builds the route's URLs
(``url_for``), twice, when the route is added: four fifths of making an app with our 46
routes. A server makes an app once per worker and builds few URLs; the test suite makes
thousands of apps and builds almost none. So the builders are made the first time a URL is
built from the route (the same code werkzeug makes: ``tests/api/test_routing.py`` builds every
route's URL both ways and compares).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from types import FunctionType
from typing import Any

from flask import Flask
from werkzeug.routing import Rule


class RuleBuildingOnFirstUse(Rule):
    """A werkzeug ``Rule`` whose URL builders are compiled on their first use (werkzeug==3.1.9,
    pinned: ``Rule.compile`` binds ``_compile_builder(False)`` and ``(True)`` as the rule's
    ``_build`` and ``_build_unknown``)."""

    def _compile_builder(self, append_unknown: bool = True) -> Callable[..., tuple[str, str]]:
        compile_now = super()._compile_builder
        attribute = "_build_unknown" if append_unknown else "_build"

        def build_after_compiling(rule: Rule, *args: Any, **kwargs: Any) -> tuple[str, str]:
            built = compile_now(append_unknown).__get__(rule, None)
            setattr(rule, attribute, built)  # later builds call werkzeug's own builder
            return built(*args, **kwargs)

        return build_after_compiling


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
