"""What can go wrong, as exceptions a bot author can catch by kind.

The server answers every error as an RFC 9457 problem document with a stable
``code``; :func:`problem_error` turns one into the matching exception here.
"""

from __future__ import annotations

from typing import Any


class BoneyardError(Exception):
    """Base of every error this client raises."""


class ProblemError(BoneyardError):
    """The server refused a request: ``status``, ``code`` and the whole ``problem`` body."""

    def __init__(self, status: int, code: str, problem: dict[str, Any] | None = None):
        self.status = status
        self.code = code
        self.problem = problem or {}
        detail = self.problem.get("detail") or self.problem.get("title") or ""
        super().__init__(f"{status} {code}: {detail}" if detail else f"{status} {code}")


class InvalidToken(ProblemError):
    """401 ``invalid_token``: the seat token is unknown (or missing). Check ``--token``."""


class WrongMatch(ProblemError):
    """403 ``wrong_match``: a real seat token, but of another match. Check ``--match``."""


class UnknownMatch(ProblemError):
    """404 ``unknown_match``: no such match on this server (wrong id, or another server)."""


class InvalidApiKey(ProblemError):
    """401 ``invalid_api_key``: this server wants a portal key to create or list matches."""


class SeatTaken(ProblemError):
    """409 ``seat_taken``: someone else claimed that seat first."""


class AnalysisNotReady(ProblemError):
    """409 ``analysis_not_ready``: the match has ended, but the server has not made its analysis
    yet (it does, in the background, after each end): ask again in a few seconds."""


class AnalysisFailed(ProblemError):
    """500 ``analysis_failed``: making the match's analysis failed every time the server tried;
    it never will be made, so it is not retried (``problem["attempts"]``: how many times)."""


class HintNotOffered(ProblemError):
    """409 ``hint_not_offered``: hints are for unrated matches against the computer only."""


class ActionRefused(ProblemError):
    """The server kept refusing this bot's actions after refetching the view.

    A strategy that answers something outside ``legal_actions`` ends up here (409 from
    the rules), or at once for a malformed action (422 ``invalid_action``…).
    """


class ServerUnavailable(BoneyardError):
    """No answer (connection refused, timeouts, 5xx, 429) after every retry."""


class WaitTimeout(BoneyardError):
    """The match did not come back to this seat within ``max_wait`` seconds."""


class PinnedHeadMismatch(BoneyardError):
    """The revealed log is not the one whose chain heads this client pinned: at ``seq`` it
    holds another hash (``found``; None when the log has no such row) than ``pinned``, or the
    server showed two different hashes for the same seq during play. Either way the server
    rewrote history (or served two of them): keep the pins and the log as evidence."""

    def __init__(self, seq: int, message: str, pinned: str | None = None, found: str | None = None):
        super().__init__(f"seq {seq}: {message}")
        self.seq = seq
        self.pinned = pinned
        self.found = found


_BY_CODE: dict[str, type[ProblemError]] = {
    "invalid_token": InvalidToken,
    "wrong_match": WrongMatch,
    "unknown_match": UnknownMatch,
    "invalid_api_key": InvalidApiKey,
    "seat_taken": SeatTaken,
    "analysis_not_ready": AnalysisNotReady,
    "analysis_failed": AnalysisFailed,
    "hint_not_offered": HintNotOffered,
}


def problem_error(status: int, body: Any) -> ProblemError:
    """The exception for a problem response (any body: non-JSON errors get ``http_<status>``)."""
    problem = body if isinstance(body, dict) else {}
    code = problem.get("code") if isinstance(problem.get("code"), str) else f"http_{status}"
    return _BY_CODE.get(code, ProblemError)(status, code, problem)
