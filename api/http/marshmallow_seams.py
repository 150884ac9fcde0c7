"""What the compiled dumpers (:mod:`api.http.dumping`) must ask marshmallow beyond its public API:
does this schema or field do marshmallow's stock thing, so that a plain loop may stand in for it?

marshmallow 4 names these extension points with a leading underscore (a custom field overrides
``_serialize``, a number field ``_format_num``; a schema gathers its decorated hooks in
``_hooks``), so this module alone reads them, against the marshmallow pinned in pyproject.toml.
If an upgrade moves them, tests/api/test_dumping.py (every hot answer byte-identical to
marshmallow's own dump) fails here first.
"""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from marshmallow import fields
from marshmallow.decorators import POST_DUMP, PRE_DUMP


def has_dump_hooks(schema: ma.Schema) -> bool:
    """Whether ``schema`` has a ``@pre_dump`` or ``@post_dump`` method."""
    return bool(schema._hooks[PRE_DUMP] or schema._hooks[POST_DUMP])


def serializes_as(kind: type[Any], base: type[Any]) -> bool:
    """Whether the schema or field class ``kind`` serializes as ``base`` does (not overridden)."""
    return kind._serialize is base._serialize


def formats_numbers_as_base(kind: type[Any]) -> bool:
    """Whether the number field class ``kind`` formats its numbers as ``fields.Number`` does."""
    return kind._format_num is fields.Number._format_num


def checks_attribute(field: fields.Field[Any]) -> bool:
    """Whether ``field`` is skipped when its attribute is missing (every field but ``Method``/``Function``)."""
    return bool(field._CHECK_ATTRIBUTE)
