"""Bots playing whole matches on the engine, as the server drives them.

Each decision gets the acting seat's ``view`` and its redacted log, nothing more. Used
by the strength benchmark and the tests; the services have their own loop.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from api.rules import create_match, decide, parse_action, redact_event, replay, start_match, view
from api.rules.events import Event
from api.rules.ruleset import RuleSet
from api.rules.state import PLAYING, MatchState

from . import Budget, choose_action
from .actions import Action, Json

# (seat, level, CPU seconds, view, log, action), after every decision
Observer = Callable[[int, str, float, Json, list[Json], Action], None]


def next_actor(st: MatchState) -> int:
    """The seat to ask next: an opponent who may call muggins first, then the seat to move
    (the same rule the server follows: ``MatchState.next_to_act``)."""
    seat = st.next_to_act(range(st.players))
    if seat is None:
        raise ValueError("no seat has anything to do: the match is not being played")
    return seat


class BotMatch:
    """A match between bots of ``levels`` (one per seat), advanced one decision at a time.

    ``events`` is the full log; ``logs[seat]`` is that seat's redacted copy, kept in step.
    """

    def __init__(self, rules: RuleSet, seed: str, levels: list[str], budget: Budget | None = None):
        self.rules = rules
        self.seed = seed
        self.levels = list(levels)
        self.budget = budget
        seats = [{"name": f"{level}-{i}", "type": "bot", "level": level} for i, level in enumerate(levels)]
        created = create_match(rules, seats, seed)
        self.state = replay(created)
        self.events: list[Event] = list(created)
        self.logs: list[list[Json]] = [[] for _ in levels]
        self.decisions = 0
        self._record(created)
        self._record_and_fold(start_match(self.state, seed))

    @property
    def live(self) -> bool:
        return self.state.status == PLAYING

    def _record(self, new: list[Event]) -> None:
        for seat, log in enumerate(self.logs):
            log.extend(redact_event(e.to_dict(), seat) for e in new)

    def _record_and_fold(self, new: list[Event]) -> None:
        self.state = replay(new, self.state)
        self.events.extend(new)
        self._record(new)

    def inputs(self, seat: int) -> tuple[Json, list[Json]]:
        """Exactly what ``seat``'s bot is given."""
        return view(self.state, seat), self.logs[seat]

    def rng_seed(self) -> str:
        return f"{self.seed}:{len(self.events)}"

    def choose(self, seat: int, seat_view: Json, log: Sequence[Json]) -> Action:
        """The action of ``seat``'s bot, from exactly what its seat is given (a benchmark's subclass
        may decide otherwise: ``bench/sighted.py``)."""
        return choose_action(self.levels[seat], seat_view, log, self.rng_seed(), self.budget)

    def step(self, observe: Observer | None = None) -> Action:
        """Ask the next seat's bot, apply its action through ``decide``; returns the action."""
        seat = next_actor(self.state)
        seat_view, log = self.inputs(seat)
        t0 = time.process_time()  # CPU time: what the decision costs, whatever else the machine runs
        action = self.choose(seat, seat_view, log)
        elapsed = time.process_time() - t0
        if observe is not None:
            observe(seat, self.levels[seat], elapsed, seat_view, log, action)
        self._record_and_fold(decide(self.state, parse_action(seat, action), self.seed))
        self.decisions += 1
        return action


def play_match(
    rules: RuleSet,
    seed: str,
    levels: list[str],
    budget: Budget | None = None,
    observe: Observer | None = None,
    max_decisions: int = 100_000,
) -> MatchState:
    """Play a match between bots of ``levels`` (one per seat); returns the final state.

    ``observe(seat, level, seconds, view, log, action)`` is called after every decision.
    """
    match = BotMatch(rules, seed, levels, budget)
    while match.live and match.decisions < max_decisions:
        match.step(observe)
    return match.state
