"""The rate-limit policies by name, and how an answer shows them: one home for what
``api.http.limits`` counts under, the problem catalogue's 429 entry and the OpenAPI document say.

The fields follow the IETF "RateLimit header fields for HTTP" draft (draft-ietf-httpapi-
ratelimit-headers, the syntax of its revision 11), as structured-field lists: ``RateLimit-Policy``
names each budget a request was counted against with its quota and window in seconds
(``"create";q=30;w=60``), ``RateLimit`` what is left of it and the seconds until its window
ends (``"create";r=29;t=60``). The draft asks a ``Retry-After`` beside them to point no earlier
than the window's end: a 429's is the spent budget's ``t`` (``api.http.limits``).
"""

from __future__ import annotations

from typing import Any

CREATE = "create"  # a match, a rematch, a seek, a challenge: one budget, a portal's or an address's
ACTIONS_PER_TOKEN = "actions-per-token"
ACTIONS_PER_ADDRESS = "actions-per-address"
EXPENSIVE_READS = "expensive-reads"  # /audit and /fairness, per address, each endpoint its own budget
POLICIES = (CREATE, ACTIONS_PER_TOKEN, ACTIONS_PER_ADDRESS, EXPENSIVE_READS)

#: The two fields in a sentence, for the 429 entry of the problem catalogue.
FIELDS_SUMMARY = (
    "Every answer of a limited operation, a 429 too, carries `RateLimit-Policy` "
    '(`"<policy>";q=<quota>;w=<window seconds>` for each budget the request was counted against) and '
    '`RateLimit` (`"<policy>";r=<remaining>;t=<seconds until the window ends>`), per the IETF RateLimit '
    "header fields draft; the policies: " + ", ".join(f"`{name}`" for name in POLICIES) + "."
)

#: The two fields as the OpenAPI document describes them on every response of a limited
#: operation (absent on a request refused before it was counted, as a malformed or too large
#: one, and where the server runs with RATELIMIT_ENABLED=false).
HEADERS: dict[str, dict[str, Any]] = {
    "RateLimit-Policy": {
        "description": "The budgets this request was counted against (IETF RateLimit header fields draft, "
        'a structured-field list): `"<policy>";q=<quota>;w=<window seconds>` each; docs/problems.md',
        "required": False,
        "schema": {"type": "string", "example": f'"{CREATE}";q=30;w=60'},
    },
    "RateLimit": {
        "description": "What is left of each budget in `RateLimit-Policy`, after this request: "
        '`"<policy>";r=<remaining>;t=<seconds until its window ends>`',
        "required": False,
        "schema": {"type": "string", "example": f'"{CREATE}";r=29;t=60'},
    },
}
