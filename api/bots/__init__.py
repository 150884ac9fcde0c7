"""Built-in computer players.

``choose_action(level, view, log, rng_seed)`` is the one entry point. A bot sees exactly
what its seat may see: ``view`` is ``api.rules.view(state, seat)`` and ``log`` is the
current hand's events as that seat sees them (``api.rules.redact_event(event, seat)`` for
each; earlier hands are over and shown face up in their results). It never receives a
``MatchState``, so it cannot read another hand or the boneyard. The answer is one of
``view["legal_actions"]`` verbatim (under
``muggins_calls`` a listed scoring play carries its ``claim``; only the random level sends
it without, as a beginner who forgets to count), and it depends only on the inputs:
randomness comes from a ``random.Random`` seeded by ``rng_seed``, and the playout levels
think for a counted amount of work (``Budget``), never for a length of time.

``intermediate`` and ``expert`` are one algorithm (``expert.choose_expert``) at two
budgets: ``intermediate`` plays a few dozen guesses of the hidden tiles out greedily;
``expert`` deals more guesses and solves each hand's ending exactly (``endgame``).
``bench/strength.py`` and ``bench/versus.py`` measure the ladder.

The trains games (Mexican Train, Chicken Foot) have players of their own
(``trains_levels``): random, greedy and a planning expert, which ``intermediate`` plays as;
``budget`` means nothing to them. ``bench/trains_strength.py`` measures them.

>>> LEVELS
('random', 'greedy', 'intermediate', 'expert')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from api.rules.ruleset import RuleSet
from api.rules.tiles import TileSet
from api.rules.vocabulary import BotLevel

from .actions import Action, Json, bot_seed, make_rng
from .expert import DEFAULT_BUDGET, DOUBLE_NINE_BUDGET, INTERMEDIATE_BUDGET, Budget, choose_expert
from .simple import choose_greedy, choose_random
from .trains_levels import choose_trains
from .trains_table import is_trains_view


@dataclass(frozen=True, slots=True)
class Level:
    """A bot level as a player choosing an opponent is shown it (``GET /v1/presets``).

    ``name`` is what a seat stores and sends; ``title`` and ``description`` are kept here,
    beside the levels themselves, so no client writes its own copy."""

    name: BotLevel
    title: str  # a short label for a menu
    description: str  # one sentence: how it plays


BOT_LEVELS = (
    Level(
        BotLevel.RANDOM,
        "Random",
        "Plays any legal move at random, and under muggins calls forgets to claim its points.",
    ),
    Level(BotLevel.GREEDY, "Greedy", "Plays the move that scores the most now, else its heaviest tile, doubles first."),
    Level(
        BotLevel.INTERMEDIATE,
        "Intermediate",
        "Plays out a few dozen guesses of what the others may hold, quickly, and picks the move that does best "
        "(in the trains games it plays as the expert).",
    ),
    Level(
        BotLevel.EXPERT,
        "Expert",
        "Reads what the others' knocks and plays say about their tiles, plays out many guesses of them, solves "
        "each ending exactly and picks the move that does best across them (in double-nine it plays each guess out "
        "as the seats could, each seeing only its own tiles); in the trains games it plans its "
        "own train and plays Chicken Foot's rounds out on guesses of the hidden tiles.",
    ),
)  # weakest first
LEVELS: tuple[str, ...] = tuple(level.name.value for level in BOT_LEVELS)  # as plain strings
DEFAULT_LEVEL = BotLevel.GREEDY  # a bot seat created without a level


class UnknownLevel(ValueError):
    """A bot level outside ``LEVELS``."""


# The work each playout level does per decision (the expert's is ``DEFAULT_BUDGET``).
LEVEL_BUDGETS: dict[str, Budget] = {BotLevel.INTERMEDIATE: INTERMEDIATE_BUDGET, BotLevel.EXPERT: DEFAULT_BUDGET}
# ...but on these sets: the expert plays double-nine by honest rollouts (``DOUBLE_NINE_BUDGET``).
SET_BUDGETS: dict[tuple[str, TileSet], Budget] = {(BotLevel.EXPERT, TileSet.DOUBLE_9): DOUBLE_NINE_BUDGET}


def level_budget(level: str, tile_set: TileSet) -> Budget:
    """The work a playout ``level`` does per decision in a game of ``tile_set``."""
    return SET_BUDGETS.get((level, tile_set)) or LEVEL_BUDGETS[level]


def choose_action(
    level: str, view: Json, log: Sequence[Json], rng_seed: str | bytes, budget: Budget | None = None
) -> Action:
    """The action the ``level`` bot takes for the seat of ``view``.

    ``budget`` overrides the level's own (``LEVEL_BUDGETS``; benchmarks and tests only).

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
    if is_trains_view(view):
        return choose_trains(level, view, log, rng)
    if level == BotLevel.RANDOM:
        return choose_random(view, log, rng)
    if level == BotLevel.GREEDY:
        return choose_greedy(view, log, rng)
    return choose_expert(view, log, rng, budget or level_budget(level, RuleSet.from_dict(view["rules"]).set))


__all__ = [
    "BOT_LEVELS",
    "DEFAULT_BUDGET",
    "DEFAULT_LEVEL",
    "DOUBLE_NINE_BUDGET",
    "INTERMEDIATE_BUDGET",
    "LEVELS",
    "LEVEL_BUDGETS",
    "SET_BUDGETS",
    "Budget",
    "Level",
    "UnknownLevel",
    "bot_seed",
    "choose_action",
    "level_budget",
]
