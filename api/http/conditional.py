"""ETags and preconditions: every representation of a match is named by its seq.

A view's ETag is ``"<seq>:<seat>"`` (``s`` for a spectator), a summary's ``"<seq>"``
and an events page's ``"<seq>:<seat>:<after>:<limit>"``; they change exactly when
what they show can. ``If-Match`` on an action names the seq the client last saw (any
of our ETags carries it); ``If-None-Match`` on reads answers 304 while nothing changed.
"""

from __future__ import annotations

import re

from flask import Response, request

from api.http.errors import ProblemError

# ASCII digits only (``\d`` alone also takes '²', which int() refuses) and at most 10 of
# them: a seq fits the store's 32-bit column, and int() refuses more than 4,300 digits.
_ETAG = re.compile(r'^(?:W/)?"([0-9]{1,10})(?::[^"]*)?"$')


def etag(seq: int, *parts) -> str:
    return '"' + ":".join(str(p) for p in (seq, *parts)) + '"'


def seat_part(seat: int | None) -> str:
    return "s" if seat is None else str(seat)


def if_match_seq() -> int | None:
    """The seq an ``If-Match`` header names (None without one, or for ``*``)."""
    header = request.headers.get("If-Match")
    if header is None or header.strip() == "*":
        return None
    match = _ETAG.match(header.split(",")[0].strip())
    if match is None:
        raise ProblemError(400, "invalid_if_match", "Invalid If-Match",
                           "If-Match takes an ETag this server sent, like '\"12\"'.")
    return int(match.group(1))


def not_modified(tag: str) -> Response | None:
    """A 304 when the client's ``If-None-Match`` already names ``tag``."""
    header = request.headers.get("If-None-Match")
    if header is None:
        return None
    candidates = {c.strip().removeprefix("W/") for c in header.split(",")}
    if tag in candidates or "*" in candidates:
        return Response(status=304, headers={"ETag": tag})
    return None
