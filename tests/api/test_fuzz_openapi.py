"""Schemathesis against the app in-process: every operation of the OpenAPI document,
with schema-valid (positive) and schema-invalid (negative) requests.

Every answer must be no 5xx, a documented status with the documented content type and
a body that validates against the documented schema; every error must be a problem
document naming its own status. Valid requests are accepted (or refused by the rules:
401/403/404/409/412), invalid ones rejected. Path parameters and tokens are drawn
partly from matches seeded in the database (a live one, an ended one, one with an open
seat), so requests reach the real views and refusals, not only 404s.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (content_type_conformance, negative_data_rejection,
                                               positive_data_acceptance, response_schema_conformance,
                                               status_code_conformance)

from api import create_app

from .helpers import PROBLEM, auth, create, create_played, tokens_of

SPEC = json.loads((Path(__file__).parents[2] / "openapi" / "openapi.json").read_text())
OPERATIONS = [f"{method.upper()} {path}" for path, item in SPEC["paths"].items()
              for method in item if method != "parameters"]

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
          response_schema_conformance, positive_data_acceptance, negative_data_rejection]

# Statuses a schema-valid request may get. 401/403/404/409/412 are refusals of well-formed
# requests (unknown token or match, the rules); 422 only where the server validates more
# than a JSON schema can say: rule overrides, a seat's level, a client seed the server does
# not accept (create), an opaque cursor (list), the action's fields per type and a tile
# string (actions).
ACCEPTED = ["2xx", "304", "401", "403", "404", "409", "412"]
SEMANTIC_422 = ["/v1/matches", "/v1/matches/{match_id}/actions"]
# Schema-invalid requests may also be refused for their size before validation (the input
# guard: a path and query over its limit, an over-long header), as every operation documents.
REJECTED = ["400", "401", "403", "404", "405", "406", "409", "414", "415", "422", "428", "429", "431", "5xx"]
CONFIG = schemathesis.Config.from_dict({
    "checks": {"positive_data_acceptance": {"expected-statuses": ACCEPTED},
               "negative_data_rejection": {"expected-statuses": REJECTED}},
    "operations": [{"include-path": SEMANTIC_422,
                    "checks": {"positive_data_acceptance": {"expected-statuses": ACCEPTED + ["422"]}}}],
})

DEFAULT_EXAMPLES = 25
SLOW_EXAMPLES = 300


@pytest.fixture
def fuzz_app(database_url):
    # A stream answers the view and closes at once: a real one stays open (long-polling for
    # events) up to STREAM_MAX_SECONDS, and a long-poll up to its `wait`, which would spend the
    # time budget waiting: both are cut short here (they have tests of their own).
    app = create_app({"TESTING": True, "DATABASE_URL": database_url, "RATELIMIT_ENABLED": False,
                      "STREAM_MAX_SECONDS": 0, "LONG_POLL_MAX_SECONDS": 0.05, "AUTOPLAY_PACE_SECONDS": 0})
    yield app
    app.extensions["boneyard.store"].dispose()


def seed_matches(client) -> dict:
    """A live match of two remote seats, an ended bot match, and one with an open seat."""
    live = create(client, [{"name": "Ana", "type": "remote"}, {"name": "Ben", "type": "remote"}])
    ended = create_played(client, [{"name": "R1", "type": "bot", "level": "random"},
                                   {"name": "R2", "type": "bot", "level": "random"}])
    assert client.get(f"/v1/matches/{ended['id']}").get_json()["status"] == "ended"
    waiting = create(client, [{"name": "Cy", "type": "remote"}, {"name": "Open", "type": "open"},
                              {"name": "Bot", "type": "bot", "level": "random"}])
    tokens = list(tokens_of(live).values()) + list(tokens_of(waiting).values())
    return {"match_ids": [live["id"], ended["id"], waiting["id"]], "tokens": tokens}


def case_strategy(operation, mode: GenerationMode, seeded: dict):
    """Schemathesis' cases, plus cases aimed at the seeded matches with real tokens."""
    generated = operation.as_strategy(mode)
    if "{match_id}" not in operation.path:
        return generated
    aimed = []
    for match_id in seeded["match_ids"]:
        params = {"match_id": match_id}
        if "{seat}" in operation.path:
            aimed += [operation.as_strategy(mode, path_parameters={**params, "seat": seat}) for seat in (0, 1, 2, 7)]
        else:
            aimed.append(operation.as_strategy(mode, path_parameters=params))
    with_token = st.tuples(st.one_of(aimed), st.sampled_from(seeded["tokens"])).map(_with_token)
    return st.one_of(generated, *aimed, with_token)


def _with_token(pair):
    case, token = pair
    case.headers = {**(case.headers or {}), **auth(token)}
    return case


def has_negatable_input(operation) -> bool:
    """Whether anything the client sends can be schema-invalid (a free string path
    parameter and optional headers of type string cannot)."""
    definition = operation.definition.raw
    params = definition.get("parameters", []) + SPEC["paths"][operation.path].get("parameters", [])
    typed = [p for p in params if p.get("in") in ("path", "query") and p.get("schema", {}).get("type") != "string"
             or p.get("in") == "query"]
    return "requestBody" in definition or bool(typed)


def check_problem_document(response) -> None:
    """Every error answer is RFC 9457 problem+json naming its own status and a code."""
    if response.status_code < 400:
        return
    assert response.headers.get("content-type", [""])[0].startswith(PROBLEM), response.headers
    body = json.loads(response.content)
    assert body["status"] == response.status_code, body
    assert isinstance(body["code"], str) and body["code"], body
    assert body["type"].endswith("/" + body["code"]), body


def fuzz(app, label: str, mode: GenerationMode, examples: int) -> dict:
    seeded = seed_matches(app.test_client())
    schema = schemathesis.openapi.from_wsgi("/v1/openapi.json", app, config=CONFIG)
    operation = schema.find_operation_by_label(label)
    assert operation is not None, f"{label} is in openapi/openapi.json but not in the app's document"
    statuses: dict[int, int] = {}

    @settings(max_examples=examples, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(case=case_strategy(operation, mode, seeded))
    def run(case):
        response = case.call()
        statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
        case.validate_response(response, checks=CHECKS)
        check_problem_document(response)

    run()
    return statuses


def _params(mode: GenerationMode):
    return [pytest.param(label, mode, id=f"{mode.value} {label}") for label in OPERATIONS]


@pytest.mark.parametrize("label, mode", _params(GenerationMode.POSITIVE) + _params(GenerationMode.NEGATIVE))
def test_every_operation_answers_as_documented_to_valid_and_invalid_requests(fuzz_app, label, mode):
    if mode is GenerationMode.NEGATIVE and not has_negatable_input(_operation(fuzz_app, label)):
        pytest.skip("nothing in this request can be schema-invalid")
    statuses = fuzz(fuzz_app, label, mode, DEFAULT_EXAMPLES)
    assert sum(statuses.values()) >= 1
    assert not any(status >= 500 for status in statuses), statuses


@pytest.mark.slow
@pytest.mark.parametrize("label, mode", _params(GenerationMode.POSITIVE) + _params(GenerationMode.NEGATIVE))
def test_every_operation_answers_as_documented_over_a_long_run(fuzz_app, label, mode):
    if mode is GenerationMode.NEGATIVE and not has_negatable_input(_operation(fuzz_app, label)):
        pytest.skip("nothing in this request can be schema-invalid")
    fuzz(fuzz_app, label, mode, SLOW_EXAMPLES)


def test_the_aimed_cases_reach_real_matches_and_succeed_sometimes(fuzz_app):
    """The seeding is not decoration: the fuzzer's requests to the seeded matches get real
    answers (200s from views and audits; a move played, or refused by the rules), not only
    404s. Which of 200/409/422 an action gets depends on the deal, so any of them counts."""
    started = time.monotonic()
    seen = {label: fuzz(fuzz_app, label, GenerationMode.POSITIVE, 40)
            for label in ("GET /v1/matches/{match_id}/view", "GET /v1/matches/{match_id}/fairness",
                          "POST /v1/matches/{match_id}/actions")}
    assert seen["GET /v1/matches/{match_id}/view"].get(200, 0) > 0, seen
    assert seen["GET /v1/matches/{match_id}/fairness"].get(200, 0) > 0, seen
    assert set(seen["POST /v1/matches/{match_id}/actions"]) & {200, 409, 422}, seen
    assert time.monotonic() - started < 60


def _operation(app, label):
    return schemathesis.openapi.from_wsgi("/v1/openapi.json", app, config=CONFIG).find_operation_by_label(label)
