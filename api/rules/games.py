"""The registry of game families: the one place presets, seat counts and boards come from.

Each family (``game_family.GameFamily``) lives in its own module and is registered here, once,
at import: ``register(LINE_GAMES)`` below is the line games' registration, and a new family
adds its own line beside it. Everything else reads the registry: ``PRESETS`` (rule-set
resolution in ``ruleset.py``; through ``api.rules``, the HTTP schemas' preset names,
``GET /v1/presets`` and the web page's menus built from it, the golden vectors, the bench and
the scripts) and ``family_of`` (a preset's family: its sets, seat counts, board and ratings
word).

Registration happens before anything reads the registry because the families are registered
by this module itself; the HTTP layer builds its schemas from ``PRESETS`` when it is imported,
so a family registered later (a test's toy family) is seen by what reads the registry at call
time (``resolve_rules``, ``GET /v1/presets`` once rebuilt), not by schemas already built.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from types import MappingProxyType

from .game_family import GameFamily, Preset
from .line_games import LINE_GAMES
from .trains_games import TRAINS_GAMES

_FAMILIES: dict[str, GameFamily] = {}
_PRESETS: dict[str, Preset] = {}
_FAMILY_OF: dict[str, GameFamily] = {}

#: Every registered family, by name, in the order registered.
FAMILIES: Mapping[str, GameFamily] = MappingProxyType(_FAMILIES)
#: Every registered preset, by name: each family's, in the order registered (the menus' order).
PRESETS: Mapping[str, Preset] = MappingProxyType(_PRESETS)


def register(family: GameFamily) -> GameFamily:
    """Add ``family`` and its presets; ``ValueError`` for a name already taken, or a preset
    naming seat counts its family does not play. A preset that names no seat counts gets its
    family's."""
    if family.name in _FAMILIES:
        raise ValueError(f"a game family named {family.name!r} is already registered")
    presets: list[Preset] = []
    for preset in family.presets:
        if preset.name in _PRESETS or preset.name in (p.name for p in presets):
            raise ValueError(f"preset {preset.name!r} is already registered")
        if not set(preset.players) <= set(family.players):
            raise ValueError(f"preset {preset.name!r} names seat counts the {family.name} games do not play")
        presets.append(preset if preset.players else dataclasses.replace(preset, players=family.players))
    _FAMILIES[family.name] = family
    for preset in presets:
        _PRESETS[preset.name] = preset
        _FAMILY_OF[preset.name] = family
    return family


def unregister(name: str) -> GameFamily:
    """Take the family ``name`` and its presets out again (a test's toy family)."""
    family = _FAMILIES.pop(name)
    for preset in family.presets:
        del _PRESETS[preset.name], _FAMILY_OF[preset.name]
    return family


def presets_of(family: str) -> dict[str, Preset]:
    """The registered presets of the family named ``family`` (their seat counts filled in)."""
    return {name: preset for name, preset in _PRESETS.items() if _FAMILY_OF[name].name == family}


def family_of(preset: str) -> GameFamily:
    """The family that registered ``preset`` (``KeyError`` for a name no family registered)."""
    return _FAMILY_OF[preset]


# --- the families ---------------------------------------------------------------------
register(LINE_GAMES)
register(TRAINS_GAMES)

__all__ = ["FAMILIES", "PRESETS", "family_of", "presets_of", "register", "unregister"]
