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


# Printed by `python bench/calibrate_ratings.py --matches 100` (900 matches, 503 s on the 2 shared
# cores under a load of 5 to 8; the fit averaged over 64 orders): random < greedy < expert in every
# family. Two-player matches of every pair of levels on standard-draw, standard-block and all-fives
# (their default targets), 100 per pairing and family; the weaker level won: draw random-greedy
# 39, random-expert 2, greedy-expert 6; block 16, 6, 17; fives 5, 1, 16 (of 100 each).
FIXED_RATINGS: dict[Family, dict[BotLevel, BotRating]] = {
    Family.DRAW: {
        BotLevel.RANDOM: BotRating(14.76, 2.30),
        BotLevel.GREEDY: BotRating(18.60, 2.26),
        BotLevel.EXPERT: BotRating(41.46, 3.47),
    },
    Family.BLOCK: {
        BotLevel.RANDOM: BotRating(13.88, 2.63),
        BotLevel.GREEDY: BotRating(25.34, 2.29),
        BotLevel.EXPERT: BotRating(35.86, 2.60),
    },
    Family.FIVES: {
        BotLevel.RANDOM: BotRating(5.02, 3.69),
        BotLevel.GREEDY: BotRating(28.29, 2.67),
        BotLevel.EXPERT: BotRating(40.88, 2.86),
    },
}


def bot_rating(family: str, level: str) -> BotRating:
    """The fixed rating of a ``level`` bot in ``family``."""
    return FIXED_RATINGS[Family(family)][BotLevel(level)]
