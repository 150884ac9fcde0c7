"""Strategies: any callable ``(view) -> action`` that answers one of ``view["legal_actions"]``.

The view is the seat's own JSON view (``hand``, ``ends``, ``line``, ``scores``,
``hand_counts``, ``boneyard``…); the answer is sent verbatim. Three to start from:

* :func:`first_legal` — the first listed action (deterministic, the simplest bot).
* :func:`random_legal` — any listed action; :func:`seeded_random` for a repeatable one.
* :func:`heaviest` — lay the tile with the most pips (get rid of points before someone
  goes out), take free points first (a muggins call, the best-scoring fives play).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

Strategy = Callable[[dict[str, Any]], dict[str, Any]]


def first_legal(view: dict[str, Any]) -> dict[str, Any]:
    """The first action the server lists."""
    return view["legal_actions"][0]


def random_legal(view: dict[str, Any]) -> dict[str, Any]:
    """Any listed action, uniformly (module-level randomness; see :func:`seeded_random`)."""
    return random.choice(view["legal_actions"])


def seeded_random(seed: int | str | None = None) -> Strategy:
    """A :func:`random_legal` with its own generator, repeatable for a given ``seed``."""
    rng = random.Random(seed)

    def random_legal(view: dict[str, Any]) -> dict[str, Any]:
        return rng.choice(view["legal_actions"])

    return random_legal


def heaviest(view: dict[str, Any]) -> dict[str, Any]:
    """Free points first, then the heaviest tile (doubles break ties), else draw or knock.

    In the fives games a listed play carries ``scores`` (the count it makes); the best
    scoring play wins over weight. Without a play, drawing until a tile fits saves
    round trips over drawing one at a time.
    """
    actions = view["legal_actions"]
    for action in actions:
        if action["type"] == "muggins":
            return action
    plays = [a for a in actions if a["type"] == "play"]
    if plays:
        return max(plays, key=lambda a: (a.get("scores", 0), sum(a["tile"]), a["tile"][0] == a["tile"][1]))
    for action in actions:
        if action["type"] == "draw" and action.get("until") == "playable":
            return action
    return actions[0]


STRATEGIES: dict[str, Strategy] = {"first": first_legal, "random": random_legal, "heaviest": heaviest}
