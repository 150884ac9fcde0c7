"""Alembic environment for Boneyard.

Two ways in:

* from code (:func:`api.store.migrate.upgrade`): the caller passes an open
  connection in ``config.attributes["connection"]`` and owns the transaction;
* from the command line (``alembic upgrade head``): the URL is
  ``sqlalchemy.url`` if set (``-x``/ini), else ``DATABASE_URL``, else the
  default SQLite file (:mod:`api.config`).

On PostgreSQL a transaction-level advisory lock serialises concurrent
migrators (e.g. several gunicorn workers starting at once).
"""

from __future__ import annotations

from logging.config import fileConfig

from alembic import context
from sqlalchemy import Connection, text

from api.config import database_url_from_environ
from api.store.engine import make_engine
from api.store.tables import metadata

config = context.config

if config.config_file_name is not None and not config.attributes.get("connection"):
    fileConfig(config.config_file_name, disable_existing_loggers=False)

target_metadata = metadata

#: Arbitrary constant: the advisory lock key for "boneyard migrations".
MIGRATION_LOCK_KEY = 0x626F6E65  # "bone"


def _run(connection: Connection) -> None:
    if connection.dialect.name == "postgresql":
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK_KEY})
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        compare_type=True,
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_offline() -> None:
    url = config.get_main_option("sqlalchemy.url") or database_url_from_environ()
    context.configure(url=url, target_metadata=target_metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    url = config.get_main_option("sqlalchemy.url") or database_url_from_environ()
    engine = make_engine(url, pool_size=1)
    try:
        with engine.begin() as connection:
            _run(connection)
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
