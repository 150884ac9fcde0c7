"""gunicorn's side of serving: logs without seat tokens, its own refusals as problem documents."""

from __future__ import annotations

import json
import logging
import sys
from datetime import timedelta
from types import SimpleNamespace

import pytest
from gunicorn.config import Config
from gunicorn.http import errors as http_errors

from api import logs
from api.serving import AccessLogger, problem_response, protocol_error, redact_query, redact_text


def test_secret_query_parameters_are_redacted_however_they_are_spelt():
    assert redact_query("token=abc") == "token=[redacted]"
    assert redact_query("a=1&token=abc&b=2") == "a=1&token=[redacted]&b=2"
    assert redact_query("%74oken=abc;x=1") == "%74oken=[redacted];x=1"
    assert redact_query("TOKEN=abc&tokens=keep&token") == "TOKEN=[redacted]&tokens=keep&token"
    assert (
        redact_text("GET /v1/matches/m/stream?x=#&token=abc HTTP/1.1")
        == "GET /v1/matches/m/stream?x=#&token=[redacted] HTTP/1.1"
    )
    assert redact_text("no query here: token=abc") == "no query here: token=abc"


def test_no_access_log_atom_holds_a_token_or_an_authorization_header():
    logger = AccessLogger(Config())
    environ = {
        "REQUEST_METHOD": "GET",
        "RAW_URI": "/v1/matches/m/stream?token=s3cret",
        "PATH_INFO": "/v1/matches/m/stream",
        "QUERY_STRING": "token=s3cret",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "HTTP_REFERER": "https://portal/play?token=s3cret",
        "HTTP_AUTHORIZATION": "Bearer s3cret",
        "HTTP_X_API_KEY": "s3cret",
    }
    request = SimpleNamespace(
        headers=[
            ("AUTHORIZATION", "Bearer s3cret"),
            ("X-API-KEY", "s3cret"),
            ("REFERER", "https://portal/play?token=s3cret"),
        ]
    )
    response = SimpleNamespace(status="200 OK", headers=[], sent=10)
    atoms = logger.atoms(response, request, environ, timedelta(milliseconds=3))
    leaked = {key: value for key, value in atoms.items() if "s3cret" in str(value)}
    assert leaked == {}
    assert atoms["r"] == "GET /v1/matches/m/stream?token=[redacted] HTTP/1.1"
    assert atoms["{authorization}i"] == "[redacted]"


def test_a_file_sent_by_sendfile_is_logged_with_its_length_and_nothing_else_changes():
    logger = AccessLogger(Config())
    environ = {"REQUEST_METHOD": "GET", "RAW_URI": "/docs/assets/x.js", "SERVER_PROTOCOL": "HTTP/1.1"}

    def bytes_logged(**response) -> tuple[str, object]:
        atoms = logger.atoms(
            SimpleNamespace(status="200 OK", headers=[], **response),
            SimpleNamespace(headers=[]),
            environ,
            timedelta(milliseconds=3),
        )
        return atoms["b"], atoms["B"]

    sent = {"headers_sent": True, "_omits_body": False}
    assert bytes_logged(sent=0, response_length=1684244, **sent) == ("1684244", 1684244)  # by sendfile()
    assert bytes_logged(sent=743, response_length=743, **sent) == ("743", 743)  # written
    assert bytes_logged(sent=0, response_length=0, **sent) == ("0", 0)  # an empty body
    assert bytes_logged(sent=0, response_length=743, headers_sent=True, _omits_body=True) == ("0", 0)  # HEAD, 304
    assert bytes_logged(sent=0, response_length=207, headers_sent=False) == ("0", 0)  # never went out


def test_every_refusal_of_gunicorns_parser_has_a_status_and_a_stable_code():
    assert protocol_error(http_errors.LimitRequestLine(5000, 4094))[:2] == (414, "uri_too_long")
    assert protocol_error(http_errors.LimitRequestHeaders("too many"))[:2] == (431, "header_too_large")
    assert protocol_error(http_errors.InvalidRequestLine("GARBAGE"))[:2] == (400, "invalid_request_line")
    assert protocol_error(http_errors.InvalidHeaderName("Bad Header"))[:2] == (400, "invalid_header")
    assert protocol_error(http_errors.InvalidResponseHeader("X"))[:2] == (500, "internal_error")
    assert protocol_error(RuntimeError("boom"))[:2] == (500, "internal_error")
    head, _, body = problem_response(*protocol_error(http_errors.LimitRequestLine(5000, 4094))).partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 414 ") and b"Content-Type: application/problem+json" in head
    assert b"Connection: close" in head and json.loads(body)["code"] == "uri_too_long"
    assert int(head.split(b"Content-Length: ")[1].split(b"\r\n")[0]) == len(body)


CPU_OFFLOAD_SCRIPT = r"""
from gevent import monkey
monkey.patch_all()
import gevent
from gevent.monkey import get_original
from api.serving import cpu_offload

allocate_lock = get_original("_thread", "allocate_lock")  # an OS lock: any thread may release it

def a_greenlet_ran_during(run, bound):
    # The work waits (up to ``bound`` s) for a greenlet spawned just before it: only if the
    # event loop runs beside the work can that greenlet run and release it.
    released = allocate_lock()
    released.acquire()
    gevent.spawn(released.release)
    return run(lambda: released.acquire(timeout=bound))

offload = cpu_offload()
assert offload is not None
print(a_greenlet_ran_during(lambda fn: fn(), 0.2), a_greenlet_ran_during(offload, 30))
"""


def test_under_gevent_cpu_heavy_work_runs_beside_the_event_loop_not_instead_of_it():
    """A bot's thinking offloaded to a native thread leaves the worker's other greenlets
    running: one spawned before it runs while it works. Run in place, the work holds the only
    thread: no greenlet can run until it ends (its wait runs out, whatever the bound)."""
    import subprocess
    import sys
    from pathlib import Path

    out = subprocess.run(
        [sys.executable, "-c", CPU_OFFLOAD_SCRIPT],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).resolve().parents[2],
        check=True,
    ).stdout.split()
    assert out == ["False", "True"]


def test_without_gevent_work_runs_in_place():
    from api.serving import cpu_offload

    assert cpu_offload() is None


def test_with_log_format_json_the_access_line_is_one_object_without_the_query(monkeypatch):
    monkeypatch.setenv("LOG_FORMAT", "json")
    config = Config()
    config.set("accesslog", "-")
    logger = AccessLogger(config)
    (handler,) = logger.access_log.handlers  # gunicorn's, with the formatter the logger gave it
    written: list[str] = []
    monkeypatch.setattr(handler, "emit", lambda record: written.append(handler.format(record)))
    context = logs.LogContext("req-7", route="/v1/matches/<string:match_id>/stream", match_id="m")
    request = SimpleNamespace(method="GET", path="/v1/matches/m/stream", headers=[("AUTHORIZATION", "Bearer s3cret")])
    response = SimpleNamespace(status="200 OK", headers=[], sent=10, headers_sent=True)
    environ = {"REMOTE_ADDR": "10.0.0.9", logs.ENVIRON_KEY: context, "QUERY_STRING": "token=s3cret"}
    logger.access(response, request, environ, timedelta(milliseconds=3))
    (line,) = written
    assert "s3cret" not in line
    assert {key: value for key, value in json.loads(line).items() if key != "time"} == {
        "level": "info",
        "logger": "gunicorn.access",
        "event": "request",
        "request_id": "req-7",
        "route": "/v1/matches/<string:match_id>/stream",
        "match_id": "m",
        "method": "GET",
        "path": "/v1/matches/m/stream",
        "status": 200,
        "duration": 0.003,
        "bytes": 10,
        "remote": "10.0.0.9",
    }


def test_a_json_line_redacts_a_url_token_in_its_message_and_traceback():
    try:
        raise RuntimeError("fetching /v1/matches/m/stream?token=s3cret failed")
    except RuntimeError:
        record = logging.LogRecord("api", logging.ERROR, __file__, 1, "GET %s", ("/x?token=s3cret",), sys.exc_info())
    line = json.loads(logs.JsonFormatter().format(record))
    assert line["event"] == "GET /x?token=[redacted]" and line["level"] == "error"
    assert "token=[redacted]" in line["exception"] and "s3cret" not in json.dumps(line)


def test_the_log_format_is_text_unless_json_is_asked_for():
    assert logs.log_format({}) == logs.log_format({"LOG_FORMAT": ""}) == "text"
    assert logs.log_format({"LOG_FORMAT": " JSON "}) == "json"
    with pytest.raises(ValueError, match="LOG_FORMAT"):
        logs.log_format({"LOG_FORMAT": "yaml"})
