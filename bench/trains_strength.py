"""How strong is the trains expert? One expert against three greedy seats, 4 players, whole matches.

    .venv/bin/python bench/trains_strength.py --matches 200 --jobs 2   # both games
    .venv/bin/python bench/trains_strength.py --rows mexican --matches 40

Each row plays ``--matches`` whole matches (every round: 13 of Mexican Train, 10 of Chicken
Foot) of its preset at 4 players, on fixed seeds, the expert's seat rotated over the matches
(match i: seat i mod 4), the other seats greedy. A match is won by the lowest total; a tie
shares it. The table counts the expert's wins two ways: a shared win as a whole win, and as
1/k of one for each of its k winners (the share a seat would take on average if it were no
better than the others: 25% at a table of four). Intervals are 95% Wilson score intervals
(of a fractional count, for the second). Also printed: the expert's CPU time per decision
(median, 90th, 99th percentile, slowest) over its decisions with a real choice.

Every decision gets only the acting seat's view and the log since the round began, redacted
for it, as the server gives them. Results do not depend on ``--jobs``.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import sys
import time
from dataclasses import dataclass
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # run from anywhere in a checkout
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # the sibling scripts

from strength import wilson

from api.bots import choose_action
from api.bots.actions import Action, Json
from api.rules import trains
from api.rules.board import Place, train_place
from api.rules.tiles import Tile
from api.rules.trains_board import MexicanTrainBoard
from api.rules.trains_events import Passed, RoundStarted, TileDrawn, TilePlayed
from api.rules.trains_rules import TrainsRules, trains_rules

PLAYERS = 4


@dataclass(frozen=True)
class Row:
    name: str
    preset: str
    label: str


ROWS = (
    Row("mexican", "mexican-train", "4p mexican-train, 13 rounds"),
    Row("chicken", "chicken-foot", "4p chicken-foot, 10 rounds"),
)


# --- the seat's view and log (the contract's; stand-ins until the server's land) -------------
def wire(place: Place) -> int | str:
    prefix = train_place(0)[:-1]
    return int(place[len(prefix) :]) if place.startswith(prefix) else place


def unwire(value: int | str) -> Place:
    return train_place(value) if isinstance(value, int) else value


def _rules_json(rules: TrainsRules) -> Json:
    return {
        "preset": rules.game.value,
        "players": rules.players,
        "set": rules.tile_set.value,
        "rounds": rules.rounds,
        "hand_size": rules.hand_size,
        "double_blank_points": rules.double_blank_points,
        "double_must_be_covered": rules.double_must_be_covered,
        "turn_seconds": None,
        "timeout_limit": None,
    }


def _action(move: trains.Move) -> Action:
    if isinstance(move, trains.Play):
        return {"type": "play", "tile": move.tile.to_json(), "train": wire(move.place)}
    return {"type": "draw"} if isinstance(move, trains.Draw) else {"type": "pass"}


def parse(action: Action) -> trains.Move:
    if action["type"] == "play":
        return trains.Play(Tile.from_json(action["tile"]), unwire(action["train"]))
    return trains.DRAW if action["type"] == "draw" else trains.PASS


def seat_view(state: trains.TrainsState, seat: int) -> Json:
    board = state.board
    assert board is not None
    described = state.describe_board()
    if isinstance(board, MexicanTrainBoard):
        shown: Json = {
            "engine": described["engine"],
            "trains": [{"train": wire(t.pop("id")), **t} for t in described["trains"]],
            "uncovered": None if board.uncovered is None else wire(board.uncovered),
        }
    else:
        shown = {
            "engine": described["engine"],
            "arms": [{"train": a.pop("id"), **a} for a in described["arms"]],
            "toes_needed": described["toes_needed"],
        }
    hand = state.hands[seat]
    return {
        "status": "playing",
        "seat": seat,
        "round": state.round,
        "rounds": state.rules.rounds,
        "turn": state.to_move,
        "rules": _rules_json(state.rules),
        "totals": list(state.totals),
        "hand_counts": [len(h) for h in state.hands],
        "drawn": state.drawn.to_json() if state.drawn is not None and state.to_move == seat else None,
        "boneyard": len(state.boneyard),
        "board": shown,
        "legal_actions": [_action(m) for m in trains.legal_moves(state)] if state.to_move == seat else [],
        "hand": [t.to_json() for t in hand],
        "pips": trains.hand_pips(state.rules, hand),
    }


def redacted(event: Any, seat: int) -> Json:
    if isinstance(event, RoundStarted):
        return {
            "type": "round_started",
            "round": event.round,
            "engine": event.engine,
            "leader": event.leader,
            "hand_counts": [len(h) for h in event.hands],
            "boneyard": len(event.boneyard),
            "hand": [t.to_json() for t in event.hands[seat]],
        }
    if isinstance(event, TilePlayed):
        return {
            "type": "tile_placed",
            "seat": event.seat,
            "tile": event.tile.to_json(),
            "train": wire(event.place),
            "auto": False,
        }
    if isinstance(event, TileDrawn):
        shown: Json = {"type": "tile_drawn", "seat": event.seat, "auto": False}
        if event.seat == seat:
            shown["tile"] = event.tile.to_json()
        return shown
    if isinstance(event, Passed):
        return {"type": "passed", "seat": event.seat, "marker": event.marker, "auto": False}
    return {"type": event.type}


class TrainsBotMatch:
    """A trains match between bots of ``levels``, one decision at a time; ``logs[seat]``: the
    events since the round began, redacted for that seat."""

    def __init__(self, rules: TrainsRules, seed: str, levels: list[str]) -> None:
        self.rules, self.seed, self.levels = rules, seed, list(levels)
        self.state = trains.new_state(rules)
        self.logs: list[list[Json]] = [[] for _ in levels]
        self.decisions = 0
        self._take(trains.start(rules, seed))

    def _take(self, events: list[Any]) -> None:
        for event in events:
            trains.apply(self.state, event)
            for seat, log in enumerate(self.logs):
                if isinstance(event, RoundStarted):
                    log.clear()
                log.append(redacted(event, seat))

    @property
    def live(self) -> bool:
        return not self.state.is_over

    def step(self) -> tuple[int, float, Json, Action]:
        seat = self.state.to_move
        assert seat is not None
        view = seat_view(self.state, seat)
        t0 = time.process_time()
        action = choose_action(self.levels[seat], view, self.logs[seat], f"{self.seed}:{self.decisions}")
        elapsed = time.process_time() - t0
        self._take(trains.decide(self.state, seat, parse(action), self.seed))
        self.decisions += 1
        return seat, elapsed, view, action


def _one_match(job: tuple[Row, int, str, str]) -> tuple[str, tuple[int, ...], int, list[float], int]:
    row, index, level, against = job
    rules = trains_rules(row.preset, PLAYERS)
    seat = index % PLAYERS
    levels = [level if s == seat else against for s in range(PLAYERS)]
    match = TrainsBotMatch(rules, f"trains-strength:{row.name}:{index}", levels)
    times: list[float] = []
    while match.live:
        who, seconds, view, _ = match.step()
        if who == seat and len(view["legal_actions"]) > 1:
            times.append(seconds)
    winners = match.state.winners
    assert winners is not None
    rounds_won = sum(1 for e in match.logs[seat] if e.get("type") == "round_ended")
    return row.name, winners, seat, times, rounds_won


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[round(share * (len(ordered) - 1))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=200, help="matches per row (default 200)")
    parser.add_argument("--rows", default=",".join(r.name for r in ROWS), help="mexican, chicken")
    parser.add_argument("--level", default="expert", help="the level in the rotated seat (default expert)")
    parser.add_argument("--against", default="greedy", help="the level in the other seats (default greedy)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)
    wanted = [n.strip() for n in args.rows.split(",") if n.strip()]
    rows = [r for r in ROWS if r.name in wanted]
    if len(rows) != len(wanted):
        parser.error(f"rows are: {', '.join(r.name for r in ROWS)}")
    jobs = [(row, i, args.level, args.against) for row in rows for i in range(args.matches)]
    print(
        f"{args.matches} matches per row, {args.level} in seat i mod {PLAYERS}, {args.against} elsewhere, "
        f"{args.jobs} jobs"
    )
    t0 = time.perf_counter()
    wins: dict[str, list[float]] = {r.name: [0, 0.0, 0] for r in rows}  # whole, shared 1/k, played
    times: dict[str, list[float]] = {r.name: [] for r in rows}

    def take(outcome: tuple[str, tuple[int, ...], int, list[float], int]) -> None:
        name, winners, seat, t, _ = outcome
        tally = wins[name]
        tally[2] += 1
        if seat in winners:
            tally[0] += 1
            tally[1] += 1 / len(winners)
        times[name].extend(t)

    if args.jobs > 1:
        with multiprocessing.Pool(args.jobs) as pool:
            for outcome in pool.imap_unordered(_one_match, jobs, chunksize=1):
                take(outcome)
    else:
        for job in jobs:
            take(_one_match(job))
    wall = time.perf_counter() - t0
    print()
    print(
        f"| row | matches | {args.level} lowest total (ties whole) [95% Wilson] | ties shared 1/k [95% Wilson] "
        f"| {args.level} CPU ms per decision: median / p90 / p99 / max |"
    )
    print("|---|---:|---|---|---|")
    for row in rows:
        whole, shared, n = wins[row.name]
        lo, hi = wilson(int(whole), int(n))
        slo, shi = wilson_fraction(shared, int(n))
        sample = [1000 * s for s in times[row.name]]
        quantiles = (statistics.median(sample), percentile(sample, 0.9), percentile(sample, 0.99), max(sample))
        timing = " / ".join(f"{q:.2f}" for q in quantiles) if sample else "-"
        print(
            f"| {row.label} | {int(n)} | {whole / n:.1%} [{lo:.1%}, {hi:.1%}] "
            f"| {shared / n:.1%} [{slo:.1%}, {shi:.1%}] | {timing} |"
        )
    print(f"wall time {wall:.0f} s")
    return 0


def wilson_fraction(wins: float, n: int) -> tuple[float, float]:
    """``wilson`` of a count that may be fractional (a shared win counted 1/k)."""
    return wilson(wins, n)  # type: ignore[arg-type]  # the formula needs only the rate


if __name__ == "__main__":
    sys.exit(main())
