"""ETags and preconditions: every representation of a match is named by its seq.

A view's ETag is ``"<seq>:<seat>:<head hash>"`` (``s`` for a spectator), a summary's
``"<seq>"``, an events page's ``"<seq>:<seat>:<after>:<limit>:<head hash>"`` and an audit
page's ``"<seq>:audit:<after>:<limit>:<head hash>"``; they change exactly when what they
show can. The answers that show a chain head name its hash too: a log rewritten under the
same seq is a new representation, never a 304 that keeps a client on the old head.
``If-Match`` on an action names the seq the client last saw (any of our ETags carries it);
``If-None-Match`` on reads answers 304 while nothing changed.
"""

from __future__ import annotations

import re

from flask import Response, request

from api.http.problem_codes import INVALID_IF_MATCH

# ASCII digits only (``\d`` alone also takes '²', which int() refuses) and at most 10 of
# them: a seq fits the store's 32-bit column, and int() refuses more than 4,300 digits.
_ETAG = re.compile(r'^(?:W/)?"([0-9]{1,10})(?::[^"]*)?"$')
#: The ``If-Match`` values the document allows: ``*`` or one of our ETags (every one of them parses).
IF_MATCH_PATTERN = r'^(\*|(W/)?"[0-9]{1,10}(:[!#-+\--~]*)?")$'


# --- what the OpenAPI document says of them (one home with the code above) -------------------
#: ``ETag`` on every answer that names a state of a match.
ETAG_HEADER = {
    "description": "Names this state of the match (its seq, and what the answer shows of it): send it back as "
    "`If-None-Match` on a read (304 while nothing changed) or `If-Match` on an action (412 once "
    "the match has moved on)",
    "schema": {"type": "string", "pattern": r'^"[0-9]{1,10}(:[!#-~]*)?"$'},
    "required": True,
}
#: The request header of a conditional read.
IF_NONE_MATCH_PARAMETER = {
    "in": "header",
    "name": "If-None-Match",
    "required": False,
    "schema": {"type": "string"},
    "description": "ETags from earlier answers (or `*`): 304 Not Modified, without a body, while one of them is "
    "still this resource's",
}
#: The 304 a conditional read may answer.
NOT_MODIFIED_RESPONSE = {
    "description": "Not Modified: the `If-None-Match` ETag is still current; no body",
    "headers": {"ETag": ETAG_HEADER},
}


def etag(seq: int, *parts: object) -> str:
    return '"' + ":".join(str(p) for p in (seq, *parts)) + '"'


def seat_part(seat: int | None) -> str:
    return "s" if seat is None else str(seat)


def head_part(answer: dict) -> str:
    """The hash of the chain head an answer shows (its ``chain_head``); empty for an action's
    answer stored, for an ``Idempotency-Key`` replay, before answers showed one."""
    return str(answer.get("chain_head", {}).get("hash", ""))


def if_match_seq() -> int | None:
    """The seq an ``If-Match`` header names (None without one, or for ``*``)."""
    header = request.headers.get("If-Match")
    if header is None or header.strip() == "*":
        return None
    match = _ETAG.match(header.split(",")[0].strip())
    if match is None:
        raise INVALID_IF_MATCH.error("If-Match takes an ETag this server sent, like '\"12\"'.")
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
