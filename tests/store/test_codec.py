"""The event codec: dicts <-> (type, schema_version, data)."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

from api.store import codec
from api.store.codec import EventCodecError, decode_event, encode_event


def test_the_codec_doctests_pass():
    failures, _ = doctest.testmod(codec)
    assert failures == 0


def test_encode_splits_off_the_type_and_decode_joins_it_back():
    event = {"type": "hand_started", "hand": 3, "dealer": 1}
    encoded = encode_event(event)
    assert (encoded.type, encoded.schema_version, encoded.data) == (
        "hand_started",
        1,
        {"hand": 3, "dealer": 1},
    )
    assert decode_event(encoded.type, encoded.schema_version, encoded.data) == event


def test_tuples_become_lists_like_they_will_in_the_database():
    assert encode_event({"type": "t", "tile": (6, 3)}).data == {"tile": [6, 3]}


@pytest.mark.parametrize(
    "event",
    [
        {"seat": 1},
        {"type": "TilePlayed"},
        {"type": "api.rules.events.TilePlayed"},
        {"type": ""},
        {"type": "x" * 65},
        {"type": "t", "when": object()},
        {"type": "t", "x": float("inf")},
        ["type", "t"],
    ],
)
def test_events_that_cannot_be_stored_are_refused(event):
    with pytest.raises(EventCodecError):
        encode_event(event)


def test_the_codec_does_not_import_the_rules_engine():
    source = Path(codec.__file__).read_text(encoding="utf-8")
    assert "api.rules" not in source.replace("``api.rules``", "")
