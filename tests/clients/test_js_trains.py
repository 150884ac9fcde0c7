"""The JavaScript replayer (clients/js/replay.mjs) on the trains games (issue 34): whole matches
of Mexican Train and Chicken Foot played by the engine fold to the engine's own totals, rounds
and winners; logs forged at one event and chained anew, so that only the rules can tell, are
refused at that seq with what the rules give instead (the forgeries are made here and run
through both verifiers by tests/clients/test_trains_verified.py)."""

from __future__ import annotations

import copy
import json
import subprocess
from collections.abc import Callable
from functools import cache
from typing import Any

import pytest

from api.rules.board import MEXICAN, train_place
from api.rules.tiles import Tile
from api.rules.trains_board import ChickenFootBoard, MexicanTrainBoard
from api.rules.trains_wire import place_from_wire, place_to_wire
from api.tools.golden import audit_document

from .support import ROOT, node_binary, run_replayer
from .trains_logs import Played, play_match

MATCHES = [
    ("mexican-train", 2, {}),
    ("mexican-train", 4, {}),
    ("mexican-train", 8, {"rounds": 5}),
    ("mexican-train", 3, {"rounds": 4, "double_must_be_covered": False, "double_blank_points": 50}),
    ("chicken-foot", 2, {}),
    ("chicken-foot", 4, {}),
    ("chicken-foot", 8, {"rounds": 4, "double_blank_points": 0}),
]


def replayed(audit: dict[str, Any], tmp_path, name: str = "audit") -> dict[str, Any]:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(audit))
    done = run_replayer(path)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def refused(log: list[dict[str, Any]], tmp_path, name: str = "forged") -> str:
    """The replayer's one line of refusal for ``log``, chained anew as an honest log is."""
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(audit_document(name, next_seed(log), log)))
    done = run_replayer(path)
    assert (done.returncode, done.stdout) == (1, ""), done.stderr
    prefix = f"replay.mjs: {path}: verification failed: "
    assert done.stderr.startswith(prefix) and done.stderr.endswith("\n"), done.stderr
    return done.stderr[len(prefix) : -1]


def next_seed(log: list[dict[str, Any]]) -> str:
    return next(e["seed"] for e in log if e["type"] == "match_ended")


def placed(row: dict[str, Any]) -> bool:
    return row["type"] == "tile_placed"


def tile_of(row: dict[str, Any]) -> Tile:
    return Tile.from_json(row["tile"])


def place_of(row: dict[str, Any]) -> str:
    return place_from_wire(row["train"])


def compact(value: Any) -> str:
    """A value as the replayer's messages show it (JSON.stringify)."""
    return json.dumps(value, separators=(",", ":"))


@pytest.mark.parametrize(("game", "players", "options"), MATCHES, ids=[f"{g}-{p}p-{len(o)}" for g, p, o in MATCHES])
def test_node_folds_each_match_to_the_engines_totals_rounds_and_winners(tmp_path, game, players, options):
    match = play_match(game, players, f"node-{game}-{players}", choices=players, **options)
    summary = replayed(match.audit, tmp_path)
    checks = summary.pop("checks")
    game_state = match.state.trains
    assert game_state is not None and game_state.winners is not None
    rounds = game_state.rules.rounds
    assert summary == {
        "match_id": match.audit["match_id"],
        "preset": game,
        "players": players,
        "status": "ended",
        "winner": game_state.winners[0],
        "winners": list(game_state.winners),
        "scores": game_state.totals,
        "round": rounds,
        "events": len(match.log),
        "rounds": [
            {
                "round": r,
                "engine": game_state.rules.engine(r),
                "leader": (r - 1) % players,
                "winner": ended["winner"],
                "pips": list(game_state.round_pips[r - 1]),
                "totals": ended["totals"],
            }
            for r, ended in enumerate((e for e in match.log if e["type"] == "round_ended"), start=1)
        ],
    }
    seat_moves = [e for e in match.log if e["type"] in ("tile_placed", "tile_drawn", "passed")]
    auto_passes = sum(
        1 for e, after in zip(match.log, match.log[1:]) if e["type"] == "tile_drawn" and after["type"] == "passed"
    )
    assert checks == {
        "chain_rows": len(match.log),
        "deals_checked": rounds,
        "moves_checked": len(seat_moves) - auto_passes,
        # every deal, the passes after a draw that fits nowhere, every round's end and the match's
        "auto_events_checked": rounds + auto_passes + rounds + 1,
        "timeouts_checked": 0,
        "pins_checked": 0,
        "bot_moves_not_checked": {},  # people's seats
    }


@cache
def forged_from(game: str) -> Played:
    """The match each forgery of ``game`` starts from (played once per test run)."""
    players = 8 if game == "mexican-train" else 4
    return play_match(game, players, f"node-{game}-{players}", choices=players)


def test_the_forged_matches_reach_what_the_checks_are_about():
    """The honest logs the forgeries start from are worth forging: markers, plays on other
    seats' marked trains, doubles covered, blocked rounds, feet grown on doubles."""
    mexican = forged_from("mexican-train")
    places = [(place_of(e), e) for _, _, e in mexican.states() if placed(e)]
    assert any(p.startswith("train:") and p != train_place(e["seat"]) for p, e in places)
    assert any(tile_of(e).is_double for _, e in places) and any(p == MEXICAN for p, _ in places)
    assert any(e["type"] == "passed" and e["marker"] for e in mexican.log)
    assert any(e["type"] == "round_ended" and e["winner"] is None for e in mexican.log)
    assert any(e["type"] == "round_ended" and e["winner"] is not None for e in mexican.log)
    chicken = forged_from("chicken-foot")
    feet = [s.board.foot for _, s, e in chicken.states() if placed(e) and s.board.foot is not None]
    assert any(foot.needed == 3 for foot in feet)  # a double's foot, not the engine's four sides
    assert any(e["type"] == "passed" and not e["marker"] for e in chicken.log)


def test_a_shared_win_and_a_double_blank_counted_as_the_rules_say(tmp_path):
    # seat 2 is left with 0-0 alone, which counts 0 in Mexican Train: it shares the win
    shared = play_match("mexican-train", 3, "tie-22", choices=22, rounds=1)
    summary = replayed(shared.audit, tmp_path, "shared")
    assert (summary["scores"], summary["winners"], summary["winner"]) == ([0, 67, 0], [0, 2], 0)
    assert shared.log[-2]["hands"][0] == [[0, 0]]
    # in Chicken Foot the same tile counts 50: a log that counts it 0 is refused
    fifty = play_match("chicken-foot", 3, "db-0", choices=0, rounds=2)
    i = next(i for i, e in enumerate(fifty.log) if e["type"] == "round_ended" and [0, 0] in e["hands"][1])
    assert fifty.log[i]["pips"] == [82, 89, 66]
    assert replayed(fifty.audit, tmp_path, "fifty")["rounds"][0]["pips"] == [82, 89, 66]
    log = copy.deepcopy(fifty.log)
    log[i]["pips"][1] -= 50
    log[i]["totals"][1] -= 50
    assert refused(log, tmp_path) == f"seq {i + 1}: round_ended.pips is [82,39,66] where the rules give [82,89,66]"


# --- forged logs: each refused at its seq, saying why (by node and boneyard verify alike:
# tests/clients/test_trains_verified.py runs each) --------------------------------------------
Forgery = Callable[[Played], tuple[list[dict[str, Any]], str]]


def _forge_at(match: Played, found: Callable[..., Any]) -> tuple[int, Any]:
    """The first event (its log index) for which ``found(state, event)`` gives something."""
    for i, state, event in match.states():
        hit = found(state, event)
        if hit:
            return i, hit
    raise AssertionError("no such event in this match")


def place_on_an_unmarked_train(match: Played) -> tuple[list[dict[str, Any]], str]:
    """A tile placed on another seat's train whose marker its owner has since taken away."""
    marked_before: set[int] = set()

    def found(state, event):
        board = state.board
        if event["type"] == "round_started":
            marked_before.clear()
        if not isinstance(board, MexicanTrainBoard):
            return None
        marked_before.update(s for s in range(state.rules.players) if board.trains[train_place(s)].marked)
        if not placed(event) or board.uncovered is not None:
            return None
        for owner in sorted(marked_before - {event["seat"]}):
            train = board.trains[train_place(owner)]
            if not train.marked and tile_of(event).has(train.end):
                return owner
        return None

    i, owner = _forge_at(match, found)
    log = copy.deepcopy(match.log)
    seat, tile = log[i]["seat"], "-".join(map(str, log[i]["tile"]))
    log[i]["train"] = owner
    return (
        log,
        f"seq {i + 1}: seat {seat} placed {tile} on seat {owner}'s train: "
        f"seat {owner}'s train carries no marker: it is open to its owner alone",
    )


def pass_without_its_marker(match: Played) -> tuple[list[dict[str, Any]], str]:
    i = next(i for i, e in enumerate(match.log) if e["type"] == "passed" and match.log[i - 1]["type"] != "tile_drawn")
    log = copy.deepcopy(match.log)
    log[i]["marker"] = False
    return log, f"seq {i + 1}: a pass in Mexican Train puts a marker on the seat's own train: marker true"


def a_marker_in_chicken_foot(match: Played) -> tuple[list[dict[str, Any]], str]:
    i = next(i for i, e in enumerate(match.log) if e["type"] == "passed" and match.log[i - 1]["type"] != "tile_drawn")
    log = copy.deepcopy(match.log)
    log[i]["marker"] = True
    return log, f"seq {i + 1}: Chicken Foot has no markers: a pass is logged with marker false"


def a_round_won_by_another_seat(match: Played) -> tuple[list[dict[str, Any]], str]:
    i = next(i for i, e in enumerate(match.log) if e["type"] == "round_ended" and e["winner"] is not None)
    log = copy.deepcopy(match.log)
    right = log[i]["winner"]
    log[i]["winner"] = (right + 1) % match.players
    return log, f"seq {i + 1}: round_ended.winner is {(right + 1) % match.players} where the rules give {right}"


def auto_pass_without_its_marker(match: Played) -> tuple[list[dict[str, Any]], str]:
    i = next(i for i, e in enumerate(match.log) if e["type"] == "passed" and match.log[i - 1]["type"] == "tile_drawn")
    log = copy.deepcopy(match.log)
    log[i]["marker"] = False
    return log, f"seq {i + 1}: passed.marker is false where the rules give true"


def uncovered_double_left_for_the_mexican_train(match: Played) -> tuple[list[dict[str, Any]], str]:
    def found(state, event):
        board = state.board
        covering = isinstance(board, MexicanTrainBoard) and board.uncovered not in (None, MEXICAN)
        return covering and placed(event) and board.uncovered

    i, uncovered = _forge_at(match, found)
    log = copy.deepcopy(match.log)
    seat, tile = log[i]["seat"], "-".join(map(str, log[i]["tile"]))
    log[i]["train"] = "mexican"
    owner = uncovered.split(":")[1]
    return log, (
        f"seq {i + 1}: seat {seat} placed {tile} on the Mexican train: the double on seat {owner}'s train "
        "awaits cover: covering it is every seat's only play"
    )


def someone_else_after_a_double(match: Played) -> tuple[list[dict[str, Any]], str]:
    """In Mexican Train a double's player plays again: the next seat may not."""
    i = next(
        i
        for i, e in enumerate(match.log)
        if e["type"] == "tile_placed" and e["tile"][0] == e["tile"][1] and match.log[i + 1]["type"] == "tile_placed"
    )
    log = copy.deepcopy(match.log)
    seat = log[i]["seat"]
    log[i + 1]["seat"] = (seat + 1) % match.players
    return log, f"seq {i + 2}: seat {(seat + 1) % match.players} moved (tile_placed) but it is seat {seat}'s turn"


def the_same_seat_after_a_chicken_foot_double(match: Played) -> tuple[list[dict[str, Any]], str]:
    """In Chicken Foot a double's player does not play again."""
    i = next(
        i
        for i, e in enumerate(match.log)
        if e["type"] == "tile_placed" and e["tile"][0] == e["tile"][1] and match.log[i + 1]["type"] == "tile_placed"
    )
    log = copy.deepcopy(match.log)
    seat, mover = log[i]["seat"], log[i + 1]["seat"]
    log[i + 1]["seat"] = seat
    return log, f"seq {i + 2}: seat {seat} moved (tile_placed) but it is seat {mover}'s turn"


def a_toe_out_of_order(match: Played) -> tuple[list[dict[str, Any]], str]:
    """A double's second toe before its first (the engine's sides are toes too: not those)."""

    def found(state, event):
        board = state.board
        foot = isinstance(board, ChickenFootBoard) and board.foot is not None and board.foot.number != board.engine
        return foot and placed(event) and event["train"].endswith(":0") and board.foot.number

    i, number = _forge_at(match, found)
    log = copy.deepcopy(match.log)
    log[i]["train"] = f"toe:{number}:1"
    seat, tile = log[i]["seat"], "-".join(map(str, log[i]["tile"]))
    return log, (
        f"seq {i + 1}: seat {seat} placed {tile} on toe:{number}:1: the three toes of the {number}-{number} "
        f"come first: the only place is toe:{number}:0"
    )


def an_arm_before_the_engines_four_sides(match: Played) -> tuple[list[dict[str, Any]], str]:
    i = next(i for i, e in enumerate(match.log) if e["type"] == "tile_placed")
    log = copy.deepcopy(match.log)
    seat, tile, engine = log[i]["seat"], "-".join(map(str, log[i]["tile"])), log[i - 1]["engine"]
    log[i]["train"] = f"toe:{engine}:1"
    return log, (
        f"seq {i + 1}: seat {seat} placed {tile} on toe:{engine}:1: the engine's four sides come first: "
        f"the only place is toe:{engine}:0"
    )


def a_draw_while_holding_a_play(match: Played) -> tuple[list[dict[str, Any]], str]:
    i, boneyard_first = _forge_at(
        match,
        lambda state, event: placed(event) and state.drawn is None and state.boneyard and state.boneyard[0],
    )
    log = copy.deepcopy(match.log)
    seat = log[i]["seat"]
    log[i] = {"type": "tile_drawn", "seat": seat, "tile": [boneyard_first.high, boneyard_first.low], "auto": False}
    return log, f"seq {i + 1}: seat {seat} drew while holding a playable tile ("


def a_pass_while_the_boneyard_holds_tiles(match: Played) -> tuple[list[dict[str, Any]], str]:
    i, left = _forge_at(
        match, lambda state, event: event["type"] == "tile_drawn" and not event["auto"] and len(state.boneyard)
    )
    log = copy.deepcopy(match.log)
    seat = log[i]["seat"]
    log[i] = {"type": "passed", "seat": seat, "marker": match.game == "mexican-train", "auto": False}
    return log, f"seq {i + 1}: seat {seat} passed while it could draw (the boneyard holds {left})"


def another_tile_than_the_one_drawn(match: Played) -> tuple[list[dict[str, Any]], str]:
    def found(state, event):
        if not (placed(event) and state.drawn is not None):
            return None
        return next((tile for tile in state.hands[event["seat"]] if tile != state.drawn), None)

    i, tile = _forge_at(match, found)
    log = copy.deepcopy(match.log)
    drawn = "-".join(map(str, log[i]["tile"]))
    log[i]["tile"] = [tile.high, tile.low]
    return log, (
        f"seq {i + 1}: seat {log[i]['seat']} placed {tile}, "
        f"but after a draw only the tile drawn ({drawn}) may be placed"
    )


def a_wrong_total(match: Played) -> tuple[list[dict[str, Any]], str]:
    i = next(i for i, e in enumerate(match.log) if e["type"] == "round_ended" and e["round"] == 2)
    log = copy.deepcopy(match.log)
    right = list(log[i]["totals"])
    log[i]["totals"][0] += 1
    return log, f"seq {i + 1}: round_ended.totals is {compact(log[i]['totals'])} where the rules give {compact(right)}"


def a_wrong_winner(match: Played) -> tuple[list[dict[str, Any]], str]:
    log = copy.deepcopy(match.log)
    right = log[-1]["winner"]
    loser = max(range(match.players), key=lambda s: log[-1]["scores"][s])
    log[-1].update(winner=loser, winners=[loser])
    return log, f"seq {len(log)}: match_ended.winner is {loser} where the rules give {right}"


def a_wrong_deal(match: Played) -> tuple[list[dict[str, Any]], str]:
    i = next(i for i, e in enumerate(match.log) if e["type"] == "round_started" and e["round"] == 2)
    log = copy.deepcopy(match.log)
    right = list(log[i]["hands"])
    log[i]["hands"] = right[1:] + right[:1]
    return log, f"seq {i + 1}: round_started.hands is {compact(log[i]['hands'])} where the rules give {compact(right)}"


def a_wrong_engine(match: Played) -> tuple[list[dict[str, Any]], str]:
    i = next(i for i, e in enumerate(match.log) if e["type"] == "round_started" and e["round"] == 3)
    log = copy.deepcopy(match.log)
    right = log[i]["engine"]
    log[i]["engine"] = right + 1
    return log, f"seq {i + 1}: round_started.engine is {right + 1} where the rules give {right}"


def a_block_declared_early(match: Played) -> tuple[list[dict[str, Any]], str]:
    i, state = _forge_at(match, lambda state, event: placed(event) and state.round == 2 and state)
    log = copy.deepcopy(match.log)
    pips = [sum(t.pips for t in hand) for hand in state.hands]
    totals = [t + p for t, p in zip(state.totals, pips, strict=True)]
    hands = [[[t.high, t.low] for t in hand] for hand in state.hands]
    log.insert(i, {"type": "round_ended", "round": 2, "winner": None, "pips": pips, "totals": totals, "hands": hands})
    return log, f"seq {i + 1}: round_ended where the rules give none: the round goes on, seat {state.to_move} to move"


MEXICAN_FORGERIES: list[Forgery] = [
    place_on_an_unmarked_train,
    pass_without_its_marker,
    auto_pass_without_its_marker,
    uncovered_double_left_for_the_mexican_train,
    someone_else_after_a_double,
    a_draw_while_holding_a_play,
    a_pass_while_the_boneyard_holds_tiles,
    another_tile_than_the_one_drawn,
    a_wrong_total,
    a_round_won_by_another_seat,
    a_wrong_winner,
    a_wrong_deal,
    a_wrong_engine,
    a_block_declared_early,
]
CHICKEN_FORGERIES: list[Forgery] = [
    the_same_seat_after_a_chicken_foot_double,
    a_toe_out_of_order,
    an_arm_before_the_engines_four_sides,
    a_draw_while_holding_a_play,
    a_marker_in_chicken_foot,
    a_wrong_total,
    a_round_won_by_another_seat,
    a_wrong_winner,
    a_wrong_deal,
]


@pytest.mark.parametrize(
    ("edit", "reason"),
    [
        (
            {"hand_size": 23},
            "hand_size 23: at least 1, and 4 hands within the 90 tiles dealt",
        ),
        ({"set": "double-9"}, 'mexican-train is played with the double-12 set, not "double-9"'),
        ({"rounds": 14}, "rounds 14: 1 to 13 (one per double)"),
        ({"double_blank_points": 25}, "double_blank_points 25: 0 or 50"),
        ({"target": 100}, "a trains game's rules are exactly preset, players, set, rounds, hand_size"),
    ],
)
def test_rules_that_cannot_be_played_are_refused_at_match_created(tmp_path, edit, reason):
    match = play_match("mexican-train", 4, "node-mexican-train-4", choices=4, rounds=1)
    log = copy.deepcopy(match.log)
    log[0]["rules"].update(edit)
    assert refused(log, tmp_path).startswith(f"seq 1: {reason}")


# --- turn clocks and client seeds --------------------------------------------------------------
@cache
def clock_match(game: str) -> Played:
    """People who let about one turn in five run out (three in a row hand the seat to a greedy
    computer player), one of them claiming its seat with a client seed that changes every deal."""
    seats = [{"name": f"Player {s}", "type": "remote", "level": None} for s in range(4)]
    seats[1] = {"name": "Seat 1", "type": "open", "level": None}
    return play_match(
        game,
        4,
        f"clock-{game}",
        choices=1,
        seats=seats,
        claims=((1, "Ben", "ben's dice"),),
        timeout_rate=0.2,
        turn_seconds=30,
        timeout_limit=3,
    )


@pytest.mark.parametrize("game", ["mexican-train", "chicken-foot"])
def test_timed_out_turns_replacements_and_client_seeds_are_replayed(tmp_path, game):
    match = clock_match(game)
    log = match.log
    assert log[1] == {"type": "seat_claimed", "seat": 1, "name": "Ben", "client_seed": "ben's dice"}
    replaced = [e["seat"] for e in log if e["type"] == "seat_replaced"]
    assert replaced and all(e["level"] == "greedy" for e in log if e["type"] == "seat_replaced")
    summary = replayed(match.audit, tmp_path)
    game_state = match.state.trains
    assert game_state is not None
    assert (summary["scores"], summary["winners"]) == (game_state.totals, list(game_state.winners or ()))
    checks = summary["checks"]
    assert checks["timeouts_checked"] == sum(1 for e in log if e["type"] == "turn_timed_out") > 10
    # the seats handed to the greedy computer player: their own moves from then on
    bot_moves, seated = 0, set()
    for e, before in zip(log, [None, *log]):
        if e["type"] == "seat_replaced":
            seated.add(e["seat"])
        elif e["type"] in ("tile_placed", "tile_drawn", "passed") and not e["auto"] and e["seat"] in seated:
            bot_moves += before["type"] != "tile_drawn" or e["type"] != "passed" or before["seat"] != e["seat"]
    assert checks["bot_moves_not_checked"] == {"greedy": bot_moves} and bot_moves > 0


def _timed_out(match: Played, found: Callable[..., Any]) -> tuple[int, Any]:
    """The first forced event (the one after a turn_timed_out) for which ``found`` gives something."""
    for i, state, row in match.states():
        if match.log[i - 1]["type"] == "turn_timed_out":
            hit = found(state, row)
            if hit:
                return i, hit
    raise AssertionError("no such timed-out turn in this match")


def test_timed_out_turns_the_rules_do_not_give_are_refused(tmp_path):
    from api.rules import trains

    match = clock_match("mexican-train")
    cases = []

    def lighter(state, row):
        if not placed(row):
            return None
        heaviest = tile_of(row)
        return next(
            (m for m in trains.legal_moves(state) if isinstance(m, trains.Play) and m.tile.pips < heaviest.pips), None
        )

    i, move = _timed_out(match, lighter)
    log = copy.deepcopy(match.log)
    right = dict(log[i])
    log[i].update(tile=move.tile.to_json(), train=place_to_wire(move.place))
    cases.append(
        (
            log,
            f"seq {i + 1}: tile_placed.tile is {compact(log[i]['tile'])} where the rules give {compact(right['tile'])}",
        )
    )
    i = next(i for i, e in enumerate(match.log) if e["type"] == "seat_replaced")
    log = copy.deepcopy(match.log)
    del log[i]
    cases.append((log, f"seq {i + 1}: the log holds {match.log[i + 1]['type']} where the rules give seat_replaced"))
    i = next(i for i, e in enumerate(match.log) if e["type"] == "turn_timed_out")
    log = copy.deepcopy(match.log)
    log[i]["consecutive"] += 1
    cases.append((log, f"seq {i + 1}: turn_timed_out.consecutive is {log[i]['consecutive']} where the rules give "))
    log = copy.deepcopy(match.log)
    seat = log[i]["seat"]
    log[i]["seat"] = (seat + 1) % 4
    cases.append((log, f"seq {i + 1}: seat {(seat + 1) % 4} timed out but it is seat {seat}'s turn"))
    for number, (forged, reason) in enumerate(cases):
        assert refused(forged, tmp_path, f"clock-{number}").startswith(reason)


def test_a_deal_without_the_claimed_seats_client_seed_is_refused(tmp_path):
    match = clock_match("chicken-foot")
    log = copy.deepcopy(match.log)
    log[1]["client_seed"] = "someone else's dice"
    i = next(i for i, e in enumerate(log) if e["type"] == "round_started")
    assert refused(log, tmp_path).startswith(f"seq {i + 1}: round_started.hands is ")


FOLD_THE_IMPOSSIBLE = """
import { ImpossibleEvent } from "./clients/js/rules.mjs";
import { TrainsMatch } from "./clients/js/trains.mjs";
const rules = { preset: "chicken-foot", players: 2, set: "double-9", rounds: 1, hand_size: 1,
  double_blank_points: 50, double_must_be_covered: true, turn_seconds: null, timeout_limit: null };
const m = new TrainsMatch(rules, [{ type: "remote" }, { type: "remote" }]);
m.apply({ type: "round_started", round: 1, engine: 9, leader: 0, hands: [[[9, 1]], [[2, 0]]], boneyard: [] });
for (const e of [
  { type: "tile_placed", seat: 0, tile: [5, 5], train: "toe:9:0", auto: false },
  { type: "tile_placed", seat: 0, tile: [9, 1], train: "toe:9:1", auto: false },
  { type: "tile_drawn", seat: 0, tile: [3, 3], auto: false },
  { type: "hand_started" },
]) {
  try { m.apply(e); console.log("folded"); } catch (err) { console.log(err instanceof ImpossibleEvent, err.message); }
}
"""


def test_the_js_trains_fold_throws_an_impossible_event_for_what_its_state_cannot_take():
    done = subprocess.run(
        [node_binary(), "--input-type=module", "-e", FOLD_THE_IMPOSSIBLE],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "true seat 0 places [5,5], which it does not hold",
        'true "toe:9:1" takes no 9-1 now',
        "true seat 0 draws from an empty boneyard",
        'true unknown event type "hand_started" in a trains game',
    ]
