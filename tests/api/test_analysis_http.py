"""``GET /v1/matches/{id}/analysis`` and ``/record?annotate=analysis``: the analysis after a match,
made by the runner in the background, opened only after the end (it shows every hand)."""

from __future__ import annotations

from api.bots.analysis import analyse
from api.records.annotations import read_annotation
from api.records.model import Comment, Move
from api.records.text import parse
from api.services import analyses
from api.services.analyses import ANALYSIS_ATTEMPTS, AnalysisRunner
from api.tools.golden import log_of

from .helpers import assert_problem, auth, create, tokens_of
from .stored_matches import SHORT, store_ended_match

HUMAN_AND_BOT = [{"name": "Ana", "type": "remote"}, {"name": "Bo", "type": "bot", "level": "greedy"}]


def run_analyses(app) -> int:
    return AnalysisRunner(app.extensions["boneyard.bus"].handle).drain()


def test_the_analysis_is_not_ready_until_the_runner_has_made_it_then_read_with_an_etag(app, client):
    match_id, audit = store_ended_match(app.extensions["boneyard.store"], SHORT)
    assert_problem(client.get(f"/v1/matches/{match_id}/analysis"), 409, "analysis_not_ready")
    assert_problem(client.get(f"/v1/matches/{match_id}/record?annotate=analysis"), 409, "analysis_not_ready")
    assert run_analyses(app) == 1
    assert run_analyses(app) == 0  # made once
    response = client.get(f"/v1/matches/{match_id}/analysis")
    assert response.status_code == 200
    body = response.get_json()
    expected = analyse(log_of(audit), audit["seed"]).to_json()
    assert {k: v for k, v in body.items() if k not in ("match_id", "seq")} == expected
    assert body["match_id"] == match_id and body["seq"] == len(audit["events"])
    assert [s["seat"] for s in body["seats"]] == [0, 1] and body["decisions"]
    again = client.get(f"/v1/matches/{match_id}/analysis", headers={"If-None-Match": response.headers["ETag"]})
    assert again.status_code == 304


def test_the_record_carries_the_analysis_as_annotations_after_each_analysed_move(app, client):
    match_id, _audit = store_ended_match(app.extensions["boneyard.store"], SHORT)
    run_analyses(app)
    analysis = client.get(f"/v1/matches/{match_id}/analysis").get_json()
    plain = client.get(f"/v1/matches/{match_id}/record")
    response = client.get(f"/v1/matches/{match_id}/record?annotate=analysis")
    assert response.status_code == 200 and response.headers["ETag"] != plain.headers["ETag"]
    record = parse(response.get_data(as_text=True))
    assert record.without_comments() == parse(plain.get_data(as_text=True)).without_comments()
    elements = list(record.elements)
    read = [(elements[i - 1], read_annotation(e.text)) for i, e in enumerate(elements) if isinstance(e, Comment)]
    annotated = [(move, words) for move, words in read if words is not None]
    assert len(annotated) == len(analysis["decisions"])
    for (move, words), decision in zip(annotated, analysis["decisions"]):
        assert isinstance(move, Move) and move.seat == decision["seat"] == int(words["seat"])
        assert words["best"] == decision["best"] and float(words["lost"]) == decision["lost"]
        for choice in decision["choices"]:
            known, shown = words[choice["choice"]].split(",")
            assert float(known) == choice["known"] and float(shown) == choice["shown"]
    seats = [e.text for e in elements[-2:]]
    assert seats[0].startswith("%seat 0 decisions=") and seats[1].startswith("%seat 1 decisions=")


def test_during_play_no_one_reads_the_analysis_not_even_a_seat(app, client):
    created = create(client, HUMAN_AND_BOT)
    match_id, token = created["id"], tokens_of(created)[0]
    run_analyses(app)
    for headers in ({}, auth(token)):
        assert_problem(client.get(f"/v1/matches/{match_id}/analysis", headers=headers), 409, "match_not_over")
        response = client.get(f"/v1/matches/{match_id}/record?annotate=analysis", headers=headers)
        assert_problem(response, 409, "match_not_over")


def test_an_unknown_annotation_is_refused(app, client):
    match_id, _audit = store_ended_match(app.extensions["boneyard.store"], SHORT)
    response = client.get(f"/v1/matches/{match_id}/record?annotate=everything")
    assert_problem(response, 422, "invalid_request")


# --- a hint during play -------------------------------------------------------------------------
def test_a_hint_values_the_seats_choices_from_what_it_sees_best_first(client):
    # a long target: no deal ends the match before the seat has had a few choices to weigh
    created = create(client, HUMAN_AND_BOT, rules={"target": 250})
    match_id, token = created["id"], tokens_of(created)[0]
    hinted = 0
    for _ in range(30):
        view = client.get(f"/v1/matches/{match_id}/view", headers=auth(token)).get_json()
        if view["status"] != "playing":
            break
        response = client.get(f"/v1/matches/{match_id}/hint", headers=auth(token))
        assert response.status_code == 200, response.get_json()
        body = response.get_json()
        assert body["seat"] == 0 and body["seq"] == view["seq"]
        values = [c["value"] for c in body["choices"]]
        assert values == sorted(values, reverse=True)
        assert all(c["action"] in view["legal_actions"] for c in body["choices"])
        if body["choices"]:
            hinted += 1
            assert client.get(f"/v1/matches/{match_id}/hint", headers=auth(token)).get_json() == body  # the same
        action = body["choices"][0]["action"] if body["choices"] else view["legal_actions"][0]
        assert client.post(f"/v1/matches/{match_id}/actions", json=action, headers=auth(token)).status_code == 200
    assert hinted >= 2


def test_no_hint_with_another_person_at_the_table_nor_without_a_token(client):
    created = create(client, [{"name": "Ana", "type": "remote"}, {"name": "Ben", "type": "remote"}])
    response = client.get(f"/v1/matches/{created['id']}/hint", headers=auth(tokens_of(created)[0]))
    assert_problem(response, 409, "hint_not_offered")
    assert_problem(client.get(f"/v1/matches/{created['id']}/hint"), 401, "invalid_token")


def test_an_analysis_that_failed_every_attempt_is_answered_analysis_failed(app, client, monkeypatch):
    match_id, _audit = store_ended_match(app.extensions["boneyard.store"], SHORT)

    def broken(job):
        raise RuntimeError("broken")

    monkeypatch.setattr(analyses, "analyse_job", broken)
    runner = AnalysisRunner(app.extensions["boneyard.bus"].handle)
    for _ in range(ANALYSIS_ATTEMPTS - 1):
        assert runner.run_once() == 0
        assert_problem(client.get(f"/v1/matches/{match_id}/analysis"), 409, "analysis_not_ready")
    assert runner.run_once() == 0
    body = assert_problem(client.get(f"/v1/matches/{match_id}/analysis"), 500, "analysis_failed")
    assert body["attempts"] == ANALYSIS_ATTEMPTS and body["match_status"] == "ended"
    assert_problem(client.get(f"/v1/matches/{match_id}/record?annotate=analysis"), 500, "analysis_failed")
