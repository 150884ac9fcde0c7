"""Helpers for the bot tests: positions dealt by the test, and what a seat sees of them."""

from __future__ import annotations

from api.rules import Tile, parse_action, redact_event, replay, resolve_rules, view
from api.rules.engine import create_match, decide
from api.rules.events import HandStarted
from api.rules.tiles import ALL_TILES

SEED = "bot-test-seed"


def tiles(text: str) -> list[Tile]:
    """``tiles("6-6 5-3 1-0")``."""
    return [Tile.parse(t) for t in text.split()]


def seats(n: int) -> list[dict]:
    return [{"name": f"p{i}", "type": "bot", "level": "expert"} for i in range(n)]


class Position:
    """A match whose current hand the test deals, moved on through ``decide``.

    ``hands`` is one string per seat; the boneyard is the given tiles first, then every
    tile no hand holds (canonical order), cut to the rule set's boneyard size.
    """

    def __init__(
        self,
        hands: list[str],
        preset: str = "standard-draw",
        options: dict | None = None,
        leader: int = 0,
        boneyard: str = "",
    ):
        players = len(hands)
        opts = dict(options or {})
        dealt = [tiles(h) for h in hands]
        opts.setdefault("hand_size", max(len(h) for h in dealt))
        self.rules = resolve_rules(preset, opts, players)
        held = {t for h in dealt for t in h}
        first = tiles(boneyard)
        rest = [t for t in ALL_TILES if t not in held and t not in first]
        bone = (first + rest)[: 28 - sum(len(h) for h in dealt)]
        self.events = list(create_match(self.rules, seats(players), SEED))
        self.events.append(HandStarted(1, leader, tuple(tuple(h) for h in dealt), tuple(bone)))
        self.state = replay(self.events)

    def act(self, seat: int, action: dict) -> Position:
        new = decide(self.state, parse_action(seat, action), SEED)
        self.state = replay(new, self.state)
        self.events.extend(new)
        return self

    def play(self, seat: int, tile: str, end: str = "left") -> Position:
        return self.act(seat, {"type": "play", "tile": Tile.parse(tile).to_json(), "end": end})

    def seen_by(self, seat: int) -> tuple[dict, list[dict]]:
        """What ``seat`` may know: its view and its redacted log."""
        return view(self.state, seat), [redact_event(e.to_dict(), seat) for e in self.events]
