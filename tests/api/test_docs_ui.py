"""Swagger UI at /docs, served from the installed files (api/http/docs_ui.py).

The browser half (the page renders our document with the network cut off) is
tests/e2e/test_docs_offline.py; here: what the server answers, its caching, that only the
listed files are reachable, and that the rest of the app leaves these paths alone.
"""

from __future__ import annotations

import re

import pytest
from sqlalchemy import func, select

from api.http import docs_ui
from api.store import tables

from .helpers import assert_problem, new_portal

VERSION = docs_ui.SWAGGER_UI_VERSION
ASSET_PATHS = [f"/docs/assets/{VERSION}/{name}" for name in docs_ui.ASSETS]
SEATS = [{"name": "A", "type": "remote"}, {"name": "B", "type": "remote"}]


def test_the_pinned_release_is_the_one_served():
    # flask-swagger-ui's version is the Swagger UI release it ships (pinned in pyproject.toml)
    from importlib.metadata import version

    assert VERSION == version("flask-swagger-ui") == "5.34.0"
    assert all((docs_ui.DIST_DIR / name).is_file() for name in docs_ui.ASSETS)


def test_the_page_loads_only_files_of_this_server_and_our_document(client):
    response = client.get("/docs")
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    page = response.get_data(as_text=True)
    loaded = re.findall(r'(?:src|href|data-spec-url)="([^"]*)"', page)
    assert sorted(loaded) == sorted([*ASSET_PATHS, "/docs/init.js", "/v1/openapi.json", "/v1/openapi.json"])
    assert "//" not in page.replace("<!doctype html>", "")  # no other origin, not even scheme-relative
    assert response.headers["Cache-Control"] == "no-cache"
    csp = response.headers["Content-Security-Policy"]
    assert "default-src 'none'" in csp and "script-src 'self';" in csp and "connect-src 'self'" in csp
    assert client.get("/docs/").get_data(as_text=True) == page


def test_the_start_up_script_names_no_other_origin(client):
    response = client.get("/docs/init.js")
    assert response.status_code == 200
    assert response.mimetype == "text/javascript"
    assert "SwaggerUIBundle(" in response.get_data(as_text=True)
    assert "validatorUrl: null" in response.get_data(as_text=True)


def test_flask_smorest_no_longer_serves_its_own_swagger_page(app):
    rules = {rule.rule: rule.endpoint for rule in app.url_map.iter_rules()}
    assert rules["/docs"] == "docs_ui.page"
    assert not any(endpoint.startswith("api-docs.") and "swagger" in endpoint for endpoint in rules.values())


def test_the_docs_are_not_in_the_api_document(client):
    assert not [path for path in client.get("/v1/openapi.json").get_json()["paths"] if path.startswith("/docs")]


@pytest.mark.parametrize("name", list(docs_ui.ASSETS))
def test_each_asset_is_the_release_file_cached_for_a_year(client, name):
    response = client.get(f"/docs/assets/{VERSION}/{name}")
    assert response.status_code == 200
    assert response.data == (docs_ui.DIST_DIR / name).read_bytes()
    assert response.mimetype == docs_ui.ASSETS[name]
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    cache = response.cache_control
    assert (cache.public, cache.immutable, cache.max_age) == (True, True, 365 * 24 * 3600)
    again = client.get(f"/docs/assets/{VERSION}/{name}", headers={"If-None-Match": response.headers["ETag"]})
    assert again.status_code == 304 and again.data == b""


@pytest.mark.parametrize(
    "path",
    [
        "/docs/assets",
        "/docs/assets/",
        f"/docs/assets/{VERSION}",
        f"/docs/assets/{VERSION}/",  # no listing
        "/docs/assets/5.0.0/swagger-ui.css",  # another release: not what is installed
        f"/docs/assets/{VERSION}/VERSION",
        f"/docs/assets/{VERSION}/LICENSE",  # in the folder, not listed
        f"/docs/assets/{VERSION}/swagger-ui.js",
        f"/docs/assets/{VERSION}/oauth2-redirect.html",
        f"/docs/assets/{VERSION}/..",
        f"/docs/assets/{VERSION}/../__init__.py",  # beside and outside it
        f"/docs/assets/{VERSION}/../../flask/app.py",
        f"/docs/assets/{VERSION}/..%2F__init__.py",
        f"/docs/assets/{VERSION}/%2e%2e%2f%2e%2e%2fflask%2fapp.py",
        f"/docs/assets/{VERSION}/..%5C__init__.py",
        f"/docs/assets/{VERSION}//etc/passwd",
        f"/docs/assets/{VERSION}/%2Fetc%2Fpasswd",
        "/docs/assets/..%2F..%2Fflask_swagger_ui/__init__.py",
        "/docs/assets/../swagger-ui.css",
        "/docs/../pyproject.toml",
        "/docs/init.js/../../pyproject.toml",
    ],
)
def test_nothing_but_the_listed_files_is_reachable(client, path):
    assert_problem(client.get(path), 404, "not_found")


def test_a_nul_in_an_asset_path_is_refused_at_the_door(client):
    body = assert_problem(client.get(f"/docs/assets/{VERSION}/swagger-ui.css%00.py"), 400, "invalid_text")
    assert body["location"] == "path"


def test_the_docs_cost_no_rate_limit_budget_and_need_no_key(make_client, store):
    client = make_client(
        RATE_LIMIT_CREATE="1 per minute",
        RATE_LIMIT_AUDIT="1 per minute",
        RATE_LIMIT_ACTIONS_PER_ADDRESS="1 per minute",
        PUBLIC_MATCHES=False,
    )
    for _ in range(3):  # a person reloading the page
        for path in ["/docs", "/docs/init.js", *ASSET_PATHS, "/v1/openapi.json"]:
            response = client.get(path)
            assert response.status_code == 200, path
            assert not [name for name, _ in response.headers if name.lower().startswith(("x-ratelimit", "retry-after"))]
    with store.engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(tables.rate_limit_counters)).scalar_one() == 0
    # the one creation the budget allows is still there (this server creates for portals only)
    assert client.post("/v1/matches", json={"seats": SEATS}).status_code == 401
    key = new_portal(client.application, "docs-reader", create_limit="1 per minute")
    assert client.post("/v1/matches", json={"seats": SEATS}, headers={"X-API-Key": key}).status_code == 201
