"""Events across the store boundary: plain dicts in, plain dicts out.

The rules engine turns its events into ``{"type": "<snake_case>", **fields}``
(``event.to_dict()``) and back (``event_from_dict(d)``).  The store keeps the
type, a schema version and the remaining fields in separate columns:

>>> encoded = encode_event({"type": "tile_played", "seat": 1, "tile": [6, 3]})
>>> encoded
EncodedEvent(type='tile_played', schema_version=1, data={'seat': 1, 'tile': [6, 3]})
>>> decode_event(encoded.type, encoded.schema_version, encoded.data)
{'type': 'tile_played', 'seat': 1, 'tile': [6, 3]}

When one event type's shape changes, register an upcaster from its old
version (:func:`register_upcaster`): new rows of that type are written at the
next version and old rows are upgraded as they are read.  This module never imports ``api.rules``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

#: Version written for every new event (per type, see :func:`register_upcaster`).
CURRENT_SCHEMA_VERSION = 1

TYPE_PATTERN = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$")
MAX_TYPE_LENGTH = 64

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]

# (type, from_version) -> function turning data of from_version into from_version + 1
_UPCASTERS: dict[tuple[str, int], Upcaster] = {}
_LATEST: dict[str, int] = {}


class EventCodecError(ValueError):
    """An event dict cannot be stored (bad type name, non-JSON data, ...)."""


@dataclass(frozen=True, slots=True)
class EncodedEvent:
    """An event split into its stored columns."""

    type: str
    schema_version: int
    data: dict[str, Any]


def register_upcaster(event_type: str, from_version: int) -> Callable[[Upcaster], Upcaster]:
    """Decorator: upgrade stored ``event_type`` data from ``from_version`` by one.

    >>> @register_upcaster("example_event", 1)
    ... def _add_reason(data):
    ...     return {**data, "reason": "unknown"}
    >>> decode_event("example_event", 1, {"x": 1})
    {'type': 'example_event', 'x': 1, 'reason': 'unknown'}
    >>> _ = _UPCASTERS.pop(("example_event", 1)); _ = _LATEST.pop("example_event")
    """

    def decorator(fn: Upcaster) -> Upcaster:
        key = (event_type, from_version)
        if key in _UPCASTERS:
            raise ValueError(f"upcaster already registered for {key}")
        _UPCASTERS[key] = fn
        _LATEST[event_type] = max(_LATEST.get(event_type, CURRENT_SCHEMA_VERSION), from_version + 1)
        return fn

    return decorator


def schema_version_for(event_type: str) -> int:
    """The schema version new events of ``event_type`` are written with."""
    return _LATEST.get(event_type, CURRENT_SCHEMA_VERSION)


def encode_event(event: Mapping[str, Any]) -> EncodedEvent:
    """Split ``{"type": ..., **fields}`` into (type, schema_version, data).

    Raises :class:`EventCodecError` if the type is not a snake_case name or a
    field is not plain JSON (NaN and infinities are refused: PostgreSQL's
    JSONB cannot hold them).
    """
    if not isinstance(event, Mapping):
        raise EventCodecError(f"an event must be a mapping, got {type(event).__name__}")
    event_type = event.get("type")
    if not isinstance(event_type, str) or not TYPE_PATTERN.match(event_type):
        raise EventCodecError(f"event type must be a snake_case name, got {event_type!r}")
    if len(event_type) > MAX_TYPE_LENGTH:
        raise EventCodecError(f"event type longer than {MAX_TYPE_LENGTH} characters")
    data = {key: value for key, value in event.items() if key != "type"}
    try:
        # Round trip so what we return is exactly what the database will hold
        # (tuples become lists, keys must be strings).
        data = json.loads(json.dumps(data, allow_nan=False))
    except (TypeError, ValueError) as exc:
        raise EventCodecError(f"event {event_type!r} is not plain JSON: {exc}") from exc
    return EncodedEvent(event_type, schema_version_for(event_type), data)


def decode_event(event_type: str, schema_version: int, data: Mapping[str, Any]) -> dict[str, Any]:
    """Join stored columns back into ``{"type": ..., **fields}``, upcasting old rows."""
    current = dict(data)
    version = schema_version
    target = schema_version_for(event_type)
    while version < target:
        upcaster = _UPCASTERS.get((event_type, version))
        if upcaster is None:
            raise EventCodecError(f"no upcaster for {event_type!r} version {version}")
        current = upcaster(current)
        version += 1
    if "type" in current:
        raise EventCodecError(f"stored data for {event_type!r} has a 'type' field")
    return {"type": event_type, **current}
