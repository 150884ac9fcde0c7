"""Precise error classes of the rules engine.

Two families, as in python-chess: *invalid* input is malformed (no such tile, no such
end, an impossible rule set), *illegal* input is well-formed but not allowed now.
Every error carries a stable machine ``code`` that the HTTP layer maps to a status.

Apart from both: a log that does not fold raises ``ReplayError``, and ``ImpossibleEvent`` when
one of its events is one the state before it cannot take. A command is refused; a log is found
wrong, at a seq.
"""

from __future__ import annotations


class RulesError(ValueError):
    """Base class: every refusal of the engine."""

    code = "rules_error"

    def __init__(self, message: str, *, code: str | None = None):
        super().__init__(message)
        if code is not None:
            self.code = code

    @property
    def message(self) -> str:
        return str(self.args[0])


class InvalidRules(RulesError):
    """A rule set that cannot work; ``field`` names the offending option."""

    code = "invalid_rules"

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.field = field


class InvalidAction(RulesError):
    """A malformed command: unknown type, no such end, missing field."""

    code = "invalid_action"


class InvalidTile(InvalidAction):
    """Not a tile of the match's set (``RuleSet.set``), or not written as one."""

    code = "invalid_tile"


class IllegalAction(RulesError):
    """A well-formed command that the rules do not allow in this state."""

    code = "illegal_action"


class NotYourTurn(IllegalAction):
    code = "not_your_turn"


class TileNotInHand(IllegalAction):
    code = "tile_not_in_hand"


class IllegalPlay(IllegalAction):
    """The tile does not match the chosen end (or that end is not open)."""

    code = "illegal_play"


class EndRequired(IllegalAction):
    """A play without ``end`` whose tile fits more than one open end: which one is the
    player's choice (well-formed, but this state needs the end named; 409)."""

    code = "end_required"


class MustPlay(IllegalAction):
    """Drawing or knocking while holding a playable tile."""

    code = "must_play"


class MustDraw(IllegalAction):
    """Knocking while the boneyard can still be drawn from."""

    code = "must_draw"


class BoneyardReserved(IllegalAction):
    """Only the reserved tiles are left in the boneyard (or none at all)."""

    code = "boneyard_reserved"


class BoneyardEmpty(IllegalAction):
    """Nothing left to draw."""

    code = "boneyard_empty"


class DrawingNotAllowed(IllegalAction):
    """The Block game has no drawing."""

    code = "drawing_not_allowed"


class WrongClaim(IllegalAction):
    """Under ``muggins_calls`` a claim must equal the count the play makes."""

    code = "wrong_claim"


class ClaimNotAllowed(IllegalAction):
    """A play carrying a ``claim`` in a rule set without ``muggins_calls``: well-formed, but
    only that rule set takes claims (409, like the other refusals that depend on the match)."""

    code = "claim_not_allowed"


class NothingToMuggins(IllegalAction):
    code = "nothing_to_muggins"


class MatchNotStarted(IllegalAction):
    code = "match_not_started"


class MatchOver(IllegalAction):
    code = "match_over"


class SeatTaken(IllegalAction):
    code = "seat_taken"


class ReplayError(ValueError):
    """A log that does not fold: out of order, or contradicting the state it builds."""


class ImpossibleEvent(ReplayError):
    """An event the state before it cannot take: a tile played that the seat does not hold, a
    draw from an empty boneyard. Only a rewritten log holds one. The fold raises it without a
    ``seq`` (an event does not know its place); whoever folds a numbered log names it with
    :meth:`at` (``replay``, the bot re-check), so it reads
    ``seq 12: impossible event: seat 0 plays 5-2, which it does not hold``."""

    def __init__(self, why: str, seq: int | None = None):
        super().__init__(why if seq is None else f"seq {seq}: impossible event: {why}")
        self.why = why
        self.seq = seq

    def at(self, seq: int) -> ImpossibleEvent:
        """This error, named by the seq of the event that raised it."""
        return ImpossibleEvent(self.why, seq)
