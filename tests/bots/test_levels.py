"""Every level answers with a listed legal action, in every preset, option and player count."""

from __future__ import annotations

import inspect
import typing
from collections.abc import Sequence

import pytest

from api.bots import LEVELS, Budget, UnknownLevel, choose_action
from api.bots.actions import make_rng
from api.bots.arena import BotMatch
from api.bots.knowledge import Knowledge
from api.rules import resolve_rules
from api.rules.games import presets_of
from api.rules.layout import END_INDEX
from api.rules.tiles import Tile

QUICK = Budget(determinizations=4, max_playouts=40, min_determinizations=2)

CONFIGS = [(preset, players, {}) for preset, spec in presets_of("line").items() for players in spec.players] + [
    ("standard-draw", 4, {"partners": True}),
    ("standard-block", 4, {"partners": True}),
    ("standard-draw", 2, {"draw_at_will": True}),
    ("standard-draw", 3, {"auto_draw": True, "auto_knock": True}),
    ("pagat-draw", 4, {"partners": True, "draw_at_will": True}),
    ("standard-draw", 4, {"hand_size": 7}),
    ("dominorules-draw", 4, {"partners": True, "round_to_five": True}),
    ("all-fives", 2, {"muggins_calls": True}),
    ("all-fives", 3, {"muggins_calls": True, "draw_at_will": True}),
    ("all-fives", 4, {"muggins_calls": True, "partners": True}),
    ("muggins", 2, {"muggins_calls": True, "auto_draw": True}),
    ("muggins", 4, {"partners": True}),
]


def _name(config) -> str:
    preset, players, options = config
    return f"{preset}-{players}p" + "".join(f"-{k}" for k in options)


def check_answer(level: str, view: dict, action: dict) -> None:
    """``action`` is a listed action verbatim (a listed scoring play carries its claim under
    muggins_calls); the random level sends it without the claim (it forgets to count)."""
    listed = view["legal_actions"]
    if level == "random":
        assert "claim" not in action
        assert action in [{k: v for k, v in a.items() if k != "claim"} for a in listed], (action, listed)
    else:
        assert action in listed, (action, listed)
    if "claim" in action:
        assert view["rules"]["muggins_calls"] and action["type"] == "play"
        assert action["claim"] == action["scores"] > 0 and action["claim"] % 5 == 0


@pytest.mark.parametrize("config", CONFIGS, ids=_name)
def test_every_level_answers_with_a_listed_action(config):
    preset, players, options = config
    rules = resolve_rules(preset, {**options, "target": 40}, players)
    asked = {level: 0 for level in LEVELS}

    def observe(seat, level, seconds, view, log, action):
        check_answer(level, view, action)
        asked[level] += 1

    for game in range(len(LEVELS)):  # every level in every seat position, even with two players
        levels = [LEVELS[(seat + game) % len(LEVELS)] for seat in range(players)]
        match = BotMatch(rules, f"levels:{_name(config)}:{game}", levels, QUICK)
        while match.live and match.decisions < 60:  # some thirty decisions of each seat: each level asked often
            match.step(observe)  # decide() would raise on an illegal action
    assert all(asked.values()), asked


def test_claims_are_what_the_play_scores_under_muggins_calls():
    rules = resolve_rules("all-fives", {"muggins_calls": True, "target": 60}, 2)
    claims = 0

    def observe(seat, level, seconds, view, log, action):
        nonlocal claims
        if action["type"] != "play" or level == "random":
            return
        after = Knowledge.read(view, log).layout.copy()
        after.place(Tile.from_json(action["tile"]), END_INDEX[action["end"]])
        points = after.count() if after.count() % 5 == 0 else 0
        assert action.get("claim") == action.get("scores") == (points or None)
        claims += "claim" in action

    for game in range(3):
        levels = ["expert", "greedy"] if game % 2 else ["greedy", "expert"]
        match = BotMatch(rules, f"claims:{game}", levels, QUICK)
        while match.live:
            match.step(observe)
    assert claims > 0


def test_the_entry_point_takes_only_what_a_seat_may_know():
    params = inspect.signature(choose_action).parameters
    assert list(params) == ["level", "view", "log", "rng_seed", "budget"]
    hints = typing.get_type_hints(choose_action)
    # JSON, no state (the log a read-only sequence: api.bots.turns.ShownLog redacts it when read)
    assert hints["view"] == dict[str, typing.Any] and hints["log"] == Sequence[dict[str, typing.Any]]


def test_an_unknown_level_is_refused():
    match = BotMatch(resolve_rules("standard-draw", {}, 2), "unknown-level", ["random", "random"])
    view, log = match.inputs(match.state.turn)
    with pytest.raises(UnknownLevel):
        choose_action("grandmaster", view, log, "seed")


def test_the_rng_depends_only_on_the_seed():
    assert make_rng("m:1", "x").random() == make_rng(b"m:1", "x").random()
    assert make_rng("m:1", "x").random() != make_rng("m:2", "x").random()


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_replays_its_choices(level):
    rules = resolve_rules("standard-draw", {"target": 50}, 2)
    seen = []
    match = BotMatch(rules, f"replay:{level}", [level, "greedy"], QUICK)

    def observe(seat, lvl, seconds, view, log, action):
        if lvl == level:
            seen.append((view, list(log), match.rng_seed(), action))

    while match.live:
        match.step(observe)
    assert seen
    for view, log, seed, action in seen:
        assert choose_action(level, view, log, seed, QUICK) == action
