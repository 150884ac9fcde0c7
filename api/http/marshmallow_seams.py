"""Which fields and schemas the compiled dumpers (:mod:`api.http.dumping`) may stand in for,
told by marshmallow's public names alone.

A plan writes a field's value itself only for the classes listed here: marshmallow's own,
by exact class, and our subclasses that change how a value is read, not how it is written
(declared with :func:`dumps_as_its_base`). Any other class, a subclass of a listed one
included, is written by marshmallow itself (the field's public ``serialize``), so a field
that writes its own way is never short-cut, and nothing here reads marshmallow's
underscore-named extension points (the project overrides none of them). A schema with a
``@pre_dump`` or ``@post_dump`` hook is dumped by marshmallow too. If an upgrade of the
pinned marshmallow changes what one of these classes writes, tests/api/test_dumping.py
(every hot answer byte-identical to marshmallow's own dump) fails.
"""

from __future__ import annotations

from typing import Any, TypeVar

import marshmallow as ma
from marshmallow import fields
from marshmallow.decorators import POST_DUMP, PRE_DUMP

FieldClass = TypeVar("FieldClass", bound=type[fields.Field[Any]])

# field class -> the marshmallow class whose writing it has: ``fields.Field`` writes a value as
# it is (marshmallow 4 writes a Boolean as given too), a number class through its ``num_type``
_WRITES_AS: dict[type[fields.Field[Any]], type[fields.Field[Any]]] = {
    fields.Raw: fields.Field,
    fields.Boolean: fields.Field,
    fields.String: fields.String,
    fields.Integer: fields.Integer,
    fields.Float: fields.Float,
    fields.Nested: fields.Nested,
    fields.List: fields.List,
}


def writes_as(kind: type[fields.Field[Any]]) -> type[fields.Field[Any]] | None:
    """The marshmallow class whose writing a field of class ``kind`` has (None: only its own
    ``serialize`` knows)."""
    return _WRITES_AS.get(kind)


def dumps_as_its_base(kind: FieldClass) -> FieldClass:
    """Class decorator: a field subclass that changes only how a value is read writes as its
    nearest listed base does."""
    _WRITES_AS[kind] = next(_WRITES_AS[base] for base in kind.__mro__[1:] if base in _WRITES_AS)
    return kind


def has_dump_hooks(schema: ma.Schema) -> bool:
    """Whether ``schema`` has a ``@pre_dump`` or ``@post_dump`` method."""
    hooks = type(schema).resolve_hooks()
    return bool(hooks.get(PRE_DUMP) or hooks.get(POST_DUMP))
