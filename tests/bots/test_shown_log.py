"""A bot turn's log (``api.bots.turns.ShownLog``): the hand's events as the seat is shown them,
redacted only when a bot reads them, and then exactly what the eager redaction gave."""

from __future__ import annotations

import pytest

from api.bots.turns import ShownLog, question_for
from api.rules import UnredactableEvent, redact_event

from .support import Position


def hand_events(position: Position) -> list[dict]:
    """The events since the hand began, as logged (no seq)."""
    logged = [event.to_dict() for event in position.events]
    start = next(i for i, event in enumerate(logged) if event["type"] == "hand_started")
    return logged[start:]


def test_the_log_is_what_redacting_each_event_gives_seq_or_no_seq():
    position = Position(["6-6 5-4 3-2", "6-5 4-4 1-0"]).play(0, "6-6").play(1, "6-5")
    events = hand_events(position)
    eager = [redact_event(event, 1) for event in events]
    assert ShownLog(events, 1) == eager
    rows = [{"seq": seq, **event} for seq, event in enumerate(events, start=3)]
    shown = ShownLog(rows, 1)
    assert list(shown) == eager and shown[0] == eager[0] and shown[1:] == eager[1:] and len(shown) == len(eager)
    assert all("seq" not in event for event in shown)
    assert shown[0]["hand"] == [[6, 5], [4, 4], [1, 0]]  # seat 1's own tiles, redacted for it
    assert ShownLog(rows, 0) != shown  # another seat is shown another hand


def test_nothing_is_redacted_until_the_log_is_read():
    """An event no redactor knows raises when redacted: a log that holds one is made without a
    complaint, and raises at its first read."""
    shown = ShownLog([{"type": "no_such_event"}], 0)
    assert len(shown) == 1 and not shown.was_read
    with pytest.raises(UnredactableEvent):
        shown[0]


def test_the_events_are_taken_as_they_were_when_asked():
    position = Position(["6-6 5-4 3-2", "6-5 4-4 1-0"]).play(0, "6-6")
    events = hand_events(position)
    shown = ShownLog(events, 1)
    events.append(position.play(1, "6-5").events[-1].to_dict())  # a later event, after the question
    assert len(shown) == len(events) - 1
    assert [event["type"] for event in shown] == ["hand_started", "tile_played"]


def test_a_greedy_turn_never_reads_its_log_and_an_expert_turn_does():
    for level, read in (("greedy", False), ("expert", True)):
        position = Position(["6-6 5-4 3-2", "6-5 4-4 1-0"]).play(0, "6-6")
        position.state.seats[1]["level"] = level
        turn = question_for(position.state, 1, hand_events(position), "seed", len(position.events))
        assert isinstance(turn.log, ShownLog) and turn.level == level
        turn.choose()
        assert turn.log.was_read is read
