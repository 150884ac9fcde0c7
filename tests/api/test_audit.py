"""/audit pages through a log as /events does; /fairness is checked once, then read from the store."""

from __future__ import annotations

import json
import threading

from sqlalchemy import func, select, text

from api import create_app
from api.services import fairness
from api.services.commands import GetFairness
from api.store import tables

from .helpers import assert_problem, whole_audit
from .stored_matches import DOUBLE_NINE, LONG, SHORT, store_ended_match

HEADER = ("match_id", "seed", "seed_commitment", "shuffle_algorithm", "seq")


def _store(app):
    return app.extensions["boneyard.store"]


def test_the_audit_of_a_long_log_comes_in_pages_each_with_the_seed_and_seq(app, client):
    match_id, expected = store_ended_match(_store(app), LONG)
    total = expected["seq"]
    assert total > 1000
    first = client.get(f"/v1/matches/{match_id}/audit").get_json()
    assert [e["seq"] for e in first["events"]] == list(range(1, 1001))  # 1,000 rows by default
    assert first["next_after"] == 1000
    pages, after = [], 0
    while after is not None:
        page = client.get(f"/v1/matches/{match_id}/audit?after={after}&limit=400").get_json()
        assert {k: page[k] for k in HEADER} == {k: expected[k] for k in HEADER}
        pages.append(page)
        after = page["next_after"]
    assert [len(p["events"]) for p in pages] == [400, 400, 400, total - 1200]
    assert [p["next_after"] for p in pages] == [400, 800, 1200, None]
    assert [row for p in pages for row in p["events"]] == expected["events"]
    assert whole_audit(client, match_id, limit=777) == expected


def test_every_audit_page_names_the_shuffle_of_the_matchs_set(app, client):
    """A double-nine match is dealt by boneyard-shuffle-v2 (openapi/shuffle.md): every page's
    header says so, the pages without match_created too, as the replayers require."""
    match_id, expected = store_ended_match(_store(app), DOUBLE_NINE)
    assert expected["events"][0]["seed_algorithm"] == expected["shuffle_algorithm"] == "boneyard-shuffle-v2"
    after = 0
    while after is not None:
        page = client.get(f"/v1/matches/{match_id}/audit?after={after}&limit=30").get_json()
        assert page["shuffle_algorithm"] == "boneyard-shuffle-v2"
        after = page["next_after"]
    assert whole_audit(client, match_id, limit=30) == expected
    short_id, short = store_ended_match(_store(app), SHORT)  # double-six: v1, as ever
    assert client.get(f"/v1/matches/{short_id}/audit?after=5").get_json()["shuffle_algorithm"] == "boneyard-shuffle-v1"
    assert short["shuffle_algorithm"] == "boneyard-shuffle-v1"


def test_audit_pages_are_bounded_and_past_the_end_is_an_empty_last_page(app, client):
    match_id, expected = store_ended_match(_store(app), LONG)
    everything = client.get(f"/v1/matches/{match_id}/audit?limit=5000").get_json()
    assert len(everything["events"]) == expected["seq"] and everything["next_after"] is None
    for query in ("limit=5001", "limit=0", "after=-1", "after=x"):
        assert_problem(client.get(f"/v1/matches/{match_id}/audit?{query}"), 422, "invalid_request")
    for after in (expected["seq"], expected["seq"] + 50):
        page = client.get(f"/v1/matches/{match_id}/audit?after={after}").get_json()
        assert page["events"] == [] and page["next_after"] is None and page["seq"] == expected["seq"]


def test_an_audit_page_has_an_etag_and_answers_304_to_it(app, client):
    match_id, _ = store_ended_match(_store(app), SHORT)
    page = client.get(f"/v1/matches/{match_id}/audit?after=3&limit=10")
    tag = page.headers["ETag"]
    assert (
        client.get(f"/v1/matches/{match_id}/audit?after=3&limit=10", headers={"If-None-Match": tag}).status_code == 304
    )
    other = client.get(f"/v1/matches/{match_id}/audit?after=13&limit=10", headers={"If-None-Match": tag})
    assert other.status_code == 200 and other.headers["ETag"] != tag


def _reports(app) -> list[dict]:
    with _store(app).engine.connect() as conn:
        return [
            row.report if isinstance(row.report, dict) else json.loads(row.report)
            for row in conn.execute(select(tables.fairness_reports.c.report))
        ]


def test_the_fairness_check_is_made_once_then_read_from_the_store(app, client):
    match_id, expected = store_ended_match(_store(app), SHORT)
    assert _reports(app) == []
    report = client.get(f"/v1/matches/{match_id}/fairness").get_json()
    assert report["verified"] is True and report["events_checked"] == expected["seq"]
    assert _reports(app) == [report]
    with _store(app).engine.begin() as conn:  # edited after the check: the stored report stands
        conn.execute(
            text("UPDATE events SET hash = :h WHERE match_id = :m AND seq = 2"), {"h": "0" * 64, "m": match_id}
        )
    assert client.get(f"/v1/matches/{match_id}/fairness").get_json() == report


def test_the_runner_can_make_the_report_when_the_match_ends_and_readers_get_that_one(app, client, monkeypatch):
    match_id, _ = store_ended_match(_store(app), SHORT)
    made = app.extensions["boneyard.bus"].handle(GetFairness(match_id))
    monkeypatch.setattr(fairness, "check", lambda *_: (_ for _ in ()).throw(AssertionError("checked again")))
    assert client.get(f"/v1/matches/{match_id}/fairness").get_json() == made == _reports(app)[0]


def test_a_report_another_server_stored_first_is_the_one_answered(app, database_url, monkeypatch):
    """The lost race: this server checks while another stores its report; inserting ours then
    finds theirs, which both answer (no error, one row)."""
    other = create_app({"TESTING": True, "DATABASE_URL": database_url, "RATELIMIT_ENABLED": False})
    try:
        match_id, _ = store_ended_match(_store(app), SHORT)
        real_check, made_by = fairness.check, []

        def racing_check(record, stored):
            me = "this" if not made_by else "other"
            made_by.append(me)
            if me == "this":
                other.extensions["boneyard.bus"].handle(GetFairness(match_id))  # stores first
            return {**real_check(record, stored), "made_by": me}

        monkeypatch.setattr(fairness, "check", racing_check)
        answered = app.extensions["boneyard.bus"].handle(GetFairness(match_id))
        assert made_by == ["this", "other"]
        assert answered["made_by"] == "other" and _reports(app) == [answered]
    finally:
        _store(other).dispose()


def test_concurrent_first_requests_all_get_the_one_stored_report(app):
    match_id, _ = store_ended_match(_store(app), LONG)
    answers, barrier = [], threading.Barrier(4)

    def ask():
        client = app.test_client()
        barrier.wait()
        response = client.get(f"/v1/matches/{match_id}/fairness")
        answers.append((response.status_code, response.get_json()))

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert [status for status, _ in answers] == [200] * 4
    assert all(body == answers[0][1] for _, body in answers) and answers[0][1]["verified"] is True
    with _store(app).engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(tables.fairness_reports)).scalar_one() == 1


def test_the_audit_and_the_fairness_check_wait_for_the_end(client):
    created = client.post(
        "/v1/matches", json={"seats": [{"name": "A", "type": "remote"}, {"name": "B", "type": "remote"}]}
    ).get_json()
    assert_problem(client.get(f"/v1/matches/{created['id']}/audit?limit=10"), 409, "match_not_over")
    assert_problem(client.get(f"/v1/matches/{created['id']}/fairness"), 409, "match_not_over")
    assert_problem(client.get(f"/v1/matches/{'0' * 32}/fairness"), 404, "unknown_match")
