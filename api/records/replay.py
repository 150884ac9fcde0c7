"""A record back into its match's log: the rules engine driven by the record's moves.

``replay(record)`` does what ``api.rules.audit.verify_log`` does for a log: every move that is
a seat's own (and every time-out) is decided again by the engine against the state before it,
the engine answers with the consequences (deals re-derived from the revealed seed, the
server's moves, points, hand and match ends), and the record must hold exactly those, in the
same places: the events produced, written as a record, equal the record element for element
(comments and the circumstances, ``Event``, ``Site``, ``Date``, ``Match``, aside). The first
place where they differ is a ``RecordReplayError`` at its line and column.
"""

from __future__ import annotations

from typing import Any

from api.rules import (
    CallMuggins,
    Draw,
    Event,
    Knock,
    MatchState,
    Play,
    ReplayError,
    RulesError,
    RuleSet,
    Tile,
    claim_seat,
    decide,
    ready_to_start,
    seed_commitment,
    start_match,
)
from api.rules.clock import time_out
from api.rules.engine import Command, Pass, PlaceTile, initial_state, mutate
from api.rules.events import MatchCreated
from api.rules.shuffle import algorithm_for
from api.rules.state import ENDED
from api.rules.trains_wire import place_from_wire
from api.rules.vocabulary import End

from .from_events import RecordBuilder
from .model import (
    CIRCUMSTANCE_TAGS,
    DRAW,
    KNOCK,
    MUGGINS,
    PASS,
    PLAY,
    TIME_OUT,
    Element,
    Move,
    Position,
    Record,
)
from .text import element_tokens, json_text


class RecordReplayError(ValueError):
    """The record departs from what the rules give at ``position``."""

    def __init__(self, position: Position | None, message: str) -> None:
        super().__init__(f"{position or '1:1'}: {message}")
        self.position = position or Position(1, 1)
        self.message = message


#: What reading a tag of another type or shape than docs/records.md gives may raise.
MISSHAPEN = (TypeError, ValueError, KeyError, IndexError, AttributeError)


def _tag_at(record: Record, name: str) -> Position | None:
    tag = record.tag(name)
    return None if tag is None else tag.at


def _opening(record: Record, seed: str) -> tuple[MatchState, list[Event]]:
    """``match_created`` from the header, the claims, and whatever the start deals."""
    if seed_commitment(seed) != record.value("SeedCommitment"):
        raise RecordReplayError(_tag_at(record, "Seed"), "the seed is not the one SeedCommitment commits to")
    try:
        rules = RuleSet.from_dict(record.value("Rules")).to_dict()  # the engine's key order, as logged
        if rules != record.value("Rules"):
            raise RecordReplayError(_tag_at(record, "Rules"), f"the rules resolve to {json_text(rules)}")
        created = MatchCreated(
            rules,
            tuple(_as_logged(seat) for seat in record.value("Seats")),
            record.value("SeedCommitment"),
            record.value("SeedAlgorithm"),
            record.value("SeededByClient", False),
        )
        state = initial_state(created)
        if len(created.seats) != state.players or not all(isinstance(seat.get("type"), str) for seat in created.seats):
            raise RecordReplayError(_tag_at(record, "Seats"), f"Seats lists {state.players} seats, each with its type")
        if created.seed_algorithm != algorithm_for(state.rules.set):
            raise RecordReplayError(
                _tag_at(record, "SeedAlgorithm"), f"the set's shuffle is {algorithm_for(state.rules.set)}"
            )
        if not isinstance(created.seeded_by_client, bool):
            raise RecordReplayError(_tag_at(record, "SeededByClient"), "SeededByClient is true or false")
    except RecordReplayError:
        raise
    except (RulesError, *MISSHAPEN) as exc:  # a tag of another shape than docs/records.md gives
        raise RecordReplayError(_tag_at(record, "Rules"), f"refused by the rules: {exc}") from None
    events: list[Event] = [created]
    claims = record.value("Claims", [])
    try:
        for step in [None, *claims]:
            if step is not None:
                _fold(state, events, claim_seat(state, step["seat"], step["name"], step.get("client_seed")))
            if ready_to_start(state):
                _fold(state, events, start_match(state, seed))
    except (RulesError, *MISSHAPEN) as exc:
        raise RecordReplayError(_tag_at(record, "Claims"), f"refused by the rules: {exc}") from None
    return state, events


#: A seat's keys in the order ``match_created`` logs them (tags hold them sorted, as JSON does not care).
SEAT_KEYS = ("name", "type", "level", "client_seed")


def _as_logged(seat: dict[str, Any]) -> dict[str, Any]:
    known = {key: seat[key] for key in SEAT_KEYS if key in seat}
    return {**known, **{key: value for key, value in seat.items() if key not in known}}


def _fold(state: MatchState, events: list[Event], more: list[Event]) -> None:
    for event in more:
        mutate(state, event)
        events.append(event)


def _command(move: Move) -> Command:
    tile = Tile(*move.tile) if move.tile is not None else None
    if move.kind == PLAY:
        assert tile is not None and move.place is not None
        if move.place in End.__members__.values():
            return Play(move.seat, tile, End(move.place), move.claim)
        train: int | str = int(move.place) if move.place.isdigit() else move.place
        return PlaceTile(move.seat, tile, place_from_wire(train))
    if move.kind == DRAW:
        return Draw(move.seat)
    if move.kind == KNOCK:
        return Knock(move.seat)
    if move.kind == PASS:
        return Pass(move.seat)
    assert move.kind == MUGGINS
    return CallMuggins(move.seat)


def replay(record: Record) -> list[Event]:
    """The match's log, event for event, from its record; ``RecordReplayError`` where the record
    departs from it (a move the rules refuse, a consequence the record does not hold as given)."""
    seed = record.value("Seed")
    if not isinstance(seed, str):
        raise RecordReplayError(
            _tag_at(record, "Result"), "no Seed tag: a record replays once its match has ended and the seed is revealed"
        )
    state, events = _opening(record, seed)
    check = _Checker(record)
    check.add(events)
    while (move := check.next_element()) is not None:
        if state.status == ENDED:
            raise RecordReplayError(move.at, f"the match is over before {_said(move)}")
        if not isinstance(move, Move) or not move.is_the_seats_own:
            raise RecordReplayError(move.at, f"the rules wait for a seat's move here, not {_said(move)}")
        try:
            if move.kind == TIME_OUT:
                produced = time_out(state, move.seat, seed)
            else:
                produced = decide(state, _command(move), seed)
        except (RulesError, ReplayError) as exc:
            raise RecordReplayError(move.at, f"refused by the rules: {exc}") from None
        for event in produced:
            mutate(state, event)
        events += produced
        check.add(produced)
    if state.status != ENDED:
        last = check.written[-1].at if check.written else None
        raise RecordReplayError(last, "the record ends where the rules go on: a seat is still to move")
    check.tags()
    return events


class _Checker:
    """The record beside the log as the engine writes it: each element the events give must be
    the record's next one."""

    def __init__(self, record: Record) -> None:
        self.record = record
        self.written = record.without_comments()
        self.builder = RecordBuilder()
        self.done = 0  # the record's elements matched so far

    def add(self, events: list[Event]) -> None:
        for event in events:
            self.builder.add(event.to_dict())
        produced = self.builder.elements
        for i in range(self.done, len(produced)):
            if i >= len(self.written):
                last = self.written[-1].at if self.written else None
                raise RecordReplayError(last, f"the record ends where the rules go on: {_said(produced[i])}")
            if produced[i] != self.written[i]:
                raise RecordReplayError(
                    self.written[i].at, f"the rules give {_said(produced[i])} here, not {_said(self.written[i])}"
                )
        self.done = len(produced)

    def next_element(self) -> Element | None:
        return self.written[self.done] if self.done < len(self.written) else None

    def tags(self) -> None:
        """Every tag the log gives, as the log gives it; none it does not."""
        produced = self.builder.record(self.record.value("Match"))
        for tag in produced.tags:
            if tag.name in CIRCUMSTANCE_TAGS:
                continue
            given = self.record.tag(tag.name)
            if given is None:
                raise RecordReplayError(None, f"the record has no {tag.name} tag: {json_text(tag.value)}")
            if given.value != tag.value:
                raise RecordReplayError(given.at, f"{tag.name} is {json_text(tag.value)} by the rules")
        names = {tag.name for tag in produced.tags}
        for tag in self.record.tags:
            if tag.name in _EVENT_TAGS and tag.name not in names:
                raise RecordReplayError(tag.at, f"the match has no {tag.name}")


#: Tags that only the log can give: a record must not hold one its log does not (``Seed`` before the end).
_EVENT_TAGS = frozenset({"Teams", "Claims", "Seed"})


def _said(element: Element) -> str:
    text = " ".join(element_tokens(element))
    return text if len(text) <= 60 else text[:57] + "..."


def log_of(record: Record) -> list[dict[str, Any]]:
    """The replayed log as event dicts (``openapi/events.md``)."""
    return [event.to_dict() for event in replay(record)]
