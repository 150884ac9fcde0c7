"""Apply alembic migrations from code (app start, ``flask boneyard migrate``, tests).

Migrations are the only way the schema is created.  The command line works
too: ``alembic upgrade head`` from the repository root reads ``DATABASE_URL``.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine

from api.config import migrations_dir


def alembic_config(script_location: str | Path | None = None) -> Config:
    """An alembic ``Config`` pointing at the migration scripts (no ini file)."""
    config = Config()
    config.set_main_option("script_location", str(script_location or migrations_dir()))
    return config


@cache
def head_revision(script_location: str) -> str | None:
    """The newest revision of the scripts at ``script_location``, read once per process (a
    process runs the scripts it started with)."""
    return ScriptDirectory.from_config(alembic_config(script_location)).get_current_head()


def current_revision(connection: Connection) -> str | None:
    """The revision the database on ``connection`` is at (None: never migrated)."""
    return MigrationContext.configure(connection).get_current_revision()


def upgrade(engine: Engine, revision: str = "head", script_location: str | Path | None = None) -> None:
    """Upgrade the database behind ``engine`` to ``revision`` in one transaction.

    A database already at the head is left as it is without running alembic, which would load
    every script to find nothing to do (every app start does this; the tests start hundreds).
    Concurrent callers are safe: PostgreSQL takes an advisory lock in
    ``migrations/env.py``; SQLite's ``BEGIN IMMEDIATE`` serialises them.
    """
    location = str(script_location or migrations_dir())
    with engine.begin() as connection:
        if revision == "head" and current_revision(connection) == head_revision(location):
            return
        config = alembic_config(location)
        config.attributes["connection"] = connection
        command.upgrade(config, revision)


def downgrade(engine: Engine, revision: str = "base", script_location: str | Path | None = None) -> None:
    """Downgrade the database behind ``engine`` to ``revision``."""
    config = alembic_config(script_location)
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, revision)
