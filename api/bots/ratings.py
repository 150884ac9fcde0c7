"""The computer players' fixed public ratings, per rules family and level.

A rated match may seat computer players: each takes part at its level's rating for the
match's family (``api.services.ratings``), as the opponents' (or partners') strength, and is
never updated, so a bot is the same yardstick in every portal and every match. The numbers
are the rating model's (openskill Plackett-Luce: mu, sigma), fitted from bot-vs-bot matches
by ``bench/calibrate_ratings.py``, which prints this table; a new level or a stronger bot
means running it again and pasting its output here. Served at ``GET /v1/ratings/bots``.
"""

from __future__ import annotations

from dataclasses import dataclass

from api.rules.vocabulary import BotLevel, Family


@dataclass(frozen=True, slots=True)
class BotRating:
    mu: float
    sigma: float


# Printed by `python bench/calibrate_ratings.py --matches 40` (720 matches, 338 s on 2 shared cores,
# the fit averaged over 64 orders): random < greedy < intermediate < expert in every family. Two-player
# matches of every pair of levels on standard-draw, standard-block and all-fives (their default targets),
# 40 per pairing and family.
FIXED_RATINGS: dict[Family, dict[BotLevel, BotRating]] = {
    Family.DRAW: {
        BotLevel.RANDOM: BotRating(15.10, 2.85),
        BotLevel.GREEDY: BotRating(17.71, 2.74),
        BotLevel.INTERMEDIATE: BotRating(32.76, 2.74),
        BotLevel.EXPERT: BotRating(34.37, 2.83),
    },
    Family.BLOCK: {
        BotLevel.RANDOM: BotRating(7.58, 3.57),
        BotLevel.GREEDY: BotRating(22.45, 2.81),
        BotLevel.INTERMEDIATE: BotRating(32.07, 2.73),
        BotLevel.EXPERT: BotRating(37.53, 2.93),
    },
    Family.FIVES: {
        BotLevel.RANDOM: BotRating(8.53, 3.56),
        BotLevel.GREEDY: BotRating(26.17, 2.60),
        BotLevel.INTERMEDIATE: BotRating(29.31, 2.58),
        BotLevel.EXPERT: BotRating(35.68, 2.77),
    },
}


def bot_rating(family: str, level: str) -> BotRating:
    """The fixed rating of a ``level`` bot in ``family``."""
    return FIXED_RATINGS[Family(family)][BotLevel(level)]
