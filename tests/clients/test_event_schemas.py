"""openapi/events.schema.json: one schema per event type, valid for every real log."""

from __future__ import annotations

import json
from dataclasses import fields
from functools import cache

import pytest
from apispec import APISpec
from jsonschema import Draft202012Validator

from api.http.event_schemas import EVENTS_SCHEMA, load_event_schemas, register_event_schemas
from api.rules import EVENT_TYPES
from api.tools.golden import ROW_FIELDS
from tests.api.helpers import create_played, whole_audit

from .support import VECTOR_NAMES, bots, create, golden

DOCUMENT = json.loads(EVENTS_SCHEMA.read_text())
DEFS = DOCUMENT["$defs"]


def validator(name: str) -> Draft202012Validator:
    return Draft202012Validator({"$ref": f"#/$defs/{name}", "$defs": DEFS})


AUDIT_LOG, VISIBLE_EVENT = validator("AuditLog"), validator("VisibleEvent")


@cache
def branch(union: str, type_name: str) -> Draft202012Validator:
    """The validator of the one branch of ``union`` (a ``oneOf`` with a discriminator) that an
    event of ``type_name`` is, as a validator that follows the discriminator picks it."""
    return Draft202012Validator({"$ref": DEFS[union]["discriminator"]["mapping"][type_name], "$defs": DEFS})


def assert_valid_log(audit: dict) -> None:
    """``audit`` is valid against ``AuditLog``, checked as a discriminator-aware validator does:
    the log without its events, then each event against the ``AuditEvent`` branch its type
    names. The same verdict as the whole ``oneOf`` (each branch holds its own ``type`` const,
    so only the named one can match: ``test_each_union_branch_is_the_one_its_type_names``), in a
    tenth of the time: ``oneOf`` tries every branch on every row."""
    assert_valid(AUDIT_LOG, {**audit, "events": []})
    for index, row in enumerate(audit["events"]):
        assert row.get("type") in DEFS["AuditEvent"]["discriminator"]["mapping"], (index, row.get("type"))
        assert_valid(branch("AuditEvent", row["type"]), row)


def schema_of(event: dict, union: str = "Event") -> dict:
    return DEFS[DEFS[union]["discriminator"]["mapping"][event["type"]].rsplit("/", 1)[1]]


def assert_valid(v: Draft202012Validator, instance) -> None:
    errors = sorted(v.iter_errors(instance), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:5])


def flattened(schema: dict) -> tuple[set[str], set[str]]:
    """A schema's properties and required fields, its ``allOf`` parts included."""
    properties, required = set(schema.get("properties", {})), set(schema.get("required", []))
    for part in schema.get("allOf", []):
        more_properties, more_required = flattened(DEFS[part["$ref"].rsplit("/", 1)[1]])
        properties |= more_properties
        required |= more_required
    return properties, required


def assert_exact_fields(event: dict, union: str = "Event") -> None:
    """Schemas stay open for additive change; the engine's output must still be fully described."""
    properties, required = flattened(schema_of(event, union))
    assert set(event) <= properties, f"{event['type']} has undocumented fields: {set(event) - properties}"
    assert required <= set(event), f"{event['type']} lacks {required - set(event)}"


def test_the_schema_file_is_valid_json_schema_2020_12():
    Draft202012Validator.check_schema(DOCUMENT)


def test_each_union_branch_is_the_one_its_type_names():
    """What makes assert_valid_log's shortcut the same verdict as the ``oneOf``: every branch of
    every union is the one its discriminator maps its type to, and accepts that type only."""
    for union in ("Event", "AuditEvent", "VisibleEvent"):
        mapping = DEFS[union]["discriminator"]["mapping"]
        assert sorted(b["$ref"] for b in DEFS[union]["oneOf"]) == sorted(mapping.values()), union
        for type_name, ref in mapping.items():
            branch_schema = DEFS[ref.rsplit("/", 1)[1]]
            parts = [branch_schema] + [DEFS[part["$ref"].rsplit("/", 1)[1]] for part in branch_schema.get("allOf", [])]
            consts = [part.get("properties", {}).get("type") for part in parts]
            assert {"type": "string", "const": type_name} in consts, (union, type_name)
    # and the shortcut refuses what the oneOf refuses
    audit, _ = golden(VECTOR_NAMES[0])
    bad = {**audit, "events": [{**audit["events"][1], "seq": "one"}, *audit["events"][2:]]}
    assert list(AUDIT_LOG.iter_errors(bad))
    with pytest.raises(AssertionError):
        assert_valid_log(bad)
    unknown = {**audit, "events": [{**audit["events"][1], "type": "tile_conjured"}]}
    assert list(AUDIT_LOG.iter_errors(unknown))
    with pytest.raises(AssertionError):
        assert_valid_log(unknown)


def test_every_event_type_of_the_engine_has_a_schema_with_exactly_its_fields():
    for union in ("Event", "AuditEvent", "VisibleEvent"):
        assert set(DEFS[union]["discriminator"]["mapping"]) == set(EVENT_TYPES), union
    for type_name, cls in EVENT_TYPES.items():
        schema = schema_of({"type": type_name})
        assert schema["properties"]["type"] == {"type": "string", "const": type_name}
        assert set(schema["properties"]) == {"type"} | {f.name for f in fields(cls)}, type_name
        optional = {"winners"} if type_name == "match_ended" else set()  # the trains games' only
        assert set(schema["required"]) == set(schema["properties"]) - optional, (
            f"{type_name}: every field is always present"
        )


@pytest.mark.parametrize("name", VECTOR_NAMES)
def test_every_row_of_every_golden_log_validates(name):
    audit, _ = golden(name)
    assert_valid_log(audit)
    for row in audit["events"]:
        assert_exact_fields({k: v for k, v in row.items() if k not in ROW_FIELDS})


def test_real_logs_from_the_api_validate_in_full_and_as_each_viewer_sees_them(client):
    for preset, seats, rules in [
        # low targets, a few hands each: the golden logs above are the long ones
        ("all-fives", bots("greedy", "random", "random", "greedy"), {"partners": True, "target": 60}),
        ("dominorules-block", bots("random", "greedy", "random"), {"target": 30}),
        ("muggins", bots("random", "greedy"), {"muggins_calls": True, "auto_draw": True, "target": 60}),
    ]:
        match_id = create_played(client, seats, preset=preset, rules=rules)["id"]
        assert_valid(AUDIT_LOG, client.get(f"/v1/matches/{match_id}/audit?limit=50").get_json())  # a page
        audit = whole_audit(client, match_id)
        assert_valid_log(audit)
        page = client.get(f"/v1/matches/{match_id}/events?limit=1000").get_json()
        assert len(page["events"]) == audit["seq"]
        for event in page["events"]:
            assert_valid(VISIBLE_EVENT, event)  # with its seq, as /events sends it
            assert_exact_fields(event, "VisibleEvent")
    created = create(client, [{"name": "Ann", "type": "remote"}, *bots("greedy")], "standard-draw")
    token = created["seats"][0]["token"]
    for _ in range(6):  # a few moves of a remote seat: its own hand and draws are visible to it
        view = client.get(f"/v1/matches/{created['id']}/view", headers={"Authorization": f"Bearer {token}"}).get_json()
        if not view["legal_actions"]:
            break
        client.post(
            f"/v1/matches/{created['id']}/actions",
            json=view["legal_actions"][-1],
            headers={"Authorization": f"Bearer {token}"},
        )
    page = client.get(f"/v1/matches/{created['id']}/events", headers={"Authorization": f"Bearer {token}"}).get_json()
    assert any("hand" in e for e in page["events"] if e["type"] == "hand_started")
    assert all(("tile" in e) == (e["seat"] == 0) for e in page["events"] if e["type"] == "tile_drawn")
    for event in page["events"]:
        assert_valid(VISIBLE_EVENT, event)
        assert_exact_fields(event, "VisibleEvent")


def test_the_schemas_enter_an_openapi_3_0_document_in_its_dialect():
    spec = APISpec("t", "1", "3.0.3")
    names = register_event_schemas(spec)
    assert set(names) == set(load_event_schemas()) | {"HandResult", "RoundResult", "RuleOverrides"}
    schemas = spec.to_dict()["components"]["schemas"]
    text = json.dumps(schemas)
    assert '"const"' not in text and "#/$defs/" not in text
    refs = set()

    def walk(node):
        if isinstance(node, dict):
            if isinstance(node.get("type"), list):
                raise AssertionError(f"a union type in OpenAPI 3.0: {node}")
            if "$ref" in node:
                refs.add(node["$ref"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schemas)
    assert {r.rsplit("/", 1)[1] for r in refs} <= set(schemas)
    assert schemas["HandEnded"]["properties"]["winner"]["nullable"] is True
    assert schemas["TilePlayed"]["properties"]["type"]["enum"] == ["tile_played"]


def test_the_served_openapi_document_carries_every_event_schema(app):
    components = app.extensions["boneyard.api"].spec.to_dict()["components"]["schemas"]
    missing = sorted(set(DEFS) - set(components))
    assert not missing, f"register_event_schemas(api.spec) is not wired in api/app.py: {missing[:3]}…"
