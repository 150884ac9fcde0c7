"""The Python reference client's ``analysis`` and ``hint`` (clients/python/boneyard_client) against
the real app, in process: its requests are sent to the Flask test client by a session that speaks
``requests``' interface."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import requests
from requests.structures import CaseInsensitiveDict

from api.services import analyses
from api.services.analyses import ANALYSIS_ATTEMPTS, AnalysisRunner

from .helpers import create, tokens_of
from .stored_matches import SHORT, store_ended_match

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "clients" / "python"))

from boneyard_client import (  # (found through the sys.path line above)
    AnalysisFailed,
    AnalysisNotReady,
    BoneyardClient,
    HintNotOffered,
)

SERVER = "http://boneyard.test"
AGAINST_A_BOT = [{"name": "Ana", "type": "remote"}, {"name": "Bo", "type": "bot", "level": "greedy"}]
TWO_PEOPLE = [{"name": "Ana", "type": "remote"}, {"name": "Cy", "type": "remote"}]


class InProcess:
    """A ``requests.Session`` stand-in sending each request to the app's test client; counts them."""

    def __init__(self, client) -> None:
        self.client = client
        self.headers: dict[str, str] = {}
        self.sent = 0

    def request(self, method, url, json=None, headers=None, params=None, timeout=None):
        self.sent += 1
        answer = self.client.open(
            url.removeprefix(SERVER),
            method=method,
            json=json,
            headers={**self.headers, **(headers or {})},
            query_string=params,
        )
        response = requests.Response()
        response.status_code = answer.status_code
        response._content = answer.get_data()
        response.headers = CaseInsensitiveDict(answer.headers)
        return response


@pytest.fixture
def session(client) -> InProcess:
    return InProcess(client)


@pytest.fixture
def api(session) -> BoneyardClient:
    return BoneyardClient(SERVER, session=session, retries=2, backoff=0.0)  # type: ignore[arg-type]


def test_the_client_reads_an_analysis_once_made_and_says_when_it_is_not_ready(app, api):
    match_id, _audit = store_ended_match(app.extensions["boneyard.store"], SHORT)
    with pytest.raises(AnalysisNotReady) as not_ready:
        api.analysis(match_id)
    assert not_ready.value.status == 409
    assert AnalysisRunner(app.extensions["boneyard.bus"].handle).drain() == 1
    review = api.analysis(match_id)
    assert review["match_id"] == match_id and review["decisions"]
    assert [s["seat"] for s in review["seats"]] == [0, 1]


def test_an_analysis_the_server_gave_up_on_is_raised_at_once_not_retried(app, api, session, monkeypatch):
    match_id, _audit = store_ended_match(app.extensions["boneyard.store"], SHORT)
    monkeypatch.setattr(analyses, "analyse_job", lambda job: 1 / 0)
    runner = AnalysisRunner(app.extensions["boneyard.bus"].handle)
    for _ in range(ANALYSIS_ATTEMPTS):
        runner.run_once()
    sent = session.sent
    with pytest.raises(AnalysisFailed) as failed:
        api.analysis(match_id)
    assert failed.value.status == 500 and failed.value.problem["attempts"] == ANALYSIS_ATTEMPTS
    assert session.sent == sent + 1  # a 500 the server says is final is not sent again


def test_the_client_asks_a_hint_on_its_turn_against_the_computer_and_not_at_a_table_of_people(client, api):
    created = create(client, AGAINST_A_BOT, rules={"target": 250})
    match_id, token = created["id"], tokens_of(created)[0]
    weighed = 0
    for _ in range(30):
        view = client.get(f"/v1/matches/{match_id}/view", headers={"Authorization": f"Bearer {token}"}).get_json()
        if view["status"] != "playing" or weighed:
            break
        hint = api.hint(match_id, token)
        assert hint["match_id"] == match_id and hint["seat"] == 0 and hint["seq"] == view["seq"]
        assert all(c["action"] in view["legal_actions"] for c in hint["choices"])
        values = [c["value"] for c in hint["choices"]]
        assert values == sorted(values, reverse=True)
        weighed += len(values) >= 2
        action = hint["choices"][0]["action"] if hint["choices"] else view["legal_actions"][0]
        answer = client.post(
            f"/v1/matches/{match_id}/actions", json=action, headers={"Authorization": f"Bearer {token}"}
        )
        assert answer.status_code == 200
    assert weighed == 1
    people = create(client, TWO_PEOPLE)
    with pytest.raises(HintNotOffered) as refused:
        api.hint(people["id"], tokens_of(people)[0])
    assert refused.value.status == 409
