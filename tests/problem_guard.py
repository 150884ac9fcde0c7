"""Every problem an operation answers during a test must be declared for it in the document.

The fixture :func:`answered_problems_are_declared` (autouse in ``tests/api`` and
``tests/e2e``) listens to every response the app sends in-process (Flask's
``request_finished``, whichever app and thread sent it). For each problem document it
records the operation (the route's rule and the method, as the OpenAPI document names
them), the status and the ``code``; when the test ends, it fails the test if an operation
answered a (status, code) its documented responses do not list in ``x-problem-codes``:
the response of that status, or the default response where the operation documents no
response of that status (OpenAPI's rule). So the whole API suite and the fuzzer
(``tests/api/test_fuzz_openapi.py``) check that every list is complete; the other
direction, every declared code reached, is ``tests/api/test_problem_codes.py``.

What no operation answers is not checked here: a path no route matches (404 ``not_found``),
a method the route lacks (405), routes outside the document (the web table, a test's own
probe routes), and what the WSGI middleware or gunicorn answer before Flask runs (all of it
in every operation's default response).
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator

import pytest
from flask import Flask, Response, request, request_finished

from api.http.errors import PROBLEM_CONTENT_TYPE
from api.http.problem_codes import CODES_EXTENSION

_PARAMETER = re.compile(r"<(?:[^:<>]+:)?([^<>]+)>")
_DECLARED: dict[int, dict] = {}  # id(app) -> its document's declarations (cached per app)


def openapi_path(rule: str) -> str:
    """``/v1/matches/<string:match_id>/seats/<int:seat>`` -> ``/v1/matches/{match_id}/seats/{seat}``."""
    return _PARAMETER.sub(r"{\1}", rule)


def declared_problems(document: dict) -> dict[tuple[str, str], dict[str, set[str]]]:
    """(method, path) -> status (``"409"``, ``"default"``) -> the codes its response declares."""
    responses = document.get("components", {}).get("responses", {})
    declared = {}
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method == "parameters":
                continue
            by_status = {}
            for status, response in operation.get("responses", {}).items():
                if "$ref" in response:
                    response = responses[response["$ref"].rsplit("/", 1)[1]]
                by_status[status] = set(response.get(CODES_EXTENSION, ()))
            declared[(method.upper(), path)] = by_status
    return declared


def is_declared(by_status: dict[str, set[str]], status: int, code: str) -> bool:
    """OpenAPI's rule: the response of that status if there is one, else the default response."""
    codes = by_status.get(str(status))
    if codes is None:
        codes = by_status.get("default", set())
    return code in codes


class Recorder:
    """The problems answered while a test runs, and the undeclared ones among them."""

    def __init__(self) -> None:
        self.answered: list[tuple[str, str, int, str]] = []  # (method, path, status, code)
        self.undeclared: list[str] = []
        self._lock = threading.Lock()

    def __call__(self, sender: Flask, response: Response, **_extra) -> None:
        if response.status_code < 400 or response.mimetype != PROBLEM_CONTENT_TYPE or request.url_rule is None:
            return
        api = sender.extensions.get("boneyard.api")
        if api is None:
            return
        declared = _DECLARED.get(id(sender))
        if declared is None:
            declared = _DECLARED[id(sender)] = declared_problems(api.spec.to_dict())
        method = "GET" if request.method == "HEAD" else request.method
        operation = (method, openapi_path(request.url_rule.rule))
        if operation not in declared:
            return  # not an operation of the document (web table, probes, OPTIONS)
        code = json.loads(response.get_data())["code"]
        with self._lock:
            self.answered.append((*operation, response.status_code, code))
            if not is_declared(declared[operation], response.status_code, code):
                self.undeclared.append(f"{operation[0]} {operation[1]} answered {response.status_code} {code!r}")


@pytest.fixture(autouse=True)
def answered_problems_are_declared() -> Iterator[Recorder]:
    recorder = Recorder()
    request_finished.connect(recorder)
    try:
        yield recorder
    finally:
        request_finished.disconnect(recorder)
        _DECLARED.clear()  # an app id may be reused by the next test's app
    if recorder.undeclared:
        pytest.fail(
            "problems answered but not declared in the OpenAPI document (api/http/problem_codes.py, "
            "the operation's problems(...)):\n" + "\n".join(sorted(set(recorder.undeclared))),
            pytrace=False,
        )
