"""The committed OpenAPI document is the one the code produces."""

from __future__ import annotations

import json
import re
from pathlib import Path

from api import create_app
from api.http import spec as spec_module

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


def _schemas_in(node, where: str):
    """Every schema object under ``node`` (a schema), with where it is."""
    if isinstance(node, list):
        for index, item in enumerate(node):
            yield from _schemas_in(item, f"{where}/{index}")
        return
    if not isinstance(node, dict):
        return
    yield where, node
    for key in ("items", "additionalProperties", "not"):
        if isinstance(node.get(key), dict):
            yield from _schemas_in(node[key], f"{where}/{key}")
    for key in ("allOf", "oneOf", "anyOf"):
        yield from _schemas_in(node.get(key, []), f"{where}/{key}")
    for name, sub in node.get("properties", {}).items():
        yield from _schemas_in(sub, f"{where}/properties/{name}")


def _every_schema(spec: dict):
    for name, schema in spec["components"]["schemas"].items():
        yield from _schemas_in(schema, f"#/components/schemas/{name}")
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            if method == "parameters":
                continue
            where = f"{method.upper()} {path}"
            for parameter in operation.get("parameters", []) + item.get("parameters", []):
                if "schema" in parameter:
                    yield from _schemas_in(parameter["schema"], f"{where} parameter {parameter['name']}")
            bodies = [("request", operation.get("requestBody", {}))] + list(operation["responses"].items())
            for status, body in bodies:
                for media, content in body.get("content", {}).items():
                    yield from _schemas_in(content.get("schema", {}), f"{where} {status} {media}")


def test_no_schema_of_the_document_is_free_form_where_the_shape_is_known():
    """Every object names its properties (or types its values), every list its items, and no
    schema is the empty ``{}`` that says "anything": a generated client gets a type for each."""
    spec = json.loads(SPEC.read_text())
    loose = []
    for where, schema in _every_schema(spec):
        if not schema:
            loose.append(f"{where}: {{}}")
        elif schema.get("type") == "object" and not (
            schema.get("properties") or isinstance(schema.get("additionalProperties"), dict)
        ):
            loose.append(f"{where}: an object without properties")
        elif schema.get("type") == "array" and not schema.get("items"):
            loose.append(f"{where}: an array without items")
    assert not loose, "\n".join(loose)


def test_every_reference_resolves_and_every_union_is_chosen_by_its_type():
    spec = json.loads(SPEC.read_text())
    components = spec["components"]["schemas"]
    text = json.dumps(spec)
    for ref in set(re.findall(r'"\$ref": "#/components/schemas/([^"]+)"', text)):
        assert ref in components, ref
    for name, schema in components.items():
        if "oneOf" in schema and "discriminator" not in schema:
            # only a union of different JSON types (a list of messages or an object) needs none,
            # or one of objects each requiring a field none of the others has (a line game's view
            # or rule set, a trains game's: hand_number or round; game or rounds)
            members = [m for m in schema["oneOf"] if "$ref" in m]
            if len(members) < len(schema["oneOf"]):
                continue
            required = [set(components[m["$ref"].rsplit("/", 1)[1]].get("required", ())) for m in members]
            for i, own in enumerate(required):
                others = set().union(*(fields for j, fields in enumerate(required) if j != i))
                assert own - others, f"{name}: no discriminator, and {members[i]} requires nothing of its own"
        elif "oneOf" in schema:
            mapping = schema["discriminator"]["mapping"]
            assert sorted(mapping.values()) == sorted(item["$ref"] for item in schema["oneOf"]), name
            for value, ref in mapping.items():
                member = components[ref.rsplit("/", 1)[1]]
                parts = [member] + [components[p["$ref"].rsplit("/", 1)[1]] for p in member.get("allOf", [])]
                kinds = [p["properties"]["type"]["enum"] for p in parts if "type" in p.get("properties", {})]
                assert [value] in kinds, f"{name}: {value} -> {ref} has another type"


def test_an_app_made_after_the_first_routes_the_same_api_and_serves_the_same_document(database_url, monkeypatch):
    """The document is made once per process (api.http.spec): a later app registers the
    blueprints undocumented and serves the first app's spec, so it must route, validate and
    document exactly as the first does."""
    monkeypatch.setattr(spec_module, "MADE_DOCUMENTS", {})
    config = {"TESTING": True, "DATABASE_URL": database_url}
    first, later = create_app(config), create_app(config)
    try:
        assert first.extensions["boneyard.api"].documented is None
        assert later.extensions["boneyard.api"].documented is first.extensions["boneyard.api"].spec
        committed = json.loads(SPEC.read_text())
        assert first.test_client().get("/v1/openapi.json").get_json() == committed
        assert later.test_client().get("/v1/openapi.json").get_json() == committed
        client = later.test_client()
        seats = [{"name": "Ana", "type": "remote"}, {"name": "Bot", "type": "bot", "level": "random"}]
        created = client.post("/v1/matches", json={"preset": "standard-draw", "seats": seats})
        assert created.status_code == 201 and created.get_json()["status"] == "playing"
        refused = client.post("/v1/matches", json={"preset": "standard-draw", "seats": "two"})
        assert refused.status_code == 422 and refused.get_json()["code"] == "invalid_request"
    finally:
        for app in (first, later):
            app.extensions["boneyard.store"].dispose()
