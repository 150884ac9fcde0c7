"""Per-dialect engine settings the store relies on."""

from __future__ import annotations

import pytest
from sqlalchemy.exc import DBAPIError

from api.store import make_engine


def test_sqlite_connections_use_wal_foreign_keys_and_a_busy_timeout(tmp_path):
    engine = make_engine(f"sqlite:///{tmp_path / 'x.db'}")
    try:
        with engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
            assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 5000
    finally:
        engine.dispose()


def test_unsupported_backends_are_refused():
    with pytest.raises(ValueError):
        make_engine("mysql://u:p@localhost/db")


@pytest.mark.postgres
def test_a_readonly_unit_of_work_cannot_write_on_postgresql(store):
    with store.unit_of_work(readonly=True) as uow:
        with pytest.raises(DBAPIError):
            uow.matches.add({"preset": "p", "players": 2, "seed": "s", "seed_commitment": "c"})
