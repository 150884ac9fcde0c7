"""A ceiling for the expert: the same search shown the true hidden hands (bench only).

``SightedMatch`` is a ``BotMatch`` whose seats of the levels in ``sighted`` (an expert side) do
not guess the hidden tiles: every deal they "draw" is the one true deal of the hand, read from the
match's own state. Everything else is the expert's own decision (``expert.choose_expert`` with the
same budget: the same honest rollouts, or the same exact endings, on that one deal). What such a
seat wins against greedy sides bounds from above what the same search can win without sight, so
``bench/strength.py --sighted`` prints how far issue 33's target is from that ceiling.

Nothing here is reachable by a server seat: the services call ``api.bots.choose_action``, which
always reads the seat's knowledge with ``Knowledge.read`` from its redacted view and log.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence
from dataclasses import dataclass

from api.bots import level_budget
from api.bots.actions import Action, Json, make_rng
from api.bots.arena import BotMatch
from api.bots.expert import choose_expert
from api.bots.knowledge import Knowledge
from api.rules.tiles import Tile

PARTS = ("all", "partner", "opponents", "boneyard")


@dataclass
class Sighted(Knowledge):
    """A seat's knowledge shown some of the hidden tiles: ``shown_hands`` (by seat) and, unless
    None, ``shown_boneyard``. Built with those tiles already taken out of ``unseen``, ``slots``
    and ``boneyard``, so ``Knowledge.weighed_sample`` deals only the rest (under every constraint
    the seat has read), and each deal gets the shown tiles back."""

    shown_hands: dict[int, list[Tile]] = dataclasses.field(default_factory=dict)
    shown_boneyard: list[Tile] | None = None

    @classmethod
    def of(cls, know: Knowledge, hands: dict[int, list[Tile]], boneyard: list[Tile] | None) -> Sighted:
        fields = {f.name: getattr(know, f.name) for f in dataclasses.fields(Knowledge)}
        shown = {t for tiles in hands.values() for t in tiles} | set(boneyard or ())
        fields["unseen"] = [t for t in know.unseen if t not in shown]
        fields["slots"] = {s: masks for s, masks in know.slots.items() if s not in hands}
        if boneyard is not None:
            fields["boneyard"] = 0  # (a block game's: nothing is ever drawn from it)
        return cls(**fields, shown_hands=hands, shown_boneyard=boneyard)

    def weighed_sample(self, rng: random.Random) -> tuple[dict[int, list[Tile]], list[Tile], float]:
        hands, boneyard, weight = super().weighed_sample(rng)
        for s, tiles in self.shown_hands.items():
            hands[s] = tiles[:]
        if self.shown_boneyard is not None:
            boneyard = self.shown_boneyard[:]
        return hands, boneyard, weight


class SightedMatch(BotMatch):
    """Bots playing a match, the expert seats of ``sighted`` levels shown the true hidden tiles of
    ``shown`` (comma-separated ``PARTS``: ``all`` of them, the ``partner``'s hand, the
    ``opponents``' hands, the ``boneyard``)."""

    def __init__(self, *args: object, sighted: frozenset[str], shown: str = "all", **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.sighted = sighted
        self.shown = {part.strip() for part in shown.split(",") if part.strip()}
        unknown = self.shown - set(PARTS)
        if unknown:
            raise ValueError(f"nothing to show called {', '.join(sorted(unknown))}: one of {', '.join(PARTS)}")

    def truth(self, seat: int) -> tuple[dict[int, list[Tile]], list[Tile] | None]:
        """The hidden tiles ``seat`` is shown: hands by seat, and the boneyard (None: not shown)."""
        st = self.state
        rules = self.rules
        everything = "all" in self.shown
        hands = {}
        for s, hand in enumerate(st.hands):
            if s == seat:
                continue
            partner = rules.side_of(s) == rules.side_of(seat)
            if everything or ("partner" if partner else "opponents") in self.shown:
                hands[s] = list(hand)
        boneyard = list(st.boneyard) if everything or "boneyard" in self.shown else None
        return hands, boneyard

    def choose(self, seat: int, seat_view: Json, log: Sequence[Json]) -> Action:
        level = self.levels[seat]
        if level not in self.sighted or level != "expert" or not seat_view.get("legal_actions"):
            return super().choose(seat, seat_view, log)
        hands, boneyard = self.truth(seat)

        def read(v: Json, lg: Sequence[Json]) -> Knowledge:
            return Sighted.of(Knowledge.read(v, lg), hands, boneyard)

        budget = self.budget or level_budget(level, self.rules.set)
        return choose_expert(seat_view, log, make_rng(self.rng_seed(), level), budget, read)
