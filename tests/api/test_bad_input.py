"""Every bad input is a documented 4xx problem document, on every operation.

The classes an attacker tries (issue 14): JSON nested far too deep, integers beyond what
any client can hold (and beyond Python's 4,300-digit int conversion), lone surrogates,
NUL and other control characters, digits that are not ASCII ('²'), bytes that are not
UTF-8, and over-long values; sent in the body, the query string, the path and the
headers. Operations are enumerated from the app's own OpenAPI document (as are their
parameters and body fields), so a new operation or field is covered without touching
this file. Each answer must be a 4xx ``application/problem+json`` naming its status and a
``code``, documented for that operation (or in every operation's default response, for
what the input guard refuses before any operation runs); never a 500, never HTML.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass, field
from itertools import pairwise
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from api import create_app
from api.http.input_guard import (
    CHECKED_HEADERS,
    CREDENTIAL_CODES,
    MAX_HEADER_LENGTH,
    MAX_JSON_DEPTH,
    MAX_JSON_INTEGER,
    MAX_TARGET_LENGTH,
)
from tests.long_runs import long_run

from .helpers import PROBLEM, assert_problem, auth, create, new_portal, portal_client, seq_of, tokens_of

# Every bad-input class sent to every field of every operation: request fuzz, for the whole
# suite (both databases), not the quick loop.
pytestmark = pytest.mark.fuzz

WIRE = "latin-1"  # how WSGI carries raw bytes in strings (PATH_INFO, header values)


def wire(data: bytes) -> str:
    return data.decode(WIRE)


def surrogate_bytes(char: str = "\ud800") -> bytes:
    """A lone surrogate as a (lenient) encoder writes it: CESU-style UTF-8, invalid UTF-8."""
    return char.encode("utf-8", "surrogatepass")


# --- the classes ---------------------------------------------------------------------------
# JSON fragments (raw text, bytes) the body policy refuses wherever they stand: a body that
# cannot be read is 400 malformed_json with a reason; one read but holding what no field
# accepts is 422 invalid_request with the field named under ``errors``.
UNREADABLE, UNACCEPTABLE = "malformed_json", "invalid_request"
POLICY_FRAGMENTS: dict[str, tuple[bytes, str]] = {
    "nested 1,000 deep": (b"[" * 1000 + b"]" * 1000, "depth"),
    "nested one level too deep": (b"[" * MAX_JSON_DEPTH + b"{}" + b"]" * MAX_JSON_DEPTH, "depth"),
    "objects nested too deep": (b'{"a":' * (MAX_JSON_DEPTH + 1) + b"1" + b"}" * (MAX_JSON_DEPTH + 1), "depth"),
    "NaN": (b"NaN", "syntax"),
    "-Infinity": (b"-Infinity", "syntax"),
    "bytes that are not UTF-8": (b'"\xff\xfe"', "encoding"),
    "a surrogate encoded in UTF-8 bytes": (b'"' + surrogate_bytes() + b'"', "encoding"),
    "overlong UTF-8 for '/'": (b'"\xc0\xaf"', "encoding"),
    "a 5,000-digit integer": (b"9" * 5000, UNACCEPTABLE),
    "an integer just beyond 2^53-1": (str(MAX_JSON_INTEGER + 1).encode(), UNACCEPTABLE),
    "a negative 30-digit integer": (b"-" + b"9" * 30, UNACCEPTABLE),
    "a float that overflows": (b"1e999", UNACCEPTABLE),
    "a lone high surrogate": (b'"\\ud800"', UNACCEPTABLE),
    "a lone low surrogate inside text": (b'"ab\\udfffcd"', UNACCEPTABLE),
    "a surrogate pair reversed": (b'"\\ude00\\ud83d"', UNACCEPTABLE),
    "NUL": (b'"a\\u0000b"', UNACCEPTABLE),
    "a key with a lone surrogate": (b'{"\\ud800": 1}', UNACCEPTABLE),
    "a key with NUL": (b'{"a\\u0000": 1}', UNACCEPTABLE),
}


def check_policy(op, response, what: str, expected: str, path: tuple = ()) -> None:
    """The policy's answer: 400 malformed_json with ``expected`` as reason, or 422 naming the field."""
    if expected == UNACCEPTABLE:
        body = check(op, response, what, status=422, code=UNACCEPTABLE)
        errors = body["errors"]["json"]
        for step in path:
            assert str(step) in errors, (op.label, what, body)
            errors = errors[str(step)]
    else:
        assert check(op, response, what, status=400, code=UNREADABLE)["reason"] == expected, (op.label, what)


NON_ASCII_DIGITS = ["\u00b2", "\u0663", "\uff16", "\u00b2-1", "6-\u0663"]
CONTROLS = ["\x00", "\x01", "\x1b", "\x7f"]


# --- the operations, from the app's own document ---------------------------------------------
@dataclass
class Operation:
    method: str
    path: str
    spec: dict
    path_params: dict[str, dict] = field(default_factory=dict)
    query_params: dict[str, dict] = field(default_factory=dict)
    header_params: dict[str, dict] = field(default_factory=dict)
    body_schema: dict | None = None
    any_operation: set[int] = field(default_factory=set)

    @property
    def label(self) -> str:
        return f"{self.method.upper()} {self.path}"

    def documented(self, status: int) -> bool:
        return str(status) in self.spec["responses"] or status in self.any_operation


def operations(document: dict) -> list[Operation]:
    # What any operation may answer is written once, in the default response every operation has.
    default = document["components"]["responses"]["DEFAULT_ERROR"]["description"]
    any_operation = {int(status) for status in re.findall(r"\b([45]\d\d) `", default)}
    assert {400, 401, 414, 422, 431} <= any_operation, default
    found = []
    for path, item in document["paths"].items():
        shared = item.get("parameters", [])
        for method, spec in item.items():
            if method == "parameters":
                continue
            op = Operation(method, path, spec, any_operation=any_operation)
            for param in shared + spec.get("parameters", []):
                target = {"path": op.path_params, "query": op.query_params, "header": op.header_params}[param["in"]]
                target[param["name"]] = resolve(document, param.get("schema", {}))
            body = spec.get("requestBody", {}).get("content", {}).get("application/json")
            if body is not None:
                op.body_schema = resolve(document, body["schema"])
            found.append(op)
    return found


def resolve(document: dict, schema: dict) -> dict:
    while "$ref" in schema:
        schema = document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def body_fields(document: dict, schema: dict, prefix: tuple = ()) -> list[tuple[tuple, dict]]:
    """Every field of a request body, nested objects and arrays of objects included, with its schema."""
    fields = []
    for name, prop in resolve(document, schema).get("properties", {}).items():
        prop = resolve(document, prop)
        fields.append((prefix + (name,), prop))
        items = resolve(document, prop.get("items", {}))
        if prop.get("type") == "array" and "properties" in items:
            fields += body_fields(document, items, prefix + (name, 0))
        elif "properties" in prop:
            fields += body_fields(document, prop, prefix + (name,))
    return fields


def is_numeric(schema: dict) -> bool:
    """Integer and number fields, and untyped ones (a tile is a pair or a '6-3' string)."""
    return schema.get("type") in (None, "integer", "number")


# --- a world to aim at ----------------------------------------------------------------------
@pytest.fixture
def guard_app(database_url):
    # Streams and long-polls answer at once: the requests here are about their input.
    app = create_app(
        {
            "TESTING": True,
            "DATABASE_URL": database_url,
            "RATELIMIT_ENABLED": False,
            "STREAM_MAX_SECONDS": 0,
            "LONG_POLL_MAX_SECONDS": 0.05,
        }
    )
    yield app
    app.extensions["boneyard.store"].dispose()


@dataclass
class World:
    client: object
    document: dict
    match_id: str
    token: str

    def path_value(self, name: str, schema: dict) -> str:
        known = {"match_id": self.match_id, "seat": "2", "player_ref": "pat"}
        return known.get(name, "1" if schema.get("type") == "integer" else "x")

    def url(self, op: Operation, **raw: str) -> str:
        """The operation's path with every parameter filled (percent-encoded)."""
        path = op.path
        for name, schema in op.path_params.items():
            value = raw.get(name, self.path_value(name, schema))
            path = path.replace("{" + name + "}", quote(value, safe=""))
        return path

    def headers(self, op: Operation) -> dict[str, str]:
        seated = any("seatToken" in option for option in op.spec.get("security", []))
        return auth(self.token) if seated else {}

    def call(self, op: Operation, *, path: str | None = None, query: str = "", headers=None, body=None, environ=None):
        url = (path or self.url(op)) + (("?" + query) if query else "")
        extra = {"data": body, "content_type": "application/json"} if body is not None else {}
        return self.client.open(
            url,
            method=op.method.upper(),
            headers={**self.headers(op), **(headers or {})},
            environ_overrides=environ or {},
            **extra,
        )


#: A valid body per operation that has one (fields missing here are still fuzzed, from the document).
BASE_BODIES = {
    "POST /v1/matches": {
        "preset": "standard-draw",
        "seats": [{"name": "Ana", "type": "remote"}, {"name": "Ben", "type": "remote"}],
    },
    "POST /v1/matches/{match_id}/actions": {"type": "draw"},
    "POST /v1/matches/{match_id}/seats/{seat}/claim": {"name": "Cy"},
}


@pytest.fixture
def world(guard_app) -> World:
    # a portal's client: every operation, those that need a portal's key among them, is reachable
    client = portal_client(guard_app, new_portal(guard_app, "guarded"))
    created = create(
        client, [{"name": "Ana", "type": "remote"}, {"name": "Ben", "type": "remote"}, {"name": "Open", "type": "open"}]
    )
    document = client.get("/v1/openapi.json").get_json()
    return World(client, document, created["id"], tokens_of(created)[0])


def check(op: Operation, response, what: str, *, status: int | None = None, code: str | None = None) -> dict:
    """A 4xx problem document, documented for the operation (and exactly ``status``/``code`` if given)."""
    where = f"{op.label} with {what}"
    assert 400 <= response.status_code < 500, (where, response.status_code, response.get_data()[:300])
    assert response.mimetype == PROBLEM, (where, response.mimetype, response.get_data()[:300])
    body = response.get_json()
    assert body["status"] == response.status_code and isinstance(body["code"], str) and body["code"], (where, body)
    assert body["type"].endswith("/" + body["code"]), (where, body)
    assert op.documented(response.status_code), (where, body)
    if status is not None:
        assert (response.status_code, body["code"]) == (status, code), (where, body)
    return body


def unchanged(world: World, seq_before: int, matches_before: int) -> None:
    """A refused request changes nothing: the match is where it was and no match was created."""
    assert seq_of(world.client, world.match_id) == seq_before
    assert len(world.client.get("/v1/matches?limit=100").get_json()["items"]) == matches_before


def _state(world: World) -> tuple[int, int]:
    return seq_of(world.client, world.match_id), len(world.client.get("/v1/matches?limit=100").get_json()["items"])


# --- the sweeps: every operation, every class, one location at a time ----------------------
def test_the_document_lists_the_operations_the_sweeps_rely_on(world):
    labels = {op.label for op in operations(world.document)}
    assert {
        "POST /v1/matches",
        "POST /v1/matches/{match_id}/actions",
        "GET /v1/players/{player_ref}/stats",
        "GET /v1/matches/{match_id}/stream",
        "GET /healthz",
    } <= labels
    assert len(labels) >= 13


def test_every_body_class_is_refused_in_every_field_of_every_operation(world):
    before = _state(world)
    for op in operations(world.document):
        base = BASE_BODIES.get(op.label, {})
        # The body as a whole: operations without a body read none, but a JSON one is still checked.
        for name, (fragment, expected) in POLICY_FRAGMENTS.items():
            check_policy(op, world.call(op, body=fragment), f"a body of {name}", expected)
        check(
            op,
            world.call(op, body=b'{"a": "' + b"x" * (64 * 1024) + b'"}'),
            "an oversized body",
            status=413,
            code="payload_too_large",
        )
        if op.body_schema is None:
            continue
        for path, schema in body_fields(world.document, op.body_schema):
            for name, (fragment, expected) in POLICY_FRAGMENTS.items():
                response = world.call(op, body=_with(base, path, fragment))
                check_policy(op, response, f"{name} in {path}", expected, path)
            too_long = "x" * (schema.get("maxLength", 5000) + 1)
            check(op, world.call(op, body=_with(base, path, json.dumps(too_long).encode())), f"a long {path}")
            if is_numeric(schema):
                for digits in NON_ASCII_DIGITS:
                    fragment = json.dumps(digits, ensure_ascii=False).encode()
                    check(op, world.call(op, body=_with(base, path, fragment)), f"{digits!r} in {path}")
                for number in (MAX_JSON_INTEGER, -MAX_JSON_INTEGER, 2**31):  # accepted by the parser
                    check(op, world.call(op, body=_with(base, path, str(number).encode())), f"{number} in {path}")
    unchanged(world, *before)


def _with(base: dict, path: tuple, fragment: bytes) -> bytes:
    """``base`` as JSON bytes with the raw ``fragment`` at ``path`` (containers made as needed)."""
    body = copy.deepcopy(base)
    node = body
    for step, next_step in pairwise(path):
        if isinstance(node, list):
            while len(node) <= step:
                node.append({})
            node = node[step]
        else:
            node = node.setdefault(step, [] if isinstance(next_step, int) else {})
    if isinstance(node, list):
        node[path[-1] : path[-1] + 1] = ["\x1e"]
    else:
        node[path[-1]] = "\x1e"
    return json.dumps(body).encode().replace(b'"\\u001e"', fragment)


def test_every_query_class_is_refused_for_every_parameter_of_every_operation(world):
    before = _state(world)
    for op in operations(world.document):
        for name, schema in {**op.query_params, "unlisted": {}}.items():
            for bad in CONTROLS + ["a\x00b"]:
                check(
                    op,
                    world.call(op, query=f"{name}={quote(bad)}"),
                    f"{bad!r} in ?{name}",
                    status=400,
                    code="invalid_text",
                )
            for raw in (b"%FF", b"%C3%28", b"%ED%A0%80", b"%C0%AF", b"a%E2%82"):  # not UTF-8
                check(
                    op,
                    world.call(op, query=f"{name}={raw.decode()}"),
                    f"{raw!r} in ?{name}",
                    status=400,
                    code="invalid_text",
                )
            check(
                op,
                world.call(op, query=f"{name}={'9' * MAX_TARGET_LENGTH}"),
                f"a long ?{name}",
                status=414,
                code="uri_too_long",
            )
            if "maxLength" in schema:
                check(op, world.call(op, query=f"{name}={'x' * (schema['maxLength'] + 1)}"), f"a long ?{name}")
            if schema.get("type") in ("integer", "number"):
                for bad in NON_ASCII_DIGITS + ["9" * 30, "9" * 2000, "1e999", "nan", "-1"]:
                    check(op, world.call(op, query=f"{name}={quote(bad)}"), f"{bad!r} in ?{name}")
        for key in ("%00", "%FF", "a%0Ab", "%ED%B0%80"):
            check(op, world.call(op, query=f"{key}=1"), f"the query key {key}", status=400, code="invalid_text")
    unchanged(world, *before)


def test_every_path_class_is_refused_for_every_parameter_of_every_operation(world):
    before = _state(world)
    for op in operations(world.document):
        if not op.path_params:
            # No parameter, but a path all the same: a byte that is not UTF-8 appended to it.
            check(
                op,
                world.call(op, environ={"PATH_INFO": op.path + "\xff"}),
                "a path not UTF-8",
                status=400,
                code="invalid_text",
            )
            continue
        for name, schema in op.path_params.items():
            for bad in CONTROLS + ["a\x00b"]:
                check(
                    op,
                    world.call(op, path=world.url(op, **{name: bad})),
                    f"{bad!r} as {name}",
                    status=400,
                    code="invalid_text",
                )
            for raw in (b"\xff", b"a\xc3(", surrogate_bytes(), surrogate_bytes("\udc00"), b"\xc0\xaf"):
                # The test client decodes a percent-encoded path itself (lossily), so the bytes go in
                # PATH_INFO as a WSGI server puts them: latin-1.
                placeholder = "\x1e"
                path = world.url(op, **{name: placeholder}).replace(quote(placeholder, safe=""), wire(raw))
                check(
                    op,
                    world.call(op, environ={"PATH_INFO": path}),
                    f"{raw!r} as {name}",
                    status=400,
                    code="invalid_text",
                )
            check(
                op,
                world.call(op, path=world.url(op, **{name: "9" * MAX_TARGET_LENGTH})),
                f"a long {name}",
                status=414,
                code="uri_too_long",
            )
            if "maxLength" in schema:
                check(
                    op, world.call(op, path=world.url(op, **{name: "x" * (schema["maxLength"] + 1)})), f"a long {name}"
                )
            if schema.get("type") == "integer" or name.endswith("_id"):
                for bad in NON_ASCII_DIGITS + ["9" * 30, "9" * 400, "-1"]:
                    check(op, world.call(op, path=world.url(op, **{name: bad})), f"{bad!r} as {name}")
    unchanged(world, *before)


def test_every_header_class_is_refused_on_every_operation(world):
    before = _state(world)
    for op in operations(world.document):
        names = set(CHECKED_HEADERS) | set(op.header_params)
        for name in sorted(names):
            bad_values = [
                *(f"1{c}2" for c in CONTROLS),
                wire(surrogate_bytes()),
                wire(b"\xff"),
                wire("\u00b2".encode()),
                "\u00b2",
                "caf\u00e9",
            ]
            status, code = (401, CREDENTIAL_CODES[name]) if name in CREDENTIAL_CODES else (400, "invalid_text")
            for bad in bad_values:
                check(op, world.call(op, headers={name: bad}), f"{name}: {bad!r}", status=status, code=code)
            check(
                op,
                world.call(op, headers={name: "1" * (MAX_HEADER_LENGTH + 1)}),
                f"a long {name}",
                status=431,
                code="header_too_large",
            )
        # What an operation reads from its own headers is held to their grammar too.
        for name, values in {
            "If-Match": ['"' + "9" * 30 + '"', '"1' + "0" * 10 + '"', '"-1"', "12"],
            "Last-Event-ID": ["9" * 30, "-1", "1.5", "x"],
            "Idempotency-Key": ["x" * 300, " "],
        }.items():
            if name in op.header_params:
                for bad in values:
                    check(op, world.call(op, headers={name: bad}), f"{name}: {bad!r}")
    unchanged(world, *before)


# --- what the fixed places answer exactly --------------------------------------------------
def test_the_reproduced_500s_are_now_these_problems(world):
    client, match_id, token = world.client, world.match_id, world.token
    deep = "[" * 1000 + "]" * 1000
    actions = f"/v1/matches/{match_id}/actions"
    cases = [
        (
            client.post("/v1/matches", data='{"seats": ' + deep + "}", content_type="application/json"),
            400,
            "malformed_json",
        ),
        (
            client.post(
                actions,
                data='{"type": "play", "tile": ' + deep + "}",
                content_type="application/json",
                headers=auth(token),
            ),
            400,
            "malformed_json",
        ),
        (
            client.post(
                f"/v1/matches/{match_id}/seats/2/claim", data='{"name": ' + deep + "}", content_type="application/json"
            ),
            400,
            "malformed_json",
        ),
        (
            client.post(
                actions,
                data='{"type": "play", "tile": [' + "9" * 5000 + ', 1], "end": "left"}',
                content_type="application/json",
                headers=auth(token),
            ),
            422,
            "invalid_request",
        ),
        (
            client.post(actions, json={"type": "play", "tile": "9" * 5000 + "-1", "end": "left"}, headers=auth(token)),
            422,
            "invalid_tile",
        ),
        (
            client.post(actions, json={"type": "play", "tile": "\u00b2-1", "end": "left"}, headers=auth(token)),
            422,
            "invalid_tile",
        ),
        (
            client.post(actions, json={"type": "draw"}, headers={**auth(token), "If-Match": '"' + "9" * 5000 + '"'}),
            431,
            "header_too_large",
        ),
        (
            client.post(actions, json={"type": "draw"}, headers={**auth(token), "If-Match": '"' + "9" * 40 + '"'}),
            400,
            "invalid_if_match",
        ),
        (
            client.post(actions, json={"type": "draw"}, headers={**auth(token), "If-Match": '"\u00b2"'}),
            400,
            "invalid_text",
        ),
        (
            client.post(
                "/v1/matches",
                data='{"seats": [{"name": "\\ud800", "type": "remote"}, {"name": "b", "type": "remote"}]}',
                content_type="application/json",
            ),
            422,
            "invalid_request",
        ),
        (
            client.get(f"/v1/matches/{match_id}/stream", headers={"Last-Event-ID": "9" * 11}),
            400,
            "invalid_last_event_id",
        ),
        (client.get(f"/v1/matches/{match_id}/stream?last_event_id=%C2%B2"), 400, "invalid_last_event_id"),
        (client.get(f"/v1/matches/{match_id}/stream?last_event_id=x"), 400, "invalid_last_event_id"),
        (client.get("/v1/players/a%00b/stats"), 400, "invalid_text"),
        (client.get("/v1/players/" + "x" * 129 + "/stats"), 422, "invalid_request"),
    ]
    for response, status, code in cases:
        assert_problem(response, status, code)


@pytest.mark.parametrize(
    "payload",
    [
        ["2024-01-01T00:00:00+00:00", "\ud800"],
        ["2024-01-01T00:00:00+00:00", "a\x00b"],
        ["2024-01-01T00:00:00+00:00", "0" * 31 + "G"],
        ["x", "0" * 32],
        [[[[1]]]],
    ],
)
def test_a_cursor_holding_what_no_cursor_of_ours_holds_is_invalid_cursor(world, payload):
    import base64

    raw = json.dumps(payload).encode()
    cursor = base64.urlsafe_b64encode(raw).decode().rstrip("=")
    assert_problem(world.client.get(f"/v1/matches?cursor={cursor}"), 422, "invalid_cursor")
    # the same bytes as a lenient encoder writes a surrogate
    cesu = base64.urlsafe_b64encode(raw.replace(b"\\ud800", surrogate_bytes())).decode().rstrip("=")
    assert_problem(world.client.get(f"/v1/matches?cursor={cesu}"), 422, "invalid_cursor")


def test_good_input_near_the_limits_passes(world):
    """The guard refuses only what it says: nesting of exactly the limit, integers up to 2^53 − 1,
    surrogate pairs (an emoji escaped), non-ASCII names, and a resume from a real seq."""
    client, match_id = world.client, world.match_id
    nested = "[" * (MAX_JSON_DEPTH - 2) + "1" + "]" * (MAX_JSON_DEPTH - 2)  # + the body and rules objects
    response = client.post(
        "/v1/matches", data='{"rules": {"target": ' + nested + '}, "seats": []}', content_type="application/json"
    )
    assert response.get_json()["code"] != "malformed_json"
    # Many brackets but shallow (and some inside strings): the depth scan counts nesting, not brackets.
    wide = {
        "seats": [{"name": "[" * 40, "type": "remote"}, {"name": "{" * 40, "type": "remote"}],
        "rules": {f"option_{i}": [[i]] for i in range(MAX_JSON_DEPTH)},
    }
    assert client.post("/v1/matches", json=wide).get_json()["code"] == "invalid_rules"
    created = client.post(
        "/v1/matches",
        data='{"seats": [{"name": "\\ud83d\\ude00 \u00b2", "type": "remote"}, '
        '{"name": "B\u00e9a", "type": "remote", "player_ref": "\u00b2"}]}',
        content_type="application/json",
    )
    assert created.status_code == 201, created.get_json()
    assert created.get_json()["seats"][0]["name"] == "\U0001f600 \u00b2"
    big = client.post(
        f"/v1/matches/{match_id}/actions",
        data=f'{{"type": "draw", "expected_seq": {MAX_JSON_INTEGER}}}',
        content_type="application/json",
        headers=auth(world.token),
    )
    assert_problem(big, 422, "invalid_action")  # the schema's bound, not the parser
    assert client.get("/v1/players/%C2%B2/stats").status_code == 200
    stream = client.get(f"/v1/matches/{match_id}/stream", headers={"Last-Event-ID": "1"})
    assert stream.status_code == 200 and b"event: view" in stream.get_data()
    assert client.get(f"/v1/matches/{match_id}", headers={"If-None-Match": '"0", W/"1:s"'}).status_code in (200, 304)
    assert (
        client.post(
            "/v1/matches/" + match_id + "/rematch", content_type="application/json", headers=auth(world.token)
        ).get_json()["code"]
        == "match_not_over"
    )  # an empty JSON body is none


# --- the property: random members of each class, anywhere ----------------------------------
def _escaped_inside(text: str, position: int, char: str) -> bytes:
    position = min(position, len(text))
    return json.dumps(text[:position] + char + text[position:]).encode()  # ASCII: the surrogate as \\udXXX


def _with_control(text: str, position: int, char: str) -> str:
    position = min(position, len(text))
    return text[:position] + char + text[position:]


_text = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=20)
_surrogate = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)
_control = st.sampled_from([chr(c) for c in range(0x20)] + ["\x7f"]).filter(lambda c: c not in "\t\r\n")
_non_ascii_digit = st.characters(categories=["Nd", "No"]).filter(lambda c: not c.isascii())
_not_utf8 = st.binary(min_size=1, max_size=8).filter(lambda b: not _decodes(b))


def _decodes(data: bytes) -> bool:
    try:
        data.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


@st.composite
def bad_json(draw) -> tuple[str, bytes]:
    """(what the policy answers: a reason or UNACCEPTABLE, a raw JSON value it refuses)."""
    kind = draw(st.sampled_from(["depth", "integer", "float", "surrogate", "nul", "encoding"]))
    if kind == "depth":
        depth = draw(st.integers(MAX_JSON_DEPTH + 1, 3000))
        opens = draw(st.lists(st.sampled_from(["[", '{"k":']), min_size=depth, max_size=depth))
        closes = "".join("]" if o == "[" else "}" for o in reversed(opens))
        return "depth", ("".join(opens) + "0" + closes).encode()
    if kind == "integer":
        digits = draw(
            st.one_of(
                st.integers(MAX_JSON_INTEGER + 1, 10**40).map(str), st.integers(17, 6000).map(lambda n: "1" + "0" * n)
            )
        )
        return UNACCEPTABLE, (draw(st.sampled_from(["", "-"])) + digits).encode()
    if kind == "float":
        literal = draw(st.sampled_from(["1e309", "-1e400", "9" * 400 + ".5", "NaN", "Infinity", "-Infinity"]))
        return ("syntax" if literal.lstrip("-").isalpha() else UNACCEPTABLE), literal.encode()
    if kind in ("surrogate", "nul"):
        char = draw(_surrogate) if kind == "surrogate" else "\x00"
        return UNACCEPTABLE, _escaped_inside(draw(_text), draw(st.integers(0, 20)), char)
    return "encoding", b'"' + draw(_text).encode() + draw(_not_utf8).replace(b'"', b"") + b'"'


@st.composite
def bad_text(draw) -> tuple[str, str]:
    """(class, a WSGI string: raw bytes as latin-1) that is not text without controls."""
    kind = draw(st.sampled_from(["control", "surrogate", "encoding"]))
    text = draw(_text)
    if kind == "control":
        return kind, wire(_with_control(text, draw(st.integers(0, 20)), draw(_control)).encode())
    if kind == "surrogate":
        return kind, wire(text.encode() + surrogate_bytes(draw(_surrogate)))
    return kind, wire(text.encode() + draw(_not_utf8))


def _property(world: World, examples: int):
    ops = operations(world.document)
    before = _state(world)

    @settings(
        max_examples=examples, deadline=None, database=None, derandomize=True, suppress_health_check=list(HealthCheck)
    )
    @given(op=st.sampled_from(ops), data=st.data())
    def run(op, data):
        where = data.draw(st.sampled_from(["body", "field", "query", "path", "header", "digits"]))
        if where in ("body", "field"):
            expected, fragment = data.draw(bad_json())
            if expected == "encoding" and _decodes(fragment):
                return
            fields = body_fields(world.document, op.body_schema) if op.body_schema else []
            path = ()
            if where == "field" and fields:
                path, _ = data.draw(st.sampled_from(fields))
                fragment = _with(BASE_BODIES.get(op.label, {}), path, fragment)
            check_policy(op, world.call(op, body=fragment), f"{fragment[:60]!r}", expected, path)
        elif where == "query":
            kind, text = data.draw(bad_text())
            name = data.draw(st.sampled_from([*op.query_params, "unlisted"]))
            value = quote(text.encode(WIRE), safe="")
            query = data.draw(st.sampled_from([f"{name}={value}", f"{value}=1"]))
            check(op, world.call(op, query=query), f"{kind} ?{query}", status=400, code="invalid_text")
        elif where == "path":
            kind, text = data.draw(bad_text())
            names = list(op.path_params)
            if names:
                placeholder = "\x1e"
                name = data.draw(st.sampled_from(names))
                path = world.url(op, **{name: placeholder}).replace(quote(placeholder, safe=""), text)
            else:
                path = op.path + text
            check(
                op,
                world.call(op, environ={"PATH_INFO": path}),
                f"{kind} path {path!r}",
                status=400,
                code="invalid_text",
            )
        elif where == "header":
            kind, text = data.draw(bad_text())
            name = data.draw(st.sampled_from(sorted(set(CHECKED_HEADERS) | set(op.header_params))))
            if "\n" in text or "\r" in text:
                return  # no client can send these in a header
            status, code = (401, CREDENTIAL_CODES[name]) if name in CREDENTIAL_CODES else (400, "invalid_text")
            check(op, world.call(op, headers={name: text}), f"{kind} {name}: {text!r}", status=status, code=code)
        else:
            digits = data.draw(st.text(_non_ascii_digit, min_size=1, max_size=4))
            targets = [("query", n) for n, s in op.query_params.items() if s.get("type") in ("integer", "number")]
            targets += [("path", n) for n, s in op.path_params.items() if s.get("type") == "integer"]
            targets += [("header", n) for n in op.header_params if n in ("If-Match", "Last-Event-ID")]
            numeric = [p for p, s in body_fields(world.document, op.body_schema or {}) if is_numeric(s)]
            targets += [("field", p) for p in numeric]
            if not targets:
                return
            place, name = data.draw(st.sampled_from(targets))
            if place == "query":
                response = world.call(op, query=f"{name}={quote(digits)}")
            elif place == "path":
                response = world.call(op, path=world.url(op, **{name: digits}))
            elif place == "header":
                response = world.call(op, headers={name: wire(digits.encode())})
            else:
                tile = data.draw(st.sampled_from([digits, f"{digits}-1", f"6-{digits}"]))
                response = world.call(
                    op, body=_with(BASE_BODIES.get(op.label, {}), name, json.dumps(tile, ensure_ascii=False).encode())
                )
            check(op, response, f"{digits!r} in {place} {name}")

    run()
    unchanged(world, *before)


def test_random_members_of_every_class_are_refused_anywhere(world):
    _property(world, 150)


@pytest.mark.slow
def test_random_members_of_every_class_are_refused_anywhere_over_a_long_run(world):
    _property(world, long_run(300))
