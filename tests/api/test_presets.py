"""``GET /v1/presets`` serves the rules module's presets and the bots' levels as they are."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient
from jsonschema import Draft202012Validator

from api.bots import BOT_LEVELS, DEFAULT_LEVEL, LEVELS
from api.http.presets import CACHE_CONTROL
from api.rules import DEFAULT_PRESET, PRESETS, resolve_rules

from .helpers import create

SPEC = json.loads((Path(__file__).resolve().parents[2] / "openapi" / "openapi.json").read_text())


def as_json_schema(node: Any) -> Any:
    """An OpenAPI 3.0 schema in JSON Schema terms: ``nullable`` becomes a ``null`` type."""
    if isinstance(node, list):
        return [as_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: as_json_schema(value) for key, value in node.items() if key != "nullable"}
    if node.get("nullable"):
        if "type" in out:
            out["type"] = [out["type"], "null"]
        else:  # allOf: [X], nullable: a nullable reference
            out = {"anyOf": [{"allOf": out.pop("allOf")}, {"type": "null"}], **out}
    return out


def document_validator(component: str) -> Draft202012Validator:
    """Validates an instance against a component of the committed OpenAPI document."""
    schemas = {name: as_json_schema(schema) for name, schema in SPEC["components"]["schemas"].items()}
    return Draft202012Validator({"$ref": f"#/components/schemas/{component}", "components": {"schemas": schemas}})


def presets(client: FlaskClient) -> dict[str, Any]:
    response = client.get("/v1/presets")
    assert response.status_code == 200
    answer: dict[str, Any] = response.get_json()
    return answer


def test_every_preset_is_served_with_exactly_what_resolve_rules_gives_for_each_player_count(client):
    answer = presets(client)
    assert [p["name"] for p in answer["presets"]] == list(PRESETS)
    for served in answer["presets"]:
        preset = PRESETS[served["name"]]
        assert (served["title"], served["description"]) == (preset.title, preset.description)
        assert served["players"] == list(preset.players)
        assert served["rules"] == [resolve_rules(preset.name, {}, n).to_dict() for n in preset.players]
    assert answer["default_preset"] == DEFAULT_PRESET


def test_the_rules_differ_by_player_count_where_the_preset_says_so(client):
    """Why ``rules`` is a list: pagat-draw deals 7/7/6 and plays to 100/61/61."""
    served = {p["name"]: p for p in presets(client)["presets"]}["pagat-draw"]
    assert [(r["players"], r["hand_size"], r["target"]) for r in served["rules"]] == [
        (2, 7, 100),
        (3, 7, 61),
        (4, 6, 61),
    ]
    assert {p["name"]: p["players"] for p in presets(client)["presets"]}["winner-leads"] == [2]


@pytest.mark.parametrize("preset, seats", [("pagat-draw", 3), ("muggins", 4), ("winner-leads", 2)])
def test_a_match_created_with_a_preset_plays_the_rules_served_for_its_player_count(client, preset, seats):
    served = {p["name"]: p for p in presets(client)["presets"]}[preset]
    created = create(client, [{"name": f"P{i}", "type": "remote"} for i in range(seats)], preset=preset)
    assert created["rules"] == served["rules"][served["players"].index(seats)]


def test_partner_rules_are_what_a_four_player_partnership_plays_and_null_without_four_players(client):
    served = {p["name"]: p for p in presets(client)["presets"]}
    assert served["winner-leads"]["partner_rules"] is None
    pagat = served["pagat-draw"]["partner_rules"]
    # pagat.com: four play to 61 alone, to 100 as two partnerships
    assert (pagat["players"], pagat["partners"], pagat["target"]) == (4, True, 100)
    seats = [{"name": f"P{i}", "type": "remote"} for i in range(4)]
    for name in ("pagat-draw", "all-fives", "standard-block"):
        created = create(client, seats, preset=name, rules={"partners": True})
        assert created["rules"] == served[name]["partner_rules"]


def test_the_bot_levels_are_the_bots_own_weakest_first(client):
    answer = presets(client)
    assert [level["name"] for level in answer["bot_levels"]] == list(LEVELS)
    assert answer["bot_levels"] == [
        {"name": level.name, "title": level.title, "description": level.description} for level in BOT_LEVELS
    ]
    assert answer["default_bot_level"] == DEFAULT_LEVEL


def test_every_preset_and_level_has_its_own_title_and_a_one_sentence_description():
    for kind, items in (("preset", PRESETS.values()), ("level", BOT_LEVELS)):
        titles = [item.title for item in items]
        assert len(set(titles)) == len(titles), f"two {kind}s share a title: {titles}"
        for item in items:
            assert item.title and item.title[0].isupper(), item.name
            assert item.description.endswith(".") and item.description.count(". ") == 0, item.name


def test_the_answer_validates_against_the_document_and_its_rules_against_the_event_schema(client):
    answer = presets(client)
    errors = [e.message for e in document_validator("Presets").iter_errors(answer)]
    assert not errors, errors
    rule_set = document_validator("GameRuleSet")
    for served in answer["presets"]:
        for rules in served["rules"]:
            assert not list(rule_set.iter_errors(rules)), (served["name"], rules)
    assert not document_validator("RuleSet").is_valid({**answer["presets"][0]["rules"][0], "game": "chess"})


def test_it_is_cacheable_and_answers_304_while_the_etag_is_current(client):
    first = client.get("/v1/presets")
    tag = first.headers["ETag"]
    assert tag.startswith('"presets:') and first.headers["Cache-Control"] == CACHE_CONTROL == "public, max-age=300"
    assert client.get("/v1/presets").headers["ETag"] == tag  # the same lists: the same name

    unchanged = client.get("/v1/presets", headers={"If-None-Match": f'"other", W/{tag}'})
    assert unchanged.status_code == 304 and unchanged.data == b""
    assert unchanged.headers["ETag"] == tag and unchanged.headers["Cache-Control"] == CACHE_CONTROL

    stale = client.get("/v1/presets", headers={"If-None-Match": '"presets:0000000000000000"'})
    assert stale.status_code == 200 and stale.get_json() == first.get_json()
