"""What a trains game's computer player reads: its seat's view, as the contract writes it.

The trains bots (``trains_simple``, ``trains_expert``) see a view and the redacted log since
the round began, never a state: a ``TrainsTable`` is that view read once into tiles and
numbers (the hand, the places and the number each shows, whose they are), and
``listed_plays`` pairs each listed play with its tile, so a bot answers with the listed action
itself. A place is named as on the wire: a seat's train by the seat (an int), the Mexican
train ``"mexican"``, a Chicken Foot arm by its toe id.
"""

from __future__ import annotations

from dataclasses import dataclass

from api.rules.games import PRESETS, family_of
from api.rules.ruleset import RuleSet
from api.rules.tiles import Tile
from api.rules.trains import hand_pips
from api.rules.trains_games import NAME as TRAINS_FAMILY
from api.rules.trains_rules import TrainsGame, TrainsRules
from api.rules.trains_wire import Wire
from api.rules.vocabulary import ActionType

from .actions import Action, Json


def is_trains_view(view: Json) -> bool:
    """Whether ``view`` is a trains game's: its rules' preset is registered by the trains family."""
    preset = view.get("rules", {}).get("preset")
    return preset in PRESETS and family_of(preset).name == TRAINS_FAMILY


def rules_of(view: Json) -> TrainsRules:
    """The view's rules as the engine's record (its ``rules`` JSON, read as any stored rule set)."""
    rules = RuleSet.from_dict(view["rules"]).trains
    assert rules is not None, "a trains view's rules are a trains game's"
    return rules


@dataclass(frozen=True, slots=True)
class Spot:
    """A place on the table: its wire name, the number it shows (None: a Chicken Foot arm ended
    by a double), its owner (a seat; None for the Mexican train and every arm) and marker."""

    train: Wire
    open: int | None
    owner: int | None = None
    marker: bool = False


@dataclass(frozen=True, slots=True)
class ListedPlay:
    """One of the view's listed plays, read: the action itself, its tile and its place."""

    action: Action
    tile: Tile
    train: Wire


def listed_plays(view: Json) -> list[ListedPlay]:
    return [
        ListedPlay(a, Tile.from_json(a["tile"]), a["train"])
        for a in view["legal_actions"]
        if a.get("type") == ActionType.PLAY
    ]


def no_play_action(view: Json) -> Action:
    """With no play listed: the listed draw, else the listed pass."""
    actions: list[Action] = view["legal_actions"]
    for kind in (ActionType.DRAW, ActionType.PASS):
        for a in actions:
            if a.get("type") == kind:
                return a
    return actions[0]


@dataclass(frozen=True)
class TrainsTable:
    """A seat's view of a trains game, read into tiles and numbers."""

    rules: TrainsRules
    seat: int
    engine: int  # the round's engine double's number
    hand: tuple[Tile, ...]
    spots: tuple[Spot, ...]  # every train (Mexican Train) or arm (Chicken Foot), in the view's order
    hand_counts: tuple[int, ...]
    boneyard: int
    uncovered: Wire | None  # Mexican Train: the train whose double awaits cover
    toes_number: int | None  # Chicken Foot: the number the required toes show (None: none required)
    toes_left: int  # Chicken Foot: how many toes are still required (0: none)

    @property
    def is_mexican_train(self) -> bool:
        return self.rules.game is TrainsGame.MEXICAN_TRAIN

    def points(self, tiles: tuple[Tile, ...] | list[Tile] | Tile) -> int:
        """What tiles left in a hand count at the round's end (the rules' ``hand_pips``)."""
        return hand_pips(self.rules, (tiles,) if isinstance(tiles, Tile) else tiles)

    def own_train(self) -> Spot:
        """Mexican Train: this seat's own train."""
        return next(s for s in self.spots if s.train == self.seat)

    def fewest_tiles_elsewhere(self) -> int:
        """The smallest hand among the other seats: how close the round is to its end."""
        return min(n for s, n in enumerate(self.hand_counts) if s != self.seat)


def read_table(view: Json) -> TrainsTable:
    board = view["board"]
    if "trains" in board:
        spots = tuple(Spot(t["train"], t["open"], t["owner"], bool(t["marker"])) for t in board["trains"])
        uncovered, toes, left = board.get("uncovered"), None, 0
    else:
        spots = tuple(Spot(a["train"], a["open"]) for a in board["arms"])
        needed = board.get("toes_needed")
        uncovered, toes, left = None, None, 0
        if needed is not None:
            toes, left = needed["number"], needed["left"]
    return TrainsTable(
        rules_of(view),
        view["seat"],
        board["engine"][0],
        tuple(Tile.from_json(t) for t in view.get("hand") or ()),
        spots,
        tuple(view["hand_counts"]),
        view["boneyard"],
        uncovered,
        toes,
        left,
    )


__all__ = [
    "ListedPlay",
    "Spot",
    "TrainsTable",
    "is_trains_view",
    "listed_plays",
    "no_play_action",
    "read_table",
    "rules_of",
]
