"""The fives scoring of a count has one home, ``api.rules.scoring``: its values, and its readers.

A new scoring rule should be a change to that module (and its tests, and the golden
vectors), so these tests pin what it answers, that the listed actions' ``scores`` hints
and the expert's estimate in its playouts agree with it on every play of real games, and
that no other module of the server spells the rule again.
"""

import random
import re
from pathlib import Path

import pytest

from api.bots.expert import fives_after
from api.rules import legal_actions, resolve_rules
from api.rules.layout import END_NAMES
from api.rules.scoring import fives_points
from api.rules.simulate import push, start
from api.rules.state import PLAY, PLAYING, MatchState

API = Path(__file__).resolve().parents[2] / "api"


def test_a_count_scores_itself_only_when_a_positive_multiple_of_five():
    assert {c: fives_points(c) for c in range(49) if fives_points(c)} == {c: c for c in range(5, 49, 5)}
    assert fives_points(0) == 0  # an empty count is no multiple of five that scores


@pytest.mark.parametrize("preset,players", [("all-fives", 2), ("all-fives", 4), ("muggins", 3)])
def test_the_listed_scores_and_the_experts_estimate_are_the_count_after_the_play(preset, players):
    rules = resolve_rules(preset, {}, players)
    rng = random.Random(f"scoring-{preset}-{players}")
    checked = scoring = 0
    for _ in range(5):
        st = MatchState(rules, [{"name": f"p{i}", "type": "bot", "level": "random"} for i in range(players)])
        dealer = start(st, rng)
        while st.status == PLAYING:
            listed = {
                (tuple(a["tile"]), a["end"]): a.get("scores", 0)
                for a in legal_actions(st, st.turn)
                if a["type"] == "play"
            }
            for move in st.legal_moves():
                if move[0] != PLAY:
                    continue
                after = st.layout.copy()
                after.place(move[1], move[2])
                points = fives_points(after.count())
                assert fives_after(st.layout, move[1], move[2]) == points
                assert listed[(tuple(move[1].to_json()), END_NAMES[move[2]])] == points
                checked += 1
                scoring += points > 0
            push(st, rng.choice(st.legal_moves()), dealer)
    assert checked > 200 and scoring > 20  # real games, with plays that score and plays that do not


def test_no_other_server_module_spells_the_multiple_of_five_rule():
    spelled = [
        str(path.relative_to(API.parent))
        for path in API.rglob("*.py")
        if path.name != "scoring.py" and re.search(r"%\s*5\b", path.read_text(encoding="utf-8"))
    ]
    assert spelled == []
