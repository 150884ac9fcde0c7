"""The marks that pick what each pass of ``scripts/test`` runs (given in tests/conftest.py).

``database``: what the PostgreSQL pass runs (``-m database``), less what is marked
``serving``; ``processes``: what ``--quick`` leaves out; and the one knob of the long runs'
sizes (tests/long_runs.py).

A test that reaches the test database must carry the ``database`` mark, or ``scripts/test``
would run it on SQLite only; the mark comes from fixture use, so these tests pin that down:
the fixtures that lead to the database mark their tests, others do not, and a test that
reaches the database in a way collection cannot see fails instead of passing on one database.
"""

from __future__ import annotations

import pytest

from tests import long_runs
from tests.conftest import DATABASE_FIXTURES, PROCESS_TESTS, ROOT, SERVING_TESTS


def _marked(request: pytest.FixtureRequest) -> bool:
    return request.node.get_closest_marker("database") is not None


def test_a_test_using_the_client_is_marked_for_the_database_pass(client, request: pytest.FixtureRequest) -> None:
    assert _marked(request)


def test_a_test_using_the_store_is_marked_for_the_database_pass(store, request: pytest.FixtureRequest) -> None:
    assert _marked(request)


def test_a_migration_test_is_marked_for_the_database_pass(
    empty_database_url: str, request: pytest.FixtureRequest
) -> None:
    assert _marked(request)


def test_a_test_without_database_fixtures_is_not_marked(tmp_path, request: pytest.FixtureRequest) -> None:
    assert not _marked(request)


@pytest.mark.postgres
def test_a_test_marked_postgres_is_marked_for_the_database_pass(request: pytest.FixtureRequest) -> None:
    assert _marked(request)


# Every shared fixture that opens the test database: each must lead to a guarded one.
SHARED_DATABASE_FIXTURES = ["engine", "store", "uow_factory", "make_match", "app", "client", "is_postgres"]


@pytest.mark.parametrize("fixture", [*sorted(DATABASE_FIXTURES), *SHARED_DATABASE_FIXTURES])
def test_reaching_the_database_unseen_by_collection_fails(fixture: str, request: pytest.FixtureRequest) -> None:
    """Asked for at run time, where collection cannot see it, a fixture that opens the database
    fails the unmarked test (so a shared fixture that bypassed ``DATABASE_FIXTURES`` fails here)."""
    with pytest.raises(pytest.fail.Exception, match="without the `database` mark"):
        request.getfixturevalue(fixture)


# ``processes``: what ``scripts/test --quick`` leaves out; ``serving``: what the PostgreSQL
# pass leaves out; both by node ID.


@pytest.mark.parametrize("prefix", PROCESS_TESTS + SERVING_TESTS)
def test_every_listed_process_or_serving_test_exists(prefix: str) -> None:
    """A renamed file or test would silently drop out of its list (and slow the quick loop, or
    run twice again)."""
    path, _, name = prefix.partition("::")
    assert (ROOT / path).exists(), path
    if name:
        assert f"def {name}(" in (ROOT / path).read_text(encoding="utf-8"), prefix


def test_one_factor_scales_every_long_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """``BONEYARD_LONG_RUNS`` (read once into ``LONG_RUNS``) multiplies sizes, never below one case."""
    monkeypatch.setattr(long_runs, "LONG_RUNS", 10.0)
    assert long_runs.long_run(6) == 60
    monkeypatch.setattr(long_runs, "LONG_RUNS", 0.01)
    assert long_runs.long_run(6) == 1
