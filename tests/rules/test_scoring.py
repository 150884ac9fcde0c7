"""The scoring of a count has one home, ``api.rules.scoring``: its values, and its readers.

A new scoring rule should be a change to that module (and its tests, and the golden
vectors), so these tests pin what it answers, that the listed actions' ``scores`` hints
agree with it on every play of real games, and that no other module of the server spells
the rule again.
"""

import random
import re
from pathlib import Path

import pytest

from api.rules import legal_actions, resolve_rules
from api.rules.layout import END_NAMES
from api.rules.scoring import count_points
from api.rules.simulate import push, start
from api.rules.state import PLAY, PLAYING, MatchState
from api.rules.vocabulary import EndCountScoring

FIVES, FIVES_AND_THREES = EndCountScoring.FIVES, EndCountScoring.FIVES_AND_THREES

API = Path(__file__).resolve().parents[2] / "api"


def test_a_count_scores_itself_only_when_a_positive_multiple_of_five():
    assert {c: count_points(c, FIVES) for c in range(49) if count_points(c, FIVES)} == {c: c for c in range(5, 49, 5)}
    assert count_points(0, FIVES) == 0  # an empty count is no multiple of five that scores


def test_fives_and_threes_scores_a_point_per_five_and_per_three():
    # the rule book's table (docs/rules.md, section 12): a double-six line's count is at most 22
    scored = {c: count_points(c, FIVES_AND_THREES) for c in range(23) if count_points(c, FIVES_AND_THREES)}
    assert scored == {3: 1, 5: 1, 6: 2, 9: 3, 10: 2, 12: 4, 15: 8, 18: 6, 20: 4, 21: 7}
    assert count_points(0, FIVES_AND_THREES) == 0
    assert count_points(30, FIVES_AND_THREES) == 6 + 10  # larger sets and spinners count higher
    assert all(count_points(c, EndCountScoring.NONE) == 0 for c in range(60))


@pytest.mark.parametrize(
    "preset,players", [("all-fives", 2), ("all-fives", 4), ("muggins", 3), ("fives-and-threes", 2)]
)
def test_the_listed_scores_are_what_the_count_after_the_play_scores(preset, players):
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
                points = count_points(after.count(), rules.end_count_scoring)
                if rules.exact_target and st.scores[rules.side_of(st.turn)] + points > rules.target:
                    points = 0  # the hint is what the play scores
                assert listed[(tuple(move[1].to_json()), END_NAMES[move[2]])] == points
                checked += 1
                scoring += points > 0
            push(st, rng.choice(st.legal_moves()), dealer)
    assert checked > 200 and scoring > 20  # real games, with plays that score and plays that do not


def test_no_other_server_module_spells_the_multiple_of_five_or_three_rule():
    spelled = [
        str(path.relative_to(API.parent))
        for path in API.rglob("*.py")
        if path.name != "scoring.py" and re.search(r"%\s*[35]\b", path.read_text(encoding="utf-8"))
    ]
    assert spelled == []
