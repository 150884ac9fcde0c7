"""Every row of a database as dialect-neutral JSON, and back: the stored half of the upgrade fixture.

The tables are *reflected* from the database (never taken from ``api.store.tables``, which is the
schema at ``head``): a dump written by an older release names the tables and columns of its own
revision, and is loaded into a database migrated to exactly that revision. Each column carries a
type tag (``text``, ``integer``, ``float``, ``boolean``, ``datetime``, ``json``, ``bytes``) so that
values that JSON cannot hold as they are round-trip on SQLite and PostgreSQL alike: a datetime is
ISO 8601 in UTC, bytes are base64, a JSON document is itself.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from alembic.migration import MigrationContext
from sqlalchemy import JSON, Boolean, Connection, DateTime, Engine, Float, Integer, LargeBinary, MetaData, Numeric

#: Bumped when the layout of a dump changes (a loader refuses a layout it does not know).
FORMAT = 1

TAGS: tuple[tuple[type, str], ...] = (
    (JSON, "json"),  # before the others: PostgreSQL's JSONB is a JSON
    (Boolean, "boolean"),
    (DateTime, "datetime"),
    (Integer, "integer"),
    (Float, "float"),
    (Numeric, "float"),
    (LargeBinary, "bytes"),
)


def tag_of(column_type: Any) -> str:
    """The dump's name for a reflected column type (``text`` for anything string-like)."""
    for kind, tag in TAGS:
        if isinstance(column_type, kind):
            return tag
    return "text"


def revision_of(connection: Connection) -> str | None:
    """The alembic revision the database is at (None: not migrated)."""
    return MigrationContext.configure(connection).get_current_revision()


def reflect(connection: Connection) -> MetaData:
    """The database's own tables, as its revision made them (alembic's bookkeeping left out)."""
    metadata = MetaData()
    metadata.reflect(connection)
    if "alembic_version" in metadata.tables:
        metadata.remove(metadata.tables["alembic_version"])
    return metadata


def _encode(tag: str, value: Any) -> Any:
    if value is None:
        return None
    if tag == "datetime":
        aware = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
        return aware.astimezone(UTC).isoformat()
    if tag == "bytes":
        return base64.b64encode(value).decode("ascii")
    return value


def _decode(tag: str, value: Any, dialect: str) -> Any:
    if value is None:
        return None
    if tag == "datetime":
        moment = datetime.fromisoformat(value).astimezone(UTC)
        # SQLite keeps naive UTC text (api.store.tables.UTCDateTime); PostgreSQL a timestamptz.
        return moment.replace(tzinfo=None) if dialect == "sqlite" else moment
    if tag == "bytes":
        return base64.b64decode(value)
    return value


def dump(engine: Engine) -> dict[str, Any]:
    """Every row of every table, with the alembic revision and each column's type tag.

    Rows are in primary-key order, so a dump of the same data is the same text."""
    with engine.connect() as connection:
        metadata = reflect(connection)
        tables: dict[str, Any] = {}
        for table in sorted(metadata.tables.values(), key=lambda t: t.name):
            columns = [[column.name, tag_of(column.type)] for column in table.columns]
            order = list(table.primary_key.columns) or list(table.columns)
            rows = connection.execute(table.select().order_by(*order)).mappings().all()
            tables[table.name] = {
                "columns": columns,  # [name, tag] pairs, in the order of each row's values
                "rows": [[_encode(tag, row[name]) for name, tag in columns] for row in rows],
            }
        return {"format": FORMAT, "revision": revision_of(connection), "tables": tables}


def load(engine: Engine, dumped: dict[str, Any]) -> int:
    """Insert a dump's rows into a database migrated to the dump's revision (and empty);
    answers the number of rows. Tables go in foreign-key order, so PostgreSQL's checks pass."""
    if dumped["format"] != FORMAT:
        raise ValueError(f"a dump of layout {dumped['format']}; this loader reads layout {FORMAT}")
    count = 0
    with engine.begin() as connection:
        revision = revision_of(connection)
        if revision != dumped["revision"]:
            raise ValueError(f"the database is at revision {revision}, the dump at {dumped['revision']}")
        metadata = reflect(connection)
        missing = set(dumped["tables"]) ^ set(metadata.tables)
        if missing:
            raise ValueError(f"tables of the dump and of the database differ: {sorted(missing)}")
        for table in metadata.sorted_tables:
            stored = dumped["tables"][table.name]
            columns = stored["columns"]
            if {name for name, _ in columns} != set(table.columns.keys()):
                raise ValueError(f"columns of {table.name} differ from the database's at {revision}")
            rows = [
                {name: _decode(tag, value, engine.dialect.name) for (name, tag), value in zip(columns, row)}
                for row in stored["rows"]
            ]
            if rows:
                connection.execute(table.insert(), rows)
                count += len(rows)
    return count


def shift_times(dumped: dict[str, Any], by: timedelta) -> dict[str, Any]:
    """The same dump with every datetime column moved by ``by`` (JSON documents are left as they are)."""
    return _map_columns(dumped, "datetime", lambda value: (datetime.fromisoformat(value) + by).isoformat())


def earliest_time(dumped: dict[str, Any]) -> datetime:
    """The earliest datetime stored anywhere in the dump's datetime columns."""
    found: list[datetime] = []
    _map_columns(dumped, "datetime", lambda value: found.append(datetime.fromisoformat(value)) or value)
    return min(found)


def _map_columns(dumped: dict[str, Any], tag: str, change: Callable[[Any], Any]) -> dict[str, Any]:
    tables = {}
    for name, stored in dumped["tables"].items():
        tags = [kind for _, kind in stored["columns"]]
        rows = [
            [change(value) if kind == tag and value is not None else value for kind, value in zip(tags, row)]
            for row in stored["rows"]
        ]
        tables[name] = {"columns": stored["columns"], "rows": rows}
    return {**dumped, "tables": tables}
