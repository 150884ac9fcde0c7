"""Schemathesis against the app in-process: every operation of the OpenAPI document, with
schema-valid (positive) and schema-invalid (negative) requests, under every check schemathesis
has, with its default expectations.

Two phases, as the schemathesis CLI runs them: the coverage phase (deterministic cases for
every boundary: each parameter missing, each value just out of range, each wrong type,
methods the path does not have, malformed content types) and the fuzzing phase (random
cases). Every answer must be no 5xx, a documented status with the documented content type,
headers and body; an error must be a problem document naming its own status. Schema-valid
requests are accepted or refused as a well-formed request may be (401, 403, 404, 409, 429);
schema-invalid ones rejected; a missing required header rejected; an undeclared method 405
with ``Allow``; an operation that needs a token refuses the request without one. Path
parameters and tokens are drawn partly from matches seeded in the database (a live one, an
ended one, one with an open seat), so requests reach the real views and refusals, not
only 404s. The recorder every API test runs under (``tests/problem_guard.py``) also holds
each answer's ``code`` to the operation's declared list.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import CHECKS, load_all_checks
from schemathesis.generation.drivers import CoverageGenerator
from schemathesis.generation.feedback import FeedbackSources
from schemathesis.generation.overrides import Override

from api import create_app
from tests.long_runs import long_run

from .fake_clock import FakeClock, use_clock
from .helpers import PROBLEM, auth, create, create_played, tokens_of

# The schema fuzz is for the whole suite (on both databases), not for the quick loop: drawing
# cases from the document was a fifth of what --quick took.
pytestmark = pytest.mark.fuzz

SPEC = json.loads((Path(__file__).parents[2] / "openapi" / "openapi.json").read_text())
OPERATIONS = [
    f"{method.upper()} {path}" for path, item in SPEC["paths"].items() for method in item if method != "parameters"
]

load_all_checks()
ALL_CHECKS = CHECKS.get_all()
# Every check schemathesis has (max_response_time is not among them: a budget, not a contract).
assert {
    "not_a_server_error",
    "status_code_conformance",
    "content_type_conformance",
    "response_headers_conformance",
    "response_schema_conformance",
    "positive_data_acceptance",
    "negative_data_rejection",
    "missing_required_header",
    "unsupported_method",
    "allow_header_conformance",
    "use_after_free",
    "ensure_resource_availability",
    "ignored_auth",
    "object_level_authorization",
} <= {check.__name__ for check in ALL_CHECKS}

# The only answers besides schemathesis' defaults (a schema-valid request: 2xx, 3xx, 401, 403,
# 404, 409, 429) that a schema-valid request may get, each by code:
SCHEMA_VALID_REFUSALS = {
    # An If-Match naming another seq than the match's: the precondition the client itself set
    # failed, which is exactly what 412 means (RFC 9110); the request is well-formed.
    "POST /v1/matches/{match_id}/actions": {
        412: {"precondition_failed"},
        # The same Idempotency-Key with another body: the key
        # names one request (the IETF draft answers 422); which
        # keys were used before is no part of a request's schema.
        # And an action of another game's kind (a pass on a line game, a knock on a trains
        # game), or a tile beyond the match's set ("0-10" or "7-0" in a double-six game): the
        # document's action union and tiles are every game's and set's; which the match plays is
        # no part of the request (docs/problems.md).
        422: {"idempotency_key_reused", "invalid_action", "invalid_tile"},
    },
    # A rule set is typed option by option in the document; which combinations work together
    # (partners need 4 players, a hand size that fits the set, muggins calls need fives scoring,
    # a preset's player counts) is the rules engine's to say, named by `field`.
    "POST /v1/matches": {422: {"invalid_rules"}},
    # The same for a seek's and a challenge's rules; and what only their combination rules out
    # (rating_min above rating_max, a fill time without a level, an opponent named twice).
    "POST /v1/seeks": {422: {"invalid_rules", "invalid_seek"}},
    "POST /v1/challenges": {422: {"invalid_rules", "invalid_challenge"}},
}
# A schema-invalid request may also be refused for its size before its content is read: a
# path and query longer than the server reads (414 URI Too Long), a header longer than it reads
# (431 Request Header Fields Too Large). Both say exactly that, and every operation declares them
# as its own responses (api/http/transport_refusals.py); they are named here all the same because
# schemathesis' negative-data check accepts only the statuses of its configuration, whatever the
# operation declares.
TOO_LONG_TO_READ = ["414", "431"]
CONFIG = schemathesis.Config.from_dict(
    {
        "checks": {
            "negative_data_rejection": {
                "expected-statuses": [
                    "400",
                    "401",
                    "403",
                    "404",
                    "405",
                    "406",
                    "409",
                    "415",
                    "422",
                    "428",
                    "429",
                    "5xx",
                    *TOO_LONG_TO_READ,
                ]
            }
        },
        "operations": [
            {
                "include-path": label.split(" ", 1)[1],
                "include-method": label.split(" ", 1)[0],
                "checks": {
                    "positive_data_acceptance": {
                        "expected-statuses": [
                            "2xx",
                            "3xx",
                            "401",
                            "403",
                            "404",
                            "409",
                            "429",
                            "5xx",
                            *map(str, allowed),
                        ]
                    }
                },
            }
            for label, allowed in SCHEMA_VALID_REFUSALS.items()
        ],
    }
)

# Random cases per operation and mode. The short run is on every database and in the quick
# loop: a few of each, since drawing a case from the document costs more than sending it (every
# boundary of every operation has its own test, below, and the aimed cases theirs). The long run
# (SQLite, `slow`) draws four times as many, and grows with BONEYARD_LONG_RUNS.
DEFAULT_EXAMPLES = 5
SLOW_EXAMPLES = long_run(20)


FUZZ_CONFIG = {
    "TESTING": True,
    "RATELIMIT_ENABLED": False,
    "STREAM_MAX_SECONDS": 0,
    "LONG_POLL_MAX_SECONDS": 0.05,
    "AUTOPLAY_PACE_SECONDS": 0,
}
SEEDED = "tests.fuzz.seeded"  # app.extensions: what seed_matches made in the app's database


def make_fuzz_app(database_url: str):
    # A stream answers the view and closes at once: a real one stays open (long-polling for
    # events) up to STREAM_MAX_SECONDS. A long-poll's wait passes on a fake clock, at once, and is
    # capped so that a turn clock's re-checks during it stay few (waiting has tests of its own).
    app = create_app({**FUZZ_CONFIG, "DATABASE_URL": database_url})
    use_clock(app, FakeClock())
    return app


@pytest.fixture(scope="session")
def _seeded_sqlite(_sqlite_template, tmp_path_factory) -> tuple[Path, dict]:
    """An SQLite database holding the seeded matches, made once per worker: every fuzz test on
    SQLite starts from a copy of it (the same matches in the same states, as if seeded anew)."""
    path = tmp_path_factory.mktemp("fuzz") / "seeded.db"
    shutil.copyfile(_sqlite_template, path)
    app = make_fuzz_app(f"sqlite:///{path}")
    seeded = seed_matches(app.test_client())
    app.extensions["boneyard.store"].dispose()  # the last connection closed: the WAL checkpointed
    assert not path.with_name(path.name + "-wal").exists()
    return path, seeded


@pytest.fixture
def fuzz_app(database_url, request):
    """The app under fuzzing, its database holding seed_matches' matches (``app.extensions[SEEDED]``)."""
    if database_url.startswith("sqlite:///"):
        template, seeded = request.getfixturevalue("_seeded_sqlite")
        shutil.copyfile(template, database_url.removeprefix("sqlite:///"))
        app = make_fuzz_app(database_url)
    else:
        app = make_fuzz_app(database_url)
        seeded = seed_matches(app.test_client())
    app.extensions[SEEDED] = seeded
    yield app
    app.extensions["boneyard.store"].dispose()


def seed_matches(client) -> dict:
    """A live match of two remote seats, an ended bot match, and one with an open seat.
    The ended match is played to a target of 1 (its first hand won ends it): a match to 100 took
    ten times as long to play, and on PostgreSQL every fuzz test seeds anew."""
    live = create(client, [{"name": "Ana", "type": "remote"}, {"name": "Ben", "type": "remote"}])
    ended = create_played(
        client,
        [{"name": "R1", "type": "bot", "level": "random"}, {"name": "R2", "type": "bot", "level": "random"}],
        rules={"target": 1},
    )
    assert client.get(f"/v1/matches/{ended['id']}").get_json()["status"] == "ended"
    waiting = create(
        client,
        [
            {"name": "Cy", "type": "remote"},
            {"name": "Open", "type": "open"},
            {"name": "Bot", "type": "bot", "level": "random"},
        ],
    )
    tokens = list(tokens_of(live).values()) + list(tokens_of(waiting).values())
    # The ended match first: hypothesis draws the first of a list most, and only the ended match
    # answers /fairness with a 200 (with the live one first, a run once drew no ended target at all).
    return {"match_ids": [ended["id"], live["id"], waiting["id"]], "live": live["id"], "tokens": tokens}


def case_strategy(operation, mode: GenerationMode, seeded: dict):
    """Schemathesis' cases, plus cases aimed at the seeded matches with real tokens."""
    generated = operation.as_strategy(mode)
    if "{match_id}" not in operation.path:
        return generated
    targets = [
        {"match_id": match_id, **({"seat": seat} if "{seat}" in operation.path else {})}
        for match_id in seeded["match_ids"]
        for seat in ((0, 1, 2, 7) if "{seat}" in operation.path else (None,))
    ]
    if mode is GenerationMode.POSITIVE:
        # Valid path parameters put in a valid case keep it valid: one strategy, aimed after
        # drawing (making a strategy for each target took longer than sending its cases).
        aimed = st.tuples(generated, st.sampled_from(targets)).map(_aimed_at)
    else:
        # A negative case may be negative in its path: schemathesis must know the fixed ones.
        aimed = st.one_of([operation.as_strategy(mode, path_parameters=target) for target in targets])
    with_token = st.tuples(aimed, st.sampled_from(seeded["tokens"])).map(_with_token)
    return st.one_of(generated, aimed, with_token)


def _aimed_at(pair):
    case, target = pair
    case.path_parameters = {**(case.path_parameters or {}), **target}
    return case


def _with_token(pair):
    case, token = pair
    case.headers = {**(case.headers or {}), **auth(token)}
    return case


def has_negatable_input(operation) -> bool:
    """Whether anything the client sends can be schema-invalid (a free string path
    parameter and optional headers of type string cannot)."""
    definition = operation.definition.raw
    params = definition.get("parameters", []) + SPEC["paths"][operation.path].get("parameters", [])
    typed = [
        p
        for p in params
        if (p.get("in") in ("path", "query") and p.get("schema", {}).get("type") != "string") or p.get("in") == "query"
    ]
    return "requestBody" in definition or bool(typed)


def check_schema_valid_refusal(label: str, case, response) -> None:
    """A schema-valid request refused beyond schemathesis' defaults is refused for one of the
    reasons :data:`SCHEMA_VALID_REFUSALS` allows, by code (the status alone says too little)."""
    if case.meta is None or case.meta.generation.mode is not GenerationMode.POSITIVE:
        return
    if response.status_code in (412, 422):
        code = json.loads(response.content)["code"]
        allowed = SCHEMA_VALID_REFUSALS.get(label, {}).get(response.status_code, set())
        assert code in allowed, (
            f"{label}: a schema-valid request refused with {response.status_code} {code!r}: "
            f"{case.path_parameters} {case.query} {case.headers} {case.body!r} -> "
            f"{response.content[:300]!r}"
        )


def check_problem_document(response) -> None:
    """Every error answer is RFC 9457 problem+json naming its own status and a code."""
    if response.status_code < 400:
        return
    assert response.headers.get("content-type", [""])[0].startswith(PROBLEM), response.headers
    body = json.loads(response.content)
    assert body["status"] == response.status_code, body
    assert isinstance(body["code"], str) and body["code"], body
    assert body["type"].endswith("/" + body["code"]), body


def answer(label: str, case, statuses: dict[int, int]) -> None:
    """Send ``case`` and hold its answer to every check."""
    response = case.call()
    statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
    case.validate_response(response, checks=ALL_CHECKS)
    check_schema_valid_refusal(label, case, response)
    check_problem_document(response)


#: The document the apps of this process serve, as sent (read from the first app fuzzed): every
#: app of a process with one configuration serves the same one (``api.http.spec.MADE_DOCUMENTS``),
#: and answering it took longer than many a fuzz case.
SERVED_DOCUMENT: list[bytes] = []


def served_schema(app):
    """``schemathesis.openapi.from_wsgi("/v1/openapi.json", app)``, the document read once."""
    if not SERVED_DOCUMENT:
        response = app.test_client().get("/v1/openapi.json")
        assert response.status_code == 200, response.status
        SERVED_DOCUMENT.append(response.data)
    schema = schemathesis.openapi.from_dict(json.loads(SERVED_DOCUMENT[0]), config=CONFIG)
    schema.app = app  # as from_wsgi does: the cases are sent to this app
    schema.location = "/v1/openapi.json"
    return schema


def operation_of(app, label: str):
    operation = served_schema(app).find_operation_by_label(label)
    assert operation is not None, f"{label} is in openapi/openapi.json but not in the app's document"
    return operation


def fuzz(app, label: str, mode: GenerationMode, examples: int) -> dict:
    seeded = app.extensions[SEEDED]
    operation = operation_of(app, label)
    statuses: dict[int, int] = {}

    @settings(
        max_examples=examples, deadline=None, database=None, derandomize=True, suppress_health_check=list(HealthCheck)
    )
    @given(case=case_strategy(operation, mode, seeded))
    def run(case):
        answer(label, case, statuses)

    run()
    return statuses


def coverage_cases(operation):
    """Schemathesis' coverage phase for ``operation``: positive and negative cases at every
    boundary, each parameter missing, undeclared methods, malformed content types."""
    return CoverageGenerator(
        operation=operation,
        generation_modes=[GenerationMode.POSITIVE, GenerationMode.NEGATIVE],
        generation_config=operation.schema.config.generation_for(operation=operation, phase="coverage"),
        auth_storage=None,
        override=Override(),
        feedback=FeedbackSources(),
    )


def aim(case, seeded: dict) -> bool:
    """Point a coverage case (already sent as generated) at the live seeded match, with one of
    its seats' tokens unless the case is about a missing header; False when it is about a
    path parameter (aimed, it would no longer test one) or the path has no match in it."""
    location = getattr(case.meta.phase.data, "parameter_location", None)
    location = getattr(location, "value", location)
    if "{match_id}" not in case.operation.path or location == "path":
        return False
    case.path_parameters = {**(case.path_parameters or {}), "match_id": seeded["live"]}
    if location != "header":
        case.headers = {**(case.headers or {}), **auth(seeded["tokens"][0])}
    return True


def _params(mode: GenerationMode):
    # A schema-invalid request is refused by the validation in front of every use case: no
    # database sees it, so the negative cases run on one (the PostgreSQL pass leaves `serving`
    # out). Schema-valid ones reach the store, where each database may differ (its types,
    # its limits, a NUL in a string), and run on both.
    marks = [pytest.mark.serving] if mode is GenerationMode.NEGATIVE else []
    return [pytest.param(label, mode, id=f"{mode.value} {label}", marks=marks) for label in OPERATIONS]


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


@pytest.mark.parametrize("label", OPERATIONS)
def test_every_boundary_of_every_operation_answers_as_documented(fuzz_app, label):
    """The coverage phase: every case once as schemathesis makes it, and once aimed at a real
    match with a real token, so that the checks also see the answers past the 404."""
    seeded = fuzz_app.extensions[SEEDED]
    statuses: dict[int, int] = {}
    for case in coverage_cases(operation_of(fuzz_app, label)):
        answer(label, case, statuses)
        if aim(case, seeded):
            answer(label, case, statuses)
    assert statuses and not any(status >= 500 for status in statuses), statuses


def test_the_aimed_cases_reach_real_matches_and_succeed_sometimes(fuzz_app):
    """The seeding is not decoration: the fuzzer's requests to the seeded matches get real
    answers (200s from views and audits; a move played, or refused by the rules), not only
    404s. Which of 200/409/422 an action gets depends on the deal, so any of them counts.
    The run is bounded by its examples per operation, not timed: enough that an action aimed
    at the live match with its mover's token is among them, whichever examples hypothesis
    draws (with 40 that hinged on what else the process had imported)."""
    seen = {
        label: fuzz(fuzz_app, label, GenerationMode.POSITIVE, examples)
        for label, examples in (
            ("GET /v1/matches/{match_id}/view", 40),
            ("GET /v1/matches/{match_id}/fairness", 40),
            ("POST /v1/matches/{match_id}/actions", 150),
        )
    }
    assert seen["GET /v1/matches/{match_id}/view"].get(200, 0) > 0, seen
    assert seen["GET /v1/matches/{match_id}/fairness"].get(200, 0) > 0, seen
    assert set(seen["POST /v1/matches/{match_id}/actions"]) & {200, 409, 422}, seen


def _operation(app, label):
    return operation_of(app, label)
