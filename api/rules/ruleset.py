"""Rule sets: a named preset plus option overrides, resolved to one immutable record.

The presets are the registered game families' (``api/rules/games.py``; the line games' in
``api/rules/line_games.py``): ``PRESETS`` here is the registry's own mapping.

The resolved record is what a match stores (in ``match_created``) and what every view
shows. It is a plain record of values, not a set of hooks: the engine, the state's fold, the
views and the bots read its fields wherever an option changes what happens (some seventy
reads across ``api/rules`` and ``api/bots``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from enum import StrEnum
from typing import Any

from .errors import InvalidRules
from .game_family import Preset
from .games import FAMILIES, family_of
from .games import PRESETS as PRESETS  # read here, and by whatever imported it from here before the registry
from .scoring import HandScoring, scoring_step
from .tiles import DEFAULT_SET as DEFAULT_SET  # the default set's home is tiles.py
from .tiles import TileSet
from .trains_games import NAME as TRAINS_FAMILY
from .trains_games import game_of
from .trains_rules import TrainsRules, trains_rules
from .vocabulary import BlockedScoring, EndCountScoring, Family, Game, HandPoints, Lead, Spinner

MAX_TARGET = 1_000  # a server bound on work: a match to 1,000 is some 4,000 events
TURN_SECONDS_RANGE = (5, 86_400)  # five seconds to a day
TIMEOUT_LIMIT_RANGE = (1, 100)
OUT_BONUS_RANGE = (0, 100)
CLOCK_OPTIONS = ("turn_seconds", "timeout_limit")  # null (off) by default
MIN_PLAYERS, MAX_PLAYERS = 2, 8  # the server's bound on a match's seats; each game family allows its own counts
PLAYER_COUNTS = tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1))


@dataclass(frozen=True, slots=True)
class RuleSet:
    """Every option of the rule book (docs/rules.md, section 13), resolved for one match."""

    preset: str
    players: int
    game: Game
    hand_size: int
    lead: Lead
    draw_at_will: bool
    boneyard_reserve: int  # 0 | 2
    blocked_scoring: BlockedScoring
    round_to_five: bool
    partners: bool
    target: int
    spinner: Spinner
    end_count_scoring: EndCountScoring  # in the JSON form also as v1's ``fives_scoring`` (see ``to_dict``)
    muggins_calls: bool
    auto_draw: bool
    auto_knock: bool
    # Turn clocks (off by default; the engine itself is clock-free, see api/rules/clock.py).
    turn_seconds: int | None = None  # seconds a seat has for its turn before the server plays it
    timeout_limit: int | None = None  # turns timed out in a row before a bot takes the seat over
    # The set of tiles (docs/rules.md, section 1): every count of tiles and pips is read from it.
    set: TileSet = DEFAULT_SET
    # Fives and Threes' and the double-nine game's options (docs/rules.md, sections 9 to 11). These
    # and ``set`` are left out of the JSON form at their defaults (``LATER_OPTIONS``; ``to_dict``):
    # every earlier game plays them so, and its logs read as they always did.
    exact_target: bool = False  # points past the target are not scored; the match ends on it exactly
    out_bonus: int = 0  # points for going out, after the hand's pips
    hand_end_pips: bool = True  # the hands' pips are scored when a hand ends
    hand_points: HandPoints = HandPoints.OPPONENTS
    # The trains games' options (docs/rules.md, the trains games; ``trains_rules`` holds their
    # bounds): only their JSON form writes them (``GameFamily.options``).
    rounds: int = 0
    double_blank_points: int = 0
    double_must_be_covered: bool = True
    # What a finished hand pays (``scoring.hand_award``), from the options above: made once here,
    # since every hand's end asks for it. Not an option (no JSON form, not compared).
    hand_scoring: HandScoring = field(init=False, repr=False, compare=False)
    # A trains game's rules (``trains_rules.TrainsRules``, checked as made), None for the others.
    trains: TrainsRules | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Members, whatever spelled them (a plain "draw" too): the engine's hot paths compare
        # the word options by identity (``rules.game is Game.DRAW``), the cheapest question.
        for name, words in OPTION_CHOICES.items():
            object.__setattr__(self, name, words(getattr(self, name)))
        scoring = HandScoring(
            self.hand_end_pips,
            self.hand_points is HandPoints.ALL_HANDS,
            self.blocked_scoring is BlockedScoring.OTHERS_MINUS_OWN,
            self.round_to_five,
            self.out_bonus,
        )
        object.__setattr__(self, "hand_scoring", scoring)
        trains = None
        if family_of(self.preset).name == TRAINS_FAMILY:
            trains = trains_rules(
                game_of(self.preset),
                self.players,
                rounds=self.rounds,
                hand_size=self.hand_size,
                double_blank_points=self.double_blank_points,
                double_must_be_covered=self.double_must_be_covered,
            )
        object.__setattr__(self, "trains", trains)

    # --- derived questions the engine asks ------------------------------------
    @property
    def is_draw_game(self) -> bool:
        return self.game is _DRAW

    @property
    def scores_the_count(self) -> bool:
        """Plays score the count during a hand (``end_count_scoring`` is not ``none``)."""
        return self.end_count_scoring is not _NO_COUNT

    @property
    def fives_scoring(self) -> bool:
        """v1's name for ``end_count_scoring: fives`` (the JSON form still says it)."""
        return self.end_count_scoring is EndCountScoring.FIVES

    @property
    def family(self) -> Family:
        """What ratings are kept per (docs/rules.md, section 14), as the preset's game family
        says (``GameFamily.rating_family``; the line games': ``line_games.rating_family``)."""
        return family_of(self.preset).rating_family(self)

    @property
    def uses_spinner(self) -> bool:
        return self.spinner is _FIRST_DOUBLE

    @property
    def sides(self) -> int:
        """Number of scoring sides: two teams with partners, else one per seat."""
        return 2 if self.partners else self.players

    def side_of(self, seat: int) -> int:
        return seat % 2 if self.partners else seat

    def seats_of_side(self, side: int) -> tuple[int, ...]:
        return tuple(s for s in range(self.players) if self.side_of(s) == side)

    @property
    def boneyard_size(self) -> int:
        return len(self.set.tiles) - self.players * self.hand_size

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: every option, the clock ones null when off (a new copy each call).

        Earlier logs, views and golden vectors read byte for byte as they did before the later
        options: ``end_count_scoring`` is written as v1's ``fives_scoring`` (true for ``fives``),
        and named itself only when it is ``fives_and_threes``; an option added since
        (``LATER_OPTIONS``) is left out at its default unless the preset sets it (so that the
        form resolves to this rule set again, ``from_dict``)."""
        cached = _DICT_FORMS.get(self)
        if cached is None:
            if len(_DICT_FORMS) >= 4096:  # bounded: rule sets come from clients
                _DICT_FORMS.clear()
            cached = {}
            preset_sets = PRESETS[self.preset].options
            written = family_of(self.preset).options
            for name, value in asdict(self).items():  # asdict is slow, and views ask every time
                if name in _DERIVED or (written is not None and name not in _ECHO and name not in written):
                    continue  # derived, or not an option of this game
                if name == "end_count_scoring":
                    cached["fives_scoring"] = value is EndCountScoring.FIVES
                    if value is EndCountScoring.FIVES_AND_THREES:
                        cached[name] = value
                elif name in preset_sets or LATER_OPTIONS.get(name, _UNSET) != value:
                    cached[name] = value
            _DICT_FORMS[self] = cached
        return dict(cached)

    def options(self) -> dict[str, Any]:
        """Every option, without the echo fields (``preset``, ``players``): overrides that,
        with this preset and player count, resolve to this rule set again (in ``to_dict``'s
        words: ``fives_scoring``, and the later options when not at their defaults)."""
        options = self.to_dict()
        del options["preset"], options["players"]
        return options

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RuleSet:
        """Rebuild a stored, resolved rule set (validated again)."""
        data = dict(data)
        preset = data.pop("preset", None)
        players = data.pop("players", None)
        if not isinstance(preset, str) or preset not in PRESETS:
            raise InvalidRules("preset", f"unknown preset {preset!r}")
        if not isinstance(players, int) or isinstance(players, bool):
            raise InvalidRules("players", "must be a whole number")
        return resolve_rules(preset, data, players)


_DERIVED = ("hand_scoring", "trains")
_ECHO = ("preset", "players")

# (Module globals: reading a member off its enum class costs some 60 ns, and these are asked once a hand.)
_DRAW, _FIRST_DOUBLE, _NO_COUNT = Game.DRAW, Spinner.FIRST_DOUBLE, EndCountScoring.NONE
_UNSET = object()

#: Options added after v1's first games, with the value every earlier game plays: the JSON
#: form leaves each out at that value (``RuleSet.to_dict``).
LATER_OPTIONS: Mapping[str, Any] = {
    "set": DEFAULT_SET,
    "exact_target": False,
    "out_bonus": 0,
    "hand_end_pips": True,
    "hand_points": HandPoints.OPPONENTS,
    "rounds": 0,
    "double_blank_points": 0,
    "double_must_be_covered": True,
}

# Resolved rule sets are few (presets × options in use) and immutable: their JSON forms are kept.
_DICT_FORMS: dict[RuleSet, dict[str, Any]] = {}

#: v1's boolean for ``end_count_scoring``, still read (true: ``fives``; false: not ``fives``) and
#: still written in the JSON form, so every earlier log, client and stored rule set reads as before.
V1_FIVES_SCORING = "fives_scoring"

# Every option a client may name: the record's fields (not its echo fields), and v1's spelling.
OPTION_NAMES = (
    *(f.name for f in fields(RuleSet) if f.init and f.name not in ("preset", "players")),
    V1_FIVES_SCORING,
)

# The options that take one word of a closed set: the set (its members, in documented order).
OPTION_CHOICES: dict[str, type[StrEnum]] = {
    "game": Game,
    "lead": Lead,
    "blocked_scoring": BlockedScoring,
    "spinner": Spinner,
    "set": TileSet,
    "end_count_scoring": EndCountScoring,
    "hand_points": HandPoints,
}
BOOLEAN_OPTIONS = (
    "draw_at_will",
    "round_to_five",
    "partners",
    "muggins_calls",
    "auto_draw",
    "auto_knock",
    "exact_target",
    "hand_end_pips",
    "double_must_be_covered",
)

_BASE: dict[str, Any] = dict(
    game=Game.DRAW,
    lead=Lead.HIGHEST_DOUBLE,
    draw_at_will=False,
    boneyard_reserve=0,
    blocked_scoring=BlockedScoring.OTHERS_MINUS_OWN,
    round_to_five=False,
    partners=False,
    target=100,
    spinner=Spinner.NONE,
    end_count_scoring=EndCountScoring.NONE,
    muggins_calls=False,
    auto_draw=False,
    auto_knock=False,
    turn_seconds=None,
    timeout_limit=None,
    **LATER_OPTIONS,
)


DEFAULT_PRESET = "standard-draw"


def resolve_rules(
    preset: str = DEFAULT_PRESET, overrides: Mapping[str, Any] | None = None, players: int = 2
) -> RuleSet:
    """Resolve ``preset`` + ``overrides`` for ``players`` seats, refusing what cannot work."""
    if not isinstance(preset, str) or preset not in PRESETS:
        raise InvalidRules("preset", f"unknown preset {preset!r}; one of {', '.join(PRESETS)}")
    spec: Preset = PRESETS[preset]
    family = family_of(preset)
    if not isinstance(players, int) or isinstance(players, bool) or players not in PLAYER_COUNTS:
        raise InvalidRules("players", f"{MIN_PLAYERS} to {MAX_PLAYERS} players, not {players!r}")
    if players not in spec.players:  # (within its family's counts: ``games.register`` saw to it)
        raise InvalidRules("players", f"preset {preset} is for {_spoken_list(spec.players)} players")
    if overrides is None:
        overrides = {}
    if not isinstance(overrides, Mapping):
        raise InvalidRules("rules", "must be an object of options")
    # Options only: ``preset`` and ``players`` are the record's echo of what was asked, not
    # options (they are asked for beside the overrides), so here they are unknown options.
    for name in overrides:
        if name not in OPTION_NAMES:
            raise InvalidRules(name, "unknown option")
        if family.options is not None and name not in family.options:
            raise InvalidRules(name, f"not an option of {spec.title}")
        if name in family.fixed and overrides[name] != spec.options[name]:
            raise InvalidRules(name, f"{spec.title} is always played with {name} {spec.options[name]}")
    overrides = _read_v1_fives_scoring(overrides)

    options = {**_BASE, **spec.options, **overrides}
    if "partners" not in overrides and "partners" not in spec.options:
        options["partners"] = spec.partners(players)
    _check_types(options)
    if "hand_size" not in overrides:
        options["hand_size"] = spec.hand_size(players, options)
    if "target" not in overrides:
        options["target"] = spec.target(players, options)
    _check_types(options)
    rules = RuleSet(preset=preset, players=players, **options)  # (a trains game's own checks: ``trains_rules``)
    if rules.set not in family.sets:
        raise InvalidRules(
            "set", f"the {family.title.lower()} are played with {', '.join(family.sets)}, not {rules.set}"
        )
    _check_combination(rules)
    return rules


#: The sets a client may ask for: each game family's offered sets (``GameFamily.offered_sets``;
#: the line games are offered on double-six and double-nine, the trains games on their own).
OFFERED_SETS: tuple[TileSet, ...] = tuple(
    s for s in TileSet if any(s in (f.offered_sets or f.sets) for f in FAMILIES.values())
)
#: The HTTP bounds read from the offered sets: the highest number a tile or an end shows, and
#: the most tiles one hand can hold (the largest set dealt to the fewest players).
LARGEST_OFFERED_TOP = max(s.top for s in OFFERED_SETS)
LARGEST_OFFERED_HAND = max(len(s.tiles) for s in OFFERED_SETS) // MIN_PLAYERS


def resolve_requested_rules(preset: str, overrides: Mapping[str, Any] | None, players: int) -> RuleSet:
    """:func:`resolve_rules` for what a client asks (a match, a seek, a challenge): refused,
    naming ``set``, when it names a set the server does not offer yet (``OFFERED_SETS``)."""
    rules = resolve_rules(preset, overrides, players)
    family = family_of(preset)
    offered = family.offered_sets or family.sets
    if rules.set not in offered:
        raise InvalidRules("set", f"the {family.title.lower()} are offered on {', '.join(offered)}, not {rules.set}")
    return rules


def _spoken_list(counts: tuple[int, ...]) -> str:
    """``(2, 3, 4)`` as "2, 3 or 4"; ``(4,)`` as "4"."""
    words = [str(n) for n in counts]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


def _read_v1_fives_scoring(overrides: Mapping[str, Any]) -> Mapping[str, Any]:
    """``overrides`` in today's words: v1's ``fives_scoring`` read as ``end_count_scoring``
    (true: ``fives``; false: ``none``, or whatever else ``end_count_scoring`` names)."""
    if V1_FIVES_SCORING not in overrides:
        return overrides
    options = dict(overrides)
    fives = options.pop(V1_FIVES_SCORING)
    if not isinstance(fives, bool):
        raise InvalidRules(V1_FIVES_SCORING, f"true or false, not {fives!r}")
    named = options.get("end_count_scoring")
    if named is None:
        options["end_count_scoring"] = EndCountScoring.FIVES if fives else EndCountScoring.NONE
    elif fives != (named == EndCountScoring.FIVES):
        raise InvalidRules(
            "end_count_scoring",
            f"fives_scoring {str(fives).lower()} (v1's spelling of end_count_scoring: fives) says otherwise than "
            f"end_count_scoring {named!r}: name one of them",
        )
    return options


def _check_types(options: dict[str, Any]) -> None:
    """Check each option's type, in place turning each word option into its member."""
    for name, choices in OPTION_CHOICES.items():
        value = options[name]
        try:
            options[name] = choices(value)
        except (ValueError, TypeError):
            raise InvalidRules(name, f"one of {', '.join(choices)}, not {value!r}") from None
    for name in BOOLEAN_OPTIONS:
        if not isinstance(options[name], bool):
            raise InvalidRules(name, f"true or false, not {options[name]!r}")
    for name in ("hand_size", "target", "boneyard_reserve", "out_bonus", "rounds", "double_blank_points"):
        value = options.get(name)
        if name in options and (not isinstance(value, int) or isinstance(value, bool)):
            raise InvalidRules(name, f"must be a whole number, not {value!r}")
    for name, (low, high) in (("turn_seconds", TURN_SECONDS_RANGE), ("timeout_limit", TIMEOUT_LIMIT_RANGE)):
        value = options.get(name)
        if value is None:
            continue  # null: no clock / no replacement
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            raise InvalidRules(name, f"null or a whole number from {low} to {high}, not {value!r}")


def _check_combination(r: RuleSet) -> None:
    if r.timeout_limit is not None and r.turn_seconds is None:
        raise InvalidRules("timeout_limit", "needs turn_seconds (no turn can time out without a clock)")
    if r.trains is not None:
        return  # the line games' options mean nothing there; its own were checked as made
    set_size = len(r.set.tiles)
    if r.hand_size < 1 or r.players * r.hand_size > set_size:
        raise InvalidRules(
            "hand_size", f"{r.players} players × {r.hand_size} tiles does not fit a {set_size}-tile set ({r.set})"
        )
    if not 1 <= r.target <= MAX_TARGET:
        raise InvalidRules("target", f"a positive number up to {MAX_TARGET}, not {r.target}")
    if r.partners and r.players != 4:
        raise InvalidRules("partners", "partners need exactly 4 players")
    if r.boneyard_reserve not in (0, 2):
        raise InvalidRules("boneyard_reserve", f"0 or 2, not {r.boneyard_reserve}")
    if not r.is_draw_game:
        for name in ("draw_at_will", "auto_draw"):
            if getattr(r, name):
                raise InvalidRules(name, "the Block game has no drawing")
        if r.boneyard_reserve:
            raise InvalidRules("boneyard_reserve", "the Block game has no drawing")
    if r.muggins_calls and not r.scores_the_count:
        raise InvalidRules("muggins_calls", "needs end_count_scoring (fives or fives_and_threes)")
    if r.muggins_calls and r.exact_target:
        raise InvalidRules("exact_target", "muggins_calls and exact_target together are not offered")
    low, high = OUT_BONUS_RANGE
    if not low <= r.out_bonus <= high:
        raise InvalidRules("out_bonus", f"a whole number from {low} to {high}, not {r.out_bonus}")
    step = scoring_step(r.end_count_scoring, r.hand_scoring)
    if not step:
        raise InvalidRules(
            "hand_end_pips",
            "nothing could ever score: no end_count_scoring, no hand_end_pips and no out_bonus",
        )
    if r.exact_target and r.target % step:
        raise InvalidRules(
            "target",
            f"with exact_target every score here is a multiple of {step}, so {r.target} could never be reached exactly",
        )
    if r.hand_points is HandPoints.ALL_HANDS and r.blocked_scoring is BlockedScoring.OTHERS_MINUS_OWN:
        raise InvalidRules(
            "blocked_scoring",
            "hand_points all_hands scores every hand's pips, the winner's own included: "
            "blocked_scoring others_minus_own cannot go with it (use others)",
        )
