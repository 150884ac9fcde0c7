"""What one seat (or a spectator) may see of a trains match: its view, and its deal.

``views.view`` hands a trains match here; the events' redaction stays in ``views.REDACTORS``
(one table for every event type: ``round_started``, the one trains event that hides tiles, is
redacted as any deal).
"""

from __future__ import annotations

from typing import Any

from . import trains
from .state import ENDED, MatchState
from .trains_board import MexicanTrainBoard
from .trains_match import game, legal_actions
from .trains_wire import place_to_wire


def view(st: MatchState, seat: int | None, seats: list[dict[str, Any]]) -> dict[str, Any]:
    """Everything ``seat`` may know of a trains match now, and exactly the actions it may take
    (the contract: openapi ``TrainsView``). ``seats``: who sits where, as every view shows it."""
    state = game(st)
    rules = state.rules
    out: dict[str, Any] = {
        "status": st.status,
        "seat": seat,
        "round": state.round,
        "rounds": rules.rounds,
        "leader": st.leader,
        "turn": st.turn,
        "rules": st.rules.to_dict(),
        "seats": seats,
        "totals": list(state.totals),
        "round_pips": [list(pips) for pips in state.round_pips],
        "hand_counts": [len(hand) for hand in state.hands] if state.hands else [0] * rules.players,
        "drawn": None,
        "boneyard": len(state.boneyard),
        "board": describe(state),
        "legal_actions": legal_actions(st, seat),
        "last_round": None if state.last_round is None else _without_type(state.last_round.to_dict()),
        "winner": st.winner,
        "winners": None if state.winners is None else list(state.winners),
        "seeded_by_client": st.seeded_by_client,
    }
    if seat is not None and state.drawn is not None and state.to_move == seat:
        out["drawn"] = state.drawn.to_json()  # the tile it drew, the only one it may play now
    if seat is not None:
        hand = state.hands[seat] if state.hands else []
        out["hand"] = [t.to_json() for t in hand]
        out["pips"] = trains.hand_pips(rules, hand)
    if st.status == ENDED and state.hands:
        out["hands"] = [[t.to_json() for t in hand] for hand in state.hands]  # the match is over: all face up
    return out


def describe(state: trains.TrainsState) -> dict[str, Any] | None:
    """The table as it lies: the engine and each train or arm, its places named as actions
    name them (``trains_wire``); None before the first deal."""
    board = state.board
    if board is None:
        return None
    described = board.describe(state.placed)
    if isinstance(board, MexicanTrainBoard):
        trains_out = [_named(train, "id") for train in described["trains"]]
        return {
            "engine": described["engine"],
            "trains": trains_out,
            "uncovered": None if board.uncovered is None else place_to_wire(board.uncovered),
        }
    toes = described["toes_needed"]
    return {
        "engine": described["engine"],
        "arms": [_named(arm, "id") for arm in described["arms"]],
        "toes_needed": None if toes is None else {**toes, "next": place_to_wire(toes["next"])},
    }


def _named(place: dict[str, Any], key: str) -> dict[str, Any]:
    """A board's place with its id as the wire's ``train`` value, first."""
    named: dict[str, Any] = {"train": place_to_wire(place[key])}
    named.update((k, v) for k, v in place.items() if k != key)
    return named


def _without_type(event: dict[str, Any]) -> dict[str, Any]:
    del event["type"]
    return event


__all__ = ["describe", "view"]
