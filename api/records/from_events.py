"""A match's log as a record: ``record_of(events)``, one element per event (docs/records.md).

The events are dicts in their JSON form (``openapi/events.md``), the whole log or one seat's
copy of it as ``api.rules.redact_event`` gives it: this module redacts nothing itself, it writes
what it is given (a deal as a seat receives it has no ``hands``: the others' tiles become ``?``).
An event type without an entry here raises ``UnwritableEvent``: nothing is left out silently.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from api.rules.games import family_of

from .model import (
    DRAW,
    FORMAT,
    GOING_ON,
    KNOCK,
    MUGGINS,
    PASS,
    PLAY,
    REPLACED,
    TIME_OUT,
    UNKNOWN,
    Boneyard,
    Deal,
    Element,
    HandEnd,
    HandStart,
    Held,
    MatchEnd,
    Move,
    Record,
    RoundStart,
    Tag,
    Tile,
    TurnUp,
)

DEFAULT_SET = "double-6"  # a rule set that names no set (openapi/events.md)


class UnwritableEvent(LookupError):
    """An event type the record format has no element for (a defect: add one here and in the doc)."""


@dataclass
class RecordBuilder:
    """A record as it is built, event by event (``add``), then finished (``record``)."""

    seat: int | None = None  # whose copy of the log this is (None: the whole log)
    tags: dict[str, Any] = field(default_factory=dict)
    elements: list[Element] = field(default_factory=list)
    claims: list[dict[str, Any]] = field(default_factory=list)
    scores: list[list[int]] = field(default_factory=list)
    events: int = 0

    def add(self, event: Mapping[str, Any]) -> None:
        """Write one more event (dicts in seq order, ``match_created`` first)."""
        self.events += 1
        if self.events == 1 and event.get("type") != "match_created":
            raise UnwritableEvent("a log begins with match_created")
        writer = WRITERS.get(event.get("type", ""))
        if writer is None:
            raise UnwritableEvent(f"event {self.events}: no record element for event type {event.get('type')!r}")
        writer(self, event)

    def record(self, match_id: str | None = None, circumstances: Mapping[str, str] | None = None) -> Record:
        """The record of the events added so far."""
        if "Game" not in self.tags:
            raise UnwritableEvent("an empty log has no record")
        tags: dict[str, Any] = {"Format": FORMAT, **UNKNOWN, **(circumstances or {})}
        if match_id is not None:
            tags["Match"] = match_id
        tags.update(self.tags)
        if self.claims:
            tags["Claims"] = self.claims
        tags.setdefault("Result", GOING_ON)
        tags["Scores"] = self.scores
        return Record(tuple(Tag(name, value) for name, value in tags.items()), tuple(self.elements))


def _tile(value: Any) -> Tile:
    return int(value[0]), int(value[1])


def _tiles(values: Iterable[Any]) -> tuple[Tile, ...]:
    return tuple(_tile(v) for v in values)


def _created(w: RecordBuilder, e: Mapping[str, Any]) -> None:
    rules = e["rules"]
    w.tags.update(
        Game=rules["preset"],
        Family=family_of(rules["preset"]).name,
        Set=rules.get("set", DEFAULT_SET),
        Players=rules["players"],
    )
    if rules.get("partners"):
        w.tags["Teams"] = [[s for s in range(rules["players"]) if s % 2 == side] for side in (0, 1)]
    w.tags.update(
        Rules=rules,
        Seats=e["seats"],
        SeededByClient=e["seeded_by_client"],
        SeedAlgorithm=e["seed_algorithm"],
        SeedCommitment=e["seed_commitment"],
    )


def _claimed(w: RecordBuilder, e: Mapping[str, Any]) -> None:
    w.claims.append({"seat": e["seat"], "name": e["name"], "client_seed": e["client_seed"]})


def _unredacted(w: RecordBuilder, e: Mapping[str, Any]) -> None:
    """Fail closed: a seat's record is written from the events as that seat was shown them only."""
    raise UnwritableEvent(f"seat {w.seat}'s record given an unredacted {e['type']}: redact the log first")


def _dealt(w: RecordBuilder, e: Mapping[str, Any]) -> None:
    if "hands" in e and w.seat is not None:
        _unredacted(w, e)
    if "hands" in e:
        hands: list[tuple[Held, ...]] = [_tiles(h) for h in e["hands"]]
        boneyard: tuple[Held, ...] = _tiles(e["boneyard"])
    else:  # a seat's copy: its own hand, of the others how many tiles
        hands = [
            _tiles(e["hand"]) if seat == w.seat and "hand" in e else (None,) * count
            for seat, count in enumerate(e["hand_counts"])
        ]
        boneyard = (None,) * e["boneyard"]
    if e["type"] == "round_started":
        w.elements.append(RoundStart(e["round"], e["engine"], e["leader"]))
    else:
        w.elements.append(HandStart(e["hand_number"], e["leader"]))
    w.elements += [Deal(seat, hand) for seat, hand in enumerate(hands)]
    w.elements.append(Boneyard(boneyard))


def _played(w: RecordBuilder, e: Mapping[str, Any]) -> None:
    place = e["end"] if "end" in e else str(e["train"])
    w.elements.append(Move(e["seat"], PLAY, _tile(e["tile"]), place, e["auto"], e.get("claim")))


def _scored(w: RecordBuilder, e: Mapping[str, Any]) -> None:
    if e["how"] == "muggins":
        w.elements.append(Move(e["seat"], MUGGINS, points=e["points"]))
        return
    play = w.elements[-1]  # a scoring play's points follow it at once (openapi/events.md)
    if not isinstance(play, Move) or play.kind != PLAY or play.seat != e["seat"] or play.points is not None:
        raise UnwritableEvent("points_scored by a play comes right after that play")
    w.elements[-1] = replace(play, points=e["points"])


def _drawn(w: RecordBuilder, e: Mapping[str, Any]) -> None:
    if w.seat is not None and e["seat"] != w.seat and "tile" in e:
        _unredacted(w, e)
    w.elements.append(Move(e["seat"], DRAW, _tile(e["tile"]) if "tile" in e else None, auto=e["auto"]))


def _knocked(w: RecordBuilder, e: Mapping[str, Any]) -> None:
    w.elements.append(Move(e["seat"], KNOCK, auto=e["auto"]))


def _passed(w: RecordBuilder, e: Mapping[str, Any]) -> None:
    w.elements.append(Move(e["seat"], PASS, auto=e["auto"]))


def _hand_ended(w: RecordBuilder, e: Mapping[str, Any]) -> None:
    w.elements.append(HandEnd(e["reason"], e["winner"], e["points"], tuple(e["pips"]), tuple(e["scores"])))
    w.scores.append(list(e["scores"]))


def _round_ended(w: RecordBuilder, e: Mapping[str, Any]) -> None:
    reason = "blocked" if e["winner"] is None else "domino"
    w.elements.append(HandEnd(reason, e["winner"], None, tuple(e["pips"]), tuple(e["totals"]), "totals"))
    w.scores.append(list(e["totals"]))


def _match_ended(w: RecordBuilder, e: Mapping[str, Any]) -> None:
    winners = e.get("winners")
    shared = winners is not None
    seats = tuple(winners) if winners is not None else (e["winner"],)
    w.elements.append(MatchEnd(seats, shared, tuple(e["scores"])))
    w.tags["Seed"] = e["seed"]
    w.tags["Result"] = {"winner": e["winner"], "scores": e["scores"], **({"winners": winners} if shared else {})}


def _timed_out(w: RecordBuilder, e: Mapping[str, Any]) -> None:
    w.elements.append(Move(e["seat"], TIME_OUT, consecutive=e["consecutive"]))


def _replaced(w: RecordBuilder, e: Mapping[str, Any]) -> None:
    w.elements.append(Move(e["seat"], REPLACED, level=e["level"]))


def _turned_up(w: RecordBuilder, e: Mapping[str, Any]) -> None:
    w.elements.append(TurnUp(_tiles(e["tiles"]), e["leader"]))


#: One entry per event type of openapi/events.md (fail closed: a type without one raises).
WRITERS: Mapping[str, Callable[[RecordBuilder, Mapping[str, Any]], None]] = {
    "match_created": _created,
    "seat_claimed": _claimed,
    "tiles_turned_up": _turned_up,
    "hand_started": _dealt,
    "tile_played": _played,
    "tile_drawn": _drawn,
    "knocked": _knocked,
    "points_scored": _scored,
    "hand_ended": _hand_ended,
    "match_ended": _match_ended,
    "turn_timed_out": _timed_out,
    "seat_replaced": _replaced,
    "round_started": _dealt,
    "tile_placed": _played,
    "passed": _passed,
    "round_ended": _round_ended,
}


def record_of(
    events: Iterable[Mapping[str, Any]],
    *,
    seat: int | None = None,
    match_id: str | None = None,
    circumstances: Mapping[str, str] | None = None,
) -> Record:
    """The record of a log (event dicts in seq order, ``match_created`` first). ``seat``: whose
    redacted copy the events are (None: the whole log). ``circumstances``: ``Event``, ``Site``,
    ``Date`` (each ``?`` when not given)."""
    builder = RecordBuilder(seat)
    for event in events:
        builder.add(event)
    return builder.record(match_id, circumstances)
