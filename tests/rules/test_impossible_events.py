"""The fold refuses an event its state cannot take with one precise error, ``ImpossibleEvent``.

Only a rewritten log holds one (the engine plays held tiles and draws what is left), and every
replay turns it into a finding at the event's seq (tests/api/test_fairness.py, the golden tool,
the JS replayer): never a bare ``ValueError`` from a list.
"""

from __future__ import annotations

import pytest

from api.bots.audit import recheck_bot_moves
from api.rules import ImpossibleEvent, ReplayError, apply, create_match, replay, resolve_rules, start_match
from api.rules.audit import verify_log
from api.rules.events import TileDrawn, TilePlayed
from api.rules.tiles import Tile

from .support import seats


def opened(seed: str = "impossible") -> list:
    """A 2-player Block match's log up to its first deal (no forced lead: the lead rotates)."""
    rules = resolve_rules("standard-block", {"lead": "rotate_any"}, 2)
    log = create_match(rules, seats(2), seed)
    return log + start_match(replay(log), seed)


def not_held(state, seat: int) -> Tile:
    return next(t for t in state.hands[(seat + 1) % state.players] if t not in state.hands[seat])


def test_a_tile_played_that_the_seat_does_not_hold_is_an_impossible_event():
    state = replay(opened())
    seat = state.turn
    tile = not_held(state, seat)
    with pytest.raises(ImpossibleEvent, match=f"^seat {seat} plays {tile}, which it does not hold$") as refused:
        apply(state, TilePlayed(seat, tile, "left", {"left": tile.high, "right": tile.low}))
    assert isinstance(refused.value, ReplayError) and isinstance(refused.value, ValueError)
    assert refused.value.seq is None  # an event does not know its place in a log


def test_a_draw_from_an_empty_boneyard_is_an_impossible_event():
    state = replay(opened())
    state.boneyard = []  # drawn dry (the Block game never draws: the fold does not ask)
    with pytest.raises(ImpossibleEvent, match=f"^seat {state.turn} draws from an empty boneyard$"):
        apply(state, TileDrawn(state.turn, None))


def test_replaying_a_whole_log_names_the_impossible_events_seq():
    log = opened()
    state = replay(log)
    tile = not_held(state, state.turn)
    forged = [*log, TilePlayed(state.turn, tile, "left", {"left": tile.high, "right": tile.low})]
    with pytest.raises(ImpossibleEvent) as refused:
        replay(forged)
    assert refused.value.seq == len(forged)
    assert str(refused.value) == (
        f"seq {len(forged)}: impossible event: seat {state.turn} plays {tile}, which it does not hold"
    )
    assert str(refused.value.at(7)).startswith("seq 7: impossible event: ")


def test_a_log_that_does_not_open_as_a_match_is_a_finding_of_the_audit_not_an_error():
    log = [e.to_dict() for e in opened()]
    unreadable = [{"type": "no_such_event"}, *log[1:]]
    assert verify_log(unreadable, "impossible").problems == ["the log does not start with match_created"]
    unplayable = [{**log[0], "rules": {**log[0]["rules"], "players": 9}}, *log[1:]]
    problems = verify_log(unplayable, "impossible").problems
    assert len(problems) == 1 and problems[0].startswith("seq 1: refused by the rules: ")
    for hostile in (unreadable, unplayable):  # the bots' re-check leaves it to the audit, quietly
        assert recheck_bot_moves(hostile, "impossible").problems == []


def test_an_event_with_a_field_of_another_type_is_unreadable_to_the_bot_recheck_not_an_error():
    seed = "impossible"
    log = [e.to_dict() for e in opened(seed)]
    state = replay(opened(seed))
    tile = state.hands[state.turn][0]
    play = {"type": "tile_played", "seat": str(state.turn), "tile": tile.to_json(), "end": "left", "ends": {}}
    forged = [*log, {**play, "auto": False, "claim": None}]
    malformed = f"malformed tile_played event: seat is a whole number, not '{state.turn}'"
    assert verify_log(forged, seed).problems == [f"seq {len(forged)}: refused by the rules: {malformed}"]
    problems = recheck_bot_moves(forged, seed).problems
    assert len(problems) == 1 and problems[0].startswith(f"seq {len(forged)}: unreadable event: ")
