"""A tournament's state: whatever folding its events gives (:func:`replay`).

``apply(state, event)`` is the one place each event's effect is written; the commands
(:mod:`api.tournaments.commands`) decide events from a state, never change one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

from .errors import ImpossibleTournamentEvent
from .events import (
    ARENA,
    ArenaClosed,
    Entrant,
    EntrantRegistered,
    EntrantWithdrawn,
    MatchResult,
    RoundEnded,
    RoundPaired,
    Settings,
    Table,
    TournamentCancelled,
    TournamentCreated,
    TournamentEnded,
    TournamentEvent,
    TournamentPaused,
    TournamentResumed,
    TournamentStarted,
)

REGISTERING = "registering"
RUNNING = "running"
ENDED = "ended"
CANCELLED = "cancelled"
STATUSES = (REGISTERING, RUNNING, ENDED, CANCELLED)


@dataclass(frozen=True, slots=True)
class Round:
    """One round: its tables, the entrant with the bye (if any), each table's result by number."""

    number: int
    tables: tuple[Table, ...]
    bye: str | None
    results: Mapping[int, MatchResult] = field(default_factory=lambda: MappingProxyType({}))
    ended: bool = False
    waiting: tuple[str, ...] = ()  # an arena's: the free entrants this pairing left waiting
    seed_commitment: str | None = None  # a duplicate round's: the one seed its matches are dealt from

    def tables_of(self, entrant_id: str) -> tuple[Table, ...]:
        """Every table it sits at (two in a duplicate round: one leg each way)."""
        return tuple(t for t in self.tables if entrant_id in t.sides)

    def table(self, number: int) -> Table | None:
        return next((t for t in self.tables if t.number == number), None)

    def pending(self) -> tuple[Table, ...]:
        """The tables still without a result."""
        return tuple(t for t in self.tables if t.number not in self.results)

    def table_of(self, entrant_id: str) -> Table | None:
        return next((t for t in self.tables if entrant_id in t.sides), None)


@dataclass(frozen=True, slots=True)
class TournamentState:
    id: str
    settings: Settings
    status: str = REGISTERING
    entrants: Mapping[str, Entrant] = field(default_factory=lambda: MappingProxyType({}))
    withdrawn: frozenset[str] = frozenset()
    paused: bool = False
    planned_rounds: int | None = None  # fixed at the start
    order: tuple[str, ...] = ()  # the seeding order, fixed at the start
    rounds: tuple[Round, ...] = ()
    cancel_reason: str | None = None
    ends_at: str | None = None  # an arena's end of pairing, fixed at the start
    closed: bool = False  # an arena that pairs no more

    @property
    def is_arena(self) -> bool:
        return self.settings.format == ARENA

    @property
    def active(self) -> tuple[str, ...]:
        """The entrants still in, in registration order."""
        return tuple(e for e in self.entrants if e not in self.withdrawn)

    @property
    def current(self) -> Round | None:
        return self.rounds[-1] if self.rounds else None

    @property
    def is_over(self) -> bool:
        return self.status in (ENDED, CANCELLED)

    def round_in_play(self) -> bool:
        """Whether any round still has undecided tables (a Swiss or a round robin has at most
        the last one; an arena's pairings overlap)."""
        return any(not r.ended for r in self.rounds)

    def round_numbered(self, number: int) -> Round | None:
        return self.rounds[number - 1] if 1 <= number <= len(self.rounds) else None

    def busy(self) -> frozenset[str]:
        """The entrants seated at an undecided table."""
        return frozenset(side for r in self.rounds if not r.ended for t in r.pending() for side in t.sides)

    def free(self) -> tuple[str, ...]:
        """The active entrants at no undecided table, in registration order (an arena pairs them)."""
        busy = self.busy()
        return tuple(e for e in self.active if e not in busy)

    def rounds_left(self) -> int:
        return (self.planned_rounds or 0) - len(self.rounds)

    def entrant_of_player(self, player_ref: str) -> Entrant | None:
        """The entrant (alone or a team) a portal player is in, withdrawn or not."""
        return next((e for e in self.entrants.values() if any(m.player_ref == player_ref for m in e.members)), None)


def _impossible(state: TournamentState | None, event: TournamentEvent, why: str) -> ImpossibleTournamentEvent:
    where = f"tournament {state.id}" if state is not None else "a new tournament"
    return ImpossibleTournamentEvent(f"{event.type} cannot apply to {where}: {why}")


def _with_round(state: TournamentState, round_: Round) -> TournamentState:
    index = round_.number - 1
    return replace(state, rounds=state.rounds[:index] + (round_,) + state.rounds[index + 1 :])


def apply(state: TournamentState | None, event: TournamentEvent) -> TournamentState:
    """The state after ``event``; :class:`ImpossibleTournamentEvent` if ``state`` cannot take it."""
    if isinstance(event, TournamentCreated):
        if state is not None:
            raise _impossible(state, event, "already created")
        return TournamentState(event.tournament_id, event.settings)
    if state is None:
        raise _impossible(state, event, "the log must begin with tournament_created")
    if state.is_over:
        raise _impossible(state, event, f"it is {state.status}")
    if isinstance(event, EntrantRegistered):
        if state.status != REGISTERING or event.entrant.id in state.entrants:
            raise _impossible(state, event, "registration closed or entrant known")
        return replace(state, entrants=MappingProxyType({**state.entrants, event.entrant.id: event.entrant}))
    if isinstance(event, EntrantWithdrawn):
        if event.entrant_id not in state.entrants or event.entrant_id in state.withdrawn:
            raise _impossible(state, event, "no such active entrant")
        return replace(state, withdrawn=state.withdrawn | {event.entrant_id})
    if isinstance(event, TournamentStarted):
        if state.status != REGISTERING:
            raise _impossible(state, event, "already started")
        return replace(state, status=RUNNING, planned_rounds=event.rounds, order=event.order, ends_at=event.ends_at)
    if isinstance(event, RoundPaired):
        if state.status != RUNNING or event.round != len(state.rounds) + 1:
            raise _impossible(state, event, "not the next round")
        if state.is_arena:
            seated = [side for t in event.tables for side in t.sides]
            if state.closed or state.busy().intersection(seated) or len(set(seated)) != len(seated):
                raise _impossible(state, event, "the arena is closed, or an entrant is seated twice")
        elif state.round_in_play():
            raise _impossible(state, event, "a round is in play")
        paired = Round(
            event.round, event.tables, event.bye, waiting=event.waiting, seed_commitment=event.seed_commitment
        )
        return replace(state, rounds=state.rounds + (paired,))
    if isinstance(event, MatchResult):
        played = state.round_numbered(event.round)
        if played is None or played.ended:
            raise _impossible(state, event, "not a round in play")
        if played.table(event.table) is None or event.table in played.results:
            raise _impossible(state, event, "no such undecided table")
        results = MappingProxyType({**played.results, event.table: event})
        return _with_round(state, replace(played, results=results))
    if isinstance(event, RoundEnded):
        played = state.round_numbered(event.round)
        if played is None or played.ended or played.pending():
            raise _impossible(state, event, "the round has undecided tables")
        return _with_round(state, replace(played, ended=True))
    if isinstance(event, ArenaClosed):
        if not state.is_arena or state.status != RUNNING or state.closed:
            raise _impossible(state, event, "not an arena pairing")
        return replace(state, closed=True)
    if isinstance(event, TournamentPaused | TournamentResumed):
        return replace(state, paused=isinstance(event, TournamentPaused))
    if isinstance(event, TournamentCancelled):
        return replace(state, status=CANCELLED, cancel_reason=event.reason)
    if isinstance(event, TournamentEnded):
        if state.round_in_play():
            raise _impossible(state, event, "a round is in play")
        return replace(state, status=ENDED)
    raise _impossible(state, event, "unknown event")


def replay(events: Iterable[TournamentEvent]) -> TournamentState:
    """The state a whole log folds to."""
    state: TournamentState | None = None
    for event in events:
        state = apply(state, event)
    if state is None:
        raise ImpossibleTournamentEvent("an empty log is no tournament")
    return state
