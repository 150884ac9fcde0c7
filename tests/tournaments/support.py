"""Building tournaments in tests: settings, entrants, and folding what the commands decide."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from api import tournaments as t


def settings(**overrides: Any) -> t.Settings:
    values: dict[str, Any] = {
        "format": t.SWISS,
        "preset": "standard-block",
        "side_size": 1,
        "rounds": 3,
        "tiebreaks": (t.BUCHHOLZ, t.SONNEBORN_BERGER, t.WIN_MARGIN),
        "turn_seconds": 60,
    }
    values.update(overrides)
    return t.Settings(**values)


def fold(state: t.TournamentState | None, events: list[t.TournamentEvent]) -> t.TournamentState:
    for event in events:
        state = t.apply(state, event)
    assert state is not None
    return state


def tournament(count: int, **overrides: Any) -> t.TournamentState:
    """A tournament of ``count`` bot entrants named P1..Pn (ids e1..en), not started."""
    state = fold(None, t.create("tour-1", settings(**overrides)))
    side = state.settings.side_size
    for number in range(1, count + 1):
        state = fold(state, t.register(state, f"P{number}", [t.Member(t.BOT, level="greedy")] * side))
    return state


def play_round(
    state: t.TournamentState, decide: Callable[[t.Table], tuple[int | None, tuple[int, int]]]
) -> t.TournamentState:
    """Pair the next round and record each table's result as ``decide(table)`` says."""
    state = fold(state, t.pair_round(state))
    current = state.current
    assert current is not None
    for table in current.pending():
        winner, scores = decide(table)
        state = fold(state, t.record_result(state, current.number, table.number, winner, scores))
    return state
