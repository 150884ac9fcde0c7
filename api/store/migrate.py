"""Apply alembic migrations from code (app start, ``flask boneyard migrate``, tests).

Migrations are the only way the schema is created.  The command line works
too: ``alembic upgrade head`` from the repository root reads ``DATABASE_URL``.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine

from api.config import migrations_dir


def alembic_config(script_location: str | Path | None = None) -> Config:
    """An alembic ``Config`` pointing at the migration scripts (no ini file)."""
    config = Config()
    config.set_main_option("script_location", str(script_location or migrations_dir()))
    return config


def upgrade(engine: Engine, revision: str = "head", script_location: str | Path | None = None) -> None:
    """Upgrade the database behind ``engine`` to ``revision`` in one transaction.

    Concurrent callers are safe: PostgreSQL takes an advisory lock in
    ``migrations/env.py``; SQLite's ``BEGIN IMMEDIATE`` serialises them.
    """
    config = alembic_config(script_location)
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, revision)


def downgrade(engine: Engine, revision: str = "base", script_location: str | Path | None = None) -> None:
    """Downgrade the database behind ``engine`` to ``revision``."""
    config = alembic_config(script_location)
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, revision)
