"""The analysis after a match (api/bots/analysis.py): every decision's choices valued, from what the
seat knew and with every hand shown, and the points each choice gave away."""

from __future__ import annotations

import json
from functools import cache

import pytest

from api.bots.analysis import DEFAULT_ANALYSIS_BUDGET, Analysis, analyse, choice_name, line_values, mexican_shown
from api.rules.events import RoundStarted
from api.rules.tiles import Tile
from api.rules.trains import apply as apply_trains
from api.rules.trains import new_state
from api.rules.trains_rules import TrainsGame, trains_rules
from api.tools.golden import EXAMPLES, log_of
from tests.bots.support import Position


@cache
def golden(name: str) -> tuple[list[dict], str]:
    audit = json.loads((EXAMPLES / f"{name}.audit.json").read_text())
    return log_of(audit), audit["seed"]


@cache
def analysed(name: str) -> Analysis:
    log, seed = golden(name)
    return analyse(log, seed)


def test_with_the_hands_shown_the_rest_of_a_block_hand_is_solved_exactly():
    # bench/regret.py's position: 2p block, seat 0 holds 6-1, 6-3 and 1-0 on ends 6 and 5; seat 1
    # holds 3-3, 2-2 and 4-4. 6-1 blocks the game with 9 pips against 18 (+9); 6-3 lets seat 1
    # play 3-3, and the block leaves 8 pips against 12 (+4).
    p = Position(["6-6 6-1 6-3 1-0", "6-5 3-3 2-2 4-4"], preset="standard-block")
    p.play(0, "6-6").play(1, "6-5", "right")
    view, log = p.seen_by(0)
    found = line_values(p.state, 0, view, log, "analysis-test", DEFAULT_ANALYSIS_BUDGET, oracle=True)
    assert found is not None
    candidates, known, shown, exact = found
    assert [choice_name(c) for c in candidates] == ["6-1L", "6-3L"]
    assert shown == [9.0, 4.0]
    assert exact is True
    assert len(known) == 2 and known != shown  # not seeing seat 1's tiles, it values them otherwise


@pytest.mark.parametrize(
    "name", ["dominorules-block-2p", "muggins-2p", "all-fives-4p-partners", "chicken-foot-3p", "mexican-train-3p"]
)
def test_each_decision_names_its_choice_and_the_points_it_gave_away(name):
    analysis = analysed(name)
    log, _seed = golden(name)
    assert analysis.decisions
    for d in analysis.decisions:
        assert log[d.seq - 1]["seat"] == d.seat
        assert choice_name(log[d.seq - 1]) == d.chosen or d.chosen.startswith(choice_name(log[d.seq - 1])[:3])
        names = [c.name for c in d.choices]
        assert len(names) >= 2 and d.chosen in names and d.best in names
        values = {c.name: (c.shown if c.shown is not None else c.known) for c in d.choices}
        assert d.lost == pytest.approx(max(values.values()) - values[d.chosen], abs=0.011)
        assert d.lost >= 0 and values[d.best] == max(values.values())


def test_the_per_seat_summary_is_the_mean_of_its_decisions_and_its_three_worst():
    summary = analysed("muggins-2p").to_json()
    for seat in summary["seats"]:
        mine = [d for d in summary["decisions"] if d["seat"] == seat["seat"]]
        assert seat["decisions"] == len(mine)
        assert seat["mean_lost"] == pytest.approx(sum(d["lost"] for d in mine) / len(mine), abs=0.006)
        worst = sorted((d for d in mine if d["lost"] > 0), key=lambda d: (-d["lost"], d["seq"]))[:3]
        assert seat["worst"] == [d["seq"] for d in worst]


def test_the_analysis_is_the_same_every_time():
    log, seed = golden("dominorules-block-2p")
    assert analyse(log, seed).to_json() == analysed("dominorules-block-2p").to_json()


def test_block_endings_are_exact_and_the_count_games_are_not():
    assert any(d.exact for d in analysed("dominorules-block-2p").decisions)
    assert not any(d.exact for d in analysed("muggins-2p").decisions)


def test_mexican_train_with_the_hands_shown_plays_the_true_deal_out():
    # 2p, engine 12-12: seat 0 holds 12-1 and 1-2, seat 1 only 1-3, and the boneyard's next tile
    # is 6-5. On the Mexican train, 12-1 lets seat 1 go out with 1-3 (seat 0 keeps 1-2: -3); on
    # seat 0's own unmarked train it cannot: seat 1 draws 6-5, passes, and seat 0 goes out with
    # 1-2 while seat 1 keeps 1-3 and 6-5 (+15): only the hands shown tell the two apart.
    rules = trains_rules(TrainsGame.MEXICAN_TRAIN, 2)
    trains = new_state(rules)
    engine = rules.engine(1)
    apply_trains(trains, RoundStarted(1, engine, 0, ((Tile(12, 1), Tile(1, 2)), (Tile(1, 3),)), (Tile(6, 5),)))
    own = {"type": "play", "tile": [12, 1], "train": 0}
    mexican = {"type": "play", "tile": [12, 1], "train": "mexican"}
    assert mexican_shown(trains, 0, [own, mexican], "analysis-test", DEFAULT_ANALYSIS_BUDGET) == [15.0, -3.0]


def test_mexican_train_decisions_carry_shown_values_and_are_never_exact():
    analysis = analysed("mexican-train-3p")
    assert analysis.family == "trains" and analysis.decisions
    assert all(c.shown is not None for d in analysis.decisions for c in d.choices)
    assert not any(d.exact for d in analysis.decisions)
    # the points given away are read from the shown values: some decision loses by them
    assert any(d.lost > 0 for d in analysis.decisions)


def test_a_mexican_train_analysis_is_the_same_every_time():
    log, seed = golden("mexican-train-2p")
    assert analyse(log, seed).to_json() == analysed("mexican-train-2p").to_json()


def test_past_the_budget_the_decisions_are_counted_but_not_valued():
    from dataclasses import replace

    log, seed = golden("dominorules-block-2p")
    whole = analysed("dominorules-block-2p")
    cut = analyse(log, seed, replace(DEFAULT_ANALYSIS_BUDGET, max_decisions=3))
    assert cut.decisions == whole.decisions[:3]
    assert cut.unvalued > 0
