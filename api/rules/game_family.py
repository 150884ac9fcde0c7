"""What a game family is: its presets, its sets and seat counts, its board and its hooks.

A *game family* is a kind of game the engine plays on one kind of board: today the line games
(``api/rules/line_games.py``: Draw, Block, All Fives, Muggins, Fives and Threes, double-nine
partners); the trains games of issue 34 come next. A family is a record, not a subclass: the
few things that differ between families are values or small callables in named fields, which
the rest of the code consults (python-chess's variants are the model: a few overridden hooks,
not flags sprinkled through the code). ``api/rules/games.py`` registers the families and is
where every reader finds them (``games.PRESETS``, ``games.family_of``).

Not to be confused with ``vocabulary.Family``, the word ratings and leaderboards are kept per
(``RuleSet.family``): a game family says which of those words each of its rule sets gets
(``GameFamily.rating_family``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from .tiles import TileSet
from .vocabulary import EndCountScoring, Family

if TYPE_CHECKING:
    from .board import Board


class ResolvedRules(Protocol):
    """What a family's hooks read of a resolved rule set (``ruleset.RuleSet`` is one): a
    protocol rather than the class, so that the families, which ``ruleset`` reads through the
    registry, do not import ``ruleset`` back. A family whose hooks need more adds it here."""

    @property
    def set(self) -> TileSet: ...
    @property
    def uses_spinner(self) -> bool: ...
    @property
    def is_draw_game(self) -> bool: ...
    @property
    def end_count_scoring(self) -> EndCountScoring: ...


#: A preset's default that depends on the player count and the options chosen so far.
Rule = Callable[[int, Mapping[str, Any]], int]


def by_players(two: int, three: int, four: int) -> Rule:
    """A default that depends on the player count alone (2, 3 or 4 seats)."""
    return lambda players, _opts: {2: two, 3: three, 4: four}[players]


def always(value: int) -> Rule:
    """A default whatever the players and the options."""
    return lambda _players, _opts: value


@dataclass(frozen=True)
class Preset:
    """A named table: fixed options plus defaults that depend on the player count.

    ``title`` and ``description`` are what a player is shown when choosing a table (the API
    serves them at ``GET /v1/presets``): kept here, beside the options they describe.
    ``players`` left empty is every seat count the preset's family plays; the registry fills it
    in (``games.register``), so a registered preset always names its counts.
    """

    name: str
    title: str  # a short label for a menu
    description: str  # one sentence: what makes this table different
    options: Mapping[str, Any]
    hand_size: Rule
    target: Rule = lambda players, opts: 100
    players: tuple[int, ...] = ()
    partners: Callable[[int], bool] = lambda players: False  # the default, when not fixed by ``options``


@dataclass(frozen=True)
class GameFamily:
    """A kind of game and what differs in it: registered once (``games.register``), read everywhere.

    Where each field is consulted:

    * ``presets``: ``games.PRESETS`` (rule-set resolution, ``GET /v1/presets``, the HTTP
      schemas' preset names, the golden vectors, the bench and the scripts);
    * ``sets``: ``ruleset.resolve_rules`` refuses any other set (field ``set``);
    * ``players``: the seat counts of a preset that names none, and the bound on those a preset
      names (``games.register``), within the server's (``ruleset.MIN_PLAYERS``/``MAX_PLAYERS``);
    * ``new_board``: the board a hand starts on (``board.Board``);
    * ``rating_family``: ``RuleSet.family``, the ratings' word for a rule set of this family;
    * ``options`` and ``fixed``: the options a client may name (``resolve_rules``) and the JSON
      form writes (``RuleSet.to_dict``).
    """

    name: str
    title: str
    presets: tuple[Preset, ...]
    sets: tuple[TileSet, ...]
    players: tuple[int, ...]
    new_board: Callable[[ResolvedRules], Board]
    rating_family: Callable[[ResolvedRules], Family]
    #: The options a client may name for this family's games and that their rule sets' JSON
    #: form writes (``ruleset.resolve_rules``, ``RuleSet.to_dict``); None: every option.
    options: tuple[str, ...] | None = None
    #: The sets a client may ask for (``ruleset.resolve_requested_rules``), of ``sets``; None: all of them.
    offered_sets: tuple[TileSet, ...] | None = None
    #: Options a preset of this family fixes (``set`` for the trains games): refused as overrides.
    fixed: tuple[str, ...] = ()


__all__ = ["GameFamily", "Preset", "Rule", "always", "by_players"]
