"""The event schemas (``openapi/events.schema.json``) as components of the OpenAPI document.

The committed file is plain JSON Schema (draft 2020-12), so any language's validator can
read it as it is. The OpenAPI document is 3.0.3, whose schema dialect differs in three
ways; each schema is translated on the way in: ``"type": [T, "null"]`` becomes
``"type": T, "nullable": true``, ``"const": v`` becomes ``"enum": [v]``, and references
to ``#/$defs/X`` become ``#/components/schemas/X``. Each ``$defs`` entry is registered under
its own name (``Event``, ``TilePlayed``, ``AuditLog``…).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

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
    for key, value in schema.items():
        if key == "$ref" and isinstance(value, str) and value.startswith(_DEFS):
            out[key] = _COMPONENTS + value[len(_DEFS):]
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
            out[key] = {name: _COMPONENTS + target[len(_DEFS):] if target.startswith(_DEFS) else target
                        for name, target in value.items()}
        elif key in ("properties", "$defs"):
            out[key] = {name: to_openapi_30(sub) for name, sub in value.items()}
        else:
            out[key] = to_openapi_30(value)
    return out


def register_event_schemas(spec, path: Path = EVENTS_SCHEMA) -> list[str]:
    """Add every event schema to ``spec`` (an apispec ``APISpec``) under components/schemas."""
    names = []
    for name, schema in load_event_schemas(path).items():
        spec.components.schema(name, component=to_openapi_30(schema))
        names.append(name)
    return names
