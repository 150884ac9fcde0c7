"""``GET /v1/matches/{id}/record``: after the end the whole match as a record, which replays to
its audit log; during play a seat's own record, with nothing of the others' tiles nor the seed."""

from __future__ import annotations

from api.records.model import Boneyard, Deal, Move
from api.records.replay import replay
from api.records.text import parse
from api.tools.golden import log_of

from .helpers import act, assert_problem, auth, create, tokens_of, view, whole_audit
from .stored_matches import DOUBLE_NINE, store_ended_match

HUMAN_AND_BOT = [{"name": "Ana", "type": "remote"}, {"name": "Bo", "type": "bot", "level": "greedy"}]


def test_an_ended_matchs_record_replays_to_its_audit_log(app, client):
    match_id, audit = store_ended_match(app.extensions["boneyard.store"], DOUBLE_NINE)
    response = client.get(f"/v1/matches/{match_id}/record")
    assert response.status_code == 200
    assert response.headers["Content-Type"] == "text/plain; charset=utf-8"
    record = parse(response.get_data(as_text=True))
    assert record.value("Match") == match_id and record.value("Seed") == audit["seed"]
    assert record.value("Event") == "Casual match" and record.value("Site") == "http://localhost"
    assert [event.to_dict() for event in replay(record)] == log_of(whole_audit(client, match_id))
    again = client.get(f"/v1/matches/{match_id}/record", headers={"If-None-Match": response.headers["ETag"]})
    assert again.status_code == 304 and again.headers["ETag"] == response.headers["ETag"]


def test_during_play_a_seat_reads_its_own_record_and_a_spectator_none(client):
    created = create(client, HUMAN_AND_BOT)
    match_id, token = created["id"], tokens_of(created)[0]
    assert_problem(client.get(f"/v1/matches/{match_id}/record"), 409, "match_not_over")
    while True:  # play on until the other seat has drawn a tile
        text = client.get(f"/v1/matches/{match_id}/record", headers=auth(token)).get_data(as_text=True)
        record = parse(text)
        if any(isinstance(m, Move) and m.kind == "draw" and m.seat == 1 for m in record.elements):
            break
        seat_view = view(client, match_id, token)
        assert seat_view["status"] == "playing"
        act(client, match_id, token, seat_view["legal_actions"][-1])
    deals = [e for e in record.elements if isinstance(e, Deal)]
    seen = client.get(f"/v1/matches/{match_id}/events?limit=1000", headers=auth(token)).get_json()["events"]
    dealt = [tuple(tuple(t) for t in e["hand"]) for e in seen if e["type"] == "hand_started"]
    assert [d.tiles for d in deals if d.seat == 0] == dealt
    assert all(t is None for d in deals if d.seat == 1 for t in d.tiles)
    assert all(t is None for b in record.elements if isinstance(b, Boneyard) for t in b.tiles)
    assert all(m.tile is None for m in record.elements if isinstance(m, Move) and m.kind == "draw" and m.seat == 1)
    assert record.value("Seed") is None and record.value("Result") == "*"
    assert "[Seed " not in text
