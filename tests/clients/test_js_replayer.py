"""The JavaScript replayer (clients/js/replay.mjs) agrees with the server on every log."""

from __future__ import annotations

import json

import pytest

from api.tools.golden import audit_document, log_of, summarize

from .support import VECTOR_NAMES, bots, create, golden, run_replayer


def replay_with_node(audit: dict, tmp_path) -> dict:
    path = tmp_path / f"{audit['match_id']}.json"
    path.write_text(json.dumps(audit))
    done = run_replayer(path)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    summary.pop("checks")
    return summary


@pytest.mark.parametrize("name", VECTOR_NAMES)
def test_node_replays_each_golden_vector_to_its_expected_state(name, tmp_path):
    audit, expected = golden(name)
    assert replay_with_node(audit, tmp_path) == expected


FRESH = [("standard-block", 3, bots("random", "greedy", "random"), {}),
         ("dominorules-draw", 2, bots("greedy", "random"), {}),
         ("all-fives", 4, bots("greedy", "random", "random", "greedy"), {"partners": True, "target": 150}),
         ("muggins", 3, bots("random", "greedy", "random"), {"muggins_calls": True}),
         ("pagat-draw", 4, bots("random", "random", "greedy", "greedy"), {"auto_draw": True, "auto_knock": True})]


def test_node_agrees_with_the_server_on_fresh_matches_played_through_the_api(client, tmp_path):
    for preset, players, seats, rules in FRESH:
        created = create(client, seats, preset, rules)
        assert created["status"] == "ended"
        audit = client.get(f"/v1/matches/{created['id']}/audit").get_json()
        mine = replay_with_node(audit, tmp_path)
        server = summarize(audit)    # the server's own fold (api.rules.replay)
        assert mine == server, preset
        assert (mine["scores"], mine["winner"]) == (created["scores"], created["winner"])
        assert [h["points"] for h in mine["hands"]] == [h["points"] for h in server["hands"]]


def _rechained(audit: dict, log: list[dict]) -> dict:
    """A forged log whose hash chain is recomputed: only the rules can catch it."""
    return audit_document(audit["match_id"], audit["seed"], log)


def _first(log, kind, **match):
    return next(i for i, e in enumerate(log) if e["type"] == kind and all(e.get(k) == v for k, v in match.items()))


def test_an_edited_row_breaks_the_hash_chain_and_node_exits_non_zero(tmp_path):
    audit, _ = golden("standard-draw-2p")
    row = next(r for r in audit["events"] if r["type"] == "hand_ended")
    row["points"] += 1
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(audit))
    done = run_replayer(path)
    assert done.returncode == 1 and done.stdout == ""
    assert f"hash chain broken: event {row['seq']}: hash does not match its contents" in done.stderr


def test_forged_logs_with_a_sound_chain_are_refused_with_the_seq_and_the_reason(tmp_path):
    audit, _ = golden("all-fives-2p")
    cases = []
    log = log_of(audit)                                        # a score that is not the hand's
    i = _first(log, "hand_ended")
    log[i]["points"] += 5
    log[i]["scores"][log[i]["side"]] += 5
    cases.append((log, f"seq {i + 1}: the log holds", "where the rules give"))
    log = log_of(audit)                                        # points during play that were not made
    i = _first(log, "points_scored")
    log[i]["points"] += 5
    cases.append((log, f"seq {i + 1}:", "points_scored"))
    log = log_of(audit)                                        # a tile the seat does not hold
    i = _first(log, "tile_played", auto=False)
    held = {tuple(t) for t in log_of(audit)[_first(log, "hand_started")]["hands"][log[i]["seat"]]}
    log[i]["tile"] = next([a, b] for a in range(7) for b in range(a + 1) if (a, b) not in held)
    cases.append((log, f"seq {i + 1}:", "does not hold"))
    log = log_of(audit)                                        # a different deal than the seed gives
    i = _first(log, "hand_started")
    log[i]["boneyard"] = log[i]["boneyard"][::-1]
    cases.append((log, f"seq {i + 1}: the log holds", "hand_started"))
    for number, (forged, where, what) in enumerate(cases):
        path = tmp_path / f"forged-{number}.json"
        path.write_text(json.dumps(_rechained(audit, forged)))
        done = run_replayer(path)
        assert done.returncode == 1, (where, done.stdout[:200])
        assert "verification failed" in done.stderr and where in done.stderr and what in done.stderr, done.stderr


def test_a_seed_that_does_not_match_its_commitment_is_refused(tmp_path):
    audit, _ = golden("standard-block-2p")
    audit["seed"] = audit["seed"] + "x"
    path = tmp_path / "seed.json"
    path.write_text(json.dumps(audit))
    done = run_replayer(path)
    assert done.returncode == 1
    assert "seq 1: the revealed seed does not match the commitment published at match_created" in done.stderr
