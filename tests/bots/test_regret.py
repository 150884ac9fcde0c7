"""bench/regret.py: the expert's choices scored against the best play with the hidden hands shown.

Runs without the ``bench`` extra: against a Boneyard level the script needs no public AI.
"""

from __future__ import annotations

import pytest

from api.bots import DEFAULT_BUDGET
from bench import regret
from tests.bots.support import Position, tiles

SIX_ONE, SIX_THREE = ((6, 1), "left"), ((6, 3), "left")


def two_ways_to_block() -> regret.Decision:
    # 2p block. 6-6 leads, seat 1 answers 6-5 (its only six): the ends are 6 and 5. Seat 0 holds
    # 6-1, 6-3 and 1-0; seat 1 holds 3-3, 2-2 and 4-4.
    # - 6-1 (ends 1, 5): seat 1 knocks, seat 0 plays 1-0 (ends 0, 5), nobody can go on. Blocked:
    #   seat 0 keeps 6-3 (9 pips) against 18, and scores 18 - 9 = 9 (others_minus_own).
    # - 6-3 (ends 3, 5): seat 1 plays 3-3, then nobody can go on. Seat 0 keeps 6-1 and 1-0
    #   (8 pips) against 2-2 and 4-4 (12): it scores 12 - 8 = 4.
    p = Position(["6-6 6-1 6-3 1-0", "6-5 3-3 2-2 4-4"], preset="standard-block")
    p.play(0, "6-6").play(1, "6-5", "right")
    view, log = p.seen_by(0)
    return regret.Decision(view, log, "regret-test", {1: tiles("3-3 2-2 4-4")}, tiles_left=6)


def test_the_oracle_values_each_play_by_solving_the_rest_of_the_hand_with_the_true_hands():
    decision = two_ways_to_block()
    assert regret.oracle_values(decision) == {SIX_ONE: 9.0, SIX_THREE: 4.0}


def test_regret_is_the_best_value_less_the_value_of_the_play_chosen():
    decision = two_ways_to_block()
    values = regret.oracle_values(decision)
    shown = regret.Variant("shown", DEFAULT_BUDGET, sighted=True)
    assert regret.play_key(regret.choose(shown, decision)) == SIX_ONE  # with the truth it solves the end
    chosen, cpu = regret.regret_of((shown, decision, values))
    assert chosen == 0.0 and cpu >= 0.0
    # Had it played 6-3, it would have given away 5 points.
    assert max(values.values()) - values[SIX_THREE] == 5.0


# slow: a whole bench run (the deals of one pair, every variant, twice); the pieces it is made of
# are tested above and below in a fraction of its time
@pytest.mark.slow
def test_a_run_against_greedy_sides_scores_every_variant_on_the_same_decisions():
    variants = regret.variants_of(["exact_tiles=12"], with_sighted=True)
    assert [v.name for v in variants] == ["its own budget", "exact_tiles=12", "its own budget, shown the hidden hands"]
    assert variants[1].budget.exact_tiles == 12 and variants[2].sighted
    jobs = [regret.Job(index=0, seed=1, opponent="greedy")]
    decisions, scored = regret.run(None, jobs, variants)
    assert decisions and all(len(s.regrets) == len(decisions) == len(s.cpu) for s in scored)
    assert all(r >= -1e-9 for s in scored for r in s.regrets)
    # In the exact endings, the expert shown the hands solves what the oracle solves: no regret.
    exact = DEFAULT_BUDGET.exact_tiles
    shown = scored[2].regrets
    endings = [not regret.before_the_endings(d, exact) for d in decisions]
    assert any(endings) and not all(endings)
    assert all(r == 0.0 for r, in_them in zip(shown, endings) if in_them)
    # Every decision had a choice, and the truth kept for it is what the seat could not see.
    for d in decisions:
        assert len([a for a in d.view["legal_actions"] if a["type"] == "play"]) >= 2
        assert d.view["seat"] not in d.truth
        assert sorted(len(h) for h in d.truth.values()) == sorted(
            n for s, n in enumerate(d.view["hand_counts"]) if s != d.view["seat"]
        )
    # The same deals and seeds give the same regrets.
    again, rescored = regret.run(None, jobs, variants)
    assert again == decisions and [s.regrets for s in rescored] == [s.regrets for s in scored]
    lines = regret.report(scored, decisions, exact)
    assert len(lines) == 2 + len(variants) and lines[2].startswith("| its own budget | ")


def test_the_stages_of_a_hand_cover_every_count_of_tiles_once_and_never_straddle_the_exact_endings():
    assert regret.stages(16) == [(27, 24), (23, 20), (19, 17), (16, 13), (12, 9), (8, 5), (4, 0)]
    for exact in (0, 12, 16, 20):
        ranges = regret.stages(exact)
        covered = [n for most, fewest in ranges for n in range(most, fewest - 1, -1)]
        assert covered == list(range(27, -1, -1))
        assert not any(most > exact >= fewest for most, fewest in ranges if exact)


def test_regret_by_stage_splits_each_variant_over_the_decisions_of_each_stage():
    def decision(tiles_left: int) -> regret.Decision:
        return regret.Decision({}, [], "", {}, tiles_left)

    decisions = [decision(28), decision(25), decision(10)]  # 27, 24 and 9 tiles left once played
    own = regret.Scored(regret.Variant("own", DEFAULT_BUDGET), [3.0, 1.0, 4.0], [0.0] * 3)
    shown = regret.Scored(regret.Variant("shown", DEFAULT_BUDGET, sighted=True), [0.0] * 3, [0.0] * 3)
    lines = regret.report_by_stage([own, shown], decisions, 16)
    assert lines[0] == "| tiles left once it has played | 27-24 | 23-20 | 19-17 | 16-13 | 12-9 | 8-5 | 4-0 |"
    assert lines[2] == "| decisions | 2 | 0 | 0 | 0 | 1 | 0 | 0 |"
    assert lines[3] == "| own | 2.00 (50%) | - | - | - | 4.00 (50%) | - | - |"
    assert lines[4] == "| shown | 0.00 | - | - | - | 0.00 | - | - |"


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--variant", "no_such_field=1"], "no budget field"),
        (["--variant", "exact_tiles=many"], "takes int values"),
        (["--opponent", "nobody"], "unknown opponent"),
        (["--pairs", "0"], "at least 1"),
    ],
)
def test_bad_arguments_are_refused_with_the_reason(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        regret.main(argv)
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err
