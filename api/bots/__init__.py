"""Built-in computer players.

``choose_action(level, view, log, rng_seed)`` is the one entry point. A bot sees exactly
what its seat may see: ``view`` is ``api.rules.view(state, seat)`` and ``log`` is the
current hand's events as that seat sees them (``api.rules.redact_event(event, seat)`` for
each; earlier hands are over and shown face up in their results). It never receives a
``MatchState``, so it cannot read another hand or the boneyard. The answer is one of
``view["legal_actions"]`` verbatim (under
``muggins_calls`` a listed scoring play carries its ``claim``; only the random level sends
it without, as a beginner who forgets to count), and it depends only on the inputs:
randomness comes from a ``random.Random`` seeded by ``rng_seed``, and the expert thinks
for a fixed number of playouts (``Budget``), not for a length of time.

>>> LEVELS
('random', 'greedy', 'expert')
"""

from __future__ import annotations

from .actions import bot_seed, make_rng
from .expert import DEFAULT_BUDGET, Budget, choose_expert
from .simple import choose_greedy, choose_random

LEVELS = ("random", "greedy", "expert")
DEFAULT_LEVEL = "greedy"  # a bot seat created without a level


class UnknownLevel(ValueError):
    """A bot level outside ``LEVELS``."""


def choose_action(
    level: str, view: dict, log: list[dict], rng_seed: str | bytes, budget: Budget = DEFAULT_BUDGET
) -> dict:
    """The action the ``level`` bot takes for the seat of ``view``.

    ``rng_seed`` should differ per decision and be derivable from the log (the services
    pass ``bot_seed(match_seed, seq, seat)``), so replaying a match replays its bots.
    Raises ``ValueError`` when the seat has nothing to do or the level is unknown.
    """
    if level not in LEVELS:
        raise UnknownLevel(f"unknown bot level {level!r}; one of {', '.join(LEVELS)}")
    actions = view.get("legal_actions") or []
    if not actions:
        raise ValueError("the seat has no legal action now")
    rng = make_rng(rng_seed, level)
    if level == "random":
        return choose_random(view, log, rng)
    if level == "greedy":
        return choose_greedy(view, log, rng)
    return choose_expert(view, log, rng, budget)


__all__ = ["DEFAULT_BUDGET", "DEFAULT_LEVEL", "LEVELS", "Budget", "UnknownLevel", "bot_seed", "choose_action"]
