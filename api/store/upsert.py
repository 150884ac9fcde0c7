"""``INSERT ... ON CONFLICT``: the one statement both backends spell alike, built per dialect.

SQLAlchemy keeps ``on_conflict_do_update`` / ``on_conflict_do_nothing`` in each dialect's own
``insert``; repositories that upsert ask here for the one their connection speaks.
"""

from __future__ import annotations

from sqlalchemy import Connection
from sqlalchemy.dialects import postgresql, sqlite

_INSERTS = {"postgresql": postgresql.insert, "sqlite": sqlite.insert}


def dialect_insert(connection: Connection):
    """``insert`` of the connection's dialect (it has the ``on_conflict_*`` methods)."""
    try:
        return _INSERTS[connection.dialect.name]
    except KeyError:  # pragma: no cover - make_engine accepts only these two
        raise ValueError(f"no upsert for the {connection.dialect.name!r} dialect") from None
