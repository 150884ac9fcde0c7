"""The compiled dumps of the hot answers give marshmallow's output, byte for byte.

The golden vectors' logs are folded event by event and, at every few seqs, each seat's view, a
spectator's, the summary, an events page and an action's answer are dumped twice: by the plans
``api.http.dumping`` compiled from the schemas, and by marshmallow alone. The two must encode to
the same JSON text (the same keys in the same order, the same values)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import marshmallow as ma
import pytest
from marshmallow import fields

from api.http import dumping
from api.http.callers import BUS_KEY
from api.http.conditional import head_part
from api.http.matches import (
    ActionResultSchema,
    EventsPageSchema,
    MatchListSchema,
    MatchSummarySchema,
    SeatViewSchema,
    TrainsViewSchema,
    ViewSchema,
)
from api.rules import ENDED, End, Game, redact_event, view
from api.rules.views import public_summary
from api.services.commands import GetView
from api.services.snapshots import Snapshot, fold, without_seq

from .helpers import TWO_REMOTE, act, create, tokens_of

EXAMPLES = Path(__file__).resolve().parents[2] / "openapi" / "examples"
VECTORS = sorted(EXAMPLES.glob("*.audit.json"))
EVERY = 5  # seqs between two sampled states of a vector (and its last)
CHAIN_HEAD = {"seq": 0, "hash": "0" * 64}


def twice(schema: type[ma.Schema], answer: Any) -> tuple[str, str]:
    """``answer`` dumped by the compiled plan and by marshmallow alone, as JSON text."""
    compiled = json.dumps(schema().dump(answer))
    with dumping.marshmallow_only():
        reference = json.dumps(schema().dump(answer))
    return compiled, reference


def states(path: Path) -> list[tuple[Snapshot, list[dict[str, Any]]]]:
    """A vector's log folded: every EVERY-th state (and the last) with the rows up to it."""
    rows = [
        {k: v for k, v in e.items() if k not in ("schema_version", "prev_hash", "hash")}
        for e in json.loads(path.read_text())["events"]
    ]
    out, snap = [], None
    for i, row in enumerate(rows):
        snap = fold(snap, [row])
        if i % EVERY == 0 or i == len(rows) - 1:
            out.append((snap, rows[: i + 1]))
    return out


def seat_view(snap: Snapshot, seat: int | None) -> dict[str, Any]:
    out = view(snap.state, seat)
    out.update(seq=snap.seq, match_id="m" * 32, chain_head={**CHAIN_HEAD, "seq": snap.seq})
    if snap.state.rules.turn_seconds:
        out["deadline_at"] = None if snap.state.status == ENDED else "2026-12-04T07:00:00+00:00"
    return out


@pytest.mark.parametrize("path", VECTORS, ids=lambda p: p.name.removesuffix(".audit.json"))
def test_every_hot_answer_of_a_golden_log_dumps_as_marshmallow_does(path):
    compared = 0
    for snap, rows in states(path):
        seats = range(len(snap.state.seats))
        for seat in [*seats, None]:
            shown = seat_view(snap, seat)
            assert twice(SeatViewSchema, shown)[0] == twice(SeatViewSchema, shown)[1]
            page = [{"seq": r["seq"], **redact_event(without_seq(r), seat)} for r in rows[-50:]]
            for schema, answer in (
                (
                    EventsPageSchema,
                    {
                        "match_id": shown["match_id"],
                        "seat": seat,
                        "seq": snap.seq,
                        "chain_head": shown["chain_head"],
                        "events": page,
                        "next_after": None,
                    },
                ),
                (
                    ActionResultSchema,
                    {"match_id": shown["match_id"], "seat": seat, "seq": snap.seq, "events": page[-3:], "view": shown},
                ),
            ):
                compiled, reference = twice(schema, answer)
                assert compiled == reference
            compared += 3
        summary = {
            "id": "m" * 32,
            "preset": snap.state.rules.preset,
            "seq": snap.seq,
            "seed_commitment": "c" * 64,
            "rated": False,
            "rules": snap.state.rules.to_dict(),
            "created_at": "2026-12-04T07:00:00+00:00",
            **public_summary(snap.state),
        }
        compiled, reference = twice(MatchSummarySchema, summary)
        assert compiled == reference
        compared += 1
    assert compared > 20


def test_a_view_is_dumped_by_its_games_shape():
    line, trains = (states(EXAMPLES / f"{name}.audit.json")[-1][0] for name in ("standard-draw-2p", "mexican-train-4p"))
    assert SeatViewSchema.shape_of(seat_view(line, 0)) is ViewSchema
    assert SeatViewSchema.shape_of(seat_view(trains, 0)) is TrainsViewSchema
    assert "board" in SeatViewSchema().dump(seat_view(trains, 0))
    assert "line" in SeatViewSchema().dump(seat_view(line, 0))


def test_the_answers_of_a_live_match_dump_as_marshmallow_does(client):
    created = create(client, TWO_REMOTE)
    match_id, tokens = created["id"], tokens_of(created)
    answers = []
    for _ in range(6):
        shown = client.get(f"/v1/matches/{match_id}/view", headers={"Authorization": f"Bearer {tokens[0]}"}).get_json()
        token = tokens[shown["turn"]]
        mover = client.get(f"/v1/matches/{match_id}/view", headers={"Authorization": f"Bearer {token}"}).get_json()
        answers.append(act(client, match_id, token, mover["legal_actions"][0]))
    listed = client.get("/v1/matches").get_json()
    for answer in answers:
        compiled, reference = twice(ActionResultSchema, answer)
        assert compiled == reference
        assert compiled == json.dumps(answer)  # what the client got is what marshmallow dumps
    assert twice(MatchListSchema, listed)[0] == twice(MatchListSchema, listed)[1]


class _Odd(ma.Schema):
    """Fields the plan does not compile, beside ones it does: the schema's own code serializes them."""

    when = fields.DateTime()
    shout = fields.Function(lambda obj: obj["word"].upper())
    word = fields.String()
    flag = fields.Boolean()
    number = fields.Integer()
    named = fields.String(data_key="renamed", attribute="source")
    items = fields.List(fields.Integer())  # a dict's own attribute name: marshmallow's lookup


class _Record(dict):
    """Not a plain dict: dumped by marshmallow whole (the plan reads plain dicts only)."""

    items = None  # type: ignore[assignment]  # as an attribute: marshmallow reads it for the absent key


def test_what_the_plan_does_not_know_is_left_to_marshmallow():
    import datetime

    obj = {
        "when": datetime.datetime(2026, 12, 4, 7, 0, tzinfo=datetime.UTC),
        "word": "tile",
        "flag": "yes",
        "number": True,
        "source": 12,
        "items": [1, 2.0],
    }
    dump = dumping.dumper(_Odd)
    assert dump(obj) == _Odd().dump(obj)
    assert json.dumps(dump(obj)) == json.dumps(_Odd().dump(obj))
    del obj["items"]
    for dumped in (dump, _Odd().dump):  # both look up dict.items, as marshmallow does, and fail alike
        with pytest.raises(TypeError, match="not iterable"):
            dumped(obj)
    record = _Record(word="tile", flag=False, number=3, source="x")
    assert (
        dump(record)
        == _Odd().dump(record)
        == {
            "flag": False,
            "number": 3,
            "renamed": "x",
            "items": None,
            "shout": "TILE",
            "word": "tile",
        }
    )


@pytest.mark.parametrize("sort_keys", [True, False])
def test_json_text_is_the_standard_librarys_text_or_nothing(sort_keys):
    snap = states(EXAMPLES / "mexican-train-4p.audit.json")[-1][0]
    answers = [SeatViewSchema().dump(seat_view(snap, seat)) for seat in (0, None)]
    # the rules' vocabulary (StrEnum) and a str subclass whose __str__ says otherwise: their characters
    answers += [{"end": End.LEFT, "tiles": [Unsaid("6-5")], "game": Game.DRAW}, {Unsaid("key"): "a subclass key"}]
    answers += [{"name": "caf\u00e9"}, {"big": 2**70}, {"control": "a\u001fb\x7f"}]
    # keys not strings: unsorted, orjson's ("2" before "10" as given); sorted, the standard library's
    answers += [{2: "two", 10: "ten", None: "none", True: "yes", "word": {0: [1]}}]
    for answer in answers:
        text = dumping.json_text(answer, sort_keys=sort_keys)
        assert text is None or text == json.dumps(answer, separators=(",", ":"), sort_keys=sort_keys)
    # a view, str subclasses as values: orjson's; non-ASCII, 70 bits, DEL: the standard library's; keys
    # that are not plain strings: orjson's unsorted, the standard library's sorted
    expected = [False] * 3 + [sort_keys] + [True] * 3 + [sort_keys]
    assert [dumping.json_text(a, sort_keys=sort_keys) is None for a in answers] == expected
    assert dumping.json_text(answers[2], sort_keys=True) == '{"end":"left","game":"draw","tiles":["6-5"]}'


class Unsaid(str):
    def __str__(self) -> str:
        return "not what json writes"


def test_a_views_answer_is_the_schemas_dump_in_flasks_json_and_is_kept_per_seat(app, client):
    """GET /view answers the bytes flask-smorest made (marshmallow's dump, Flask's JSON) and the
    same ETag; kept per seat (api.services.rendered): each seat and the spectator get their own,
    the second time too, and a 304 still answers a current ETag."""
    created = create(client, TWO_REMOTE)
    match_id, tokens = created["id"], tokens_of(created)
    askers = {0: tokens[0], 1: tokens[1], None: None}
    for _ in range(2):  # the second round is answered from what the first kept
        for seat, token in askers.items():
            headers = {"Authorization": f"Bearer {token}"} if token else {}
            got = client.get(f"/v1/matches/{match_id}/view", headers=headers)
            with app.app_context(), dumping.marshmallow_only():
                reference = app.extensions[BUS_KEY].handle(GetView(match_id, token))
                body = app.json.response(SeatViewSchema().dump(reference)).get_data()
            assert got.status_code == 200 and got.data == body and got.get_json()["seat"] == seat
            assert got.headers["ETag"] == f'"{reference["seq"]}:{"s" if seat is None else seat}:{head_part(reference)}"'
            assert got.headers["Vary"] == "Authorization" and got.mimetype == "application/json"
            again = client.get(
                f"/v1/matches/{match_id}/view", headers={**headers, "If-None-Match": got.headers["ETag"]}
            )
            assert again.status_code == 304 and again.data == b"" and again.headers["ETag"] == got.headers["ETag"]
    kept = app.extensions[BUS_KEY].flow.rendered_views.kept()
    assert sorted((key.seat is None, key.seat) for key in kept) == [(False, 0), (False, 1), (True, None)]
