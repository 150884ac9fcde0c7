"""The hot answers dumped by a plan compiled once from their marshmallow schemas.

Why: marshmallow dumps field by field through generic machinery on every request (a schema
instance deep-copies its declared fields, every field looks its value up through accessors
and serializes through two method calls), which cost about as much as the use case itself
on an action (bench/README.md, "Framework floor"). The schemas stay the one home of the
answers' shapes (the OpenAPI document is generated from them); this module reads each one's
fields once and builds a plain function ``dict -> dict`` that gives marshmallow's output, value
for value and key for key in the same order (tests/api/test_dumping.py compares the two on
every kind of answer).

What the plan knows: ``Raw``, ``Boolean``, ``Integer``, ``Float``, ``String``, ``Nested`` and
``List`` of those, read by key from a plain ``dict``. Anything else falls back to marshmallow
itself: a field of another type or a subclass that serializes its own way is serialized by its
own ``serialize``; a schema with dump hooks, ``only`` or ``exclude``, or an object that is not
a ``dict`` is dumped by marshmallow whole.

:func:`json_text` encodes answers with orjson (some ten times faster than the standard
library's encoder on a page of events) when that gives the standard library's very text, and
with the standard library otherwise.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, ClassVar

import marshmallow as ma
import orjson
from marshmallow import fields, utils

from api.http.marshmallow_seams import has_dump_hooks, writes_as

Dump = Callable[[Any], Any]
#: A value's conversion (None: the value as it is).
Convert = Callable[[Any], Any] | None

_MISSING = ma.missing
# Keys a dict also has as attributes: marshmallow falls back to ``getattr`` when such a key is
# absent (and would dump the bound method), so those fields keep marshmallow's own lookup.
_DICT_ATTRIBUTES = frozenset(dir(dict))
_plans: dict[type[ma.Schema], Dump] = {}
_plans_lock = threading.RLock()  # a plan compiles its nested schemas under it
_state = threading.local()


def dumper(schema: type[ma.Schema]) -> Dump:
    """The compiled dump of ``schema`` (compiled on first use, then shared by every request)."""
    plan = _plans.get(schema)
    if plan is None:
        with _plans_lock:
            plan = _plans.get(schema) or _compile(schema())
            _plans[schema] = plan
    return plan


@contextmanager
def marshmallow_only() -> Iterator[None]:
    """Dump through marshmallow alone in this thread while active (the tests' reference)."""
    _state.off = True
    try:
        yield
    finally:
        _state.off = False


def compiled_dumps_on() -> bool:
    return not getattr(_state, "off", False)


class CompiledSchema(ma.Schema):
    """A schema whose ``dump`` runs the plan compiled from its fields (marshmallow's output)."""

    def dump(self, obj: Any, *, many: bool | None = None) -> Any:
        many = self.many if many is None else bool(many)
        if not compiled_dumps_on() or not _plain(self):
            return super().dump(obj, many=many)
        dump = dumper(type(self))
        return [dump(item) for item in obj] if many and obj is not None else dump(obj)


class AlternativesSchema(ma.Schema):
    """An answer that is one of ``SHAPES``, the one ``shape_of`` names for the object (a line
    game's view or a trains game's): dumped by that shape's schema."""

    SHAPES: ClassVar[tuple[type[ma.Schema], ...]] = ()

    @staticmethod
    def shape_of(obj: Any) -> type[ma.Schema]:
        raise NotImplementedError

    def dump(self, obj: Any, *, many: bool | None = None) -> Any:
        many = self.many if many is None else bool(many)
        if many and obj is not None:
            return [self.dump(item) for item in obj]
        shape = self.shape_of(obj)
        return dumper(shape)(obj) if compiled_dumps_on() else shape().dump(obj)


def _plain(schema: ma.Schema) -> bool:
    """Dumps every declared field as declared: no ``only``/``exclude``/``dump_only`` narrowing."""
    return schema.only is None and not schema.exclude and not schema.load_only and not schema.dump_only


def _compile(schema: ma.Schema) -> Dump:
    if isinstance(schema, AlternativesSchema):
        return _alternatives(type(schema))
    own_dump = type(schema).dump in (ma.Schema.dump, CompiledSchema.dump)
    if not own_dump or has_dump_hooks(schema):
        return schema.dump
    steps: list[tuple[str, str, Convert, fields.Field[Any] | None]] = []
    for name, field in schema.dump_fields.items():
        key = field.data_key if field.data_key is not None else name
        attribute = field.attribute if field.attribute is not None else name
        try:
            convert = _converter(field)
        except _OwnWay:
            convert, known = None, False
        else:
            known = True
        simple = (  # a known class reads its attribute (only Method, Function and Constant do not)
            known
            and field.dump_default is _MISSING
            and type(field).serialize is fields.Field.serialize
            and type(field).get_value is fields.Field.get_value
            and "." not in attribute
            and attribute not in _DICT_ATTRIBUTES
        )
        if simple:
            steps.append((key, attribute, convert, None))
        else:  # marshmallow's own field, called as Schema._serialize calls it
            steps.append((key, name, None, field))
    plan = tuple(steps)
    fallback = schema.dump
    accessor = schema.get_attribute

    def dump(obj: Any) -> Any:
        if type(obj) is not dict:
            return fallback(obj)
        out = {}
        for key, attribute, convert, field in plan:
            if field is None:
                value = obj.get(attribute, _MISSING)
                if value is _MISSING:
                    continue
                out[key] = value if convert is None else convert(value)
            else:
                value = field.serialize(attribute, obj, accessor=accessor)
                if value is not _MISSING:
                    out[key] = value
        return out

    return dump


def _alternatives(schema: type[AlternativesSchema]) -> Dump:
    plans = {shape: dumper(shape) for shape in schema.SHAPES}
    choose = schema.shape_of

    def dump(obj: Any) -> Any:
        return plans[choose(obj)](obj)

    return dump


class _OwnWay(Exception):
    """A field that serializes its own way: only its own ``serialize`` knows how."""


def _converter(field: fields.Field[Any]) -> Convert:
    """How the plan converts a value of ``field``, as marshmallow writes it (None: as it is);
    :class:`_OwnWay` when only the field itself knows (``marshmallow_seams.writes_as``)."""
    kind = writes_as(type(field))
    if kind is fields.Field:  # Raw, Boolean (marshmallow 4 dumps it as it is)
        return None
    if kind in (fields.Integer, fields.Float) and isinstance(field, fields.Number):
        if field.as_string:
            raise _OwnWay
        return _number(field.num_type)
    if kind is fields.String:
        return _string
    if kind is fields.Nested and isinstance(field, fields.Nested):
        nested = field.schema
        many = nested.many or field.many
        dump = dumper(type(nested)) if _plain(nested) and not nested.many else _compile(nested)
        if many:
            return lambda value: None if value is None else [dump(item) for item in value]
        return lambda value: None if value is None else dump(value)
    if kind is fields.List and isinstance(field, fields.List):
        inner = _converter(field.inner)
        if inner is None:
            return lambda value: None if value is None else list(value)
        convert = inner
        return lambda value: None if value is None else [convert(item) for item in value]
    raise _OwnWay


def _number(kind: type) -> Callable[[Any], Any]:
    def convert(value: Any) -> Any:
        return value if value is None or type(value) is kind else kind(value)

    return convert


def _string(value: Any) -> Any:
    return value if value is None or type(value) is str else utils.ensure_text_type(value)


# Types orjson would write its own way (datetimes as RFC 3339, dataclasses, subclasses of str,
# int, dict, list): passed to its ``default``, ``_as_before``.
_AS_BEFORE = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_SUBCLASS


_SORTED = orjson.OPT_SORT_KEYS
_UNSORTED = orjson.OPT_NON_STR_KEYS


def _as_before(value: Any) -> Any:
    """A subclass of str (the rules' vocabulary: ``End``, ``Game``... are ``StrEnum``) as the
    standard library writes it: its characters, whatever its ``__str__`` says. Anything else is
    refused, so the standard library (with the caller's ``default``) writes it as before."""
    if isinstance(value, str):
        return str.__str__(value)
    raise TypeError(type(value).__name__)


def json_text(obj: Any, *, sort_keys: bool) -> str | None:
    """``obj`` as compact JSON, exactly as ``json.dumps(obj, separators=(",", ":"),
    sort_keys=sort_keys)`` writes it (ASCII, ``\\u`` escapes), or None where orjson cannot
    promise that: a text that is not all printable ASCII (the standard library escapes the rest), a type it
    writes its own way, an integer beyond 64 bits, a key that is not a string in sorted text. (Floats are
    the one difference left: orjson writes ``1e16`` where the standard library writes
    ``1e+16``, the same number; no hot answer holds such a float.)"""
    try:
        # Keys that are not strings (a score by seat) are written as the standard library writes
        # them ("0"), but sorted another way (as text, not as numbers): so only when unsorted.
        text = orjson.dumps(obj, default=_as_before, option=_AS_BEFORE | (_SORTED if sort_keys else _UNSORTED))
    except orjson.JSONEncodeError:
        return None
    # DEL is ASCII, but the standard library escapes it (\u007f) and orjson does not.
    return text.decode("ascii") if text.isascii() and b"\x7f" not in text else None
