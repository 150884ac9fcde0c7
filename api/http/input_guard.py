"""Untrusted input, checked once at the door: the JSON body, the path, the query string and
the headers the app reads, before any view, schema, service or database sees them.

Why at the door and not field by field: what breaks here breaks *below* the schemas. The
JSON parser recurses (1,000 nested brackets in a 2 KB body exhausted it), Python refuses
to convert integers of more than 4,300 digits, a lone surrogate (``"\\ud800"``) decodes
into a ``str`` that cannot be encoded back to UTF-8 (SQLite and psycopg fail on it),
PostgreSQL text cannot hold NUL, and werkzeug quietly turns bytes that are not UTF-8
into U+FFFD. Each of these used to surface as a 500 somewhere deep; here each is a
4xx problem document with a stable ``code`` before any work is done:

* body (``application/json`` or ``+json``): 400 ``malformed_json`` when it cannot be read,
  ``reason``: ``encoding`` (not UTF-8), ``syntax`` (including NaN and Infinity), ``depth``
  (nested deeper than :data:`MAX_JSON_DEPTH`); 422 ``invalid_request`` with ``errors`` by
  field when it holds what no field accepts: an integer beyond ±(2^53 − 1) (the I-JSON
  range of RFC 7493), a number that is not finite, a key or string with NUL or a lone
  surrogate (422 like any field the schemas refuse: the body itself is valid JSON);
* path and query: 400 ``invalid_text`` (``location`` ``path`` or ``query``, and the
  parameter's ``name`` when it can be told) unless they are UTF-8 without control
  characters; 414 ``uri_too_long`` beyond :data:`MAX_TARGET_LENGTH` characters;
* the headers in :data:`CHECKED_HEADERS` (every one the app reads): unless printable ASCII,
  as all their grammars are, 400 ``invalid_text`` (``location`` ``header``, ``name``), or
  401 ``invalid_token`` / ``invalid_api_key`` for a credential (a value that cannot be a
  credential is a wrong one); 431 ``header_too_large`` beyond :data:`MAX_HEADER_LENGTH`.

It runs on every request, so the common case is a couple of C-level checks: the
structure scan only runs on a body with more than :data:`MAX_JSON_DEPTH` brackets, the
string check only when the body has a ``\\u`` escape (the only way NUL or a surrogate gets
into a JSON string that decoded as UTF-8), the percent-decoding only on a path or query
that is not plain printable ASCII.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any
from urllib.parse import unquote_to_bytes

from flask import Flask, request
from flask.json.provider import DefaultJSONProvider
from flask_smorest import Api
from flask_smorest.spec.plugins import unicodeconverter2paramschema
from werkzeug.routing import UnicodeConverter

from api.http import transport_refusals
from api.http.dumping import json_text
from api.http.errors import ProblemError
from api.http.problem_codes import (
    BEARER_CHALLENGE,
    CATALOGUE,
    HEADER_TOO_LARGE,
    INVALID_API_KEY,
    INVALID_TEXT,
    INVALID_TOKEN,
    URI_TOO_LONG,
)

MAX_JSON_DEPTH = 32
MAX_JSON_INTEGER = 2**53 - 1  # I-JSON (RFC 7493): the integers every client can hold exactly
MAX_TARGET_LENGTH = 2048  # path + query; ours are under 300 (a cursor is ~100)
MAX_HEADER_LENGTH = 1024  # a bearer token is 50, an Idempotency-Key at most 255
CHECKED_HEADERS = (
    "Authorization",
    "If-Match",
    "If-None-Match",
    "Idempotency-Key",
    "Last-Event-ID",
    "X-API-Key",
    "X-Forwarded-For",
)
#: Credentials: a value that cannot be one is answered as a wrong one, 401 with this code.
CREDENTIAL_CODES = {"Authorization": INVALID_TOKEN.code, "X-API-Key": INVALID_API_KEY.code}
#: What a path parameter or query value may hold (the OpenAPI document says so, as a pattern).
TEXT_PATTERN = r"^[^\x00-\x1f\x7f]*$"

_INTEGER_CHARS = len(str(MAX_JSON_INTEGER)) + 1  # with a minus sign
_PRINTABLE_ASCII = re.compile(r"[\x20-\x7e]*")
_HEADER_TEXT = re.compile(r"[\t\x20-\x7e]*")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_NUL_OR_SURROGATE = re.compile("[\x00\ud800-\udfff]")
_STRUCTURE = re.compile(r'["\[\]{}]')


class JSONRefused(ValueError):
    """A request body the JSON policy refuses.

    Without ``errors`` the body cannot be read (400 ``malformed_json``, ``reason`` says why);
    with them it was read but holds values no field of this API accepts (422
    ``invalid_request``; ``errors`` by field, as the schemas report theirs).
    """

    def __init__(self, detail: str, *, reason: str | None = None, errors: dict | None = None):
        super().__init__(detail)
        self.detail = detail
        self.reason = reason
        self.errors = errors


class _Refused:
    """Stands in for a number the policy refuses until the walk names its field."""

    __slots__ = ()


_REFUSED_NUMBER = _Refused()
_NUMBER_MESSAGE = f"Not a number this API accepts: integers within ±{MAX_JSON_INTEGER}, finite numbers."
_TEXT_MESSAGE = "Not text: holds NUL or a lone surrogate."
_KEY_MESSAGE = "A key here holds NUL or a lone surrogate."
_MAX_REPORTED = 20


# --- the JSON body ---------------------------------------------------------------------
def loads(data: str | bytes | bytearray) -> Any:
    """Parse a request body under the policy above (:class:`JSONRefused` when it is refused)."""
    if isinstance(data, (bytes, bytearray)):
        try:
            text = bytes(data).decode("utf-8")  # strict: no encoded surrogates, no stray bytes
        except UnicodeDecodeError:
            raise JSONRefused("The request body is not UTF-8 text.", reason="encoding") from None
    else:
        text = data
    if text.count("[") + text.count("{") > MAX_JSON_DEPTH:
        _check_depth(text)
    refused_numbers = []

    def integer(digits: str) -> int | _Refused:
        if len(digits) > _INTEGER_CHARS or abs(value := int(digits)) > MAX_JSON_INTEGER:
            refused_numbers.append(digits)
            return _REFUSED_NUMBER
        return value

    def number(digits: str) -> float | _Refused:
        if not math.isfinite(value := float(digits)):
            refused_numbers.append(digits)
            return _REFUSED_NUMBER
        return value

    try:
        value = json.loads(text, parse_int=integer, parse_float=number, parse_constant=_not_json)
    except ValueError as error:  # json.JSONDecodeError, or NaN/Infinity
        raise JSONRefused(f"The request body is not valid JSON: {error}.", reason="syntax") from None
    if refused_numbers or "\\u" in text:
        errors = _unacceptable(value)
        if errors:
            raise JSONRefused("The request body holds values no field accepts.", errors=errors)
    return value


def _check_depth(text: str) -> None:
    """Refuse nesting deeper than MAX_JSON_DEPTH without recursing (the parser itself would)."""
    depth, position = 0, 0
    search = _STRUCTURE.search
    while (found := search(text, position)) is not None:
        char, position = found.group(), found.end()
        if char == '"':
            try:
                # skip the string, in C (typeshed does not declare json.decoder.scanstring)
                _, position = json.decoder.scanstring(text, position)  # type: ignore[attr-defined]
            except ValueError as error:
                raise JSONRefused(f"The request body is not valid JSON: {error}.", reason="syntax") from None
        elif char in "[{":
            depth += 1
            if depth > MAX_JSON_DEPTH:
                raise JSONRefused(f"The request body nests deeper than {MAX_JSON_DEPTH} levels.", reason="depth")
        else:
            depth -= 1


def _not_json(name: str) -> float:
    raise ValueError(f"{name} is not a JSON number")


def _unacceptable(value: Any) -> dict:
    """Where the parsed body holds a refused number, or a key or string that is not text
    (NUL, a lone surrogate), by field as marshmallow reports: ``{"seats": {"0": {"name": [...]}}}``,
    ``_schema`` for the body or an object itself. Iterative, like the depth scan."""
    errors: dict = {}
    reported = 0
    pending: list[tuple[Any, tuple[str, ...]]] = [(value, ())]
    while pending and reported < _MAX_REPORTED:
        node, path = pending.pop()
        message = None
        if node is _REFUSED_NUMBER:
            message = _NUMBER_MESSAGE
        elif isinstance(node, str):
            message = _TEXT_MESSAGE if _NUL_OR_SURROGATE.search(node) else None
        elif isinstance(node, dict):
            for key, item in node.items():
                if _NUL_OR_SURROGATE.search(key):
                    message = _KEY_MESSAGE
                else:
                    pending.append((item, (*path, key)))
            path = (*path, "_schema") if message else path
        elif isinstance(node, list):
            pending.extend((item, (*path, str(index))) for index, item in enumerate(node))
        if message:
            reported += 1
            _report(errors, path or ("_schema",), message)
    return errors


def _report(errors: dict, path: tuple[str, ...], message: str) -> None:
    for step in path[:-1]:
        errors = errors.setdefault(step, {})
    errors.setdefault(path[-1], []).append(message)


class GuardedJSONProvider(DefaultJSONProvider):
    """Flask's JSON with :func:`loads` for everything it reads (``request.get_json``), and
    answers written by orjson where that gives the same text (``dumping.json_text``)."""

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return loads(s)

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        if kwargs == {"separators": (",", ":")}:  # what Flask's response() passes outside debug mode
            text = json_text(obj, sort_keys=self.sort_keys)
            if text is not None and self.ensure_ascii:
                return text
        return super().dumps(obj, **kwargs)


# --- path, query and headers -------------------------------------------------------------
def _text_refused(location: str, name: str | None = None) -> ProblemError:
    where = {"path": "The path", "query": "The query string", "header": f"The {name} header"}[location]
    if location == "query" and name:
        where = f"The query parameter {name!r}"
    wanted = "printable ASCII" if location == "header" else "UTF-8 text without control characters"
    extra: dict[str, Any] = {"name": name} if name else {}
    return INVALID_TEXT.error(f"{where} must be {wanted}.", location=location, **extra)


def _text(data: bytes) -> str | None:
    """``data`` as text, or None unless it is UTF-8 (strict: no encoded surrogates) without controls."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return None if _CONTROL.search(text) else text


def _check_query(raw: str) -> None:
    for pair in raw.encode("latin-1", "replace").split(b"&"):
        key, _, value = pair.partition(b"=")
        name = _text(unquote_to_bytes(key.replace(b"+", b" ")))
        if name is None:
            raise _text_refused("query")
        if _text(unquote_to_bytes(value.replace(b"+", b" "))) is None:
            raise _text_refused("query", name)


def check_request() -> None:
    """``before_request``: refuse what cannot be text, then parse a JSON body under the policy."""
    environ = request.environ
    path, query = environ.get("PATH_INFO", ""), environ.get("QUERY_STRING", "")
    if len(path) + len(query) > MAX_TARGET_LENGTH:
        raise URI_TOO_LONG.error(f"The path and query string are longer than {MAX_TARGET_LENGTH} characters.")
    # WSGI strings carry the raw bytes as latin-1; PATH_INFO is already percent-decoded.
    if not _PRINTABLE_ASCII.fullmatch(path) and _text(path.encode("latin-1", "replace")) is None:
        raise _text_refused("path")
    if query and (not _PRINTABLE_ASCII.fullmatch(query) or "%" in query):
        _check_query(query)
    headers = request.headers
    for name in CHECKED_HEADERS:
        value = headers.get(name)
        if value is None:
            continue
        if len(value) > MAX_HEADER_LENGTH:
            raise HEADER_TOO_LARGE.error(f"The {name} header is longer than {MAX_HEADER_LENGTH} characters.", name=name)
        if not _HEADER_TEXT.fullmatch(value):
            if name in CREDENTIAL_CODES:
                raise CATALOGUE[CREDENTIAL_CODES[name]].error(
                    f"The {name} header must be printable ASCII.",
                    location="header",
                    name=name,
                    headers=BEARER_CHALLENGE if name == "Authorization" else None,
                )
            raise _text_refused("header", name)
    if request.is_json and request.get_data(cache=True):
        request.get_json()  # parsed once under the policy (and cached for the view)


def install(app: Flask) -> None:
    """Wire the policy into the app: its JSON reader and the check before every request."""
    app.json = GuardedJSONProvider(app)
    app.before_request(check_request)


def document(api: Api) -> None:
    """Say in the OpenAPI document what a string path parameter may hold, and what the
    transport (this guard among it) refuses on each operation (before blueprints register)."""
    api.register_converter(UnicodeConverter, _text_parameter)
    transport_refusals.document(api.spec)


def _text_parameter(converter: UnicodeConverter) -> dict:
    return {**unicodeconverter2paramschema(converter), "pattern": TEXT_PATTERN}
