"""The HTTP shell: health, the OpenAPI document, problem responses for unknown routes."""

from __future__ import annotations


def test_healthz_answers_ok(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.get_json() == {"status": "ok"}


def test_an_unknown_route_is_a_not_found_problem(client):
    response = client.get("/no/such/thing")
    assert response.status_code == 404
    assert response.mimetype == "application/problem+json"
    body = response.get_json(force=True)
    assert body["code"] == "not_found"
    assert body["status"] == 404
    assert body["type"] == "https://boneyard.dev/problems/not_found"
    assert body["title"] and body["detail"]


def test_a_wrong_method_is_a_method_not_allowed_problem_with_allow(client):
    response = client.delete("/healthz")
    assert response.status_code == 405
    assert response.get_json(force=True)["code"] == "method_not_allowed"
    assert "GET" in response.headers["Allow"]


def test_the_openapi_document_is_served_under_v1(client):
    response = client.get("/v1/openapi.json")
    assert response.status_code == 200
    spec = response.get_json()
    assert spec["openapi"] == "3.0.3"
    assert (spec["info"]["title"], spec["info"]["version"]) == ("Boneyard", "1.0.0")
    assert "/healthz" in spec["paths"]


def test_the_docs_page_is_served(client):
    response = client.get("/docs")
    assert response.status_code == 200
    assert b"swagger" in response.data.lower()


def test_cors_allows_any_origin_by_default(client):
    response = client.get("/healthz", headers={"Origin": "https://example.org"})
    assert response.headers["Access-Control-Allow-Origin"] == "*"


def test_healthz_reports_an_unreachable_database_as_503(app, client):
    store = app.extensions["boneyard.store"]

    def broken_ping():
        raise OSError("connection refused")

    store.ping = broken_ping
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.get_json(force=True)["code"] == "database_unavailable"


def test_livez_answers_without_the_database(client):
    response = client.get("/livez")
    assert response.status_code == 200 and response.get_json() == {"status": "ok"}
