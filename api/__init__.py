"""Boneyard: a dominoes game server.

``create_app(overrides)`` builds the Flask application (see ``api.app``). The import is
deferred so that ``api.rules`` (the pure engine) and ``api.bots`` load with the
standard library alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from flask import Flask


def create_app(overrides: Mapping[str, Any] | None = None) -> Flask:
    """Build the Flask app; ``overrides`` apply on top of the environment configuration."""
    from api.app import create_app as build

    return build(overrides)


__all__ = ["create_app"]
