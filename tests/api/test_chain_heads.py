"""Chain heads: every view and events page names where the hash chain ended, so a client can
pin it and, once the match has ended, check that /audit reveals a log passing through it.

The checks use the reference client's :func:`verify_pinned` (clients/python), which recomputes
the chain from the rows, and compare the rows' stated hashes directly as well.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from sqlalchemy import select, update

from api.store import tables
from api.store.chain import GENESIS, row_hash, verify_chain

from .helpers import TWO_REMOTE, auth, create, play_bots, tokens_of, view, whole_audit

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "clients" / "python"))

from boneyard_client import PinnedHeadMismatch, PinnedHeads, verify_pinned

SHORT = {"target": 30}  # a few hands of block: a whole match in about a second


def _play_pinning(client, match_id: str, tokens: dict[int, str], pins: PinnedHeads) -> list[dict]:
    """Play to the end, first legal action, pinning the head of every view, action answer and
    events page seen on the way; answers every head shown, in order."""
    shown: list[dict] = []

    def keep(head: dict) -> None:
        shown.append(head)
        pins.pin(match_id, head)

    for _ in range(2000):
        spectator = view(client, match_id)
        keep(spectator["chain_head"])
        if spectator["status"] == "ended":
            return shown
        if spectator["turn"] not in tokens:
            play_bots(client)  # a computer's move beyond the inline budget: the runner's
            continue
        token = tokens[spectator["turn"]]
        seat_view = view(client, match_id, token)
        keep(seat_view["chain_head"])
        page = client.get(f"/v1/matches/{match_id}/events?after={max(0, seat_view['seq'] - 3)}", headers=auth(token))
        keep(page.get_json()["chain_head"])
        answer = client.post(f"/v1/matches/{match_id}/actions", json=seat_view["legal_actions"][0], headers=auth(token))
        assert answer.status_code == 200, answer.get_json()
        keep(answer.get_json()["view"]["chain_head"])
    raise AssertionError("the match did not end")


def _rewrite(app, match_id: str, seq: int) -> None:
    """What someone with write access to the database could do: edit the row at ``seq`` and
    re-hash it and every later row, so that the chain is whole again and ends in a new head."""
    store = app.extensions["boneyard.store"]
    events = tables.events
    with store.unit_of_work() as uow:
        conn = uow.connection
        rows = conn.execute(select(events).where(events.c.match_id == match_id).order_by(events.c.seq)).all()
        prev = rows[seq - 2].hash if seq > 1 else GENESIS
        for row in rows[seq - 1 :]:
            data = dict(row.data)
            if row.seq == seq:
                data["rewritten"] = True  # any change of the row's contents will do
            digest = row_hash(prev, row.seq, row.type, row.schema_version, data)
            conn.execute(
                update(events)
                .where(events.c.match_id == match_id, events.c.seq == row.seq)
                .values(data=data, prev_hash=prev, hash=digest)
            )
            prev = digest
        conn.execute(update(tables.matches).where(tables.matches.c.id == match_id).values(last_hash=prev))
        uow.commit()


def test_every_head_pinned_during_play_is_in_the_audit_log_revealed_at_the_end(make_client):
    # A chosen seed: with a random one a block match to 30 may end within a dozen events, too few
    # heads to make the point (it did, once in CI).
    client = make_client(ALLOW_CLIENT_SEED=True)
    body = {"preset": "standard-block", "seats": TWO_REMOTE, "rules": SHORT, "seed": "chain-heads"}
    response = client.post("/v1/matches", json=body)
    assert response.status_code == 201, response.get_json()
    created = response.get_json()
    pins = PinnedHeads()
    shown = _play_pinning(client, created["id"], tokens_of(created), pins)
    audit = whole_audit(client, created["id"])
    rows = {row["seq"]: row for row in audit["events"]}
    heads = pins.heads(created["id"])
    assert len(heads) > 20 and max(heads) == audit["seq"] == len(rows)
    for head in shown:
        assert rows[head["seq"]]["hash"] == head["hash"]
    assert audit["chain_head"] == {"seq": audit["seq"], "hash": rows[audit["seq"]]["hash"]}
    verify_pinned(audit, heads)  # the chain recomputed from the rows passes through every pin


def test_a_views_head_moves_with_each_event_and_its_etag_with_the_head(app, client, live):
    match_id, tokens, turn = live
    first = client.get(f"/v1/matches/{match_id}/view", headers=auth(tokens[turn]))
    head = first.get_json()["chain_head"]
    assert head["seq"] == first.get_json()["seq"] > 0 and len(head["hash"]) == 64
    page = client.get(f"/v1/matches/{match_id}/events?after=0&limit=2").get_json()
    assert page["chain_head"] == head and [e["seq"] for e in page["events"]] == [1, 2]
    tag = first.headers["ETag"]
    assert (
        client.get(f"/v1/matches/{match_id}/view", headers={**auth(tokens[turn]), "If-None-Match": tag}).status_code
        == 304
    )

    answer = client.post(
        f"/v1/matches/{match_id}/actions", json=first.get_json()["legal_actions"][0], headers=auth(tokens[turn])
    )
    moved = answer.get_json()["view"]["chain_head"]
    assert moved["seq"] == head["seq"] + len(answer.get_json()["events"]) and moved["hash"] != head["hash"]
    now = client.get(f"/v1/matches/{match_id}/view", headers={**auth(tokens[turn]), "If-None-Match": tag})
    assert now.status_code == 200 and now.get_json()["chain_head"] == moved and now.headers["ETag"] != tag
    # the action's answer names the same representation as the view read after it
    assert answer.headers["ETag"] == now.headers["ETag"]

    # A log rewritten under the same seq is a new head: never a 304 that keeps the old one.
    _rewrite(app, match_id, moved["seq"])
    again = client.get(
        f"/v1/matches/{match_id}/view", headers={**auth(tokens[turn]), "If-None-Match": now.headers["ETag"]}
    )
    assert again.status_code == 200 and again.headers["ETag"] != now.headers["ETag"]
    assert again.get_json()["chain_head"]["seq"] == moved["seq"]
    assert again.get_json()["chain_head"]["hash"] != moved["hash"]


def test_a_log_rewritten_after_a_head_was_pinned_no_longer_passes_through_it(app, client):
    created = create(
        client, [TWO_REMOTE[0], {"name": "Ex", "type": "bot", "level": "expert"}], "standard-block", rules=SHORT
    )
    match_id, tokens = created["id"], tokens_of(created)
    early = view(client, match_id, tokens[0])["chain_head"]  # pinned before any move
    pins = PinnedHeads()
    pins.pin(match_id, early)
    _play_pinning(client, match_id, tokens, pins)
    honest = whole_audit(client, match_id)
    verify_pinned(honest, pins.heads(match_id))

    # a computer's move after the early pin is rewritten, and the chain re-hashed whole
    moves = [r["seq"] for r in honest["events"] if r["type"] == "tile_played" and r["seat"] == 1]
    target = next(seq for seq in moves if seq > early["seq"])
    _rewrite(app, match_id, target)
    forged = whole_audit(client, match_id)
    with app.extensions["boneyard.store"].unit_of_work(readonly=True) as uow:
        assert verify_chain(uow.events.load(match_id)) == []  # the chain alone shows nothing: re-hashed whole
    heads = pins.heads(match_id)
    first_caught = min(seq for seq in heads if seq >= target)
    with pytest.raises(PinnedHeadMismatch) as caught:
        verify_pinned(forged, heads)
    assert caught.value.seq == first_caught and caught.value.pinned == heads[first_caught]
    assert f"seq {first_caught}: pinned hash {heads[first_caught]}" in str(caught.value)
    # what was pinned before the rewritten row still holds: the rewrite is after it
    verify_pinned(forged, {seq: digest for seq, digest in heads.items() if seq < target})
    assert forged["events"][early["seq"] - 1]["hash"] == early["hash"]
