import json

import pytest

from api.rules import OFFERED_SETS, PRESETS, InvalidRules, RuleSet, TileSet, resolve_requested_rules, resolve_rules
from api.rules.games import presets_of
from api.rules.ruleset import DEFAULT_PRESET, OPTION_NAMES

# The preset table of docs/rules.md (section 14), option by option (values not listed are the standard defaults).
STANDARD = dict(
    game="draw",
    lead="highest_double",
    draw_at_will=False,
    boneyard_reserve=0,
    blocked_scoring="others_minus_own",
    round_to_five=False,
    partners=False,
    target=100,
    spinner="none",
    fives_scoring=False,
    muggins_calls=False,
    auto_draw=False,
    auto_knock=False,
)
FIVES = dict(
    STANDARD,
    spinner="first_double",
    fives_scoring=True,
    lead="winner_any",
    blocked_scoring="others",
    round_to_five=True,
    target=200,
)
EXPECTED = {
    # preset: (options, {players: hand_size}, {players: target})
    "standard-draw": (STANDARD, {2: 7, 3: 5, 4: 5}, {2: 100, 3: 100, 4: 100}),
    "standard-block": (dict(STANDARD, game="block"), {2: 7, 3: 5, 4: 5}, {2: 100, 3: 100, 4: 100}),
    "pagat-draw": (dict(STANDARD, boneyard_reserve=2), {2: 7, 3: 7, 4: 6}, {2: 100, 3: 61, 4: 61}),
    "pagat-block": (dict(STANDARD, game="block"), {2: 7, 3: 5, 4: 5}, {2: 100, 3: 100, 4: 100}),
    "dominorules-draw": (
        dict(STANDARD, lead="rotate_any", blocked_scoring="others"),
        {2: 7, 3: 7, 4: 7},
        {2: 100, 3: 100, 4: 100},
    ),
    "dominorules-block": (
        dict(STANDARD, game="block", lead="rotate_any", blocked_scoring="others"),
        {2: 7, 3: 7, 4: 7},
        {2: 100, 3: 100, 4: 100},
    ),
    "winner-leads": (dict(STANDARD, lead="winner_any", blocked_scoring="others"), {2: 7}, {2: 100}),
    "all-fives": (FIVES, {2: 7, 3: 5, 4: 5}, {2: 200, 3: 200, 4: 200}),
    "muggins": (dict(FIVES, spinner="none"), {2: 7, 3: 5, 4: 5}, {2: 200, 3: 200, 4: 200}),
    # docs/rules.md, section 12 (the JSON form names the later options only away from their defaults)
    "fives-and-threes": (
        dict(
            STANDARD,
            game="block",
            lead="rotate_any",
            end_count_scoring="fives_and_threes",
            exact_target=True,
            out_bonus=1,
            hand_end_pips=False,
        ),
        {2: 7, 3: 5, 4: 5},
        {2: 61, 3: 61, 4: 61},
    ),
    "double-nine-partners": (
        dict(
            STANDARD,
            set="double-9",
            game="block",
            partners=True,
            lead="winner_any",
            hand_points="all_hands",
            blocked_scoring="others",
        ),
        {4: 10},
        {4: 100},
    ),
}
CASES = [(p, n) for p, (_, sizes, _) in EXPECTED.items() for n in sizes]
LATER = {"set", "end_count_scoring", "exact_target", "out_bonus", "hand_end_pips", "hand_points"}


def test_the_preset_table_is_exactly_the_rule_books():
    assert set(presets_of("line")) == set(EXPECTED)
    assert set(PRESETS) == set(EXPECTED) | {"mexican-train", "chicken-foot"}
    assert DEFAULT_PRESET == "standard-draw"
    trains_options = {"rounds", "double_blank_points", "double_must_be_covered"}
    assert set(OPTION_NAMES) == set(STANDARD) | {"hand_size", "turn_seconds", "timeout_limit"} | LATER | trains_options


@pytest.mark.parametrize("preset,players", CASES)
def test_every_preset_resolves_to_the_rule_books_values(preset, players):
    options, sizes, targets = EXPECTED[preset]
    rules = resolve_rules(preset, {}, players)
    expected = dict(
        options,
        preset=preset,
        players=players,
        hand_size=sizes[players],
        target=targets[players],
        turn_seconds=None,
        timeout_limit=None,
    )
    if preset == "fives-and-threes" and players == 4:
        expected["partners"] = True  # the four-player form plays as partners by default
    assert rules.to_dict() == expected
    assert rules.boneyard_size == len(rules.set.tiles) - players * sizes[players]
    assert RuleSet.from_dict(rules.to_dict()) == rules
    assert resolve_rules(preset, rules.options(), players) == rules


def test_fives_and_threes_for_four_plays_as_partners_unless_asked_alone():
    assert resolve_rules("fives-and-threes", {}, 4).partners is True
    assert resolve_rules("fives-and-threes", {"partners": False}, 4).partners is False
    assert resolve_rules("fives-and-threes", {}, 3).partners is False


def test_v1s_fives_scoring_reads_as_end_count_scoring_and_is_still_written():
    """Earlier logs and clients say ``fives_scoring``; it reads as ``end_count_scoring: fives``."""
    assert resolve_rules("standard-draw", {"fives_scoring": True}, 2).end_count_scoring == "fives"
    assert resolve_rules("all-fives", {"fives_scoring": False}, 2).end_count_scoring == "none"
    both = {"fives_scoring": False, "end_count_scoring": "fives_and_threes"}
    assert resolve_rules("standard-block", both, 2).end_count_scoring == "fives_and_threes"
    assert resolve_rules("all-fives", {}, 2).to_dict()["fives_scoring"] is True
    assert "end_count_scoring" not in resolve_rules("all-fives", {}, 2).to_dict()
    threes = resolve_rules("fives-and-threes", {}, 2).to_dict()
    assert (threes["fives_scoring"], threes["end_count_scoring"]) == (False, "fives_and_threes")
    assert not LATER & set(resolve_rules("standard-draw", {}, 2).to_dict())  # earlier logs read as before


def test_standard_deal_leaves_14_13_and_8_in_the_boneyard():
    assert [resolve_rules("standard-draw", {}, n).boneyard_size for n in (2, 3, 4)] == [14, 13, 8]


def test_pagat_draw_target_is_100_for_partners_and_61_for_four_without():
    assert resolve_rules("pagat-draw", {"partners": True}, 4).target == 100
    assert resolve_rules("pagat-draw", {}, 4).target == 61
    assert resolve_rules("pagat-draw", {"partners": True, "target": 80}, 4).target == 80


def test_winner_leads_is_only_for_two_players():
    for players in (3, 4):
        with pytest.raises(InvalidRules) as info:
            resolve_rules("winner-leads", {}, players)
        assert info.value.field == "players"


def test_overrides_replace_preset_values():
    rules = resolve_rules(
        "standard-draw",
        {
            "hand_size": 6,
            "target": 150,
            "round_to_five": True,
            "draw_at_will": True,
            "boneyard_reserve": 2,
            "blocked_scoring": "others",
            "lead": "rotate_any",
            "auto_draw": True,
            "auto_knock": True,
        },
        4,
    )
    assert (
        rules.hand_size,
        rules.target,
        rules.round_to_five,
        rules.draw_at_will,
        rules.boneyard_reserve,
        rules.blocked_scoring,
        rules.lead,
        rules.auto_draw,
        rules.auto_knock,
    ) == (6, 150, True, True, 2, "others", "rotate_any", True, True)
    assert rules.boneyard_size == 4
    assert resolve_rules("all-fives", {"muggins_calls": True}, 2).muggins_calls is True
    assert resolve_rules("standard-draw", {"hand_size": 7}, 4).boneyard_size == 0


def test_partners_sides_are_seats_0_2_against_1_3():
    rules = resolve_rules("standard-draw", {"partners": True}, 4)
    assert rules.sides == 2
    assert [rules.side_of(s) for s in range(4)] == [0, 1, 0, 1]
    assert rules.seats_of_side(0) == (0, 2) and rules.seats_of_side(1) == (1, 3)
    solo = resolve_rules("standard-draw", {}, 3)
    assert solo.sides == 3 and [solo.side_of(s) for s in range(3)] == [0, 1, 2]


@pytest.mark.parametrize(
    "preset,overrides,players,field",
    [
        ("standard-draw", {"hand_size": 10}, 3, "hand_size"),
        ("standard-draw", {"hand_size": 8}, 4, "hand_size"),
        ("standard-draw", {"hand_size": 15}, 2, "hand_size"),
        ("standard-draw", {"hand_size": 0}, 2, "hand_size"),
        ("pagat-draw", {"partners": True}, 3, "partners"),
        ("standard-draw", {"partners": True}, 2, "partners"),
        ("standard-draw", {"target": 0}, 2, "target"),
        ("standard-draw", {"target": -5}, 2, "target"),
        ("standard-draw", {"spin": True}, 2, "spin"),
        ("standard-draw", {"colour": "red"}, 2, "colour"),
        ("standard-block", {"draw_at_will": True}, 2, "draw_at_will"),
        ("standard-block", {"auto_draw": True}, 2, "auto_draw"),
        ("standard-block", {"boneyard_reserve": 2}, 2, "boneyard_reserve"),
        ("standard-draw", {"game": "block", "draw_at_will": True}, 2, "draw_at_will"),
        ("standard-draw", {"muggins_calls": True}, 2, "muggins_calls"),
        ("all-fives", {"muggins_calls": True, "fives_scoring": False}, 2, "muggins_calls"),
        ("standard-draw", {"muggins_calls": True, "end_count_scoring": "none"}, 2, "muggins_calls"),
        ("all-fives", {"fives_scoring": True, "end_count_scoring": "none"}, 2, "end_count_scoring"),
        ("all-fives", {"fives_scoring": False, "end_count_scoring": "fives"}, 2, "end_count_scoring"),
        ("all-fives", {"fives_scoring": "yes"}, 2, "fives_scoring"),
        ("standard-draw", {"end_count_scoring": "threes"}, 2, "end_count_scoring"),
        ("standard-draw", {"end_count_scoring": True}, 2, "end_count_scoring"),
        ("all-fives", {"muggins_calls": True, "exact_target": True}, 2, "exact_target"),
        ("standard-draw", {"exact_target": "yes"}, 2, "exact_target"),
        ("standard-draw", {"out_bonus": -1}, 2, "out_bonus"),
        ("standard-draw", {"out_bonus": 101}, 2, "out_bonus"),
        ("standard-draw", {"out_bonus": 1.5}, 2, "out_bonus"),
        ("standard-draw", {"hand_end_pips": False}, 2, "hand_end_pips"),  # nothing could ever score
        ("fives-and-threes", {"end_count_scoring": "none", "out_bonus": 0}, 2, "hand_end_pips"),
        ("standard-draw", {"hand_points": "all_hands"}, 2, "blocked_scoring"),  # others_minus_own by default
        ("standard-draw", {"hand_points": "partners"}, 2, "hand_points"),
        ("double-nine-partners", {}, 2, "players"),
        ("all-fives", {"exact_target": True, "target": 202}, 2, "target"),  # every score a multiple of 5
        ("all-fives", {"exact_target": True, "out_bonus": 5, "target": 61}, 2, "target"),
        ("muggins", {"exact_target": True, "muggins_calls": False, "target": 61}, 2, "target"),
        ("fives-and-threes", {}, 5, "players"),
        ("standard-draw", {"boneyard_reserve": 1}, 2, "boneyard_reserve"),
        ("standard-draw", {"target": "100"}, 2, "target"),
        ("standard-draw", {"target": 100.0}, 2, "target"),
        ("standard-draw", {"target": True}, 2, "target"),
        ("standard-draw", {"hand_size": "7"}, 2, "hand_size"),
        ("standard-draw", {"partners": "yes"}, 4, "partners"),
        ("standard-draw", {"draw_at_will": 1}, 2, "draw_at_will"),
        ("standard-draw", {"game": "Draw"}, 2, "game"),
        ("standard-draw", {"lead": "anyone"}, 2, "lead"),
        ("standard-draw", {"blocked_scoring": "own"}, 2, "blocked_scoring"),
        ("standard-draw", {"spinner": "all_doubles"}, 2, "spinner"),
        ("standard-draw", {"set": "double-7"}, 2, "set"),
        ("standard-draw", {"set": 9}, 2, "set"),
        ("standard-block", {"set": "double-9", "hand_size": 14}, 4, "hand_size"),  # 56 of 55 tiles
        ("standard-draw", {"set": "double-12", "hand_size": 46}, 2, "hand_size"),  # 92 of 91
        ("standard-draw", {"boneyard_reserve": None}, 2, "boneyard_reserve"),
        ("winner-leads", {}, 3, "players"),
        ("standard-draw", {}, 1, "players"),
        ("standard-draw", {}, 5, "players"),
        ("standard-draw", {}, True, "players"),
        ("no-such-preset", {}, 2, "preset"),
        ("standard-draw", {"preset": "pagat-draw"}, 2, "preset"),
        ("standard-draw", {"players": 3}, 2, "players"),
        # The echo fields are no options, even when they agree (asked for beside the overrides).
        ("standard-draw", {"preset": "standard-draw"}, 2, "preset"),
        ("standard-draw", {"players": 2}, 2, "players"),
    ],
)
def test_impossible_rule_sets_are_refused_naming_the_field(preset, overrides, players, field):
    with pytest.raises(InvalidRules) as info:
        resolve_rules(preset, overrides, players)
    assert info.value.field == field
    assert info.value.code == "invalid_rules"
    assert str(info.value).startswith(field + ":")


def test_the_set_sets_the_boneyard_and_the_largest_hands():
    """docs/rules.md, section 1: the boneyard is the set less the hands dealt."""
    nine = resolve_rules("standard-block", {"set": "double-9", "partners": True, "hand_size": 10}, 4)
    assert nine.set is TileSet.DOUBLE_9 and nine.boneyard_size == 15
    assert resolve_rules("standard-draw", {"set": "double-12", "hand_size": 45}, 2).boneyard_size == 1
    assert resolve_rules("standard-block", {"set": "double-9", "hand_size": 13}, 4).boneyard_size == 3
    assert resolve_rules("standard-draw", {}, 2).set is TileSet.DOUBLE_6
    with pytest.raises(InvalidRules, match="4 players × 8 tiles does not fit a 28-tile set"):
        resolve_rules("standard-draw", {"hand_size": 8}, 4)


def test_the_default_set_goes_unsaid_and_another_is_named_and_read_back():
    six = resolve_rules("standard-draw", {}, 2)
    assert "set" not in six.to_dict() and "set" not in six.options()
    assert RuleSet.from_dict({**six.to_dict(), "set": "double-6"}) == six
    twelve = resolve_rules("standard-draw", {"set": "double-12", "hand_size": 15}, 2)
    data = json.loads(json.dumps(twelve.to_dict()))
    assert data["set"] == "double-12" and twelve.options()["set"] is TileSet.DOUBLE_12
    assert RuleSet.from_dict(data) == twelve and RuleSet.from_dict(data).set is TileSet.DOUBLE_12
    assert resolve_rules("standard-draw", twelve.options(), 2) == twelve


@pytest.mark.parametrize("overrides", [[("target", 50)], "target", 5, ["target"]])
def test_overrides_that_are_not_an_object_are_refused_as_invalid_rules(overrides):
    with pytest.raises(InvalidRules) as info:
        resolve_rules("standard-draw", overrides, 2)
    assert info.value.field == "rules"


@pytest.mark.parametrize("preset,players", CASES)
def test_resolved_rules_round_trip_through_to_dict_and_from_dict(preset, players):
    rules = resolve_rules(preset, {}, players)
    again = RuleSet.from_dict(rules.to_dict())
    assert again == rules
    assert again.to_dict() == rules.to_dict()


def test_a_resolved_records_options_sent_back_as_overrides_resolve_to_itself():
    rules = resolve_rules("pagat-draw", {"partners": True, "auto_knock": True}, 4)
    assert set(rules.options()) == set(rules.to_dict()) - {"preset", "players"}
    assert resolve_rules("pagat-draw", rules.options(), 4) == rules


def test_from_dict_revalidates_a_stored_record():
    data = resolve_rules("standard-draw", {}, 3).to_dict()
    data["hand_size"] = 10
    with pytest.raises(InvalidRules) as info:
        RuleSet.from_dict(data)
    assert info.value.field == "hand_size"
    with pytest.raises(InvalidRules) as info:
        RuleSet.from_dict({**data, "preset": "nope"})
    assert info.value.field == "preset"


def test_rule_sets_are_immutable():
    rules = resolve_rules()
    with pytest.raises(AttributeError):
        rules.target = 5
    assert rules.preset == "standard-draw" and rules.players == 2


def test_what_a_client_asks_for_is_refused_naming_the_set_when_the_set_is_not_offered():
    assert OFFERED_SETS == (TileSet.DOUBLE_6, TileSet.DOUBLE_9, TileSet.DOUBLE_12)  # double-12: the trains games
    assert resolve_requested_rules("standard-draw", {"set": "double-6"}, 2) == resolve_rules("standard-draw", {}, 2)
    nine = resolve_requested_rules("standard-block", {"set": "double-9", "partners": True, "hand_size": 10}, 4)
    assert nine.set is TileSet.DOUBLE_9
    with pytest.raises(InvalidRules) as refused:
        resolve_requested_rules("standard-block", {"set": "double-12", "hand_size": 10}, 4)
    assert refused.value.field == "set"
    # a stored log names its set whatever is offered: reading one never asks
    twelve = resolve_rules("standard-block", {"set": "double-12", "hand_size": 10}, 4)
    assert RuleSet.from_dict(twelve.to_dict()) == twelve
