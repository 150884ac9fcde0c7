"""The JavaScript replayer (clients/js/replay.mjs) agrees with the server on every log."""

from __future__ import annotations

import json
import subprocess
import sys
from itertools import pairwise

import pytest
import requests

from api.bots.audit import opens_a_decision, recheck_bot_moves
from api.rules import replay
from api.rules.audit import verify_log
from api.rules.engine import Play, decide
from api.rules.events import event_from_dict
from api.rules.layout import END_NAMES
from api.rules.tiles import Tile
from api.services.commands import SeatSpec
from api.tools.golden import EXAMPLES, audit_document, log_of, summarize
from tests.api.helpers import create_played, whole_audit
from tests.api.stored_matches import LONG, store_ended_match
from tests.servers import running_gunicorn
from tests.services.support import ANA
from tests.services.test_bot_moves_audited import SwapOnce
from tests.tampered_logs import PERSON_AND_BOT, rewritten_deal

from .support import REPLAYER, ROOT, VECTOR_NAMES, bots, golden, node_binary, run_replayer, served

GREEDY = SeatSpec("Gr", "bot", "greedy")


def replay_with_node(audit: dict, tmp_path) -> dict:
    path = tmp_path / f"{audit['match_id']}.json"
    path.write_text(json.dumps(audit))
    done = run_replayer(path)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    summary.pop("checks")
    return summary


def bot_moves(log: list[dict]) -> dict[str, int]:
    """The own moves of bot seats in a log, per level seated (a seat handed to a bot counts from then on)."""
    seats = [dict(seat) for seat in log[0]["seats"]]
    counts = {seat["level"]: 0 for seat in seats if seat["type"] == "bot"}
    for before, event in pairwise(log):
        # the trains games: the pass after a seat's own draw that fits nowhere is that draw's answer
        answers_a_draw = event["type"] == "passed" and before["type"] == "tile_drawn"
        if event["type"] == "seat_replaced":
            seats[event["seat"]] = {"type": "bot", "level": event["level"]}
            counts.setdefault(event["level"], 0)
        elif opens_a_decision(event) and not answers_a_draw and seats[event["seat"]]["type"] == "bot":
            counts[seats[event["seat"]]["level"]] += 1
    return counts


@pytest.mark.parametrize("name", VECTOR_NAMES)
def test_node_replays_each_golden_vector_to_its_expected_state_counting_bot_moves_as_not_rechecked(name):
    audit, expected = golden(name)
    done = run_replayer(EXAMPLES / f"{name}.audit.json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    checks = summary.pop("checks")
    assert summary == expected
    # every vector seats computer players: their moves are checked legal, their choices not re-made
    # (boneyard verify and /fairness do that), and the replayer says so
    assert "bot_moves_checked" not in checks
    assert checks["bot_moves_not_checked"] == bot_moves(log_of(audit))
    moves = sum(checks["bot_moves_not_checked"].values())
    assert moves > 0
    assert done.stderr == (
        f"replay.mjs: {EXAMPLES / f'{name}.audit.json'}: {moves} bot moves checked legal but not re-made here: "
        "GET /v1/matches/{id}/fairness and `boneyard verify AUDIT.json` ask every bot again\n"
    )


def test_a_swapped_bot_move_passes_node_and_fails_boneyard_verify(tmp_path):
    """The threat model's one difference (openapi/events.md, *Who checks what*): a bot move
    swapped for another legal one, the rest re-played and re-chained, is legal, so the JS
    replayer accepts it (counting the bot's moves as not re-checked); ``boneyard verify``, the
    real command run as a process, asks the bot again and refuses it at that seq."""
    swap = SwapOnce()
    _bus, _id, audit, log = served({"target": 30}, (ANA, GREEDY), offload=swap)
    assert swap.swapped is not None, "no bot had a choice to swap"
    at = next(i for i, e in enumerate(log) if e["type"] == "tile_played" and e["tile"] == swap.swapped["tile"])
    path = tmp_path / "swapped.json"
    path.write_text(json.dumps(audit))
    done = run_replayer(path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["checks"]["bot_moves_not_checked"] == bot_moves(log)
    assert "bot moves checked legal but not re-made here" in done.stderr
    done = subprocess.run(
        [sys.executable, "-m", "api.cli", "verify", str(path)], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert (done.returncode, done.stderr) == (1, ""), done.stderr
    report = json.loads(done.stdout)
    assert report["verified"] is False and report["chain_ok"] is True
    assert report["departure"]["seq"] == at + 1
    assert report["departure"]["reason"].startswith(f"seq {at + 1}: the greedy computer at seat 1 chooses to play ")


def test_a_bot_level_node_has_never_heard_of_is_counted_like_any_other(tmp_path):
    """No level is known here or not: every bot move is counted under its seat's level (and
    ``boneyard verify`` refuses a level its bots do not have: tests/clients/test_boneyard_verify.py)."""
    audit, _ = golden("all-fives-2p")
    log = log_of(audit)
    log[0]["seats"][1]["level"] = "grandmaster"  # seat 1 played random
    path = tmp_path / "new-level.json"
    path.write_text(json.dumps(_rechained(audit, log)))
    done = run_replayer(path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["checks"]["bot_moves_not_checked"] == {"greedy": 17, "grandmaster": 16}


FRESH = [
    ("standard-block", 3, bots("random", "greedy", "random"), {}),
    ("dominorules-draw", 2, bots("greedy", "random"), {}),
    ("all-fives", 4, bots("greedy", "random", "random", "greedy"), {"partners": True, "target": 150}),
    ("muggins", 3, bots("random", "greedy", "random"), {"muggins_calls": True}),
    ("pagat-draw", 4, bots("random", "random", "greedy", "greedy"), {"auto_draw": True, "auto_knock": True}),
]


def test_node_agrees_with_the_server_on_fresh_matches_played_through_the_api(client, tmp_path):
    for preset, _players, seats, rules in FRESH:
        created = create_played(client, seats, preset=preset, rules=rules)
        created = client.get(f"/v1/matches/{created['id']}").get_json()
        assert created["status"] == "ended"
        audit = whole_audit(client, created["id"])
        mine = replay_with_node(audit, tmp_path)
        server = summarize(audit)  # the server's own fold (api.rules.replay)
        assert mine == server, preset
        assert (mine["scores"], mine["winner"]) == (created["scores"], created["winner"])
        assert [h["points"] for h in mine["hands"]] == [h["points"] for h in server["hands"]]


def test_node_follows_the_pages_of_a_served_audit_and_refuses_a_lone_page(database_url, store, tmp_path):
    match_id, expected = store_ended_match(store, LONG)
    with running_gunicorn(database_url, tmp_path / "gunicorn.log", WEB_CONCURRENCY="1", AUTO_MIGRATE="0") as (base, _):
        url = f"{base}/v1/matches/{match_id}/audit?limit=300"  # 5 pages of at most 300 rows
        done = subprocess.run(
            [node_binary(), str(REPLAYER), url], check=False, capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, done.stderr
        summary = json.loads(done.stdout)
        assert summary.pop("checks")["chain_rows"] == expected["seq"] > 1200
        assert summary == summarize(expected)
        first_page = requests.get(url, timeout=10).json()
    assert first_page["next_after"] == 300
    path = tmp_path / "page.json"
    path.write_text(json.dumps(first_page))
    done = run_replayer(path)
    assert done.returncode == 1 and "this is one page of the audit (rows after 300" in done.stderr


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
    log = log_of(audit)  # a score that is not the hand's
    i = _first(log, "hand_ended")
    log[i]["points"] += 5
    log[i]["scores"][log[i]["side"]] += 5
    cases.append((log, f"seq {i + 1}: the log holds", "where the rules give"))
    log = log_of(audit)  # points during play that were not made
    i = _first(log, "points_scored")
    log[i]["points"] += 5
    cases.append((log, f"seq {i + 1}:", "points_scored"))
    log = log_of(audit)  # a tile the seat does not hold
    i = _first(log, "tile_played", auto=False)
    held = {tuple(t) for t in log_of(audit)[_first(log, "hand_started")]["hands"][log[i]["seat"]]}
    log[i]["tile"] = next([a, b] for a in range(7) for b in range(a + 1) if (a, b) not in held)
    cases.append((log, f"seq {i + 1}:", "does not hold"))
    log = log_of(audit)  # a different deal than the seed gives
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


def _timed_out_play_with_a_choice(log: list[dict]) -> tuple[int, dict]:
    """The first timed-out turn that played at once while holding two or more playable
    tiles, and the same seat's play of another of them, as a forger would log it."""
    for i, event in enumerate(log):
        if event["type"] != "turn_timed_out" or log[i + 1]["type"] != "tile_played":
            continue
        state = replay(event_from_dict(e) for e in log[: i + 1])
        heaviest = Tile.from_json(log[i + 1]["tile"])
        others = [(t, end) for t, end in state.playable(event["seat"]) if t != heaviest]
        if others:
            tile, end = others[0]
            forged = decide(state, Play(event["seat"], tile, END_NAMES[end]), audit_seed(log))[0].to_dict()
            return i + 1, {**forged, "auto": True}
    raise AssertionError("no timed-out turn with a choice in this vector")


def audit_seed(log: list[dict]) -> str:
    return next(e["seed"] for e in log if e["type"] == "match_ended")


def test_node_refuses_timed_out_turns_and_replacements_the_rules_do_not_give(tmp_path):
    audit, _ = golden("standard-draw-clock-2p")
    original = log_of(audit)
    timeouts = [i for i, e in enumerate(original) if e["type"] == "turn_timed_out"]
    replaced = _first(original, "seat_replaced")
    cases = []
    log = log_of(audit)  # a lighter tile than the heaviest that fits
    i, lighter = _timed_out_play_with_a_choice(log)
    heaviest = json.dumps(log[i]["tile"], separators=(",", ":"))
    log[i] = lighter
    cases.append(
        (log, f"seq {i + 1}: the log holds", f'where the rules give {{"type":"tile_played","seat":1,"tile":{heaviest}')
    )
    log = log_of(audit)  # a count of timeouts in a row that is not the seat's
    log[timeouts[0]]["consecutive"] += 1
    cases.append((log, f"seq {timeouts[0] + 1}: timeout should be", '"consecutive":1'))
    log = log_of(audit)  # the limit is reached but the seat is not handed over
    del log[replaced]
    cases.append((log, f"seq {replaced + 1}: the log holds", '"type":"seat_replaced","seat":1,"level":"greedy"'))
    log = log_of(audit)  # a bot's turn "timing out"
    i = _first(log, "tile_played", seat=0, auto=False)
    log.insert(i, {"type": "turn_timed_out", "seat": 0, "consecutive": 1})
    cases.append((log, f"seq {i + 1}: seat 0 is a computer player", "cannot time out"))
    log = log_of(audit)  # the replaced seat is a bot now: no more timeouts
    i = next(j for j in range(replaced, len(log)) if log[j]["type"] == "tile_played" and log[j]["seat"] == 1)
    log.insert(i, {"type": "turn_timed_out", "seat": 1, "consecutive": 1})
    cases.append((log, f"seq {i + 1}: seat 1 is a computer player", "cannot time out"))
    log = log_of(audit)  # the bot's moves are checked like anyone's
    held = {tuple(t.to_json()) for t in replay(event_from_dict(e) for e in log[:i]).hands[1]}
    log[i]["tile"] = next([a, b] for a in range(7) for b in range(a + 1) if (a, b) not in held)
    cases.append((log, f"seq {i + 1}:", "does not hold"))
    for number, (forged, where, what) in enumerate(cases):
        assert not verify_log(forged, audit["seed"]).ok, where  # the server's own audit agrees
        path = tmp_path / f"forged-clock-{number}.json"
        path.write_text(json.dumps(_rechained(audit, forged)))
        done = run_replayer(path)
        assert done.returncode == 1, (where, done.stdout[:200])
        assert "verification failed" in done.stderr and where in done.stderr and what in done.stderr, done.stderr


def test_node_counts_every_timed_out_turn_it_re_played():
    audit, _ = golden("muggins-block-clock-3p")
    done = run_replayer(EXAMPLES / "muggins-block-clock-3p.audit.json")
    assert done.returncode == 0, done.stderr
    assert (
        json.loads(done.stdout)["checks"]["timeouts_checked"]
        == sum(1 for row in audit["events"] if row["type"] == "turn_timed_out")
        > 0
    )


def test_a_rewritten_deal_is_refused_at_its_seq_and_the_bot_recheck_names_the_impossible_play(tmp_path):
    forged = rewritten_deal()
    audit = audit_document("rewritten-deal", PERSON_AND_BOT.seed, forged.log)
    path = tmp_path / "rewritten-deal.json"
    path.write_text(json.dumps(audit))
    done = run_replayer(path)
    assert done.returncode == 1 and done.stdout == ""
    assert f"verification failed: seq {forged.deal_seq}: the log holds " in done.stderr
    assert '"type":"hand_started"' in done.stderr
    # the server's re-check folds on past the deal, to the play the rewritten deal cannot take
    tile = f"{forged.tile[0]}-{forged.tile[1]}"
    assert recheck_bot_moves(forged.log, audit["seed"]).problems == [
        f"seq {forged.play_seq}: impossible event: seat 0 plays {tile}, which it does not hold"
    ]


FOLD_AN_IMPOSSIBLE_PLAY = """
import { ImpossibleEvent, Match } from "./clients/js/rules.mjs";
const m = new Match({players: 2, partners: false, spinner: "none", hand_size: 1, game: "draw", boneyard_reserve: 0},
                    [{type: "bot"}, {type: "bot"}]);
m.apply({type: "hand_started", hand_number: 1, leader: 0, hands: [[[6, 6]], [[5, 5]]], boneyard: []});
for (const e of [{type: "tile_played", seat: 0, tile: [5, 5], end: "left", claim: null},
                 {type: "tile_drawn", seat: 1, tile: [1, 0]}, {type: "no_such_event"}]) {
  try { m.apply(e); console.log("folded"); } catch (err) { console.log(err instanceof ImpossibleEvent, err.message); }
}
"""


def test_the_js_fold_throws_an_impossible_event_for_what_its_state_cannot_take():
    done = subprocess.run(
        [node_binary(), "--input-type=module", "-e", FOLD_AN_IMPOSSIBLE_PLAY],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPLAYER.parents[2],
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "true seat 0 plays 5-5, which it does not hold",
        "true seat 1 draws from an empty boneyard",
        'true unknown event type "no_such_event"',
    ]


# --- pinned heads ----------------------------------------------------------------------------------
def test_pinned_heads_are_held_to_the_log(tmp_path):
    audit, _ = golden("all-fives-2p")
    rows = audit["events"]
    source = EXAMPLES / "all-fives-2p.audit.json"
    pins = tmp_path / "pins.json"
    heads = [
        {"seq": 0, "hash": "0" * 64},
        {"seq": 1, "hash": rows[0]["hash"]},
        {"seq": len(rows), "hash": rows[-1]["hash"]},
    ]
    pins.write_text(json.dumps(heads))  # seq 0: the head before the first event, the genesis hash
    done = run_replayer(source, "--pin", f"20:{rows[19]['hash']}", "--pins", str(pins))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["checks"]["pins_checked"] == 4

    wrong = "ab" * 32
    done = run_replayer(source, "--pin", f"20:{wrong}")
    assert done.returncode == 1 and done.stdout == ""
    assert f"verification failed: seq 20: pinned hash {wrong} but the log has {rows[19]['hash']}" in done.stderr

    pins.write_text(json.dumps([{"seq": len(rows) + 5, "hash": wrong}]))
    done = run_replayer(source, "--pins", str(pins))
    assert done.returncode == 1
    assert f"the log ends at seq {len(rows)} before pinned seq {len(rows) + 5}" in done.stderr

    done = run_replayer(source, "--pin", "20:not-a-hash")
    assert done.returncode == 2 and "--pin takes SEQ:HASH" in done.stderr


def test_a_head_pinned_before_a_rewrite_catches_the_rewritten_log(tmp_path):
    """A log forged from some point on and chained anew passes the chain check; a head pinned
    from the honest log after that point does not match it."""
    audit, _ = golden("standard-draw-2p")
    log = log_of(audit)
    i = next(i for i, e in enumerate(log) if e["type"] == "hand_ended")
    log[i]["points"] += 1  # a rewrite the rules would catch too; the pin catches it first
    forged = audit_document(audit["match_id"], audit["seed"], log)
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(forged))
    last = audit["events"][-1]
    done = run_replayer(path, "--pin", f"{last['seq']}:{last['hash']}")
    assert done.returncode == 1
    assert f"seq {last['seq']}: pinned hash {last['hash']} but the log has {forged['events'][-1]['hash']}" in (
        done.stderr
    )
