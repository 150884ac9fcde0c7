"""The typed core: one vocabulary, one hand-result record, a fold dispatched per event class.

The words are ``StrEnum`` members so that nothing a client or the database sees changes:
these tests pin that (the JSON of every word is the bare string it always was), and that
what comes back from JSON comes back as members. The fold's table must cover every event
type, and an event class it does not know is refused, never skipped.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, replace
from typing import ClassVar

import pytest

from api.rules import (
    EVENT_TYPES,
    SEAT_TYPES,
    STATUSES,
    BotLevel,
    End,
    Event,
    HandEndReason,
    HandResult,
    InvalidAction,
    InvalidRules,
    ReplayError,
    ScoredBy,
    SeatKind,
    Status,
    apply,
    create_match,
    decide,
    event_from_dict,
    parse_action,
    replay,
    resolve_rules,
    start_match,
    view,
)
from api.rules.engine import FOLDS, move_to_action
from api.rules.events import HandEnded, PointsScored, SeatReplaced, TilePlayed
from api.rules.ruleset import OPTION_CHOICES
from api.rules.simulate import push
from api.rules.vocabulary import ActionType, BlockedScoring, Game, Lead, Spinner
from tests.rules.support import T, seats


def test_every_word_is_written_as_the_bare_string_it_always_was():
    assert json.dumps([*Status, *SeatKind]) == '["waiting", "playing", "ended", "remote", "bot", "open"]'
    assert json.dumps({End.LEFT: HandEndReason.DOMINO}) == '{"left": "domino"}'
    assert (str(Game.BLOCK), f"{Lead.ROTATE_ANY}", Spinner.FIRST_DOUBLE.value) == (
        "block",
        "rotate_any",
        "first_double",
    )
    assert [*ActionType, *ScoredBy, *BotLevel] == ["play", "draw", "knock", "muggins", "pass", "play", "muggins"] + [
        "random",
        "greedy",
        "intermediate",
        "expert",
    ]
    # Rendered into SQL by repr (the check constraints): plain strings, not members.
    assert STATUSES == ("waiting", "playing", "ended") and all(type(s) is str for s in STATUSES)
    assert SEAT_TYPES == ("remote", "bot", "open") and all(type(s) is str for s in SEAT_TYPES)


def test_a_resolved_rule_set_holds_members_and_its_json_form_is_unchanged():
    rules = resolve_rules("dominorules-block", {"spinner": "first_double"}, 3)
    assert (rules.game, rules.lead, rules.blocked_scoring, rules.spinner) == (
        Game.BLOCK,
        Lead.ROTATE_ANY,
        BlockedScoring.OTHERS,
        Spinner.FIRST_DOUBLE,
    )
    assert type(rules.game) is Game and type(rules.spinner) is Spinner  # from a plain string too
    stored = json.loads(json.dumps(rules.to_dict()))
    assert stored["game"] == "block" and type(stored["game"]) is str
    assert type(type(rules).from_dict(stored).lead) is Lead
    assert list(OPTION_CHOICES["blocked_scoring"]) == ["others_minus_own", "others"]


def test_a_rule_set_built_from_plain_strings_holds_members_too():
    """The engine compares the word options by identity, so no spelling may slip past."""
    rules = replace(resolve_rules("standard-draw", {}, 2), game="block", spinner="first_double")
    assert rules.game is Game.BLOCK and rules.spinner is Spinner.FIRST_DOUBLE
    assert not rules.is_draw_game and rules.uses_spinner


@pytest.mark.parametrize("value", ["Draw", "", None, 1, ["draw"], True])
def test_a_word_outside_the_vocabulary_is_refused_naming_the_option(value):
    with pytest.raises(InvalidRules) as caught:
        resolve_rules("standard-draw", {"game": value}, 2)
    assert caught.value.field == "game"
    assert str(caught.value).endswith(f"one of draw, block, not {value!r}")


def test_events_read_back_hold_members():
    played = event_from_dict({"type": "tile_played", "seat": 0, "tile": [6, 6], "end": "left", "ends": {"left": 6}})
    assert isinstance(played, TilePlayed) and type(played.end) is End and played.end == "left"
    scored = event_from_dict(
        {"type": "points_scored", "seat": 1, "side": 1, "points": 10, "count": 10, "how": "muggins", "scores": [0, 10]}
    )
    assert isinstance(scored, PointsScored) and scored.how is ScoredBy.MUGGINS
    replaced = event_from_dict({"type": "seat_replaced", "seat": 1, "level": "greedy"})
    assert isinstance(replaced, SeatReplaced) and replaced.level is BotLevel.GREEDY


def test_an_event_with_a_word_outside_the_vocabulary_is_malformed():
    with pytest.raises(InvalidAction, match="malformed tile_played"):
        event_from_dict({"type": "tile_played", "seat": 0, "tile": [6, 6], "end": "middle", "ends": {}})


@pytest.mark.parametrize(
    "field,bad",
    [("seat", True), ("seat", 1.0), ("seat", "1"), ("claim", False), ("claim", 5.0)],  # JSON true is no seat 1
)
def test_an_event_with_a_number_that_is_no_whole_number_is_malformed(field, bad):
    good = {"type": "tile_played", "seat": 1, "tile": [6, 6], "end": "left", "ends": {}, "claim": 5}
    assert (event_from_dict(good).seat, event_from_dict(good).claim) == (1, 5)
    with pytest.raises(InvalidAction, match=f"{field} is a whole number"):
        event_from_dict({**good, field: bad})


@pytest.mark.parametrize(
    "action",
    [{"type": "Play", "tile": [6, 6]}, {"type": ["play"]}, {"type": "play", "tile": [6, 6], "end": 0}],
)
def test_an_action_with_a_word_outside_the_vocabulary_is_refused(action):
    with pytest.raises(InvalidAction):
        parse_action(0, action)


def test_a_parsed_action_holds_members():
    play = parse_action(0, {"type": "play", "tile": [6, 4], "end": "right"})
    assert type(play.end) is End and play.end is End.RIGHT
    draw = parse_action(0, {"type": "draw", "until": "playable"})
    assert draw.until_playable


# --- the hand result: one record --------------------------------------------------------
RESULT = HandResult(3, HandEndReason.BLOCKED, 1, 1, 12, (9, 4), ((T("6-3"),), (T("3-1"),)), (40, 62))


def test_the_hand_ended_event_is_a_hand_result_and_writes_its_json_form():
    event = HandEnded.of(RESULT)
    assert isinstance(event, HandResult)
    assert HandEnded.of(event) is event
    assert event.to_dict() == {"type": "hand_ended", **RESULT.to_json()}
    assert RESULT.to_json() == {
        "hand_number": 3,
        "reason": "blocked",
        "winner": 1,
        "side": 1,
        "points": 12,
        "pips": [9, 4],
        "hands": [[[6, 3]], [[3, 1]]],
        "scores": [40, 62],
    }
    back = event_from_dict(json.loads(json.dumps(event.to_dict())))
    assert back == event and back.reason is HandEndReason.BLOCKED


def dealt(preset: str, players: int, seed: str):
    rules = resolve_rules(preset, {}, players)
    log = create_match(rules, seats(players), seed)
    return replay(log + start_match(replay(log), seed))


@pytest.mark.parametrize("preset", ["standard-draw", "standard-block", "all-fives"])
def test_the_fold_and_the_fast_path_keep_the_same_hand_result(preset):
    """The same moves, through ``decide`` (events, folded) and ``push`` (no events): the last
    result is equal, the folded one being the ``hand_ended`` event itself."""
    rng = random.Random(f"typed-core-{preset}")
    for round_ in range(4):
        folded = dealt(preset, 2 + round_ % 3, f"{preset}-{round_}")
        fast = folded.copy()
        hand = folded.hand_number
        while folded.hand_number == hand and folded.hand_live:
            move = rng.choice(folded.legal_moves())
            seat = folded.turn
            events = decide(folded, parse_action(seat, move_to_action(move)), "seed")
            folded = replay(events, folded)
            push(fast, move)  # without a dealer: stops at the end of the hand
        ended = folded.last_result
        assert isinstance(ended, HandEnded)
        assert isinstance(fast.last_result, HandResult) and type(fast.last_result) is HandResult
        assert fast.last_result.to_json() == ended.to_json()
        assert view(folded, 0)["last_hand"] == ended.to_json()


# --- the fold: one handler per event class ----------------------------------------------
def test_every_event_type_has_a_fold():
    assert set(FOLDS) == set(EVENT_TYPES.values())


def test_an_event_class_the_fold_does_not_know_is_refused():
    @dataclass(frozen=True)
    class Unheard(Event):
        type: ClassVar[str] = "unheard"

    st = dealt("standard-draw", 2, "unheard")
    with pytest.raises(ReplayError, match="unknown event type 'unheard'"):
        apply(st, Unheard())


def test_match_created_folds_only_first():
    st = dealt("standard-draw", 2, "twice")
    created = create_match(st.rules, seats(2), "again")[0]
    with pytest.raises(ReplayError, match="may only be the first"):
        apply(st, created)
