"""Redaction: what one seat (or a spectator) may see. The only path out of the engine.

``view(state, seat)`` is the whole picture for one seat; ``redact_event(event, seat)``
is one event of the log as that seat may see it; ``public_summary(state)`` is what
anyone may see of a match (the summary, the list). ``seat=None`` is a spectator, who
sees no hand at all while it is live. Every output of the server passes through these.

Redaction fails closed: ``REDACTORS`` holds one entry per event type, and an event whose
type has none raises ``UnredactableEvent`` rather than going out as it is. So the next
event type cannot leak by default: whoever adds it must decide here who sees what.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from . import events, trains_views
from .engine import legal_actions
from .events import HandResult
from .layout import END_NAMES
from .state import ENDED, OPEN_SEAT, MatchState
from .tiles import pip_count


def line_of_play(st: MatchState) -> dict[str, Any]:
    """The tiles on the table, oriented as they lie: the board's own description of itself."""
    return st.layout.describe((tile, END_NAMES[end]) for _seat, tile, end in st.placements)


def view(st: MatchState, seat: int | None) -> dict[str, Any]:
    """Everything ``seat`` may know now, and exactly the actions it may take."""
    if st.trains is not None:
        return trains_views.view(st, seat, _seats(st))
    rules = st.rules
    ended = st.status == ENDED
    out: dict[str, Any] = {
        "status": st.status,
        "seat": seat,
        "hand_number": st.hand_number,
        "leader": st.leader,
        "turn": st.turn,
        "rules": rules.to_dict(),
        "seats": _seats(st),
        "scores": list(st.scores),
        "hand_counts": [len(h) for h in st.hands],
        "drawn": list(st.drawn),
        "boneyard": len(st.boneyard),
        "ends": [{"end": place, "value": v} for place, v in st.layout.open_places()],
        **line_of_play(st),
        "legal_actions": legal_actions(st, seat),
        "last_hand": _public_hand_result(st.last_result),
        "winner": st.winner,
        "seeded_by_client": st.seeded_by_client,
    }
    if rules.partners:
        out["sides"] = [list(rules.seats_of_side(side)) for side in range(rules.sides)]
    if rules.scores_the_count:
        out["count"] = st.layout.count()  # under muggins_calls too: what a scoring play claims
    if seat is not None:
        out["hand"] = [t.to_json() for t in st.hands[seat]]
        out["pips"] = pip_count(st.hands[seat])
    if ended and st.hand_live is False and st.hands and any(st.hands):
        out["hands"] = [[t.to_json() for t in h] for h in st.hands]  # the match is over: all face up
    return out


def public_summary(st: MatchState) -> dict[str, Any]:
    """What anyone may know of a match, seated or not: no tile at all. Stored with the match
    for the list of matches, and the body of its summary."""
    return {
        "status": st.status,
        "seeded_by_client": st.seeded_by_client,
        "hand_number": st.hand_number,
        "scores": list(st.scores),
        "turn": st.turn,
        "winner": st.winner,
        "players": st.players,
        "seats": _seats(st),
        "open_seats": [i for i, s in enumerate(st.seats) if s.get("type") == OPEN_SEAT],
    }


def _seats(st: MatchState) -> list[dict[str, Any]]:
    """Who sits where; the client seeds are public (they are mixed into the deals in the open)."""
    return [
        {
            "seat": i,
            "name": s.get("name"),
            "type": s.get("type"),
            "level": s.get("level"),
            "client_seed": s.get("client_seed"),
        }
        for i, s in enumerate(st.seats)
    ]


def _public_hand_result(result: HandResult | None) -> dict[str, Any] | None:
    """A view's ``last_hand``: the last ``hand_ended`` event without its ``type``."""
    return None if result is None else result.to_json()


Redactor = Callable[[dict[str, Any], int | None], dict[str, Any]]


class UnredactableEvent(LookupError):
    """An event whose type has no entry in ``REDACTORS``. Not a ``RulesError``: no input of a
    caller causes it, only an event type added without deciding who may see it. A server
    defect (a 500), which is the point: the event is not shown to anyone as it is."""

    def __init__(self, kind: object) -> None:
        super().__init__(f"no redactor for event type {kind!r}: add one to api.rules.views.REDACTORS")
        self.kind = kind


def public(event: dict[str, Any], seat: int | None) -> dict[str, Any]:
    """The redactor of an event that holds nothing any seat or spectator may not know."""
    return event


def _deal_as_seen(event: dict[str, Any], seat: int | None) -> dict[str, Any]:
    """A deal (``hand_started``, a trains game's ``round_started``): its public fields, the
    seat's own hand; of the others and the boneyard only how many tiles."""
    hands = event["hands"]
    out = {key: value for key, value in event.items() if key not in ("hands", "boneyard")}
    out["hand_counts"] = [len(h) for h in hands]
    out["boneyard"] = len(event["boneyard"])
    if seat is not None:
        out["hand"] = hands[seat]
    return out


def _draw_as_seen(event: dict[str, Any], seat: int | None) -> dict[str, Any]:
    """``tile_drawn``: the tile to the seat that drew it; to the others only that it drew."""
    if event["seat"] == seat:
        return event
    return {k: v for k, v in event.items() if k != "tile"}


REDACTORS: Mapping[str, Redactor] = MappingProxyType(
    {
        events.MatchCreated.type: public,  # rules, seats, client seeds; the server seed only as its commitment
        events.SeatClaimed.type: public,  # a name and the client seed it brings
        events.TilesTurnedUp.type: public,  # a shuffle of its own, turned face up for all to choose the leader
        events.HandStarted.type: _deal_as_seen,
        events.TilePlayed.type: public,  # the tile now lies on the table
        events.TileDrawn.type: _draw_as_seen,
        events.Knocked.type: public,  # the open ends, already on the table
        events.PointsScored.type: public,  # counts of the table, and the scores
        events.HandEnded.type: public,  # every hand turned face up; the boneyard's rest stays hidden
        events.MatchEnded.type: public,  # the seed is revealed: every deal can be re-derived now
        events.TurnTimedOut.type: public,  # whose clock ran out (the auto play follows as its own events)
        events.SeatReplaced.type: public,  # the bot level now playing the seat
        # The trains games' (``tile_drawn`` and ``match_ended`` are shared with the line games).
        events.RoundStarted.type: _deal_as_seen,
        events.TilePlaced.type: public,  # the tile now lies on a train
        events.Passed.type: public,  # a marker, on the table for all to see
        events.RoundEnded.type: public,  # every hand turned face up; the boneyard's rest stays hidden
    }
)


def redact_event(event: dict[str, Any], seat: int | None) -> dict[str, Any]:
    """One event (in its JSON form) as ``seat`` may see it; ``UnredactableEvent`` for a type
    ``REDACTORS`` does not know (never passed through unchanged)."""
    kind = event.get("type")
    redactor = REDACTORS.get(kind) if isinstance(kind, str) else None
    if redactor is None:
        raise UnredactableEvent(kind)
    return redactor(event, seat)
