"""``INSERT ... ON CONFLICT``: the one statement both backends spell alike, built per dialect.

SQLAlchemy keeps ``on_conflict_do_update`` / ``on_conflict_do_nothing`` in each dialect's own
``insert``; repositories that upsert ask here for the one their connection speaks.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import Connection, Table
from sqlalchemy.dialects import postgresql, sqlite

#: An ``insert`` with ``on_conflict_*``: PostgreSQL's or SQLite's (they take the same arguments).
Upsert = Callable[[Table], postgresql.Insert | sqlite.Insert]

_INSERTS: dict[str, Upsert] = {"postgresql": postgresql.insert, "sqlite": sqlite.insert}


def dialect_insert(connection: Connection) -> Upsert:
    """``insert`` of the connection's dialect (it has the ``on_conflict_*`` methods)."""
    try:
        return _INSERTS[connection.dialect.name]
    except KeyError:  # pragma: no cover - make_engine accepts only these two
        raise ValueError(f"no upsert for the {connection.dialect.name!r} dialect") from None
