"""The typed OpenAPI document says what the code does, from one home each: the request
unions accept exactly the fields the rules read, the bot levels and rule options are the
engine's own."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path

import pytest

from api.bots import LEVELS
from api.http.matches import ActionSchema, SeatSpecSchema
from api.rules import ACTION_FIELDS, RuleSet
from api.rules.line_games import LINE_GAMES
from api.rules.ruleset import (
    BOOLEAN_OPTIONS,
    LARGEST_OFFERED_HAND,
    MAX_TARGET,
    OFFERED_SETS,
    OPTION_CHOICES,
    OPTION_NAMES,
    V1_FIVES_SCORING,
)
from api.rules.trains_games import TRAINS_GAMES
from api.rules.vocabulary import BotLevel, End, HandEndReason, ScoredBy, SeatKind, Status, values

SPEC = json.loads((Path(__file__).resolve().parents[2] / "openapi" / "openapi.json").read_text())
SCHEMAS = SPEC["components"]["schemas"]


def test_each_action_shape_has_exactly_the_fields_the_rules_read():
    assert set(ActionSchema.SHAPES) == set(ACTION_FIELDS)
    for kind, shape in ActionSchema.SHAPES.items():
        documented = set(SCHEMAS[shape.__name__.removesuffix("Schema")]["properties"])
        assert documented == ACTION_FIELDS[kind] | {"expected_seq"}, kind


def test_every_legal_action_shape_is_a_sendable_action_shape():
    """A listed item is sent as it is: each LegalX's fields are fields of the action X."""
    for kind, ref in SCHEMAS["LegalAction"]["discriminator"]["mapping"].items():
        listed = SCHEMAS[ref.rsplit("/", 1)[1]]
        action = SCHEMAS[ActionSchema.SHAPES[kind].__name__.removesuffix("Schema")]
        assert set(listed["properties"]) <= set(action["properties"]), kind
        assert set(action.get("required", [])) <= set(listed["required"]), kind


@pytest.mark.parametrize(
    "body, accepted",
    [
        ({"type": "play", "tile": [6, 4], "end": "left", "claim": 10, "scores": 10}, True),
        ({"type": "play", "tile": "6-4"}, True),
        ({"type": "muggins", "scores": 5}, True),
        ({"type": "draw", "until": "playable", "expected_seq": 3}, True),
        ({"type": "knock", "tile": [6, 4]}, False),
        ({"type": "muggins", "claim": 5}, False),
        ({"type": "pass"}, True),
        ({"type": "play", "tile": [12, 4], "train": "mexican"}, True),
        ({"type": "pass", "tile": [6, 4]}, False),
        ({"type": "fold"}, False),
        ({"tile": [6, 4]}, False),
    ],
)
def test_the_action_union_loads_each_shape_and_refuses_fields_of_another(body, accepted):
    errors = ActionSchema().validate(body)
    assert (not errors) is accepted, errors


def test_only_computer_seats_have_a_level():
    assert not SeatSpecSchema().validate({"name": "Bo", "type": "bot", "level": "expert"})
    assert "level" in SeatSpecSchema().validate({"name": "Ann", "type": "remote", "level": "expert"})
    assert set(SCHEMAS["SeatSpec"]["discriminator"]["mapping"]) == {"remote", "bot", "open"}


def test_the_bot_levels_and_rule_options_of_the_document_are_the_engines():
    assert SCHEMAS["BotLevel"]["enum"] == list(LEVELS)
    # The record's fields (not those it derives, such as hand_scoring), and v1's spelling of
    # end_count_scoring, still written (RuleSet.to_dict): the line games' in RuleSet, the trains
    # games' in TrainsRuleSet, each with the echo fields and the clocks.
    line, trains = SCHEMAS["RuleSet"]["properties"], SCHEMAS["TrainsRuleSet"]["properties"]
    assert set(line) == {"preset", "players", *LINE_GAMES.options}
    assert set(trains) == {"preset", "players", *TRAINS_GAMES.options}
    rule_set = {**trains, **line}
    assert set(rule_set) == {f.name for f in fields(RuleSet) if f.init} | {V1_FIVES_SCORING}
    for name, choices in OPTION_CHOICES.items():
        assert rule_set[name]["enum"] == list(choices), name
    for name in BOOLEAN_OPTIONS:
        assert rule_set[name]["type"] == "boolean", name
    overrides = SCHEMAS["RuleOverrides"]
    assert overrides["additionalProperties"] is False and "required" not in overrides
    # The options alone: the echo fields (preset, players) are the answer's RuleSet's, not input.
    assert set(overrides["properties"]) == set(OPTION_NAMES) == set(rule_set) - {"preset", "players"}
    assert overrides["properties"]["target"]["maximum"] == MAX_TARGET
    # A client asks for the offered sets only (each game family its own), and a hand of the
    # largest dealt to two: 91 // 2.
    assert overrides["properties"]["set"]["enum"] == ["double-6", "double-9", "double-12"] == list(OFFERED_SETS)
    assert overrides["properties"]["hand_size"]["maximum"] == 45 == LARGEST_OFFERED_HAND


def test_the_word_lists_of_the_document_are_the_vocabularys():
    """The event schemas are committed JSON and spell each closed set out: they must be
    api.rules.vocabulary's members, in its order (what the code lists reads them from there)."""
    assert SCHEMAS["EndName"]["enum"] == list(values(End))
    assert SCHEMAS["BotLevel"]["enum"] == list(values(BotLevel))
    assert SCHEMAS["HandEnded"]["properties"]["reason"]["enum"] == list(values(HandEndReason))
    assert SCHEMAS["PointsScored"]["properties"]["how"]["enum"] == list(values(ScoredBy))
    assert SCHEMAS["LoggedSeat"]["properties"]["type"]["enum"] == list(values(SeatKind))
    assert SCHEMAS["MatchSummary"]["properties"]["status"]["enum"] == list(values(Status))
    assert SCHEMAS["End"]["properties"]["end"]["enum"] == list(values(End))
