"""A reference bot client for the Boneyard HTTP API (public API only; needs ``requests``).

    from boneyard_client import BoneyardClient, Bot, heaviest
    client = BoneyardClient("http://127.0.0.1:8000")
    bot, created = Bot.create(client, [{"name": "me", "type": "remote"},
                                       {"name": "cpu", "type": "bot", "level": "expert"}], heaviest)
    print(bot.play()["scores"])

Command line: ``python -m boneyard_client --help``.
"""

from .client import REFETCH_CODES, BoneyardClient, Bot
from .errors import (
    ActionRefused,
    AnalysisFailed,
    AnalysisNotReady,
    BoneyardError,
    HintNotOffered,
    InvalidApiKey,
    InvalidToken,
    PinnedHeadMismatch,
    ProblemError,
    SeatTaken,
    ServerUnavailable,
    UnknownMatch,
    WaitTimeout,
    WrongMatch,
    problem_error,
)
from .lobby import ChallengeAcceptor, Seeker, TournamentPlayer
from .pins import PinnedHeads, verify_pinned
from .strategies import STRATEGIES, Strategy, first_legal, heaviest, random_legal, seeded_random

__version__ = "0.1.0"

__all__ = [
    "REFETCH_CODES",
    "STRATEGIES",
    "ActionRefused",
    "AnalysisFailed",
    "AnalysisNotReady",
    "BoneyardClient",
    "BoneyardError",
    "Bot",
    "ChallengeAcceptor",
    "HintNotOffered",
    "InvalidApiKey",
    "InvalidToken",
    "PinnedHeadMismatch",
    "PinnedHeads",
    "ProblemError",
    "SeatTaken",
    "Seeker",
    "ServerUnavailable",
    "Strategy",
    "TournamentPlayer",
    "UnknownMatch",
    "WaitTimeout",
    "WrongMatch",
    "first_legal",
    "heaviest",
    "problem_error",
    "random_legal",
    "seeded_random",
    "verify_pinned",
]
