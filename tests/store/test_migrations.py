"""Migrations are the only way the schema is made; they must match the models, and each says
whether it can run while the servers of the release before keep serving (docs/deployment.md)."""

from __future__ import annotations

import ast
import re

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect

from api.config import migrations_dir
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


MIGRATIONS = sorted((migrations_dir() / "versions").glob("*.py"))
#: ``Live: yes — why`` or ``Live: no — why, and what to do``: one line of the docstring (it may wrap).
LIVE = re.compile(r"^Live: (yes|no) — \S", re.MULTILINE)


def test_there_are_migrations_to_check():
    assert len(MIGRATIONS) >= 9


@pytest.mark.parametrize("path", MIGRATIONS, ids=lambda path: path.name)
def test_every_migration_says_whether_it_can_run_on_a_live_server(path):
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    verdicts = LIVE.findall(docstring)
    assert len(verdicts) == 1, f"{path.name}: its docstring needs one 'Live: yes — …' or 'Live: no — …' line"
    if verdicts == ["no"]:
        assert "stop" in docstring.lower(), f"{path.name}: a migration that cannot run live says what to stop"
