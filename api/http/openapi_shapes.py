"""What the marshmallow schemas cannot say by themselves in the OpenAPI document.

Two things, both read from one home each:

* a field whose shape is defined elsewhere (an event union, a legal action, the rule set
  in ``openapi/events.schema.json``) is written as a reference to that component: the
  field is declared with :func:`component` and :func:`field_shape` turns it into a
  ``$ref`` (nullable where the field is);
* a request body that is one of several shapes chosen by ``type`` (an action, a seat) is
  validated by one marshmallow schema per shape; :class:`Union` loads the right one and
  :func:`register_unions` documents the body as ``oneOf`` those shapes with a
  ``discriminator``, so a generated client gets one type per shape.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any, ClassVar

import marshmallow as ma
from apispec import APISpec
from apispec.ext.marshmallow.openapi import OpenAPIConverter
from marshmallow import fields
from marshmallow import types as ma_types

COMPONENTS = "#/components/schemas/"
_SHAPE = "openapi_shape"

# A 422's ``errors`` as webargs and marshmallow write them: by location (``json``,
# ``query``…), then by field, nesting as the request nests (a seat of ``seats`` by its
# index, ``_schema`` for the object as a whole), down to a list of messages.
FIELD_ERRORS: dict[str, dict[str, Any]] = {
    "FieldErrors": {
        "type": "object",
        "description": "Messages by location (`json`, `query`, `headers`), then by field; a nested field "
        "(a seat of `seats` by its index, an option of `rules`) nests the same way, down to "
        "a list of messages. `_schema` holds messages about an object as a whole.",
        "additionalProperties": {"$ref": COMPONENTS + "FieldMessages"},
    },
    "FieldMessages": {
        "description": "A field's messages, or the messages of its own fields",
        "oneOf": [{"type": "array", "items": {"type": "string"}}, {"$ref": COMPONENTS + "FieldErrors"}],
    },
}


def component(name: str, **kwargs: Any) -> fields.Raw:
    """A response field whose shape is the component ``name`` (dumped as it is)."""
    metadata = {**kwargs.pop("metadata", {}), _SHAPE: {"$ref": COMPONENTS + name}}
    return fields.Raw(metadata=metadata, **kwargs)


def shaped(field: fields.Field[Any], shape: Mapping[str, Any]) -> fields.Field[Any]:
    """``field``, documented as the JSON Schema ``shape`` (OpenAPI 3.0 dialect) instead of
    what its type alone says (a string-or-array tile, for one)."""
    field.metadata = {**field.metadata, _SHAPE: dict(shape)}
    return field


def field_shape(self: OpenAPIConverter, field: fields.Field[Any], ret: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """apispec attribute function: a field declared with :func:`component` or :func:`shaped`
    is documented as its shape (its description kept where OpenAPI 3.0 allows a sibling)."""
    shape = field.metadata.get(_SHAPE)
    if shape is None:
        return {}
    description = ret.get("description")
    ret.clear()
    if "$ref" in shape:
        if field.allow_none:  # 3.0 ignores siblings of $ref: a nullable reference is wrapped
            out: dict[str, Any] = {"allOf": [dict(shape)], "nullable": True}
            return {**out, "description": description} if description else out
        return dict(shape)
    out = dict(shape)
    if field.allow_none:
        out["nullable"] = True
    if description and "description" not in out:
        out["description"] = description
    return out


class Union(ma.Schema):
    """A body that is one of ``SHAPES`` (value of ``DISCRIMINATOR`` -> schema), each loaded
    with its own schema: its own fields only, unknown ones refused, errors by field."""

    DISCRIMINATOR = "type"
    SHAPES: ClassVar[Mapping[str, type[ma.Schema]]] = {}

    class Meta:
        unknown = ma.INCLUDE  # every field is checked by the chosen shape's schema

    @ma.pre_load
    def choose(self, data: Any, **kwargs: Any) -> Any:
        if not isinstance(data, Mapping):
            raise ma.ValidationError(["Invalid input type."], "_schema")
        kind = data.get(self.DISCRIMINATOR)
        if not isinstance(kind, str) or kind not in self.SHAPES:
            raise ma.ValidationError([f"Must be one of: {', '.join(self.SHAPES)}."], self.DISCRIMINATOR)
        return {"_shape": _loader(self.SHAPES[kind]).load(data)}

    @ma.post_load
    def unwrap(self, data: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return data["_shape"]

    def load(
        self,
        data: Any,
        *,
        many: bool | None = None,
        partial: bool | ma_types.StrSequenceOrSet | None = None,
        unknown: ma_types.UnknownOption | None = None,
    ) -> Any:
        """What ``choose`` then ``unwrap`` answer, without the union's own pass in between (it
        has no fields of its own: that pass only copied ``_shape`` across, a second load of
        every body). The same answer and the same errors: those of ``choose``, as marshmallow
        raises a pre-load's (by field, with the body as ``data``, after ``handle_error``).
        Anything but a plain load (many, partial, another ``unknown``) takes marshmallow's path."""
        if many or partial or unknown is not None or self.many or self.partial:
            return super().load(data, many=many, partial=partial, unknown=unknown)
        try:
            return self.choose(data)["_shape"]
        except ma.ValidationError as err:
            refused = ma.ValidationError(err.normalized_messages(), data=data, valid_data=None)
            self.handle_error(refused, data, many=False, partial=partial)
            raise refused from None


_loaders: dict[type[ma.Schema], ma.Schema] = {}


def _loader(shape: type[ma.Schema]) -> ma.Schema:
    """One instance of a union's shape for every request: a schema instance deep-copies its
    declared fields when made (about a tenth of an action's time when made per request), and
    loading keeps nothing in it, as flask-smorest's own instances do not."""
    schema = _loaders.get(shape)
    if schema is None:
        schema = _loaders[shape] = shape()
    return schema


def register_shapes(spec: APISpec) -> None:
    """The shapes defined here (a problem's ``errors``) as components of ``spec``."""
    for name, shape in FIELD_ERRORS.items():
        spec.components.schema(name, component=shape)


def register_unions(spec: APISpec, unions: Mapping[str, type[Union]]) -> None:
    """Document each union's component (``name``) as ``oneOf`` its shapes, by discriminator.

    The shapes are registered under their schemas' names (``PlayActionSchema`` ->
    ``PlayAction``); the union's own component, written by flask-smorest from the
    :class:`Union` schema (no fields), is replaced."""
    schemas = spec.components.schemas
    for name, union in unions.items():
        mapping: dict[str, str] = {}
        for value, shape in union.SHAPES.items():
            shape_name = shape.__name__.removesuffix("Schema")
            if shape_name not in schemas:
                spec.components.schema(shape_name, schema=shape)
            mapping[value] = COMPONENTS + shape_name
        summary = inspect.cleandoc(union.__doc__ or "").split("\n\n")[0].replace("\n", " ")
        schemas[name] = {
            "description": summary,
            "oneOf": [{"$ref": ref} for ref in mapping.values()],
            "discriminator": {"propertyName": union.DISCRIMINATOR, "mapping": mapping},
        }


def register_alternatives(spec: APISpec, alternatives: Mapping[str, type[ma.Schema]]) -> None:
    """Document each answer's component (``name``) as ``oneOf`` its ``SHAPES`` (schemas told
    apart by their required fields, with no discriminator of their own: a view is a line
    game's or a trains game's); the component flask-smorest wrote (no fields) is replaced."""
    schemas = spec.components.schemas
    for name, schema in alternatives.items():
        refs = []
        for shape in schema.SHAPES:  # type: ignore[attr-defined]  # the alternatives' own tuple
            shape_name = shape.__name__.removesuffix("Schema")
            if shape_name not in schemas:
                spec.components.schema(shape_name, schema=shape)
            refs.append({"$ref": COMPONENTS + shape_name})
        summary = inspect.cleandoc(schema.__doc__ or "").split("\n\n")[0].replace("\n", " ")
        schemas[name] = {"description": summary, "oneOf": refs}
