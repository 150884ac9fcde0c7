"""The closed sets of words the rules speak: each defined once, here.

Every option value, status, seat kind, hand-end reason, end and action type is a member
of one ``StrEnum``. A member *is* its string (``Status.ENDED == "ended"``, and
``json.dumps`` writes ``"ended"``), so the event log, the stored rows, the golden vectors
and the OpenAPI document hold exactly the words they held as bare strings; but a
misspelt word is now a name error (and a mypy error) instead of a comparison that is
quietly never true. Adding a word is adding a member: whatever code lists the choices
(validation, the database's check constraints, the HTTP schemas of ``api/http``) reads them
from here. The committed event schemas (``openapi/events.schema.json``) are plain JSON and
spell them out again; tests/api/test_contract_homes.py holds them to these members.
"""

from __future__ import annotations

from enum import StrEnum


class Status(StrEnum):
    """Where a match is: seats still open, being played, over."""

    WAITING = "waiting"
    PLAYING = "playing"
    ENDED = "ended"


class SeatKind(StrEnum):
    """A seat's ``type``: a client holding the seat's token, a computer player the server
    plays, a seat kept free for anyone to claim (claimed, it becomes remote)."""

    REMOTE = "remote"
    BOT = "bot"
    OPEN = "open"


class BotLevel(StrEnum):
    """How a computer player plays (``api.bots``): a bot seat's ``level``, weakest first."""

    RANDOM = "random"
    GREEDY = "greedy"
    INTERMEDIATE = "intermediate"
    EXPERT = "expert"


class Game(StrEnum):
    """The ``game`` option: the Draw game (a boneyard to draw from) or the Block game."""

    DRAW = "draw"
    BLOCK = "block"


class Lead(StrEnum):
    """The ``lead`` option: who sets the first tile of a hand (docs/rules.md, section 5)."""

    HIGHEST_DOUBLE = "highest_double"
    WINNER_ANY = "winner_any"
    ROTATE_ANY = "rotate_any"


class BlockedScoring(StrEnum):
    """The ``blocked_scoring`` option: what the lightest side scores when a hand blocks."""

    OTHERS_MINUS_OWN = "others_minus_own"
    OTHERS = "others"


class EndCountScoring(StrEnum):
    """The ``end_count_scoring`` option: what the count (the open ends' sum after a play)
    scores. ``fives``: the count itself when 5 divides it (All Fives, Muggins);
    ``fives_and_threes``: a point per five and a point per three in it (Fives and Threes)."""

    NONE = "none"
    FIVES = "fives"
    FIVES_AND_THREES = "fives_and_threes"


class HandPoints(StrEnum):
    """The ``hand_points`` option: whose pips a finished hand's winner scores. ``opponents``:
    the other sides' (less its own when blocked under ``others_minus_own``); ``all_hands``:
    every hand's, its partner's and, when blocked, its own included (the double-nine game)."""

    OPPONENTS = "opponents"
    ALL_HANDS = "all_hands"


class Spinner(StrEnum):
    """The ``spinner`` option: a line game, or the first double opening four ways."""

    NONE = "none"
    FIRST_DOUBLE = "first_double"


class Family(StrEnum):
    """A rule set's family (``RuleSet.family``): ratings and leaderboards are kept per family,
    since skill at one hardly carries to another. The scoring games are a family per way the
    count scores (``end_count_scoring``: All Fives and Muggins; Fives and Threes) whether they
    draw or block; the double-nine line games are one; the rest are the Draw or the Block game.
    Each trains game is a family of its own (``mexican_train``, ``chicken_foot``)."""

    DRAW = "draw"
    BLOCK = "block"
    FIVES = "fives"
    FIVES_AND_THREES = "fives_and_threes"
    DOUBLE_NINE = "double_nine"
    MEXICAN_TRAIN = "mexican_train"
    CHICKEN_FOOT = "chicken_foot"


class HandEndReason(StrEnum):
    """Why a hand ended: a seat went out (``domino``), or nobody could move (``blocked``)."""

    DOMINO = "domino"
    BLOCKED = "blocked"


class ScoredBy(StrEnum):
    """How points were made during play (``points_scored.how``): a scoring play, or a
    muggins call taking points the player left unclaimed."""

    PLAY = "play"
    MUGGINS = "muggins"


class End(StrEnum):
    """An end of the layout, by name. The engine addresses ends by index (``layout.LEFT``
    … ``layout.DOWN``, cheaper in playouts); the members are in that index order."""

    LEFT = "left"
    RIGHT = "right"
    UP = "up"
    DOWN = "down"


class ActionType(StrEnum):
    """An action's ``type``, and the first item of a fast-path move tuple."""

    PLAY = "play"
    DRAW = "draw"
    KNOCK = "knock"
    MUGGINS = "muggins"
    PASS = "pass"  # the trains games: a stuck seat's turn ends (the line games knock)


class DrawUntil(StrEnum):
    """A draw's ``until``: draw until a tile fits (the only value)."""

    PLAYABLE = "playable"


def values(words: type[StrEnum]) -> tuple[str, ...]:
    """The members' strings, as plain ``str`` (for what renders them itself: SQL text)."""
    return tuple(member.value for member in words)


__all__ = [
    "ActionType",
    "BlockedScoring",
    "BotLevel",
    "DrawUntil",
    "End",
    "EndCountScoring",
    "Family",
    "Game",
    "HandEndReason",
    "HandPoints",
    "Lead",
    "ScoredBy",
    "SeatKind",
    "Spinner",
    "Status",
    "values",
]
