"""The committed OpenAPI document is the one the code produces."""

from __future__ import annotations

import json
from pathlib import Path

SPEC = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"


def test_the_committed_openapi_document_matches_the_code(app):
    produced = json.loads(json.dumps(app.extensions["boneyard.api"].spec.to_dict()))
    committed = json.loads(SPEC.read_text())
    assert produced == committed, "openapi/openapi.json is stale: run scripts/write-openapi"


def test_the_document_is_served_at_v1_openapi_json(client):
    served = client.get("/v1/openapi.json").get_json()
    assert served == json.loads(SPEC.read_text())


def test_every_operation_has_a_summary_and_documents_its_problems(app):
    spec = app.extensions["boneyard.api"].spec.to_dict()
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            if method == "parameters":
                continue
            assert operation.get("summary"), f"{method} {path} has no summary"
            if path.startswith("/v1/matches/{match_id}"):
                assert "404" in operation["responses"], f"{method} {path} does not document 404"
