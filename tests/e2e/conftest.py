"""End-to-end fixtures: the real app on a loopback port, and headless Chromium driven by Playwright.

* ``live_server``: the Flask app served by werkzeug in a thread on a free 127.0.0.1 port,
  with its own SQLite file (once per session: the browser tests share one server, and each
  test starts its own match); it lets a match's creator choose the seed. These tests need
  no PostgreSQL, so the PostgreSQL pass of ``scripts/test`` skips them rather than run the
  same browser twice.
* ``browser``: Debian's ``/usr/bin/chromium`` (``scripts/ensure-chromium`` installs it;
  Playwright's own browser downloads are not available here). Missing browser or
  ``playwright`` package: skipped locally, a failure under CI (``CI=true``), so a broken
  install step cannot pass green.
* ``module_database_url``: an empty database migrated to ``head`` for a server that serves a
  whole module's tests (a real gunicorn starts in seconds: started once, not once a test).
  Collection sees function fixtures only, so the tests using it carry ``pytest.mark.database``
  themselves.
* ``artifacts``: screenshots go to ``tests/e2e/artifacts/`` (committed empty but for the
  ``.gitignore`` that keeps every screenshot out of git), to look at after a run.
"""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlalchemy.engine import make_url
from werkzeug.serving import make_server

from tests.conftest import EXTERNAL_URL, _empty_tables
from tests.problem_guard import answered_problems_are_declared  # noqa: F401  (autouse: every answer declared)

CHROMIUM = os.environ.get("BONEYARD_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}


def _unavailable(reason: str) -> None:
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"{reason} (run scripts/ensure-chromium and install .[test])", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Base URL of the real app, served over HTTP on a free loopback port."""
    external = os.environ.get("DATABASE_URL")
    if external and make_url(external).get_backend_name() == "postgresql":
        pytest.skip("browser tests run in the SQLite pass only")
    from api import create_app

    path = tmp_path_factory.mktemp("e2e") / "boneyard.db"
    # ALLOW_CLIENT_SEED: a test may choose its deal (playing.start_short_match's seed)
    config = {"DATABASE_URL": f"sqlite:///{path}", "RATELIMIT_ENABLED": False, "LOG_LEVEL": "WARNING"}
    app = create_app({**config, "ALLOW_CLIENT_SEED": True})
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="e2e-server", daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_port}"
    LIVE_APPS[base] = app
    try:
        yield base
    finally:
        server.shutdown()
        thread.join(timeout=5)
        app.extensions["boneyard.store"].dispose()


@pytest.fixture(scope="module")
def module_database_url(
    _external_engine: Engine | None, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> str:
    """URL of an empty database migrated to ``head``, for this module's server. On PostgreSQL it
    is the worker's database, emptied now: the tests of other modules empty it before each of
    theirs, and none runs beside this module's on the worker. On SQLite, a file of its own."""
    if _external_engine is not None:
        _empty_tables(_external_engine)
        assert EXTERNAL_URL is not None
        return EXTERNAL_URL
    path = tmp_path_factory.mktemp("module-db") / "boneyard.db"
    shutil.copyfile(request.getfixturevalue("_sqlite_template"), path)
    return f"sqlite:///{path}"


#: The app behind each live server's URL (for what a test does as the operator).
LIVE_APPS: dict[str, object] = {}


@pytest.fixture(scope="session")
def live_portal_key(live_server: str) -> str:
    """The key of a portal on the live server, made as its operator would."""
    from tests.api.helpers import new_portal

    return new_portal(LIVE_APPS[live_server], "e2e-portal")


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for the session."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("the playwright package is not installed")
    if not os.access(CHROMIUM, os.X_OK):
        _unavailable(f"no Chromium at {CHROMIUM}")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page_at(browser, live_server):
    """``page_at(size)``: a fresh page (own storage) of that viewport, on the live server."""
    contexts = []

    def open_page(size=DESKTOP, **options):
        # bypass_csp: the page's CSP forbids eval, which Playwright's string predicates use;
        # the page's own code still runs under it (it would fail to load otherwise)
        # reduced motion unless a test asks otherwise: the table then shows new moves at once
        # instead of one by one (tests/e2e/test_web_moves.py opts in to follow them)
        options.setdefault("reduced_motion", "reduce")
        context = browser.new_context(viewport=size, base_url=live_server, bypass_csp=True, **options)
        context.set_default_timeout(10_000)
        contexts.append(context)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
        page.js_errors = errors
        return page

    yield open_page
    for context in contexts:
        context.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)  # committed, with its .gitignore: made only if deleted by hand
    return ARTIFACTS
