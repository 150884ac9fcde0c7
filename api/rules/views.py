"""Redaction: what one seat (or a spectator) may see. The only path out of the engine.

``view(state, seat)`` is the whole picture for one seat; ``redact_event(event, seat)``
is one event of the log as that seat may see it. ``seat=None`` is a spectator, who sees
no hand at all while it is live. Every output of the server passes through these two.
"""

from __future__ import annotations

from typing import Any

from .engine import legal_actions
from .layout import DOWN, END_NAMES, LEFT, RIGHT, UP
from .state import ENDED, MatchState
from .tiles import pip_count


def line_of_play(st: MatchState) -> dict[str, Any]:
    """The tiles on the table, oriented as they lie: the line left to right, and the arms."""
    line: list[list[int]] = []
    arms: dict[int, list[list[int]]] = {UP: [], DOWN: []}
    spinner = st.layout.spinner
    # up and down only ever open on the spinner: an arm's first tile matches the spinner's number
    arm_root = spinner.high if spinner is not None else None
    values: list[int | None] = [None, None, arm_root, arm_root]
    for _seat, tile, end in st.placements:
        if not line:
            line.append([tile.high, tile.low])
            values[LEFT], values[RIGHT] = tile.high, tile.low
            continue
        number = values[end]
        other = tile.other(number)
        if end == LEFT:
            line.insert(0, [other, number])
        elif end == RIGHT:
            line.append([number, other])
        else:
            arms[end].append([number, other])
        values[end] = other
    out: dict[str, Any] = {"line": line}
    if st.rules.spinner != "none":
        out["spinner"] = spinner.to_json() if spinner else None
        out["arms"] = {"up": arms[UP], "down": arms[DOWN]}
    return out


def view(st: MatchState, seat: int | None) -> dict[str, Any]:
    """Everything ``seat`` may know now, and exactly the actions it may take."""
    rules = st.rules
    ended = st.status == ENDED
    out: dict[str, Any] = {
        "status": st.status,
        "seat": seat,
        "hand_number": st.hand_number,
        "leader": st.leader,
        "turn": st.turn,
        "rules": rules.to_dict(),
        "seats": [{"seat": i, "name": s.get("name"), "type": s.get("type"), "level": s.get("level"),
                   "client_seed": s.get("client_seed")} for i, s in enumerate(st.seats)],
        "scores": list(st.scores),
        "hand_counts": [len(h) for h in st.hands],
        "drawn": list(st.drawn),
        "boneyard": len(st.boneyard),
        "ends": [{"end": END_NAMES[i], "value": v} for i, v in st.layout.open_ends()],
        **line_of_play(st),
        "legal_actions": legal_actions(st, seat),
        "last_hand": _public_hand_result(st.last_result),
        "winner": st.winner,
        "seeded_by_client": st.seeded_by_client,
    }
    if rules.partners:
        out["sides"] = [list(rules.seats_of_side(side)) for side in range(rules.sides)]
    if rules.fives_scoring:
        out["count"] = st.layout.count()      # under muggins_calls too: what a scoring play claims
    if seat is not None:
        out["hand"] = [t.to_json() for t in st.hands[seat]]
        out["pips"] = pip_count(st.hands[seat])
    if ended and st.hand_live is False and st.hands and any(st.hands):
        out["hands"] = [[t.to_json() for t in h] for h in st.hands]   # the match is over: all face up
    return out


def _public_hand_result(result: dict | None) -> dict | None:
    if result is None:
        return None
    return {k: v for k, v in result.items() if k != "type"}


def redact_event(event: dict[str, Any], seat: int | None) -> dict[str, Any]:
    """One event (in its JSON form) as ``seat`` may see it."""
    kind = event["type"]
    if kind == "hand_started":
        hands = event["hands"]
        out = {"type": kind, "hand_number": event["hand_number"], "leader": event["leader"],
               "hand_counts": [len(h) for h in hands], "boneyard": len(event["boneyard"])}
        if seat is not None:
            out["hand"] = hands[seat]
        return out
    if kind == "tile_drawn" and event["seat"] != seat:
        return {k: v for k, v in event.items() if k != "tile"}
    return event
