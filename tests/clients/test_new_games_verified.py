"""The new games (issue 33) through both verifiers: the JS replayer (clients/js/replay.mjs) and
``boneyard verify`` (api/verify.py), two implementations of the rule book. Matches of every set
and scoring option, played by the engine, are accepted and fold to the engine's own summary; logs
forged from the golden vectors (Fives and Threes' count and exact target, the out bonus, all
hands' pips, the double-nine deal), chained anew so that only the rules can tell, are refused by
both at the seq where they depart."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable

import pytest

from api.rules import replay
from api.rules.engine import mutate
from api.rules.events import event_from_dict
from api.rules.scoring import count_points
from api.rules.vocabulary import EndCountScoring
from api.tools.golden import Vector, audit_document, generate, log_of
from api.verify import verify_audit

from .support import REPLAYER, golden, node_binary, run_replayer

V1, V2 = "boneyard-shuffle-v1", "boneyard-shuffle-v2"

# Matches the golden vectors leave out, each played by the engine as the vectors are (bots, and a
# person who lets turns run out): the larger sets under every lead, and the scoring options on
# other games than their presets'.
ANY_SET_AND_OPTION = [
    Vector("double-12-draw", "standard-draw", 2, {"set": "double-12", "target": 30}),
    Vector(
        "double-9-block-all-hands",
        "standard-block",
        3,
        {"set": "double-9", "hand_points": "all_hands", "blocked_scoring": "others", "target": 60},
    ),
    Vector(
        "double-9-muggins-fives-and-threes",
        "muggins",
        2,
        {"set": "double-9", "end_count_scoring": "fives_and_threes", "muggins_calls": True, "target": 60},
    ),
    Vector(
        "spinner-fives-and-threes-exact-partners",
        "all-fives",
        4,
        {"partners": True, "end_count_scoring": "fives_and_threes", "exact_target": True, "out_bonus": 5, "target": 61},
    ),
    Vector(
        "double-12-turn-up-bonus-rounded",
        "dominorules-draw",
        3,
        {"set": "double-12", "out_bonus": 3, "round_to_five": True, "target": 60},
    ),
    Vector(
        "fives-and-threes-with-all-hands-pips",
        "fives-and-threes",
        3,
        {"hand_end_pips": True, "hand_points": "all_hands", "blocked_scoring": "others", "target": 61},
    ),
    Vector(
        "double-12-clock",  # timed-out turns play the heaviest tile: weights up to 12-12
        "standard-draw",
        2,
        {"set": "double-12", "turn_seconds": 30, "target": 40},
        ({"name": "Ada", "type": "bot", "level": "greedy"}, {"name": "Idle", "type": "remote"}),
        timeouts=((1, (1, 2, 3, 5, 8, 13)),),
    ),
]


@pytest.mark.parametrize("vector", ANY_SET_AND_OPTION, ids=[v.name for v in ANY_SET_AND_OPTION])
def test_matches_of_every_set_and_scoring_option_are_accepted_by_both_verifiers(tmp_path, vector):
    audit, expected = generate(vector)
    created = audit["events"][0]
    assert created["seed_algorithm"] == audit["shuffle_algorithm"] == (V1 if "set" not in vector.rules else V2)
    path = tmp_path / "audit.json"
    path.write_text(json.dumps(audit))
    done = run_replayer(path)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    checks = summary.pop("checks")
    assert summary == expected  # the engine's own fold (api.tools.golden.summarize)
    assert checks["deals_checked"] >= expected["hand_number"] >= 1
    timeouts = sum(1 for e in audit["events"] if e["type"] == "turn_timed_out")
    assert checks["timeouts_checked"] == timeouts and (timeouts > 0) == bool(vector.timeouts)
    report = verify_audit(audit)
    assert report["verified"] is True, report["problems"]


def _at(log: list[dict], seq: int, kind: str) -> dict:
    """The event at ``seq`` (1-based), asserted to be of ``kind``: the vector is what the test reads."""
    event = log[seq - 1]
    assert event["type"] == kind, (seq, event)
    return event


def _score(event: dict, side: int, points: int) -> None:
    """Credit ``points`` more to ``side`` in the event, its running ``scores`` too."""
    event["points"] += points
    event["scores"][side] += points


def wrong_count_score(log: list[dict]) -> int:
    """Fives and Threes: a count of 15 scores 3 + 5 = 8; the log credits 15 (All Fives' figure)."""
    scored = _at(log, 11, "points_scored")
    assert (scored["count"], scored["points"]) == (15, 8)
    _score(scored, scored["side"], 15 - 8)
    for later in log[11:]:  # every later running total follows, so only the rule is wrong
        if "scores" in later:
            later["scores"][scored["side"]] += 7
    return 11


def count_past_the_exact_target_scored(log: list[dict]) -> int:
    """Fives and Threes 4p to 31: seq 78's play makes a count that would pass 31, so it scores
    nothing; the log credits it."""
    play = _at(log, 78, "tile_played")
    state = replay(event_from_dict(e) for e in log[:78])
    side = state.rules.side_of(play["seat"])
    points = count_points(state.layout.count(), EndCountScoring.FIVES_AND_THREES)
    assert points > 0 and state.scores[side] + points > 31
    scores = list(state.scores)
    scores[side] += points
    log.insert(78, {"type": "points_scored", "seat": play["seat"], "side": side, "points": points,
                    "count": state.layout.count(), "how": "play", "scores": scores})  # fmt: skip
    return 79


def bonus_for_a_blocked_hand(log: list[dict]) -> int:
    """Fives and Threes: a blocked hand scores nothing (no pips, no bonus); the log credits the
    lighter seat 1, as if it had gone out."""
    ended = _at(log, 43, "hand_ended")
    assert (ended["reason"], ended["side"], ended["pips"]) == ("blocked", None, [18, 22])
    ended.update(winner=0, side=0)
    _score(ended, 0, 1)
    return 43


def pips_where_hand_end_pips_is_off(log: list[dict]) -> int:
    """Fives and Threes: going out scores the bonus (1) alone; the log adds the other hand's pips."""
    ended = _at(log, 27, "hand_ended")
    assert (ended["reason"], ended["side"], ended["points"], ended["pips"]) == ("domino", 0, 1, [0, 12])
    _score(ended, 0, 12)
    return 27


def hand_points_past_the_exact_target(log: list[dict]) -> int:
    """Block to exactly 10: seq 37's blocked hand would pay side 0 (on 4) 20 - 10 = 10, past 10, so
    it pays 0 and the hand stands; the log credits the 10."""
    ended = _at(log, 37, "hand_ended")
    assert (ended["side"], ended["points"], ended["pips"], ended["scores"]) == (0, 0, [10, 20], [4, 6])
    _score(ended, 0, 10)
    return 37


def opponents_pips_only_when_going_out(log: list[dict]) -> int:
    """Double-nine partners (all_hands): seat 2 goes out and side 0 scores every hand's pips,
    12 + 2 + 0 + 6 = 20, its partner's 12 included; the log credits the opponents' 8 alone."""
    ended = _at(log, 86, "hand_ended")
    assert (ended["reason"], ended["side"], ended["points"], ended["pips"]) == ("domino", 0, 20, [12, 2, 0, 6])
    _score(ended, 0, 8 - 20)
    _at(log, 87, "match_ended")["scores"][0] -= 12
    return 86


def others_pips_only_when_blocked(log: list[dict]) -> int:
    """Double-nine partners (all_hands, others): the lighter side of a blocked hand scores all four
    hands, 5 + 17 + 10 + 10 = 42, its own included; the log credits the other side's 27 alone."""
    ended = _at(log, 41, "hand_ended")
    assert (ended["reason"], ended["side"], ended["points"], ended["pips"]) == ("blocked", 0, 42, [5, 17, 10, 10])
    _score(ended, 0, 27 - 42)
    for later in log[41:]:
        if "scores" in later:
            later["scores"][0] -= 15
    return 41


def double_nine_deal_changed(log: list[dict]) -> int:
    """Double-nine: hand 2's deal with a dealt tile swapped for an undealt one (of 15)."""
    started = _at(log, 42, "hand_started")
    assert len(started["boneyard"]) == 15 and max(max(t) for h in started["hands"] for t in h) == 9
    hand = started["hands"][3]  # seat 3 plays last: the first plays still fit
    hand[-1], started["boneyard"][0] = started["boneyard"][0], hand[-1]
    return 42


Forgery = Callable[[list[dict]], int]
FORGERIES: list[tuple[str, Forgery, str]] = [
    ("fives-and-threes-2p", wrong_count_score, "the log holds"),
    ("fives-and-threes-4p", count_past_the_exact_target_scored, ""),
    ("fives-and-threes-2p", bonus_for_a_blocked_hand, "the log holds"),
    ("fives-and-threes-2p", pips_where_hand_end_pips_is_off, "the log holds"),
    ("standard-block-exact-2p", hand_points_past_the_exact_target, "the log holds"),
    ("double-nine-partners-4p", opponents_pips_only_when_going_out, "the log holds"),
    ("double-nine-partners-4p", others_pips_only_when_blocked, "the log holds"),
    ("double-nine-partners-4p", double_nine_deal_changed, 'the log holds {"type":"hand_started","hand_number":2'),
]


@pytest.mark.parametrize(("vector", "forge", "why"), FORGERIES, ids=[f.__name__ for _, f, _ in FORGERIES])
def test_a_forged_log_of_the_new_games_is_refused_by_both_verifiers_at_the_seq_it_departs(tmp_path, vector, forge, why):
    audit, _ = golden(vector)
    log = log_of(audit)
    seq = forge(log)
    forged = audit_document(audit["match_id"], audit["seed"], log)
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(forged))
    done = run_replayer(path)
    assert (done.returncode, done.stdout) == (1, ""), done.stderr
    assert f"verification failed: seq {seq}: {why}" in done.stderr, done.stderr
    report = verify_audit(forged)
    assert report["verified"] is False and report["chain_ok"] is True
    assert report["departure"]["seq"] == seq, report["departure"]


def test_the_honest_counterparts_of_the_forgeries_fold_as_their_docstrings_say():
    """What the forgeries rewrite is what the rules give: e.g. seq 78 of Fives and Threes 4p makes
    a count past the exact target and no points_scored follows it."""
    log = log_of(golden("fives-and-threes-4p")[0])
    state = replay(event_from_dict(e) for e in log[:78])
    assert count_points(state.layout.count(), EndCountScoring.FIVES_AND_THREES) > 0
    assert log[78]["type"] != "points_scored"
    mutate(state, event_from_dict(log[78]))  # the next event folds on the unchanged scores
    assert max(state.scores) <= 31


def test_a_double_nine_log_must_name_its_sets_shuffle(tmp_path):
    audit, _ = golden("double-nine-partners-4p")
    assert (audit["shuffle_algorithm"], audit["events"][0]["seed_algorithm"]) == (V2, V2)
    log = log_of(audit)
    log[0]["seed_algorithm"] = V1  # dealt, it claims, by the double-six shuffle
    forged = audit_document(audit["match_id"], audit["seed"], log)
    path = tmp_path / "v1.json"
    path.write_text(json.dumps(forged))
    done = run_replayer(path)
    assert done.returncode == 1
    assert f"verification failed: seq 1: seed_algorithm {V1} is not the double-9 set's {V2}" in done.stderr
    report = verify_audit(forged)
    assert report["departure"] == {
        "seq": 1,
        "reason": f"seq 1: seed_algorithm '{V1}' is not the double-9 set's '{V2}'",
    }
    # the log as dealt, under an audit header that names another shuffle
    audit["shuffle_algorithm"] = V1
    path.write_text(json.dumps(audit))
    done = run_replayer(path)
    assert done.returncode == 1
    assert f"verification failed: seq 1: the audit's shuffle_algorithm {V1} is not match_created's {V2}" in (
        done.stderr
    )
    assert verify_audit(audit)["departure"] == {
        "seq": 1,
        "reason": "seq 1: the audit's shuffle_algorithm is not the seed_algorithm match_created names",
    }


SCORING = """
import { countPoints, credited, endCountScoring } from "./clients/js/rules.mjs";
const counts = Array.from({ length: 61 }, (_, c) => c);
const scorings = ["none", "fives", "fives_and_threes"];
console.log(JSON.stringify({
  points: Object.fromEntries(scorings.map((s) => [s, counts.map((c) => countPoints(c, s))])),
  credited: [credited(4, 59, 61, true), credited(2, 59, 61, true), credited(4, 59, 61, false)],
  read: [endCountScoring({ fives_scoring: true }), endCountScoring({ fives_scoring: false }),
         endCountScoring({ fives_scoring: false, end_count_scoring: "fives_and_threes" })],
}));
"""


def test_the_js_count_points_are_pythons_and_the_rule_books_worked_examples():
    done = subprocess.run(
        [node_binary(), "--input-type=module", "-e", SCORING],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPLAYER.parents[2],
        check=True,
    )
    got = json.loads(done.stdout)
    for scoring in EndCountScoring:
        assert got["points"][scoring] == [count_points(c, scoring) for c in range(61)], scoring
    # docs/rules.md, section 11 (Fives and Threes): 3->1 5->1 6->2 9->3 10->2 12->4 15->8 18->6 20->4 21->7
    examples = {3: 1, 5: 1, 6: 2, 9: 3, 10: 2, 12: 4, 15: 8, 18: 6, 20: 4, 21: 7, 7: 0, 0: 0}
    assert {c: got["points"]["fives_and_threes"][c] for c in examples} == examples
    assert got["points"]["fives"][15] == 15 and got["points"]["fives"][12] == 0
    # a side on 59 that makes 4 stays on 59 under an exact 61; 2 take it there
    assert got["credited"] == [0, 2, 4]
    assert got["read"] == ["fives", "none", "fives_and_threes"]


def test_a_scoring_word_the_replayer_does_not_know_is_refused_not_scored_as_another(tmp_path):
    audit, _ = golden("fives-and-threes-2p")
    log = log_of(audit)
    assert log[0]["rules"]["end_count_scoring"] == "fives_and_threes"
    log[0]["rules"]["end_count_scoring"] = "fives_and_sevens"
    forged = audit_document(audit["match_id"], audit["seed"], log)
    path = tmp_path / "unknown-word.json"
    path.write_text(json.dumps(forged))
    done = run_replayer(path)
    assert done.returncode == 1
    assert (
        'verification failed: seq 1: rules.end_count_scoring "fives_and_sevens" is unknown to this replayer '
        "(knows none, fives, fives_and_threes)"
    ) in done.stderr
    report = verify_audit(forged)
    assert report["verified"] is False and report["departure"]["seq"] == 1
