"""/docs in headless Chromium with the network cut off: every request that is not to our own
server is aborted (and recorded), and the page must still render every operation of our
document, under its real Content-Security-Policy, with no request failing.

This is what a portal on a network without internet access sees; the page used to load
Swagger UI from a public CDN and was blank there. The last test serves the files from real
gunicorn: paths sent as they are (no client normalizing them), and the access log's byte count.
"""

from __future__ import annotations

import http.client
from urllib.parse import urlsplit

import pytest
import requests
from playwright.sync_api import Error

from api.http.docs_ui import DIST_DIR, SWAGGER_UI_VERSION
from tests.servers import running_gunicorn

from .conftest import DESKTOP

HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def offline_page(browser, live_server):
    """A page whose every request off ``live_server`` is aborted; what it tried and what failed."""
    # bypass_csp off (unlike the table's tests): the page's own CSP is part of what is tested,
    # so only locators are used below (Playwright's string predicates would need eval)
    context = browser.new_context(viewport=DESKTOP, base_url=live_server)
    context.set_default_timeout(15_000)
    ours = urlsplit(live_server).netloc
    seen: dict[str, list] = {"ours": [], "elsewhere": [], "failed": [], "errors": [], "refused": []}

    def route(route):
        url = route.request.url
        if urlsplit(url).scheme in ("http", "https") and urlsplit(url).netloc == ours:
            seen["ours"].append(urlsplit(url).path)
            route.continue_()
        else:
            seen["elsewhere"].append(url)
            route.abort("internetdisconnected")

    context.route("**/*", route)
    page = context.new_page()
    page.on("requestfailed", lambda request: seen["failed"].append((request.url, request.failure)))
    page.on(
        "response",
        lambda response: seen["refused"].append((response.url, response.status)) if response.status >= 400 else None,
    )
    page.on("pageerror", lambda exc: seen["errors"].append(str(exc)))
    page.on("console", lambda msg: seen["errors"].append(msg.text) if msg.type == "error" else None)
    return context, page, seen


def documented_operations(live_server: str) -> set[tuple[str, str]]:
    document = requests.get(f"{live_server}/v1/openapi.json", timeout=10).json()
    return {
        (method.upper(), path) for path, item in document["paths"].items() for method in item if method in HTTP_METHODS
    }


def rendered_operations(page) -> set[tuple[str, str]]:
    summaries = page.locator(".opblock .opblock-summary")
    methods = summaries.locator(".opblock-summary-method").all_inner_texts()
    paths = summaries.locator(".opblock-summary-path").evaluate_all("nodes => nodes.map(node => node.dataset.path)")
    assert len(methods) == len(paths)
    return set(zip((m.strip().upper() for m in methods), paths))


def test_docs_render_our_document_with_the_network_cut_off(browser, live_server, artifacts):
    context, page, seen = offline_page(browser, live_server)
    try:
        page.goto("/docs")
        create = page.locator(".opblock-post").filter(
            has=page.locator(".opblock-summary-path[data-path='/v1/matches']")
        )
        create.wait_for(state="visible")
        assert create.locator(".opblock-summary-method").inner_text() == "POST"
        assert page.locator(".info .title").inner_text().startswith("Boneyard")
        assert rendered_operations(page) == documented_operations(live_server)

        # "Try it out" reaches this server under the page's CSP (connect-src 'self')
        probe = page.locator(".opblock-get").filter(has=page.locator(".opblock-summary-path[data-path='/livez']"))
        probe.locator(".opblock-summary-control").click()
        probe.locator("button.try-out__btn").click()
        probe.locator("button.execute").click()
        status = probe.locator(".live-responses-table tr.response .response-col_status")
        status.wait_for(state="visible")
        assert status.inner_text().strip() == "200"
        page.screenshot(path=str(artifacts / "docs-offline.png"), full_page=False)
    finally:
        context.close()

    assert seen["elsewhere"] == []  # nothing tried to leave the machine
    assert seen["failed"] == [] and seen["refused"] == [] and seen["errors"] == []
    assert {"/docs", "/docs/init.js", "/v1/openapi.json", "/livez"} <= set(seen["ours"])
    assert {path.rsplit("/", 1)[1] for path in seen["ours"] if path.startswith("/docs/assets/")} >= {
        "swagger-ui-bundle.js",
        "swagger-ui.css",
    }


def test_the_cut_is_real(browser, live_server):
    """The harness above aborts and records what is not our server (a reserved name: nothing resolves)."""
    context, page, seen = offline_page(browser, live_server)
    try:
        with pytest.raises(Error, match="ERR_INTERNET_DISCONNECTED"):
            page.goto("https://cdn.example.invalid/swagger-ui-dist@5/swagger-ui-bundle.js")
    finally:
        context.close()
    assert seen["elsewhere"] == ["https://cdn.example.invalid/swagger-ui-dist@5/swagger-ui-bundle.js"]
    assert seen["ours"] == []


# Sent byte for byte: clients (and Chromium) would remove the dot segments before sending.
RAW_PATHS = {
    f"/docs/assets/{SWAGGER_UI_VERSION}/../../../pyproject.toml": 404,
    f"/docs/assets/{SWAGGER_UI_VERSION}/..%2F..%2Fflask%2Fapp.py": 404,
    f"/docs/assets/{SWAGGER_UI_VERSION}/%2e%2e/__init__.py": 404,
    f"/docs/assets/{SWAGGER_UI_VERSION}/..": 404,
    f"/docs/assets/../{SWAGGER_UI_VERSION}/swagger-ui.css": 404,
    f"/docs/assets/{SWAGGER_UI_VERSION}/": 404,
    f"/docs/assets/{SWAGGER_UI_VERSION}/VERSION": 404,
    f"/docs/assets/{SWAGGER_UI_VERSION}/swagger-ui.css%00": 400,
}


def _status_of_raw_get(base: str, path: str) -> int:
    connection = http.client.HTTPConnection(urlsplit(base).netloc, timeout=10)
    try:
        connection.request("GET", path)
        return connection.getresponse().status
    finally:
        connection.close()


def test_over_gunicorn_the_files_go_out_whole_and_nothing_else_is_reachable(database_url, tmp_path):
    bundle = f"/docs/assets/{SWAGGER_UI_VERSION}/swagger-ui-bundle.js"
    size = (DIST_DIR / "swagger-ui-bundle.js").stat().st_size
    with running_gunicorn(database_url, tmp_path / "server.log", AUTO_MIGRATE="0", LOG_LEVEL="info") as (base, log):
        response = requests.get(base + bundle, timeout=10)
        assert response.status_code == 200
        assert response.content == (DIST_DIR / "swagger-ui-bundle.js").read_bytes()
        assert {path: _status_of_raw_get(base, path) for path in RAW_PATHS} == RAW_PATHS
    # gunicorn sends a file with sendfile(), which it does not count: the log must say the size.
    # Read once gunicorn has stopped (and so written every line): nothing to wait for.
    logged = f'"GET {bundle} HTTP/1.1" 200 {size} '
    assert logged in log.read_text(errors="replace"), log.read_text(errors="replace")[-2000:]
