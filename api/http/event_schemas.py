"""The event schemas (``openapi/events.schema.json``) as components of the OpenAPI document.

The committed file is plain JSON Schema (draft 2020-12), so any language's validator can
read it as it is. The OpenAPI document is 3.0.3, whose schema dialect differs in three
ways; each schema is translated on the way in: ``"type": [T, "null"]`` becomes
``"type": T, "nullable": true`` (and ``"anyOf": [X, {"type": "null"}]`` becomes
``"allOf": [X], "nullable": true``), ``"const": v`` becomes ``"enum": [v]``, and references
to ``#/$defs/X`` become ``#/components/schemas/X``. Each ``$defs`` entry is registered under
its own name (``Event``, ``TilePlayed``, ``AuditLog``…).

Three more components are derived from those definitions rather than written again:
``HandResult`` (a view's ``last_hand``: the ``hand_ended`` event without its ``type``),
``RoundResult`` (a trains view's ``last_round``: ``round_ended`` without its ``type``) and
``RuleOverrides`` (the body's ``rules`` at creation: any options of ``RuleSet`` or
``TrainsRuleSet``, nothing else, not its echo fields ``preset`` and ``players``, within the server's bounds).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from apispec import APISpec

from api.rules.ruleset import LARGEST_OFFERED_HAND, MAX_TARGET, OFFERED_SETS, OPTION_NAMES

EVENTS_SCHEMA = Path(__file__).resolve().parents[2] / "openapi" / "events.schema.json"
_DEFS = "#/$defs/"
_COMPONENTS = "#/components/schemas/"


def load_event_schemas(path: Path = EVENTS_SCHEMA) -> dict[str, dict[str, Any]]:
    """The ``$defs`` of the committed file, by name, as JSON Schema."""
    return json.loads(path.read_text(encoding="utf-8"))["$defs"]


def to_openapi_30(schema: Any) -> Any:
    """One JSON Schema 2020-12 (sub)schema in the OpenAPI 3.0 dialect."""
    if isinstance(schema, list):
        return [to_openapi_30(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    choices = schema.get("anyOf")
    if isinstance(choices, list) and len(choices) == 2 and {"type": "null"} in choices:
        schema = {
            **{k: v for k, v in schema.items() if k != "anyOf"},
            "allOf": [c for c in choices if c != {"type": "null"}],
            "nullable": True,
        }
    for key, value in schema.items():
        if key == "$ref" and isinstance(value, str) and value.startswith(_DEFS):
            out[key] = _COMPONENTS + value[len(_DEFS) :]
        elif key == "type" and isinstance(value, list):
            kinds = [kind for kind in value if kind != "null"]
            if len(kinds) != 1:
                raise ValueError(f"OpenAPI 3.0 has no union type {value!r}")
            out["type"] = kinds[0]
            if "null" in value:
                out["nullable"] = True
        elif key == "const":
            out["enum"] = [value]
        elif key == "mapping" and isinstance(value, dict):
            out[key] = {
                name: _COMPONENTS + target[len(_DEFS) :] if target.startswith(_DEFS) else target
                for name, target in value.items()
            }
        elif key in ("properties", "$defs"):
            out[key] = {name: to_openapi_30(sub) for name, sub in value.items()}
        else:
            out[key] = to_openapi_30(value)
    return out


def derived_schemas(defs: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """``HandResult``, ``RoundResult`` and ``RuleOverrides``, made from ``HandEnded``,
    ``RoundEnded`` and the rule sets."""
    hand_ended = defs["HandEnded"]
    hand_result = {
        "type": "object",
        "description": "How a hand ended: the hand_ended event without its `type`",
        "properties": {k: v for k, v in hand_ended["properties"].items() if k != "type"},
        "required": [k for k in hand_ended["required"] if k != "type"],
    }
    # Every option of a line game's rule set and of a trains game's (each game family takes its
    # own: the others are refused, 422 invalid_rules naming them).
    properties = {**defs["TrainsRuleSet"]["properties"], **defs["RuleSet"]["properties"]}
    # The options alone: the rule set's echo fields (preset, players) are the answer's, asked for
    # beside the overrides; in the overrides they are refused as any unknown option is.
    options = {name: dict(properties[name]) for name in OPTION_NAMES}
    options["target"]["maximum"] = MAX_TARGET
    options["hand_size"]["maximum"] = LARGEST_OFFERED_HAND  # the fewest players sharing the largest set
    options["set"]["enum"] = list(OFFERED_SETS)  # a log may name any set; a client, those offered
    overrides = {
        "type": "object",
        "additionalProperties": False,
        "properties": options,
        "description": "Options to change from the preset's (docs/rules.md lists every option and "
        "preset); `preset` and `players` are asked for beside them, not here. An unknown option, an option "
        "of another game (a line game's on a trains game, or the other way round), or a "
        "combination that cannot be played (partners without 4 players, muggins_calls without "
        "end_count_scoring, a set the server does not offer…), is refused: 422 invalid_rules naming the `field`.",
    }
    round_ended = defs["RoundEnded"]
    round_result = {
        "type": "object",
        "description": "How a trains game's round ended: the round_ended event without its `type`",
        "properties": {k: v for k, v in round_ended["properties"].items() if k != "type"},
        "required": [k for k in round_ended["required"] if k != "type"],
    }
    return {"HandResult": hand_result, "RoundResult": round_result, "RuleOverrides": overrides}


def register_event_schemas(spec: APISpec, path: Path = EVENTS_SCHEMA) -> list[str]:
    """Add every event schema (and the three derived ones) to ``spec`` (an apispec ``APISpec``)
    under components/schemas."""
    defs = load_event_schemas(path)
    names = []
    for name, schema in {**defs, **derived_schemas(defs)}.items():
        spec.components.schema(name, component=to_openapi_30(schema))
        names.append(name)
    return names
