"""Migrations are the only way the schema is made; they must match the models."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect

from api.store import make_engine, tables
from api.store.migrate import alembic_config, downgrade, upgrade


def test_upgrade_head_on_an_empty_database_matches_the_models(empty_database_url):
    engine = make_engine(empty_database_url)
    try:
        assert not set(inspect(engine).get_table_names()) & {"matches", "seats", "events"}
        upgrade(engine)
        with engine.connect() as conn:
            context = MigrationContext.configure(conn, opts={"compare_type": True})
            assert compare_metadata(context, tables.metadata) == []
            head = ScriptDirectory.from_config(alembic_config()).get_current_head()
            assert context.get_current_revision() == head
    finally:
        engine.dispose()


def test_upgrade_is_idempotent_and_downgrade_removes_everything(empty_database_url):
    engine = make_engine(empty_database_url)
    try:
        upgrade(engine)
        upgrade(engine)
        downgrade(engine, "base")
        assert set(inspect(engine).get_table_names()) <= {"alembic_version"}
        upgrade(engine)
        assert {"matches", "seats", "events"} <= set(inspect(engine).get_table_names())
    finally:
        engine.dispose()
