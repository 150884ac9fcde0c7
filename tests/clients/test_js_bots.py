"""The JavaScript replayer asks every computer player again (clients/js/bots.mjs, pyrandom.mjs)
and holds a log to the chain heads pinned earlier (``--pin``, ``--pins``).

A bot move is re-made only if the port draws the very numbers CPython's ``random.Random`` draws
and walks the very code paths the server's bots walk, so each layer is compared with Python's
own: the generator, each level's choice on the same inputs, and whole logs made by the server's
use cases (honest, and with one bot move swapped for another legal move and the rest re-played
and re-chained, as tests/services/test_bot_moves_audited.py makes them).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import random
import subprocess
from pathlib import Path
from typing import Any

import pytest

from api.bots import DEFAULT_BUDGET, LEVEL_BUDGETS, LEVELS, Budget, choose_action, expert
from api.bots.arena import BotMatch
from api.bots.audit import recheck_bot_moves
from api.bots.endgame import BY_WEIGHT, ExactLine, SearchTooBig, mask_of
from api.bots.expert import signalling_partner
from api.bots.knowledge import Knowledge
from api.rules import resolve_rules
from api.rules.tiles import ALL_TILES
from api.services.commands import SeatSpec
from api.store.memory import MemoryStore
from api.tools.golden import EXAMPLES, audit_document, log_of
from tests.services.conftest import Clock
from tests.services.test_bot_moves_audited import SwapOnce, ended_match

from .support import ROOT, golden, node_binary, run_replayer

JS = ROOT / "clients" / "js"


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
def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(word.title() for word in rest)


def as_js(budget: Budget) -> dict[str, Any]:
    """A ``Budget`` as bots.mjs spells it."""
    return {camel(k): v for k, v in dataclasses.asdict(budget).items()}


def test_the_levels_and_their_budgets_are_pythons():
    """Every field of each playout level's ``Budget`` (the expert's solver limits too) as in Python."""
    script = """
    import { LEVELS, LEVEL_BUDGETS } from "./bots.mjs";
    process.stdout.write(JSON.stringify({ levels: LEVELS, budgets: LEVEL_BUDGETS }));
    """
    got = node_eval(script, None)
    assert got["levels"] == list(LEVELS)
    python = {level: as_js(budget) for level, budget in LEVEL_BUDGETS.items()}
    assert got["budgets"] == python


# Line games are where the expert solves its endings exactly (ExactLine): the block game with two
# seats and with partners (seven tiles each: nothing left over; five: a boneyard nobody draws), and
# the draw game, whose endings are solved once the boneyard is empty (thirteen tiles each leave two
# to draw, so it empties). The fives games play out on the engine only.
MATCHES: list[tuple[str, dict[str, Any], list[str]]] = [
    ("all-fives", {"target": 60, "muggins_calls": True}, ["expert", "random"]),
    ("standard-draw", {"target": 40, "draw_at_will": True}, ["expert", "greedy", "intermediate"]),
    ("standard-draw", {"target": 40, "hand_size": 13}, ["expert", "intermediate"]),
    ("standard-block", {"target": 30}, ["expert", "intermediate"]),
    (
        "standard-block",
        {"target": 20, "partners": True, "hand_size": 7},
        ["expert", "intermediate", "greedy", "random"],
    ),
    ("standard-block", {"target": 30, "partners": True}, ["expert", "expert", "intermediate", "random"]),
    # two experts partnered: the seats of the partnership convention (Budget.signal)
    ("standard-block", {"target": 50, "partners": True, "hand_size": 7}, ["expert", "greedy", "expert", "random"]),
    ("standard-block", {"target": 30, "blocked_scoring": "others", "round_to_five": True}, ["intermediate", "expert"]),
]


@functools.cache
def recorded_decisions() -> list[dict[str, Any]]:
    """Every decision of a few bot matches: the bot's inputs (its rng_seed the arena's, one per
    decision) and the action Python's bot chose, each level at its own budget."""
    decisions: list[dict[str, Any]] = []
    for number, (preset, options, levels) in enumerate(MATCHES):
        match = BotMatch(resolve_rules(preset, options, len(levels)), f"js-bots-{number}", levels)

        def observe(
            seat: int, level: str, seconds: float, view: dict, log: list, action: dict, match: BotMatch = match
        ) -> None:
            seed = match.rng_seed()  # asked before the action is folded in: the seed the bot was given
            decisions.append({"level": level, "view": view, "log": list(log), "seed": seed, "action": action})

        while match.live:
            match.step(observe)
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
    # the playouts ran, not only the shortcuts (a muggins call, a lone play, no play); in the block
    # games the expert's went through its exact solver
    for level in ("intermediate", "expert"):
        assert sum(1 for d in decisions if d["level"] == level and len(d["view"]["legal_actions"]) > 2) > 20, level
    solved = [d for d in decisions if d["level"] == "expert" and len(d["view"]["legal_actions"]) > 2]
    assert sum(1 for d in solved if d["view"]["rules"]["game"] == "block") > 20
    # and in the draw game once nothing is left to draw: its playouts on bit masks
    tails = [d for d in decisions if d["level"] == "expert" and d["view"]["rules"]["game"] == "draw"]
    assert sum(1 for d in tails if d["view"]["boneyard"] == 0 and len(d["view"]["legal_actions"]) > 1) > 3
    # and with what a forced lead rules out (a bar on the tiles that would have led instead)
    read = [Knowledge.read(d["view"], d["log"]) for d in solved]
    assert sum(1 for know in read if know.barred and know.barred != 1 << 27) >= 5  # not only the 6-6 led


class CountedSolves(ExactLine):
    """Python's solver, counting its solves and the ones that gave up (``SearchTooBig``)."""

    solves = 0
    too_big = 0

    def solve(self, hands: list[int], a: int, b: int, turn: int) -> float:
        CountedSolves.solves += 1
        try:
            return super().solve(hands, a, b, turn)
        except SearchTooBig:
            CountedSolves.too_big += 1
            raise


def test_a_solve_too_big_for_its_limit_rolls_on_in_javascript_as_in_python(monkeypatch: pytest.MonkeyPatch):
    """``exact_limit`` cuts a solve short and ``exact_work`` stops the dealing: both are counts of
    visited positions, so JavaScript must count them as Python does to deal as many times and to
    fall back on the same playouts. A small budget makes both happen on the expert's decisions."""
    budget = dataclasses.replace(DEFAULT_BUDGET, exact_limit=150, exact_work=1500)
    asked = [
        d
        for d in recorded_decisions()
        if d["level"] == "expert" and d["view"]["rules"]["game"] == "block" and len(d["view"]["legal_actions"]) > 2
    ][::3]
    monkeypatch.setattr("api.bots.expert.ExactLine", CountedSolves)
    monkeypatch.setattr(CountedSolves, "solves", 0)
    monkeypatch.setattr(CountedSolves, "too_big", 0)
    expected = [choose_action(d["level"], d["view"], d["log"], d["seed"], budget) for d in asked]
    assert CountedSolves.too_big > 10 and CountedSolves.solves > CountedSolves.too_big, vars(CountedSolves)
    script = """
    import { chooseAction } from "./bots.mjs";
    import { readFileSync } from "node:fs";
    const { decisions, budget } = JSON.parse(readFileSync(0, "utf8"));
    process.stdout.write(JSON.stringify(decisions.map((d) => chooseAction(d.level, d.view, d.log, d.seed, budget))));
    """
    assert node_eval(script, {"decisions": asked, "budget": as_js(budget)}) == expected


def test_the_partnership_convention_is_played_and_read_in_javascript_as_in_python():
    """An expert partnered with an expert weighs its plays by the convention (``signal``) and reads
    its partner's by it (``Knowledge.likelihood``'s signaller): both in the same floats, and with
    the convention off as well."""
    asked = [
        d
        for d in recorded_decisions()
        if d["level"] == "expert"
        and len(d["view"]["legal_actions"]) > 2
        and signalling_partner(Knowledge.read(d["view"], d["log"])) is not None
    ]
    read = [Knowledge.read(d["view"], d["log"]) for d in asked]
    assert sum(1 for know in read if any(c.seat == signalling_partner(know) for c in know.choices)) > 10
    assert DEFAULT_BUDGET.signal > 0 and all(
        choose_action("expert", d["view"], d["log"], d["seed"]) == d["action"] for d in asked[:5]
    )
    silent = dataclasses.replace(DEFAULT_BUDGET, signal=0.0)
    expected = [choose_action(d["level"], d["view"], d["log"], d["seed"], silent) for d in asked]
    assert any(e != d["action"] for e, d in zip(expected, asked))  # the convention changed a choice
    script = """
    import { chooseAction } from "./bots.mjs";
    import { readFileSync } from "node:fs";
    const { decisions, budget } = JSON.parse(readFileSync(0, "utf8"));
    process.stdout.write(JSON.stringify(decisions.map((d) => chooseAction(d.level, d.view, d.log, d.seed, budget))));
    """
    assert node_eval(script, {"decisions": asked, "budget": as_js(silent)}) == expected


class LastSolver(ExactLine):
    """Python's solver, remembering the last one made: the one of the decision being made."""

    last: ExactLine | None = None

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        LastSolver.last = self


def test_the_expert_stops_dealing_where_python_does_and_weighs_its_moves_to_the_last_bit(
    monkeypatch: pytest.MonkeyPatch,
):
    """Dealing stops once the solves have visited ``exact_work`` positions: with ``exact_work`` set
    to exactly the count reached after some deal, Python deals no more, and JavaScript must not
    either; or, with ``sure`` on, once the leading move is clear. The candidates' values (the
    averages the choice is made on) are compared bit for bit, at the expert's own budget and at
    those."""
    asked = [  # played first: the arena's bots unobserved
        d
        for d in recorded_decisions()
        if d["level"] == "expert" and not d["view"]["rules"]["fives_scoring"] and len(d["view"]["legal_actions"]) > 2
    ][::3]
    visits: list[int] = []  # the solver's count of visited positions at each deal
    weighed: list[list[float]] = []  # evaluate's answer, when a decision is weighed
    sample, evaluate = Knowledge.sample, expert.evaluate

    def counted_sample(know: Knowledge, rng: random.Random) -> Any:
        assert LastSolver.last is not None
        visits.append(LastSolver.last.visited)
        return sample(know, rng)

    def kept_evaluate(*args: Any) -> list[float]:
        weighed.append(evaluate(*args))
        return weighed[-1]

    inferred = [0]  # decisions whose deals were weighed by likelihood
    weighed_deals = expert._weighed_deals

    def counted_weighing(*args: Any) -> Any:
        out = weighed_deals(*args)
        inferred[0] += out is not None
        return out

    least = DEFAULT_BUDGET.min_determinizations
    monkeypatch.setattr(expert, "_weighed_deals", counted_weighing)
    monkeypatch.setattr(expert, "ExactLine", LastSolver)
    monkeypatch.setattr(LastSolver, "last", None)
    monkeypatch.setattr(Knowledge, "sample", counted_sample)
    monkeypatch.setattr(expert, "evaluate", kept_evaluate)
    cases: list[dict[str, Any]] = []
    sure_deals: list[int] = []
    boundaries = 0

    def weigh(d: dict[str, Any], budget: Budget | None = None) -> list[float] | None:
        visits.clear()
        weighed.clear()
        choose_action(d["level"], d["view"], d["log"], d["seed"], budget)
        cases.append({**d, "budget": as_js(budget) if budget else None, "values": weighed[0] if weighed else None})
        return cases[-1]["values"]

    # Without inference one deal is one sample, so ``visits`` traces the deals.
    plain = dataclasses.replace(DEFAULT_BUDGET, inference=1)
    for number, d in enumerate(asked):
        weigh(d)  # the expert's own budget, deals weighed by the inference
        weigh(d, plain)
        trace = visits[:]
        weigh(d, dataclasses.replace(plain, sure=(0.5, 1.0, 2.0, 3.0)[number % 4], exact_work=10**9))
        sure_deals.append(len(visits))
        at = next((j for j in range(least, len(trace)) if trace[j] > trace[j - 1]), None)
        if at is not None:
            weigh(d, dataclasses.replace(plain, exact_work=trace[at]))
            assert len(visits) == at  # dealing stopped with the count exactly at exact_work
            boundaries += 1
    assert sum(1 for c in cases if c["values"] is not None) > 16
    assert boundaries >= 4
    assert inferred[0] >= 8, inferred  # the default budget weighed deals by the others' choices
    assert any(0 < n < DEFAULT_BUDGET.determinizations for n in sure_deals), sure_deals  # sure stopped some
    script = """
    import { expertValues } from "./bots.mjs";
    import { readFileSync } from "node:fs";
    const cases = JSON.parse(readFileSync(0, "utf8"));
    process.stdout.write(JSON.stringify(cases.map((c) => expertValues(c.level, c.view, c.log, c.seed, c.budget))));
    """
    assert node_eval(script, cases) == [c["values"] for c in cases]


# --- the exact solver ------------------------------------------------------------------------------
def solver_cases() -> list[dict[str, Any]]:
    """Positions of line endings: two, three and four seats on their own, and partners; hands of a
    few tiles each, open ends from a tile left over, any seat to move, scores near the target."""
    rng = random.Random(20)
    cases = []
    for n in range(24):
        players, partners = ((2, False), (3, False), (4, False), (4, True))[n % 4]
        per = rng.randint(3, {2: 7, 3: 5, 4: 4}[players])
        tiles = rng.sample(ALL_TILES, per * players + 1)
        hands = [mask_of(tiles[s * per : (s + 1) * per]) for s in range(players)]
        sides = [s % 2 if partners else s for s in range(players)]
        cases.append(
            {
                "sides": sides,
                "me": rng.randrange(players),
                "scores": [rng.randrange(0, 100, 5) for _ in range(max(sides) + 1)],
                "target": 100,
                "bonus": 50.0,
                "minusOwn": n % 3 != 0,
                "rounded": n % 5 == 0,
                "hands": hands,
                "a": tiles[-1].high,
                "b": tiles[-1].low,
                "turn": rng.randrange(players),
                "seed": rng.getrandbits(64),
                "exactTiles": rng.randint(0, per * players),
            }
        )
    return cases


def python_solves(c: dict[str, Any]) -> dict[str, Any]:
    """What Python's solver answers on a case: the value and the positions it visited, and whether
    a limit of exactly that many (and one less) is enough; a playout's value, visits and rng."""

    def line(limit: int) -> ExactLine:
        return ExactLine(c["sides"], c["me"], c["scores"], c["target"], c["bonus"], c["minusOwn"], c["rounded"], limit)

    solver = line(10**9)
    value = solver.solve(c["hands"], c["a"], c["b"], c["turn"])
    visited = solver.visited
    fits = line(visited).solve(c["hands"], c["a"], c["b"], c["turn"]) == value
    try:
        line(visited - 1).solve(c["hands"], c["a"], c["b"], c["turn"])
        short = False
    except SearchTooBig:
        short = True
    player = line(max(1, visited // 3))  # too small for some solves: those roll on
    rng = random.Random(c["seed"])
    played = player.playout(c["hands"], c["a"], c["b"], c["turn"], rng, 0.3, c["exactTiles"])
    return {
        "value": value,
        "visited": visited,
        "fits": fits,
        "short": short,
        "played": played,
        "playVisited": player.visited,
        "after": rng.random(),
    }


def test_the_solver_values_and_counts_every_position_as_python_does():
    """The port of ``endgame.ExactLine``: the same tile numbering, the same value of each position,
    the same number of positions visited (a limit of exactly that many is enough, one less is
    not), and the same playouts, drawing the same random numbers."""
    cases = solver_cases()
    script = """
    import { ExactLine, SEARCH_TOO_BIG, SOLVER_TILES } from "./bots.mjs";
    import { PyRandom } from "./pyrandom.mjs";
    import { readFileSync } from "node:fs";
    const cases = JSON.parse(readFileSync(0, "utf8"));
    const line = (c, limit) => new ExactLine(c.sides, c.me, c.scores, c.target, c.bonus, c.minusOwn, c.rounded, limit);
    const out = cases.map((c) => {
      const solver = line(c, 1e9);
      const value = solver.solve(c.hands, c.a, c.b, c.turn);
      const visited = solver.visited;
      const fits = line(c, visited).solve(c.hands, c.a, c.b, c.turn) === value;
      let short = false;
      try { line(c, visited - 1).solve(c.hands, c.a, c.b, c.turn); } catch (e) {
        if (e !== SEARCH_TOO_BIG) throw e;
        short = true;
      }
      const player = line(c, Math.max(1, Math.floor(visited / 3)));
      const rng = new PyRandom(BigInt(c.seed));
      const played = player.playout(c.hands, c.a, c.b, c.turn, rng, 0.3, c.exactTiles);
      return { value, visited, fits, short, played, playVisited: player.visited, after: rng.random() };
    });
    process.stdout.write(JSON.stringify({ tiles: SOLVER_TILES, out }));
    """
    got = node_eval(script, [{**c, "seed": str(c["seed"])} for c in cases])
    assert got["tiles"] == [[t.high, t.low] for t in BY_WEIGHT]
    expected = [python_solves(c) for c in cases]
    assert got["out"] == expected
    assert all(e["fits"] and e["short"] for e in expected)
    assert sum(e["visited"] for e in expected) > 1000  # real searches, not only blocked positions
    assert any(e["playVisited"] == 0 for e in expected) and any(e["playVisited"] > 0 for e in expected)


# --- whole logs ----------------------------------------------------------------------------------
def replayed(path: Path, *options: str) -> dict[str, Any]:
    done = run_replayer(path, *options)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["checks"]


def test_a_golden_vectors_counts_per_level():
    checks = replayed(EXAMPLES / "all-fives-2p.audit.json")
    assert checks["bot_moves_checked"] == {"random": 16, "greedy": 17, "intermediate": 0, "expert": 0}
    # a person's seat handed to a bot (turn clocks): its moves are the greedy bot's from then on
    checks = replayed(EXAMPLES / "standard-draw-clock-2p.audit.json")
    assert checks["bot_moves_checked"] == {"random": 0, "greedy": 234, "intermediate": 0, "expert": 0}


ANA = SeatSpec("Ana", "remote")
EXPERT = SeatSpec("Ex", "bot", "expert")
INTERMEDIATE = SeatSpec("In", "bot", "intermediate")
GREEDY = SeatSpec("Gr", "bot", "greedy")
RANDOM = SeatSpec("Ra", "bot", "random")
TABLES = [
    pytest.param("standard-draw", {"target": 60}, (ANA, EXPERT, GREEDY), id="draw-3"),
    pytest.param("all-fives", {"target": 60, "muggins_calls": True}, (ANA, EXPERT), id="fives-muggins"),
    pytest.param(
        "standard-block", {"target": 30, "partners": True}, (ANA, EXPERT, INTERMEDIATE, EXPERT), id="partners"
    ),
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
    assert checks["bot_moves_checked"] == {"random": 0, "greedy": len(bot_moves), "intermediate": 0, "expert": 0}
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
    assert checks["bot_moves_checked"] == {"random": 0, "greedy": 17, "intermediate": 0, "expert": 0}
    assert checks["bot_moves_not_checked"] == {
        "random": 0,
        "greedy": 0,
        "intermediate": 0,
        "expert": 0,
        "grandmaster": moves,
    }
    assert moves == 16
