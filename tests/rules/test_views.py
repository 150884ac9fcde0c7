"""Redaction fails closed: one redactor per event type, and none means an error, not a leak."""

from __future__ import annotations

import pytest

from api.rules import (
    EVENT_TYPES,
    REDACTORS,
    RulesError,
    UnredactableEvent,
    create_match,
    public_summary,
    redact_event,
    replay,
    resolve_rules,
    start_match,
    view,
)
from api.rules.events import HandStarted, TileDrawn
from api.rules.views import public
from tests.rules.support import SEED, T, seats, tiles

# The decision, written down a second time on purpose: an event type moving in or out of
# this set (a new type shown as it is, or a public one starting to hide something) must be
# a visible change to this test too.
SHOWN_AS_THEY_ARE = {
    "match_created",
    "seat_claimed",
    "tiles_turned_up",
    "tile_played",
    "knocked",
    "points_scored",
    "hand_ended",
    "match_ended",
    "turn_timed_out",
    "seat_replaced",
    "tile_placed",
    "passed",
    "round_ended",
}


def test_every_event_type_has_a_redactor_and_no_redactor_is_for_a_type_that_does_not_exist():
    assert set(REDACTORS) == set(EVENT_TYPES), (
        f"without a redactor: {sorted(set(EVENT_TYPES) - set(REDACTORS))}; "
        f"for no event type: {sorted(set(REDACTORS) - set(EVENT_TYPES))}"
    )
    assert {kind for kind, redactor in REDACTORS.items() if redactor is public} == SHOWN_AS_THEY_ARE
    assert set(EVENT_TYPES) - SHOWN_AS_THEY_ARE == {"hand_started", "tile_drawn", "round_started"}


@pytest.mark.parametrize(
    "event",
    [{"type": "portal_opened", "seat": 0, "hand": [[6, 6]]}, {"type": None}, {"type": ["hand_started"]}, {"seat": 0}],
)
def test_an_event_whose_type_has_no_redactor_raises_instead_of_passing_through(event):
    for seat in (0, 1, None):
        with pytest.raises(UnredactableEvent) as raised:
            redact_event(event, seat)
        assert raised.value.kind == event.get("type")
        assert repr(event.get("type")) in str(raised.value)
    # a defect of the server, not a refusal of the caller's input: the HTTP layer must not
    # map it to a 4xx problem as it does every RulesError
    assert not issubclass(UnredactableEvent, RulesError) and issubclass(UnredactableEvent, LookupError)


def test_the_table_cannot_be_changed_at_run_time():
    with pytest.raises(TypeError):
        REDACTORS["portal_opened"] = public  # type: ignore[index]
    with pytest.raises(TypeError):
        del REDACTORS["tile_drawn"]  # type: ignore[attr-defined]


def test_hand_started_shows_a_seat_its_own_hand_and_everyone_only_how_many_tiles_the_others_hold():
    event = HandStarted(
        hand_number=2,
        leader=1,
        hands=(tuple(tiles("6-6 5-4 3-0")), tuple(tiles("2-2 6-1 4-0"))),
        boneyard=tuple(tiles("1-1 5-5")),
    ).to_dict()
    counts = {"type": "hand_started", "hand_number": 2, "leader": 1, "hand_counts": [3, 3], "boneyard": 2}
    assert redact_event(event, 0) == {**counts, "hand": [[6, 6], [5, 4], [3, 0]]}
    assert redact_event(event, 1) == {**counts, "hand": [[2, 2], [6, 1], [4, 0]]}
    assert redact_event(event, None) == counts  # a spectator: no hand at all
    assert event["boneyard"] == [[1, 1], [5, 5]]  # the stored event itself is untouched


def test_tile_drawn_shows_the_tile_only_to_the_seat_that_drew_it():
    event = TileDrawn(seat=1, tile=T("5-3"), auto=True).to_dict()
    assert redact_event(event, 1) == {"type": "tile_drawn", "seat": 1, "tile": [5, 3], "auto": True}
    assert redact_event(event, 0) == {"type": "tile_drawn", "seat": 1, "auto": True}
    assert redact_event(event, None) == {"type": "tile_drawn", "seat": 1, "auto": True}
    assert event["tile"] == [5, 3]


def test_the_public_summary_names_the_seats_as_the_view_does_and_holds_no_tile():
    log = create_match(resolve_rules("standard-draw", {}, 3), seats(3), SEED)
    log += start_match(replay(log), SEED)
    state = replay(log)
    summary = public_summary(state)
    assert summary == {
        "status": "playing",
        "seeded_by_client": False,
        "hand_number": 1,
        "scores": [0, 0, 0],
        "turn": state.turn,
        "winner": None,
        "players": 3,
        "seats": view(state, None)["seats"],
        "open_seats": [],
    }
    assert summary["seats"][2] == {"seat": 2, "name": "p2", "type": "human", "level": None, "client_seed": None}
