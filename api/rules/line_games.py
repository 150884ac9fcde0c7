"""The line games: one line of tiles (a spinner's arms at most), played to a target score.

Draw, Block, All Fives, Muggins, Fives and Threes and the double-nine partnership game: their
presets, and what the family gives the registry (``api/rules/games.py``). The rules they share
are the engine's (``engine.py``, ``state.py``, ``layout.py``); what tells one game of the family
from another is the rule set's options (docs/rules.md), fixed here per preset.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .game_family import GameFamily, Preset, ResolvedRules, always, by_players
from .layout import Layout
from .tiles import DEFAULT_SET, TileSet
from .vocabulary import BlockedScoring, EndCountScoring, Family, Game, HandPoints, Lead, Spinner

if TYPE_CHECKING:
    from collections.abc import Mapping


def _pagat_target(players: int, opts: Mapping[str, Any]) -> int:
    return 100 if players == 2 or opts.get("partners") else 61


_FIVES: dict[str, Any] = dict(
    spinner=Spinner.FIRST_DOUBLE,
    end_count_scoring=EndCountScoring.FIVES,
    lead=Lead.WINNER_ANY,
    blocked_scoring=BlockedScoring.OTHERS,
    round_to_five=True,
)

PRESETS: tuple[Preset, ...] = (
    Preset(
        "standard-draw",
        "Draw game (standard)",
        "The standard Draw game, the default: a seat that cannot play draws from the boneyard until a tile fits.",
        {},
        by_players(7, 5, 5),
    ),
    Preset(
        "standard-block",
        "Block game (standard)",
        "The standard Block game: there is no drawing, and a seat that cannot play knocks.",
        {"game": Game.BLOCK},
        by_players(7, 5, 5),
    ),
    Preset(
        "pagat-draw",
        "Draw game (pagat.com)",
        "The Draw game as pagat.com deals it: 7 tiles each (6 with four players), the last two tiles of the "
        "boneyard are never drawn, and 61 wins with three or four players without partners.",
        {"boneyard_reserve": 2},
        by_players(7, 7, 6),
        _pagat_target,
    ),
    Preset(
        "pagat-block",
        "Block game (pagat.com)",
        "The Block game as pagat.com describes it: the standard Block game's options under pagat.com's name.",
        {"game": Game.BLOCK},
        by_players(7, 5, 5),
    ),
    Preset(
        "dominorules-draw",
        "Draw game (dominorules.com)",
        "The Draw game as dominorules.com plays it: 7 tiles each, the lead rotates, and a blocked hand's winner "
        "scores the others' pips without subtracting its own.",
        {"lead": Lead.ROTATE_ANY, "blocked_scoring": BlockedScoring.OTHERS},
        by_players(7, 7, 7),
    ),
    Preset(
        "dominorules-block",
        "Block game (dominorules.com)",
        "The Block game as dominorules.com plays it: 7 tiles each, the lead rotates, and a blocked hand's winner "
        "scores the others' pips without subtracting its own.",
        {"game": Game.BLOCK, "lead": Lead.ROTATE_ANY, "blocked_scoring": BlockedScoring.OTHERS},
        by_players(7, 7, 7),
    ),
    Preset(
        "winner-leads",
        "Winner leads any tile",
        "A two-player Draw game in which each hand's winner leads the next with any tile.",
        {"lead": Lead.WINNER_ANY, "blocked_scoring": BlockedScoring.OTHERS},
        by_players(7, 7, 7),
        players=(2,),
    ),
    Preset(
        "all-fives",
        "All Fives (spinner)",
        "All Fives: the first double is a spinner and every play that makes the open ends add up to a multiple "
        "of five scores that count; 200 wins.",
        _FIVES,
        by_players(7, 5, 5),
        always(200),
    ),
    Preset(
        "muggins",
        "Muggins (no spinner)",
        "Muggins: All Fives without a spinner, every play that makes the open ends add up to a multiple of five "
        "scores that count; 200 wins.",
        {**_FIVES, "spinner": Spinner.NONE},
        by_players(7, 5, 5),
        always(200),
    ),
    Preset(
        "fives-and-threes",
        "Fives and Threes",
        "The British pub game: no drawing, every play whose open ends add up to a multiple of five or of three "
        "scores a point per five and per three, going out scores 1, and 61 exactly wins; four play as partners.",
        {
            "game": Game.BLOCK,
            "lead": Lead.ROTATE_ANY,
            "end_count_scoring": EndCountScoring.FIVES_AND_THREES,
            "exact_target": True,
            "out_bonus": 1,
            "hand_end_pips": False,
        },
        by_players(7, 5, 5),
        always(61),
        partners=lambda players: players == 4,
    ),
    Preset(
        "double-nine-partners",
        "Double-nine partners",
        "The Latin partnership game on a double-nine set: 10 tiles each and no drawing, the highest double "
        "dealt leads the first hand and each hand's winner the next, and the side that goes out scores the "
        "pips left in every other hand; 100 wins.",
        {
            "set": TileSet.DOUBLE_9,
            "game": Game.BLOCK,
            "partners": True,
            "lead": Lead.WINNER_ANY,
            "hand_points": HandPoints.ALL_HANDS,
            "blocked_scoring": BlockedScoring.OTHERS,
        },
        always(10),
        players=(4,),
    ),
)


#: What a client may set on a line game (and what the rule set's JSON form writes): every
#: option of docs/rules.md's line games, ``fives_scoring`` being v1's spelling of
#: ``end_count_scoring``.
OPTIONS = (
    "game",
    "hand_size",
    "lead",
    "draw_at_will",
    "boneyard_reserve",
    "blocked_scoring",
    "round_to_five",
    "partners",
    "target",
    "spinner",
    "end_count_scoring",
    "fives_scoring",
    "muggins_calls",
    "auto_draw",
    "auto_knock",
    "turn_seconds",
    "timeout_limit",
    "set",
    "exact_target",
    "out_bonus",
    "hand_end_pips",
    "hand_points",
)


def new_line(rules: ResolvedRules) -> Layout:
    """The empty table a hand starts on: a line, with a spinner when the rules name one."""
    return Layout(rules.uses_spinner)


def rating_family(rules: ResolvedRules) -> Family:
    """What ratings are kept per (docs/rules.md, section 14): the scoring games by how the
    count scores, whatever their ``game``; the line games on a larger set; else the Draw or
    the Block game."""
    if rules.end_count_scoring is EndCountScoring.FIVES:
        return Family.FIVES
    if rules.end_count_scoring is EndCountScoring.FIVES_AND_THREES:
        return Family.FIVES_AND_THREES
    if rules.set is not DEFAULT_SET:
        return Family.DOUBLE_NINE  # the one other set a line game is offered on (ruleset.OFFERED_SETS)
    return Family.DRAW if rules.is_draw_game else Family.BLOCK


LINE_GAMES = GameFamily(
    name="line",
    title="Line games",
    presets=PRESETS,
    sets=tuple(TileSet),  # the engine's line plays every set; a client may ask for the rule book's
    offered_sets=(TileSet.DOUBLE_6, TileSet.DOUBLE_9),
    players=(2, 3, 4),
    new_board=new_line,
    rating_family=rating_family,
    options=OPTIONS,
)
