"""The hottest statements run on the driver's own cursor, compiled once per database.

Why: every request reads a match and its seats, and every action appends; SQLAlchemy's
per-statement path (execution context, compiled-cache lookup, result metadata, row objects)
cost about 45 microseconds a statement on SQLite against 9 for the driver's ``execute`` of
the same SQL (bench/README.md, issue 36): half an action's database time. The statement is
still a SQLAlchemy construct, written once in its repository; only its execution skips the
per-call setup. Values go through the very processors SQLAlchemy applies (the bind and result
processors of each column type's implementation for the dialect, ``dialect_impl``), so the rows read and the values
stored are the same (``tests/store/test_prepared.py`` runs each hot statement both ways, on
SQLite and PostgreSQL). A driver error is raised as SQLAlchemy raises it (``DBAPIError.instance``:
``IntegrityError``, ``OperationalError``...), and a lost connection is invalidated as
SQLAlchemy invalidates it, so every caller's error handling stays as it was.
"""

from __future__ import annotations

import threading
from collections import namedtuple
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.engine import Dialect
from sqlalchemy.exc import DBAPIError, StatementError
from sqlalchemy.sql.expression import Executable

Params = Mapping[str, Any]


class _Plan:
    """One statement compiled for one dialect: its SQL, how its parameters are laid out and
    processed, and (once a cursor has described them) how its result columns are processed."""

    def __init__(self, statement: Any, dialect: Dialect, column_keys: Sequence[str] | None):
        compiled = statement.compile(dialect=dialect, column_keys=list(column_keys) if column_keys else None)
        self.sql = str(compiled)
        self.dialect = dialect
        self.positional: tuple[str, ...] | None = tuple(compiled.positiontup) if compiled.positional else None
        self.bind_processors: dict[str, Callable[[Any], Any]] = {}
        for name, bind in compiled.binds.items():
            processor = bind.type.dialect_impl(dialect).bind_processor(dialect)
            if processor is not None:
                self.bind_processors[name] = processor
        # Names each bind parameter is sent under: SQLAlchemy may rename a bind (e.g. an
        # INSERT's column binds) but keys it by the name it was given.
        self.bind_names = {bind.key: name for name, bind in compiled.binds.items()}
        # Values the statement carries itself (``.values(column=None)``, a dialect's OFFSET 0).
        self.fixed = {name: bind.value for name, bind in compiled.binds.items() if not bind.required}
        selected = getattr(statement, "selected_columns", None)
        self.columns = list(selected) if selected is not None and statement.is_select else []
        self.row_type: Any = namedtuple("Row", list(selected.keys()), rename=True) if self.columns else None  # type: ignore[union-attr]
        self.result_processors: list[Callable[[Any], Any] | None] | None = None
        self._lock = threading.Lock()

    def parameters(self, params: Params) -> Any:
        """The driver's parameters for ``params`` (keyed as the statement's ``bindparam`` names)."""
        values = dict(self.fixed)
        for key, value in params.items():
            values[self.bind_names.get(key, key)] = value
        for name, processor in self.bind_processors.items():
            if name in values:
                values[name] = processor(values[name])
        if self.positional is not None:
            return tuple(values[name] for name in self.positional)
        return values

    def processors(self, description: Sequence[Sequence[Any]]) -> list[Callable[[Any], Any] | None]:
        """Each result column's processor (the driver's type codes are known once it answered)."""
        if self.result_processors is None:
            with self._lock:
                self.result_processors = [
                    column.type.dialect_impl(self.dialect).result_processor(self.dialect, entry[1])
                    for column, entry in zip(self.columns, description, strict=True)
                ]
        return self.result_processors


class Prepared:
    """A statement to run on the driver's cursor of a SQLAlchemy ``Connection``, in its
    transaction. ``column_keys``: the columns an INSERT names (every row gives them all)."""

    def __init__(
        self,
        statement: Executable,
        *,
        column_keys: Sequence[str] | None = None,
        first_row_only: Collection[str] = (),
    ):
        self.statement = statement
        self.column_keys = tuple(column_keys) if column_keys else None
        # A join's columns that repeat the same value on every row (a match beside each of its
        # seats): read from the first row, so not processed again (None) on the others.
        self.first_row_only = frozenset(first_row_only)
        self._plans: dict[tuple[str, str, str], _Plan] = {}

    def _plan(self, conn: Connection) -> _Plan:
        dialect = conn.dialect
        # One plan per database and driver (its SQL and parameter style), whatever the engine.
        key = (dialect.name, dialect.driver, dialect.paramstyle)
        plan = self._plans.get(key)
        if plan is None:
            plan = self._plans[key] = _Plan(self.statement, dialect, self.column_keys)
        return plan

    def sql(self, conn: Connection) -> str:
        """Its SQL as sent on ``conn``'s database (two statements with the same SQL there give
        rows that mean the same)."""
        return self._plan(conn).sql

    def rows(self, conn: Connection, params: Params) -> list[Any]:
        """The rows it selects, as named tuples of processed values (attribute access by key);
        the ``first_row_only`` columns are None after the first row."""
        return self.processed(conn, *self.fetched(conn, params))

    def fetched(self, conn: Connection, params: Params) -> tuple[list[Any], Any]:
        """The rows it selects as the driver gives them, and the cursor's description: for
        :meth:`processed`, which a caller may skip for rows it has seen already."""
        plan = self._plan(conn)
        found, description = _run(conn, plan, lambda cursor: cursor.execute(plan.sql, plan.parameters(params)))
        return found, description

    def processed(self, conn: Connection, found: Sequence[Any], description: Any) -> list[Any]:
        """:meth:`rows` of the driver's ``found`` rows (from :meth:`fetched` on ``conn``'s database)."""
        if not found:
            return []
        plan = self._plan(conn)
        processors = plan.processors(description)
        make = plan.row_type._make
        first = make(value if p is None else p(value) for p, value in zip(processors, found[0], strict=True))
        if len(found) == 1:
            return [first]
        kept = [(i, p) for i, p in enumerate(processors) if plan.columns[i].key not in self.first_row_only]
        return [first] + [make(_later_values(row, kept, len(processors))) for row in found[1:]]

    def execute(self, conn: Connection, params: Params) -> int:
        """Run it once; the rows it changed."""
        plan = self._plan(conn)
        return _run(conn, plan, lambda cursor: cursor.execute(plan.sql, plan.parameters(params)))[0]

    def execute_many(self, conn: Connection, many: Sequence[Params]) -> None:
        """Run it once per parameter set (``executemany``)."""
        plan = self._plan(conn)
        _run(conn, plan, lambda cursor: cursor.executemany(plan.sql, [plan.parameters(p) for p in many]))


def driver_execute(conn: Connection, sql: str) -> None:
    """Run one fixed statement without parameters (``BEGIN``, ``BEGIN IMMEDIATE``) on the
    driver's own connection, its errors raised as SQLAlchemy raises them."""
    proxied = conn.connection
    try:
        proxied.driver_connection.execute(sql)  # type: ignore[union-attr]
    except conn.dialect.loaded_dbapi.Error as error:
        raise _as_sqlalchemy_raises(conn, sql, error, None) from error


def _later_values(row: Sequence[Any], kept: list[tuple[int, Callable[[Any], Any] | None]], width: int) -> Iterator[Any]:
    """A later row's values: those of the ``kept`` columns processed, None for the rest."""
    values: list[Any] = [None] * width
    for i, processor in kept:
        value = row[i]
        values[i] = value if processor is None else processor(value)
    return iter(values)


def _run(conn: Connection, plan: _Plan, call: Callable[[Any], Any]) -> Any:
    """``call(cursor)`` on a fresh driver cursor: (rows, description) for a SELECT, else
    (rowcount, None); driver errors raised and connections invalidated as SQLAlchemy does."""
    proxied = conn.connection
    cursor = proxied.cursor()
    try:
        call(cursor)
        if plan.columns:
            return cursor.fetchall(), cursor.description
        return cursor.rowcount, None
    except plan.dialect.loaded_dbapi.Error as error:
        raise _as_sqlalchemy_raises(conn, plan.sql, error, cursor) from error
    finally:
        cursor.close()


def _as_sqlalchemy_raises(conn: Connection, sql: str, error: Any, cursor: Any) -> StatementError:
    """The driver's ``error`` as SQLAlchemy raises it (``IntegrityError``, ``OperationalError``...),
    the connection invalidated first if the error says it is lost, as SQLAlchemy does."""
    dialect = conn.dialect
    disconnected = dialect.is_disconnect(error, conn.connection.dbapi_connection, cursor)
    if disconnected:
        conn.invalidate(error)
    return DBAPIError.instance(
        sql, None, error, dialect.loaded_dbapi.Error, connection_invalidated=disconnected, dialect=dialect
    )
