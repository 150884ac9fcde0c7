"""The JavaScript replayer asks every computer player again (clients/js/bots.mjs, pyrandom.mjs)
and holds a log to the chain heads pinned earlier (``--pin``, ``--pins``).

A bot move is re-made only if the port draws the very numbers CPython's ``random.Random`` draws
and walks the very code paths the server's bots walk, so each layer is compared with Python's
own: the generator, each level's choice on the same inputs, and whole logs made by the server's
use cases (honest, and with one bot move swapped for another legal move and the rest re-played
and re-chained, as tests/services/test_bot_moves_audited.py makes them).
"""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path
from typing import Any

import pytest

from api.bots import choose_action
from api.bots.arena import play_match
from api.bots.audit import recheck_bot_moves
from api.rules import resolve_rules
from api.services.commands import SeatSpec
from api.store.memory import MemoryStore
from api.tools.golden import EXAMPLES, audit_document, log_of
from tests.services.conftest import Clock
from tests.services.test_bot_moves_audited import SwapOnce, ended_match

from .support import ROOT, golden, node_binary, run_replayer

JS = ROOT / "clients" / "js"
LEVELS = ("random", "greedy", "expert")


def node_eval(script: str, data: Any) -> Any:
    """Run an ES module ``script`` under node with ``data`` (JSON) on stdin; its JSON stdout."""
    done = subprocess.run(
        [node_binary(), "--input-type=module", "-e", script],
        input=json.dumps(data),
        capture_output=True,
        text=True,
        timeout=60,
        cwd=JS,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


# --- the generator -------------------------------------------------------------------------------
SEEDS = [0, 1, 2**32 - 1, 2**32, 2**64 - 1, 0x1234_5678_9ABC_DEF0, 2**255 + 12345, 2**256 - 1]
BITS = [1, 2, 5, 31, 32, 33, 53, 64, 100]
BELOW = [1, 2, 3, 7, 28, 1000, 2**31 + 5]


def python_draws(seed: int) -> list[Any]:
    rng = random.Random(seed)
    out: list[Any] = []
    for k in BITS:
        out.append(str(rng.getrandbits(k)))
    out.extend(rng.random() for _ in range(5))
    for n in BELOW:
        out.append(rng.randrange(n))  # randrange(n) is _randbelow(n), what choice and shuffle use
    tiles = list(range(28))
    rng.shuffle(tiles)
    out.append(tiles)
    out.append(rng.choice("abcdefg"))
    out.append(str(rng.getrandbits(64)))  # after the shuffle: the state carried on exactly
    return out


def test_pyrandom_draws_what_cpython_draws_for_every_seed():
    script = """
    import { PyRandom } from "./pyrandom.mjs";
    import { readFileSync } from "node:fs";
    const { seeds, bits, below } = JSON.parse(readFileSync(0, "utf8"));
    const out = seeds.map((seed) => {
      const rng = new PyRandom(BigInt(seed));
      const draws = bits.map((k) => rng.getrandbits(k).toString());
      for (let i = 0; i < 5; i++) draws.push(rng.random());
      for (const n of below) draws.push(rng.randbelow(n));
      const tiles = Array.from({ length: 28 }, (_, i) => i);
      rng.shuffle(tiles);
      draws.push(tiles, rng.choice([..."abcdefg"]), rng.getrandbits(64).toString());
      return draws;
    });
    process.stdout.write(JSON.stringify(out));
    """
    got = node_eval(script, {"seeds": [str(s) for s in SEEDS], "bits": BITS, "below": BELOW})
    assert got == [python_draws(seed) for seed in SEEDS]


# --- each level's choice -------------------------------------------------------------------------
MATCHES = [
    ("all-fives", {"target": 60, "muggins_calls": True}, ["expert", "random"]),
    ("standard-draw", {"target": 40, "draw_at_will": True}, ["expert", "greedy", "expert"]),
    ("standard-block", {"target": 30, "partners": True}, ["expert", "expert", "greedy", "random"]),
]


def recorded_decisions() -> list[dict[str, Any]]:
    """Every decision of a few bot matches: the bot's inputs and the action Python's bot chose."""
    decisions: list[dict[str, Any]] = []
    for number, (preset, options, levels) in enumerate(MATCHES):

        def observe(seat: int, level: str, seconds: float, view: dict, log: list, action: dict) -> None:
            # any rng_seed will do (the arena's own are not needed): one per decision
            decisions.append({"level": level, "view": view, "log": list(log), "seed": f"js-bots:{len(decisions)}"})

        play_match(resolve_rules(preset, options, len(levels)), f"js-bots-{number}", levels, observe=observe)
    for d in decisions:
        d["action"] = choose_action(d["level"], d["view"], d["log"], d["seed"])
    return decisions


def test_each_level_chooses_in_javascript_what_it_chooses_in_python():
    decisions = recorded_decisions()
    script = """
    import { chooseAction } from "./bots.mjs";
    import { readFileSync } from "node:fs";
    const decisions = JSON.parse(readFileSync(0, "utf8"));
    process.stdout.write(JSON.stringify(decisions.map((d) => chooseAction(d.level, d.view, d.log, d.seed))));
    """
    got = node_eval(script, decisions)
    assert got == [d["action"] for d in decisions]
    per_level = {level: sum(1 for d in decisions if d["level"] == level) for level in LEVELS}
    assert all(per_level[level] > 20 for level in LEVELS), per_level
    # the expert's playouts ran, not only its shortcuts (a muggins call, a lone play, no play)
    assert sum(1 for d in decisions if d["level"] == "expert" and len(d["view"]["legal_actions"]) > 2) > 20


# --- whole logs ----------------------------------------------------------------------------------
def replayed(path: Path, *options: str) -> dict[str, Any]:
    done = run_replayer(path, *options)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["checks"]


def test_a_golden_vectors_counts_per_level():
    checks = replayed(EXAMPLES / "all-fives-2p.audit.json")
    assert checks["bot_moves_checked"] == {"random": 16, "greedy": 17, "expert": 0}
    # a person's seat handed to a bot (turn clocks): its moves are the greedy bot's from then on
    checks = replayed(EXAMPLES / "standard-draw-clock-2p.audit.json")
    assert checks["bot_moves_checked"] == {"random": 0, "greedy": 234, "expert": 0}


ANA = SeatSpec("Ana", "remote")
EXPERT = SeatSpec("Ex", "bot", "expert")
GREEDY = SeatSpec("Gr", "bot", "greedy")
RANDOM = SeatSpec("Ra", "bot", "random")
TABLES = [
    pytest.param("standard-draw", {"target": 60}, (ANA, EXPERT, GREEDY), id="draw-3"),
    pytest.param("all-fives", {"target": 60, "muggins_calls": True}, (ANA, EXPERT), id="fives-muggins"),
    pytest.param("standard-block", {"target": 30, "partners": True}, (ANA, EXPERT, GREEDY, EXPERT), id="partners"),
    pytest.param("all-fives", {"target": 60}, (EXPERT, RANDOM, EXPERT), id="bots-only"),
]


def served_log(preset: str, rules: dict, seats: tuple, offload: Any = None) -> tuple[dict, list[dict]]:
    """A match played to its end through the use cases: its audit document and its bare log."""
    clock = Clock()
    _bus, match_id, seed, log = ended_match(MemoryStore(now=clock), clock, preset, rules, seats, offload=offload)
    return audit_document(match_id, seed, log), log


@pytest.mark.parametrize(("preset", "rules", "seats"), TABLES)
def test_node_confirms_every_bot_move_of_an_honest_served_match(preset, rules, seats, tmp_path):
    audit, log = served_log(preset, rules, seats)
    path = tmp_path / "honest.json"
    path.write_text(json.dumps(audit))
    checks = replayed(path)
    python = recheck_bot_moves(log, audit["seed"])
    assert python.problems == []
    assert sum(checks["bot_moves_checked"].values()) == python.decisions_checked
    assert checks["bot_moves_checked"]["expert"] > 0
    for level in LEVELS:  # every level at the table asked, none other
        assert (checks["bot_moves_checked"][level] > 0) == any(s.level == level for s in seats), level
    assert checks["bot_moves_not_checked"] == dict.fromkeys(LEVELS, 0)


@pytest.mark.parametrize(("preset", "rules", "seats"), TABLES)
def test_one_bot_move_swapped_for_another_legal_one_is_caught_at_its_seq(preset, rules, seats, tmp_path):
    swap = SwapOnce()
    audit, log = served_log(preset, rules, seats, offload=swap)
    assert swap.swapped is not None, "no bot had a choice to swap"
    at = next(i for i, e in enumerate(log) if e["type"] == "tile_played" and e["tile"] == swap.swapped["tile"])
    seat = log[at]["seat"]
    path = tmp_path / "swapped.json"
    path.write_text(json.dumps(audit))  # chained anew: only asking the bot again shows the forgery
    done = run_replayer(path)
    assert done.returncode == 1 and done.stdout == ""
    tile = "-".join(map(str, swap.swapped["tile"]))
    assert (
        f"verification failed: seq {at + 1}: seat {seat} ({seats[seat].level}) played play {tile} "
        f"on the {swap.swapped['end']}"
    ) in done.stderr, done.stderr
    assert ", its bot plays play " in done.stderr
    assert recheck_bot_moves(log, audit["seed"]).problems[0].startswith(f"seq {at + 1}: ")  # where Python says


def test_a_bot_drawn_for_automatically_after_a_persons_move_is_no_decision_of_its_own(tmp_path):
    """Under auto_draw / auto_knock the server draws or knocks for a stuck bot after a person's move;
    the bot is asked only once it can play (``auto`` events are the server's)."""
    rules = {"auto_draw": True, "auto_knock": True, "target": 60}
    audit, log = served_log("standard-draw", rules, (ANA, GREEDY))
    assert any(e.get("auto") and e["type"] == "tile_drawn" and e["seat"] == 1 for e in log)
    path = tmp_path / "auto.json"
    path.write_text(json.dumps(audit))
    checks = replayed(path)
    bot_moves = [e for e in log if e.get("seat") == 1 and e["type"] == "tile_played" and not e["auto"]]
    # every move of the bot is its own play (the server draws and knocks for it): each one checked
    assert checks["bot_moves_checked"] == {"random": 0, "greedy": len(bot_moves), "expert": 0}
    assert len(bot_moves) > 20


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
    checks = replayed(source, "--pin", f"20:{rows[19]['hash']}", "--pins", str(pins))
    assert checks["pins_checked"] == 4

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


def test_moves_of_a_level_it_does_not_know_are_counted_as_not_checked(tmp_path):
    """A replayer older than a new bot level says which moves it could not make again."""
    audit, _ = golden("all-fives-2p")
    log = log_of(audit)
    log[0]["seats"][1]["level"] = "grandmaster"  # seat 1 played random; call it a level no replayer knows
    path = tmp_path / "new-level.json"
    path.write_text(json.dumps(audit_document(audit["match_id"], audit["seed"], log)))
    checks = replayed(path)
    moves = sum(1 for e in log if e.get("seat") == 1 and e["type"] in ("tile_played", "tile_drawn") and not e["auto"])
    assert checks["bot_moves_checked"] == {"random": 0, "greedy": 17, "expert": 0}
    assert checks["bot_moves_not_checked"] == {"random": 0, "greedy": 0, "expert": 0, "grandmaster": moves}
    assert moves == 16
