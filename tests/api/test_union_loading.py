"""A union body (an action, a seat, a tournament's event) loaded by its shape's schema alone
(``Union.load``): the answer and the errors marshmallow's own two passes give, for every union."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
import pytest

from api.http.matches import ActionSchema, SeatSpecSchema
from api.http.openapi_shapes import Union
from api.http.tournaments import TournamentEventSchema

BODIES: list[Any] = [
    {"type": "play", "tile": [6, 4], "end": "left"},
    {"type": "play", "tile": "6-4"},
    {"type": "play"},  # a required field missing
    {"type": "play", "tile": [6, 4], "colour": "red"},  # a field no shape has
    {"type": "draw"},
    {"type": "draw", "expected_seq": 7},
    {"type": "knock", "expected_seq": "seven"},
    {"type": "pass"},
    {"type": "muggins"},
    {"type": "remote", "name": "Ana"},
    {"type": "bot", "name": "B", "level": "greedy"},
    {"type": "bot", "name": "B", "level": "godlike"},
    {"type": "tournament_paused"},
    {"type": "tournament_cancelled", "reason": "rain"},
    {"type": "tournament_cancelled", "reason": 5},
    {"type": "dance"},  # no such shape
    {"type": 3},
    {},
    [],
    "play",
    None,
]


def marshmallows_own(schema: ma.Schema, body: Any, **options: Any) -> tuple[str, Any]:
    try:
        return "loaded", ma.Schema.load(schema, body, **options)
    except ma.ValidationError as err:
        return "refused", (err.messages, err.data, err.valid_data)


def the_unions(body: Any, schema: ma.Schema) -> tuple[str, Any]:
    try:
        return "loaded", schema.load(body)
    except ma.ValidationError as err:
        return "refused", (err.messages, err.data, err.valid_data)


@pytest.mark.parametrize("union", [ActionSchema, SeatSpecSchema, TournamentEventSchema])
def test_a_union_loads_and_refuses_every_body_as_marshmallows_two_passes_do(union: type[Union]):
    schema = union()
    outcomes = [the_unions(body, schema) for body in BODIES]
    assert outcomes == [marshmallows_own(schema, body) for body in BODIES]
    assert {kind for kind, _ in outcomes} == {"loaded", "refused"}  # both kinds were compared


def test_a_load_other_than_plain_takes_marshmallows_path():
    assert ActionSchema().load([{"type": "draw"}, {"type": "pass"}], many=True) == [{"type": "draw"}, {"type": "pass"}]
    with pytest.raises(ma.ValidationError) as refused:
        ActionSchema().load([{"type": "dance"}], many=True)
    assert refused.value.messages == marshmallows_own(ActionSchema(), [{"type": "dance"}], many=True)[1][0]
    assert refused.value.messages == {"type": ["Must be one of: play, draw, knock, muggins, pass."]}


def test_a_plain_load_is_one_pass_the_shapes(monkeypatch: pytest.MonkeyPatch):
    """The union's own pass (its ``_deserialize`` of ``_shape``) does not run: the shape's only."""
    schema, passes = ActionSchema(), []
    real = ma.Schema._deserialize

    def counted(self: ma.Schema, *args: Any, **kwargs: Any) -> Any:
        passes.append(type(self).__name__)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(ma.Schema, "_deserialize", counted)
    assert schema.load({"type": "draw"}) == {"type": "draw"}
    assert passes == ["DrawActionSchema"]
    assert ma.Schema.load(schema, {"type": "draw"}) == {"type": "draw"}
    assert passes == ["DrawActionSchema", "DrawActionSchema", "ActionSchema"]  # marshmallow's: two
