"""The bots in issue 33's games: every level plays whole matches of ``fives-and-threes`` and
``double-nine-partners`` with listed actions only, and the expert knows that points past an
exact target score nothing while reaching it exactly wins."""

from __future__ import annotations

import random

import pytest

from api.bots import LEVELS, choose_action
from api.bots.actions import to_move
from api.bots.arena import BotMatch
from api.bots.expert import evaluate, policy_move
from api.bots.knowledge import Knowledge
from api.rules import Tile, resolve_rules
from api.rules.vocabulary import EndCountScoring
from tests.bots.support import Position
from tests.bots.test_levels import QUICK, check_answer


@pytest.mark.parametrize(
    ("preset", "players", "options"),
    [("fives-and-threes", 2, {}), ("fives-and-threes", 4, {}), ("double-nine-partners", 4, {"target": 40})],
    ids=["fives-and-threes-2p", "fives-and-threes-4p-partners", "double-nine-partners"],
)
def test_every_level_plays_whole_matches_of_the_new_presets_with_listed_actions(preset, players, options):
    rules = resolve_rules(preset, options, players)
    asked = {level: 0 for level in LEVELS}
    ended = 0

    def observe(seat, level, seconds, view, log, action):
        check_answer(level, view, action)
        asked[level] += 1

    for game in range(len(LEVELS) - players + 2):  # every level seated, at least once beside each neighbour
        levels = [LEVELS[(seat + game) % len(LEVELS)] for seat in range(players)]
        match = BotMatch(rules, f"new-games:{preset}:{players}:{game}", levels, QUICK)
        while match.live and match.decisions < 3_000:
            match.step(observe)  # decide() would raise on an illegal action
        assert not match.live  # played to the end of the match
        st = match.state
        winner = st.winner
        assert winner is not None
        if rules.exact_target:
            assert st.scores[winner] == rules.target  # exactly 61, never past
            assert all(score <= rules.target for score in st.scores)
        else:
            assert st.scores[winner] >= rules.target
        ended += 1
    assert ended and all(asked.values()), asked


# Fives and threes, two players: seat 0 leads 5-0 (ends 5 and 0, a count of 5: a point). Seat 1
# may play 5-5 on the 5 (count 10: 2 points) when it holds it, 4-0 on the 0 (count 9: 3 points)
# and 6-0 on the 0 (count 11: nothing); its other tiles do not fit.
LEADER = "5-0 1-1 2-1 3-1 6-6 6-5 6-4"
WITH_DOUBLE = "5-5 4-0 6-0 3-3 2-2 4-4 3-2"
WITHOUT_DOUBLE = "6-3 4-0 6-0 3-3 2-2 4-4 3-2"


def fives_and_threes_after_the_lead(hand: str, score: int) -> Position:
    p = Position([LEADER, hand], preset="fives-and-threes", leader=0).play(0, "5-0")
    p.state.scores[1] = score  # seat 1's side stands on ``score`` of 61
    return p


def _play_of(action: dict) -> str:
    return str(Tile.from_json(action["tile"]))


@pytest.mark.parametrize(("score", "best"), [(58, "4-0"), (59, "5-5"), (50, "4-0")])
def test_the_expert_plays_to_reach_sixty_one_exactly(score, best):
    """On 58 the 3 points of 4-0 make 61 and win; on 59 they would pass it and score nothing,
    so 5-5's 2 points win instead; far from the target the 3 points are simply the most."""
    view, log = fives_and_threes_after_the_lead(WITH_DOUBLE, score).seen_by(1)
    assert _play_of(choose_action("expert", view, log, "f3")) == best


def test_a_play_whose_points_would_pass_the_exact_target_is_not_valued_for_them():
    values = {}
    for score in (50, 59):
        view, log = fives_and_threes_after_the_lead(WITHOUT_DOUBLE, score).seen_by(1)
        know = Knowledge.read(view, log)
        plays = {_play_of(a): to_move(a) for a in view["legal_actions"]}
        assert set(plays) == {"4-0", "6-0"}
        # the listed hint says so too: 4-0 scores 3 on 50, nothing on 59
        assert {_play_of(a): a.get("scores", 0) for a in view["legal_actions"]}["4-0"] == (3 if score == 50 else 0)
        got = evaluate(know, list(plays.values()), random.Random(7), QUICK)
        values[score] = dict(zip(plays, got))
    # 4-0's lead over 6-0 is its 3 points far from the target, and they are gone on 59
    assert values[50]["4-0"] - values[50]["6-0"] > values[59]["4-0"] - values[59]["6-0"] + 2


@pytest.mark.parametrize(("score", "best"), [(50, "4-0"), (58, "4-0"), (59, "5-5")])
def test_the_playouts_chase_the_points_that_count_and_the_exact_target_first(score, best):
    """The playout policy (``expert.policy_move``, epsilon 0): on 59 4-0's points would pass 61, so
    the double that reaches it is played; without the double, the heavier 6-0 (4-0's points are
    worth nothing there)."""
    st = fives_and_threes_after_the_lead(WITH_DOUBLE, score).state
    move = policy_move(st, random.Random(1), 0.0, EndCountScoring.FIVES_AND_THREES)
    assert str(move[1]) == best
    st = fives_and_threes_after_the_lead(WITHOUT_DOUBLE, score).state
    move = policy_move(st, random.Random(1), 0.0, EndCountScoring.FIVES_AND_THREES)
    assert str(move[1]) == ("6-0" if score == 59 else "4-0")
