"""Golden vectors: complete audit logs of real matches, and the state each folds to.

``python -m api.tools.golden`` (or ``scripts/golden``) rewrites ``openapi/examples/``:
for every vector, ``<name>.audit.json`` (the whole log as the pages of
``GET /v1/matches/{id}/audit`` make it together, hash chain included) and
``<name>.expected.json`` (the final state a replayer must reach;
``summarize`` below and ``clients/js/replay.mjs`` both print this shape).

Everything is deterministic: each vector has a fixed server seed, and the computer players
are asked as the server asks them (``api.bots.turns.bot_turn``), so a server
started with ``ALLOW_CLIENT_SEED`` that is given the same seats and seed writes the same
log. Remote seats (a claimed seat) are played here by the greedy bot under another seed,
standing in for a person. A vector with a turn clock names the turns its remote seats let
run out (``Vector.timeouts``): there the driver calls ``time_out`` as the server does when
the deadline passes, and a seat the server hands to a bot (``seat_replaced``) is played
from then on by that bot, exactly as the server's. ``python -m api.tools.golden --check``
exits 1 when the committed files differ from what the engine produces now.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from api import bots
from api.bots.turns import BotTurn, bot_turn
from api.rules import (
    BOT_SEAT,
    PLAYING,
    REMOTE_SEAT,
    Event,
    MatchState,
    claim_seat,
    create_match,
    ready_to_start,
    redact_event,
    replay,
    resolve_rules,
    start_match,
    view,
)
from api.rules.clock import time_out
from api.rules.engine import mutate
from api.rules.events import DEAL_TYPES, event_from_dict
from api.rules.games import presets_of
from api.rules.ruleset import PRESETS
from api.store.chain import GENESIS, row_hash
from api.store.codec import encode_event

EXAMPLES = Path(__file__).resolve().parents[2] / "openapi" / "examples"
LEVELS = ("greedy", "random", "greedy", "random")  # mixed tables: the logs show both styles
TRAINS_LEVELS = ("expert", "greedy", "random", "intermediate")  # the trains games' tables


@dataclass(frozen=True)
class Vector:
    name: str
    preset: str
    players: int
    rules: dict = field(default_factory=dict)
    seats: tuple = ()  # explicit seats; default: bots of LEVELS
    claims: tuple = ()  # (seat, name, client_seed) for open seats, in order
    # Turn clocks: (seat, turns) for remote seats; the seat lets these of its turns run out,
    # counting from 1 every time the seat is to move (each draw is a turn of its own).
    timeouts: tuple = ()

    @property
    def seed(self) -> str:
        return f"boneyard-golden:{self.name}"

    def seat_specs(self) -> list[dict]:
        """Seats as the service logs them: ``level`` always present, ``client_seed`` when given."""
        seats = self.seats or tuple(
            {"name": f"Bot {s}", "type": "bot", "level": LEVELS[s]} for s in range(self.players)
        )
        return [
            {
                "name": s["name"],
                "type": s["type"],
                "level": (s.get("level") or bots.DEFAULT_LEVEL) if s["type"] == BOT_SEAT else None,
                **({"client_seed": s["client_seed"]} if s.get("client_seed") else {}),
            }
            for s in seats
        ]


def _vectors() -> list[Vector]:
    # Targets are about halved (_short_target) to keep the files small; still several hands each.
    out = [
        Vector(f"{name}-{players}p", name, players, {"target": _short_target(name)})
        for name, preset in presets_of("line").items()
        for players in preset.players
    ]
    # The trains games at every seat count: one round each (two with four seats), the computer
    # players of every level around the table.
    out += [
        Vector(
            f"{name}-{players}p",
            name,
            players,
            {"rounds": 2 if players == 4 else 1},
            tuple({"name": f"Bot {s}", "type": "bot", "level": TRAINS_LEVELS[s % 4]} for s in range(players)),
        )
        for name, preset in presets_of("trains").items()
        for players in preset.players
    ]
    out += [
        Vector("standard-draw-4p-partners", "standard-draw", 4, {"partners": True, "target": 50}),
        Vector("all-fives-4p-partners", "all-fives", 4, {"partners": True, "target": 100}),
        # muggins_calls: the random bot never claims, so the greedy bot takes its counts by muggins
        Vector(
            "muggins-calls-2p",
            "muggins",
            2,
            {"muggins_calls": True, "target": 100},
            (
                {"name": "Forgetful", "type": "bot", "level": "random"},
                {"name": "Counter", "type": "bot", "level": "greedy"},
            ),
        ),
        # exact_target with the hands' pips counted: a blocked hand whose pips would pass the
        # target ends with its side named and 0 points (seq 37), and the match ends on exactly 10
        Vector("standard-block-exact-2p", "standard-block", 2, {"exact_target": True, "target": 10}),
        # the server draws and knocks for stuck seats: events with auto: true
        Vector("standard-draw-auto-3p", "standard-draw", 3, {"auto_draw": True, "auto_knock": True, "target": 50}),
        # client seeds (at creation and at a claim) change every deal; the claimed seat is remote
        Vector(
            "standard-draw-client-seeds-2p",
            "standard-draw",
            2,
            {"target": 50},
            (
                {"name": "Ada", "type": "bot", "level": "greedy", "client_seed": "ada's dice"},
                {"name": "Seat 1", "type": "open"},
            ),
            ((1, "Ben", "ben's dice"),),
        ),
        # turn clocks: the remote seat 1 lets turns run out (the server draws, then plays the
        # heaviest tile); three in a row hand it to a greedy bot for the rest of the match
        Vector(
            "standard-draw-clock-2p",
            "standard-draw",
            2,
            {"turn_seconds": 30, "timeout_limit": 3, "target": 50},
            ({"name": "Ada", "type": "bot", "level": "greedy"}, {"name": "Idle", "type": "remote"}),
            timeouts=((1, (2, 7, 8, 14, 15, 16)),),
        ),
        # no limit: two remote seats let turns run out now and then, in a Block game (forced
        # knocks) of Muggins with claims (the server claims its forced plays' counts rightly);
        # after hand 1 the winner leads any tile (a timed-out leader opens with its heaviest)
        Vector(
            "muggins-block-clock-3p",
            "muggins",
            3,
            {"game": "block", "muggins_calls": True, "turn_seconds": 60, "target": 100},
            (
                {"name": "Cy", "type": "remote"},
                {"name": "Bot 1", "type": "bot", "level": "random"},
                {"name": "Di", "type": "remote"},
            ),
            timeouts=((0, tuple(range(1, 100, 4))), (2, tuple(range(3, 100, 3)))),
        ),
    ]
    # a trains game with a turn clock: the remote seat lets turns run out (the server plays,
    # draws and passes for it: auto events) until a greedy bot takes it over; the double-blank
    # counting 50
    out.append(
        Vector(
            "mexican-train-clock-3p",
            "mexican-train",
            3,
            {"rounds": 2, "hand_size": 8, "turn_seconds": 30, "timeout_limit": 4, "double_blank_points": 50},
            (
                {"name": "Ada", "type": "bot", "level": "expert"},
                {"name": "Idle", "type": "remote"},
                {"name": "Bo", "type": "bot", "level": "greedy"},
            ),
            timeouts=((1, (1, 3, 4, 5, 6)),),
        )
    )
    return out


def _short_target(preset: str) -> int:
    """About half the preset's target, to keep the files small: 50 for the games to 100, 100 for
    the count games to 200, and 31 for an exact target of 61 (Fives and Threes): each of its
    matches ends mid-hand on exactly 31, and the 2p and 4p ones make counts that would pass it
    (no points_scored)."""
    options = PRESETS[preset].options
    if options.get("exact_target"):
        return 31
    return 100 if options.get("end_count_scoring") else 50


VECTORS: tuple[Vector, ...] = tuple(_vectors())


class _Match:
    """The engine driven as the service drives it (create, claim, bots after every move)."""

    def __init__(self, vector: Vector):
        self.vector = vector
        self.seed = vector.seed
        rules = resolve_rules(vector.preset, vector.rules, vector.players)
        created, *more = create_match(rules, vector.seat_specs(), self.seed, seeded_by_client=True)
        self.rows: list[dict[str, Any]] = [created.to_dict()]
        self.hand_log: list[dict[str, Any]] = []
        self.state: MatchState = replay([created])
        self._add(more)

    def _add(self, events: Iterable[Event]) -> None:
        for event in events:
            data = event.to_dict()
            self.rows.append(data)
            mutate(self.state, event)
            if data["type"] in DEAL_TYPES:
                self.hand_log = []
            self.hand_log.append(data)

    def run(self) -> None:
        if ready_to_start(self.state):
            self._add(start_match(self.state, self.seed))
        for seat, name, client_seed in self.vector.claims:
            self._add(claim_seat(self.state, seat, name, client_seed))
            if ready_to_start(self.state):
                self._add(start_match(self.state, self.seed))
        timeouts = {seat: set(turns) for seat, turns in self.vector.timeouts}
        turns = dict.fromkeys(timeouts, 0)
        while self.state.status == PLAYING:
            st = self.state
            # as the service asks its bots (a seat replaced after timing out is one from then on)
            turn = bot_turn(st, self.hand_log, self.seed, len(self.rows))
            if turn is None:  # a remote seat: a person, played here by a greedy bot under its own seed
                seat = st.next_to_act([i for i, s in enumerate(st.seats) if s.get("type") == REMOTE_SEAT])
                assert seat is not None  # a playing match's seats are bots and remote ones: the turn is one
                if seat == st.turn and seat in turns:
                    turns[seat] += 1
                    if turns[seat] in timeouts[seat]:  # the person lets the clock run out
                        self._add(time_out(st, seat, self.seed))
                        continue
                rng = "remote:" + bots.bot_seed(self.seed, len(self.rows), seat)
                turn = BotTurn(seat, "greedy", view(st, seat), [redact_event(e, seat) for e in self.hand_log], rng)
            self._add(turn.events(st, turn.choose(), self.seed))


def audit_document(match_id: str, seed: str, events: list[dict]) -> dict[str, Any]:
    """The whole ``/audit`` document of a log (its pages put together): every row with its seq,
    schema version and hash chain."""
    rows, prev = [], GENESIS
    for seq, event in enumerate(events, start=1):
        encoded = encode_event(event)
        digest = row_hash(prev, seq, encoded.type, encoded.schema_version, encoded.data)
        rows.append(
            {
                "seq": seq,
                "type": encoded.type,
                **encoded.data,
                "schema_version": encoded.schema_version,
                "prev_hash": prev,
                "hash": digest,
            }
        )
        prev = digest
    created = events[0]
    return {
        "match_id": match_id,
        "seed": seed,
        "seed_commitment": created["seed_commitment"],
        "shuffle_algorithm": created["seed_algorithm"],  # the set's (openapi/shuffle.md): v1 for double-six
        "seq": len(rows),
        "chain_head": {"seq": len(rows), "hash": prev},
        "events": rows,
    }


ROW_FIELDS = ("seq", "schema_version", "prev_hash", "hash")


def log_of(audit: dict) -> list[dict]:
    """The bare events of an audit document (without seq and chain fields)."""
    return [{k: v for k, v in row.items() if k not in ROW_FIELDS} for row in audit["events"]]


def summarize(audit: dict) -> dict[str, Any]:
    """The final state an audit log folds to, as every replayer prints it.

    Totals come from the engine's own fold (``api.rules.replay``); the per-hand lines come
    from the log: leader, how the hand ended, its points, and the points scored during play.
    A log that does not fold (rewritten: a tile played that its seat was never dealt) has no
    final state: ``ImpossibleEvent`` says at which seq and why.
    """
    events = log_of(audit)
    state = replay(event_from_dict(e) for e in events)
    if state.trains is not None:
        return _summarize_trains(audit, events, state)
    rules = state.rules
    hands: list[dict] = []
    for event in events:
        kind = event["type"]
        if kind == "hand_started":
            hands.append(
                {
                    "hand_number": event["hand_number"],
                    "leader": event["leader"],
                    "reason": None,
                    "winner": None,
                    "side": None,
                    "points": 0,
                    "pips": None,
                    "points_in_play": [0] * rules.sides,
                    "scores": None,
                }
            )
        elif kind == "points_scored":
            hands[-1]["points_in_play"][event["side"]] += event["points"]
        elif kind == "hand_ended":
            hands[-1].update({k: event[k] for k in ("reason", "winner", "side", "points", "pips", "scores")})
        elif kind == "match_ended" and hands and hands[-1]["scores"] is None:
            # the match ended in the middle of this hand (a scoring play reached the target)
            hands[-1].update(pips=[sum(a + b for a, b in h) for h in event["hands"]], scores=event["scores"])
    return {
        "match_id": audit["match_id"],
        "preset": rules.preset,
        "players": rules.players,
        "partners": rules.partners,
        "target": rules.target,
        "status": state.status,
        "winner": state.winner,
        "scores": list(state.scores),
        "hand_number": state.hand_number,
        "events": len(events),
        "hands": hands,
    }


def _summarize_trains(audit: dict, events: list[dict], state: MatchState) -> dict[str, Any]:
    """A trains game's final state: the totals and winners from the engine's fold, a line per
    round from the log (its engine, leader, who went out, the pips and the totals after)."""
    rounds = [
        {k: event[k] for k in ("round", "engine", "leader")} for event in events if event["type"] == "round_started"
    ]
    for event in events:
        if event["type"] == "round_ended":
            rounds[event["round"] - 1].update({k: event[k] for k in ("winner", "pips", "totals")})
    game = state.trains
    assert game is not None
    return {
        "match_id": audit["match_id"],
        "preset": state.rules.preset,
        "players": state.rules.players,
        "status": state.status,
        "winner": state.winner,
        "winners": None if game.winners is None else list(game.winners),
        "scores": list(game.totals),
        "round": game.round,
        "events": len(events),
        "rounds": rounds,
    }


def generate(vector: Vector) -> tuple[dict, dict]:
    """The audit document and expected summary of one vector, computed now."""
    match = _Match(vector)
    match.run()
    audit = audit_document(f"golden-{vector.name}", vector.seed, match.rows)
    return audit, summarize(audit)


def dumps(document: dict) -> str:
    """Compact JSON with one event per line: small files, readable diffs."""
    if "events" in document and isinstance(document["events"], list) and "seed" in document:
        head = {k: v for k, v in document.items() if k != "events"}
        lines = [json.dumps(e, separators=(",", ":"), ensure_ascii=False) for e in document["events"]]
        head_text = json.dumps(head, indent=1, ensure_ascii=False)
        return head_text[:-2] + ',\n "events": [\n' + ",\n".join(lines) + "\n ]\n}\n"
    return json.dumps(document, indent=1, ensure_ascii=False) + "\n"


def files() -> dict[str, str]:
    """Every file of ``openapi/examples/`` by name, as the engine produces it now."""
    out = {}
    for vector in VECTORS:
        audit, expected = generate(vector)
        out[f"{vector.name}.audit.json"] = dumps(audit)
        out[f"{vector.name}.expected.json"] = dumps(expected)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only compare with the committed files")
    parser.add_argument("--out", type=Path, default=EXAMPLES)
    args = parser.parse_args(argv)
    produced = files()
    if args.check:
        stale = [
            name
            for name, text in produced.items()
            if not (args.out / name).exists() or (args.out / name).read_text() != text
        ]
        for name in stale:
            print(f"stale: {args.out / name}", file=sys.stderr)
        return 1 if stale else 0
    args.out.mkdir(parents=True, exist_ok=True)
    for old in args.out.glob("*.json"):
        if old.name not in produced:
            old.unlink()
    for name, text in produced.items():
        (args.out / name).write_text(text)
    total = sum(len(t.encode()) for t in produced.values())
    print(f"wrote {len(produced)} files ({total // 1024} KiB) to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
