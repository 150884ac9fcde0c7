"""A tournament's name (issue 37): given at creation by its portal, shown to players as given,
null when none; validated like a seat's name."""

from __future__ import annotations

import pytest

TOURNAMENTS = "/v1/tournaments"
ROUND_ROBIN = {"format": "round_robin", "turn_seconds": 60}


def test_a_named_tournament_shows_its_name_as_given_and_in_its_log(portal):
    name = "Friday <b>Block</b> & co"
    made = portal.post(TOURNAMENTS, json={**ROUND_ROBIN, "name": name})
    assert made.status_code == 201, made.json
    assert made.json["settings"]["name"] == name
    read = portal.get(f"{TOURNAMENTS}/{made.json['id']}")
    assert read.json["settings"]["name"] == name
    events = portal.get(f"{TOURNAMENTS}/{made.json['id']}/events").json
    assert events["events"][0]["event"]["settings"]["name"] == name  # the log alone says what it was


def test_an_unnamed_tournament_answers_null(portal):
    made = portal.post(TOURNAMENTS, json=ROUND_ROBIN)
    assert made.status_code == 201, made.json
    assert made.json["settings"]["name"] is None


@pytest.mark.parametrize("name", ["", "x" * 41, "tab\there", 7])
def test_a_name_that_is_empty_too_long_not_text_or_not_a_string_is_refused(portal, name):
    refused = portal.post(TOURNAMENTS, json={**ROUND_ROBIN, "name": name})
    assert refused.status_code == 422
    assert refused.json["code"] == "invalid_request"
    assert "name" in str(refused.json)
