"""Re-check a finished match from its audit log and revealed seed.

``verify_log`` re-runs the engine over the log: every seat action is decided again
against the state before it, and what the engine answers (the consequences, every deal
re-derived from the seed, every score) must equal what the log holds, event for event.
An illegal move, a deal that the seed does not give, or a wrong score is reported with
the seq where it appears. The trains games are checked alike: their seats' actions are
``tile_placed`` and ``passed`` (and ``tile_drawn``), their deals ``round_started``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .clock import time_out
from .engine import (
    CallMuggins,
    Command,
    Draw,
    Knock,
    Pass,
    PlaceTile,
    Play,
    claim_seat,
    decide,
    initial_state,
    mutate,
    ready_to_start,
    start_match,
)
from .errors import ReplayError, RulesError
from .events import (
    Event,
    HandStarted,
    Knocked,
    MatchCreated,
    Passed,
    PointsScored,
    RoundStarted,
    SeatClaimed,
    TileDrawn,
    TilePlaced,
    TilePlayed,
    TurnTimedOut,
    event_from_dict,
)
from .shuffle import algorithm_for, seed_commitment
from .state import WAITING
from .trains_wire import place_from_wire
from .vocabulary import ScoredBy


@dataclass
class AuditReport:
    commitment_ok: bool = False
    deals_checked: int = 0
    moves_checked: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.commitment_ok and not self.problems


def _command(event: Event) -> Command | None:
    """The seat's command that ``event`` records, or None for a consequence (``auto``…)."""
    if isinstance(event, TilePlayed) and not event.auto:
        return Play(event.seat, event.tile, event.end, event.claim)
    if isinstance(event, TileDrawn) and not event.auto:
        return Draw(event.seat)
    if isinstance(event, Knocked) and not event.auto:
        return Knock(event.seat)
    if isinstance(event, PointsScored) and event.how == ScoredBy.MUGGINS:
        return CallMuggins(event.seat)
    # The trains games'
    if isinstance(event, TilePlaced) and not event.auto:
        return PlaceTile(event.seat, event.tile, place_from_wire(event.train))
    if isinstance(event, Passed) and not event.auto:
        return Pass(event.seat)
    return None


def verify_log(log: list[dict[str, Any]], server_seed: str) -> AuditReport:
    """Check a whole log (event dicts in seq order, without ``seq``) against the seed."""
    report = AuditReport()
    try:
        created = event_from_dict(log[0]) if log else None
    except RulesError:
        created = None
    if not isinstance(created, MatchCreated):
        report.problems.append("the log does not start with match_created")
        return report
    report.commitment_ok = seed_commitment(server_seed) == created.seed_commitment
    if not report.commitment_ok:
        report.problems.append("the seed does not match the commitment published at match_created")
    try:
        state = initial_state(created)
    except RulesError as exc:
        report.problems.append(f"seq 1: refused by the rules: {exc}")
        return report
    if created.seed_algorithm != algorithm_for(state.rules.set):
        report.problems.append(
            f"seq 1: seed_algorithm {created.seed_algorithm!r} is not the {state.rules.set} set's "
            f"{algorithm_for(state.rules.set)!r}"
        )
    i = 1
    while i < len(log):
        seq = i + 1
        try:
            event = event_from_dict(log[i])
            if isinstance(event, SeatClaimed):
                expected = claim_seat(state, event.seat, event.name, event.client_seed)
            elif state.status == WAITING and ready_to_start(state):
                expected = start_match(state, server_seed)
            elif isinstance(event, TurnTimedOut):
                # Not a seat's action but the server's, and just as determined: re-run it.
                expected = time_out(state, event.seat, server_seed)
                report.moves_checked += 1
            else:
                command = _command(event)
                if command is None:
                    report.problems.append(f"seq {seq}: {event.type} is not a seat's action here")
                    return report
                expected = decide(state, command, server_seed)
                report.moves_checked += 1
        except (RulesError, ReplayError) as exc:
            report.problems.append(f"seq {seq}: refused by the rules: {exc}")
            return report
        produced = [e.to_dict() for e in expected]
        logged = log[i : i + len(produced)]
        if produced != logged:
            for offset, (want, got) in enumerate(zip(produced, logged)):
                if want != got:
                    report.problems.append(
                        f"seq {seq + offset}: the log holds {got.get('type')} "
                        f"that the engine does not reproduce ({want.get('type')} expected)"
                    )
                    break
            else:
                report.problems.append(f"seq {seq + len(logged)}: the log ends where the engine goes on")
            return report
        report.deals_checked += sum(1 for e in expected if isinstance(e, (HandStarted, RoundStarted)))
        for event_dict in produced:
            mutate(state, event_from_dict(event_dict))
        i += len(produced)
    return report
