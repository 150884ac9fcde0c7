"""The building blocks every resource's HTTP schemas share: text and number fields as a client
writes them, the bounds of what the store can hold, a tile, ``ALWAYS`` for answer fields.

Each resource keeps its own schemas beside its views (``api/http/matches.py``,
``api/http/ratings.py``…); what more than one of them needs is defined here, once."""

from __future__ import annotations

import re
from typing import Any, Literal, TypedDict

import marshmallow as ma
from marshmallow import fields, validate

from api.http.input_guard import TEXT_PATTERN
from api.http.marshmallow_seams import dumps_as_its_base
from api.http.openapi_shapes import component
from api.services.commands import SEAT_NAME_MAX

# Text without control characters: PostgreSQL text cannot hold NUL (a string with one used
# to reach the database and fail there, 500), and no name, seed or player_ref has a use for
# the others. The same rule as for paths and query strings (api.http.input_guard), so a
# player_ref that can be stored can be looked up; the OpenAPI pattern says so.
TEXT = validate.Regexp(TEXT_PATTERN, error="must not contain control characters")
NAME = [validate.Length(min=1, max=SEAT_NAME_MAX), TEXT]
SEED = [validate.Length(min=1, max=128), TEXT]
PLAYER_REF = [validate.Length(min=1, max=128), TEXT]
MAX_SEQ = 2**31 - 1  # the largest seq the store's INTEGER columns hold (PostgreSQL's int4)
# A long-poll's longest hold (``?wait=``): the server's LONG_POLL_MAX_SECONDS may cut it shorter.
MAX_WAIT_SECONDS = 60


@dumps_as_its_base
class AsciiInteger(fields.Integer):
    """An integer as a client writes one: a JSON integer (or an integral number), or up to 20
    ASCII digits (a query string). Plain ``int()`` also reads '٣' and '６' as digits, ' 1_0 '
    as 10 and truncates 3.7 to 3; none of those is a number this API was sent."""

    def deserialize(self, value: Any, attr: str | None = None, data: Any = None, **kwargs: Any) -> Any:
        if isinstance(value, str) and not _ASCII_INTEGER.fullmatch(value):
            raise self.make_error("invalid", input=value)
        if isinstance(value, float) and not value.is_integer():
            raise self.make_error("invalid", input=value)
        return super().deserialize(value, attr, data, **kwargs)


@dumps_as_its_base
class AsciiFloat(fields.Float):
    """A number as a client writes one: JSON, or ASCII decimal notation (``float()`` also reads
    '٣' and '1_0')."""

    def deserialize(self, value: Any, attr: str | None = None, data: Any = None, **kwargs: Any) -> Any:
        if isinstance(value, str) and not _ASCII_FLOAT.fullmatch(value):
            raise self.make_error("invalid", input=value)
        return super().deserialize(value, attr, data, **kwargs)


_ASCII_INTEGER = re.compile(r"[+-]?[0-9]{1,20}")
_ASCII_FLOAT = re.compile(r"[+-]?(?:[0-9]{1,20}(?:\.[0-9]{0,20})?|\.[0-9]{1,20})(?:[eE][+-]?[0-9]{1,3})?")


def Tile(**kwargs: Any) -> fields.Raw:
    """A tile, [high, low]: the ``Tile`` component of openapi/events.schema.json."""
    return component("Tile", **kwargs)


class PlayerRefPathSchema(ma.Schema):
    player_ref = fields.String(
        required=True,
        validate=PLAYER_REF,
        metadata={"description": "The portal's own id for the player, as given in seats"},
    )


# --- responses ----------------------------------------------------------------------
# Fields declared required=True are in every answer (a generated client need not test for
# them); the others are present only where their description says.
class Always(TypedDict):
    """``**ALWAYS`` spreads into a field's keywords: a TypedDict, so the type checker knows it is
    ``required=True`` and not any keyword of any type."""

    required: Literal[True]


ALWAYS: Always = {"required": True}


def _an_object(value: Any) -> None:
    # A Raw field takes any JSON; resolving a falsy non-object (0, "", []) as "no overrides"
    # would accept a body that its document refuses.
    if not isinstance(value, dict):
        raise ma.ValidationError("must be an object of option overrides")


def RuleOverrides(**kwargs: Any) -> fields.Raw:
    """The ``rules`` a client sends: option overrides on top of the preset (an object whose
    names and values the rules resolve and check; the component ``RuleOverrides`` documents)."""
    metadata = {"description": 'Option overrides on top of the preset, e.g. {"target": 150}'}
    return component("RuleOverrides", load_default=dict, validate=_an_object, metadata=metadata, **kwargs)
