"""Every error is an RFC 9457 problem document, whatever raised it.

No real POST route exists yet, so a throwaway blueprint exercises request
bodies, validation, flask-smorest's abort, ProblemError and crashes.
"""

from __future__ import annotations

import logging

import marshmallow as ma
import pytest
from flask.views import MethodView
from flask_smorest import Blueprint, abort

from api.app import create_app
from api.http import spec as spec_module
from api.http.errors import ProblemError, problem


class EchoSchema(ma.Schema):
    name = ma.fields.String(required=True, validate=ma.validate.Length(min=1, max=10))
    seats = ma.fields.Integer(load_default=2)


@pytest.fixture
def answered_problems_are_declared():
    """Not here: the probe routes below are this module's own, declared nowhere (the API's
    operations are held to their declarations by tests/problem_guard.py everywhere else)."""


@pytest.fixture
def probe_client(database_url, monkeypatch):
    # The probe routes are documented into the app's spec, and the first app of a process shares
    # its spec with every later one (api.http.spec.MADE_DOCUMENTS): an app with a document of its
    # own keeps them out of what later tests of this process check against.
    monkeypatch.setattr(spec_module, "MADE_DOCUMENTS", {})
    app = create_app({"TESTING": True, "DATABASE_URL": database_url, "RATELIMIT_ENABLED": False})
    blp = Blueprint("probe", __name__, url_prefix="/probe")

    @blp.route("/echo")
    class Echo(MethodView):
        @blp.arguments(EchoSchema)
        @blp.response(200, EchoSchema)
        def post(self, payload):
            return payload

    @blp.route("/raw", methods=["POST"])
    def raw():
        from flask import request

        return {"length": len(request.get_data()), "json": request.get_json(silent=False)}

    @blp.route("/conflict")
    def conflict():
        raise ProblemError(409, "seat_taken", "Seat taken", "Seat 2 is taken.", seat=2)

    @blp.route("/returned")
    def returned():
        return problem(410, "match_gone", "Match gone", "That match was deleted.")

    @blp.route("/aborted")
    def aborted():
        abort(403, message="Not your turn.")

    @blp.route("/crash")
    def crash():
        raise RuntimeError("secret internals")

    app.extensions["boneyard.api"].register_blueprint(blp)
    yield app.test_client()
    app.extensions["boneyard.store"].dispose()


def problem_of(response):
    assert response.mimetype == "application/problem+json", response.data
    body = response.get_json(force=True)
    assert body["status"] == response.status_code
    assert {"type", "title", "status", "detail", "code"} <= body.keys()
    return body


def test_a_valid_body_passes_through(probe_client):
    response = probe_client.post("/probe/echo", json={"name": "Ana"})
    assert response.status_code == 200
    assert response.get_json() == {"name": "Ana", "seats": 2}


def test_malformed_json_is_a_400_malformed_json_problem(probe_client):
    response = probe_client.post("/probe/echo", data="{not json", content_type="application/json")
    assert response.status_code == 400
    assert problem_of(response)["code"] == "malformed_json"


def test_malformed_json_read_by_flask_itself_is_also_malformed_json(probe_client):
    response = probe_client.post("/probe/raw", data="[1,", content_type="application/json")
    assert response.status_code == 400
    assert problem_of(response)["code"] == "malformed_json"


def test_a_validation_failure_is_a_422_with_field_messages(probe_client):
    response = probe_client.post("/probe/echo", json={"name": "", "seats": "many", "extra": 1})
    assert response.status_code == 422
    body = problem_of(response)
    assert body["code"] == "invalid_request"
    assert set(body["errors"]["json"]) == {"name", "seats", "extra"}


def test_a_body_over_the_limit_is_a_413_problem(probe_client):
    response = probe_client.post("/probe/raw", data=b"x" * (64 * 1024 + 1), content_type="application/octet-stream")
    assert response.status_code == 413
    assert problem_of(response)["code"] == "payload_too_large"


def test_a_raised_problem_error_keeps_its_code_and_extra_members(probe_client):
    body = problem_of(probe_client.get("/probe/conflict"))
    assert body == {
        "type": "https://boneyard.dev/problems/seat_taken",
        "title": "Seat taken",
        "status": 409,
        "detail": "Seat 2 is taken.",
        "code": "seat_taken",
        "seat": 2,
    }


def test_a_returned_problem_response_is_sent_as_is(probe_client):
    body = problem_of(probe_client.get("/probe/returned"))
    assert (body["status"], body["code"]) == (410, "match_gone")


def test_flask_smorest_abort_becomes_a_problem(probe_client):
    body = problem_of(probe_client.get("/probe/aborted"))
    assert body["code"] == "forbidden"
    assert body["detail"] == "Not your turn."


def test_a_crash_is_logged_and_answered_with_a_bare_500(probe_client, caplog):
    with caplog.at_level(logging.ERROR):
        response = probe_client.get("/probe/crash")
    assert response.status_code == 500
    body = problem_of(response)
    assert body["code"] == "internal_error"
    assert "secret internals" not in response.get_data(as_text=True)
    assert "Traceback" not in response.get_data(as_text=True)
    assert any("secret internals" in str(r.exc_info[1]) for r in caplog.records if r.exc_info)
