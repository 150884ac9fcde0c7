"""The tournament core's refusals: few, exact, each with a stable ``code`` the HTTP layer maps
to one status (as :mod:`api.rules.errors`).

*Invalid* is malformed whatever the state (a settings field that cannot work: 422); every other
refusal is well-formed but not allowed in the tournament's state now (409). A log that does not
fold raises :class:`ImpossibleTournamentEvent`.
"""

from __future__ import annotations


class TournamentError(ValueError):
    """Base class: every refusal of the tournament core."""

    code = "tournament_error"

    @property
    def message(self) -> str:
        return str(self.args[0])


class InvalidTournament(TournamentError):
    """Settings that cannot work; ``field`` names the offending one."""

    code = "invalid_tournament"

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.field = field


class RegistrationClosed(TournamentError):
    """Entrants register (and withdraw without a forfeit) only before the start."""

    code = "registration_closed"


class AlreadyRegistered(TournamentError):
    """A player is entered once: alone, or in one team."""

    code = "already_registered"


class UnknownEntrant(TournamentError):
    """No such entrant in this tournament (or already withdrawn)."""

    code = "unknown_entrant"


class TournamentFull(TournamentError):
    """As many entrants as ``max_entrants`` are registered."""

    code = "tournament_full"


class TooFewEntrants(TournamentError):
    """Starting needs two entrants, and a Swiss more entrants than rounds (so that no rematch
    and no second bye is ever forced)."""

    code = "too_few_entrants"


class TournamentNotRunning(TournamentError):
    """Not started yet, or over: nothing can be paired, recorded, paused or resumed."""

    code = "tournament_not_running"


class TournamentAlreadyStarted(TournamentError):
    code = "tournament_already_started"


class TournamentOver(TournamentError):
    """Ended or cancelled: the log takes nothing more."""

    code = "tournament_over"


class TournamentIsPaused(TournamentError):
    """Paused: no round is paired until it is resumed (results of the round in play still count)."""

    code = "tournament_paused"


class TournamentIsNotPaused(TournamentError):
    code = "tournament_not_paused"


class RoundInPlay(TournamentError):
    """The next round is paired only when every table of the current one has a result."""

    code = "round_in_play"


class UnknownTable(TournamentError):
    """No such table in the round, or it is already decided."""

    code = "unknown_table"


class PairingImpossible(TournamentError):
    """The active entrants cannot be paired with at most one bye each (withdrawals left too
    few of them)."""

    code = "pairing_impossible"


class ImpossibleTournamentEvent(TournamentError):
    """A stored event the state before it cannot take: the log is wrong at that point."""

    code = "impossible_tournament_event"
