"""The shape of a match id: 32 lowercase hex digits, as the store issues them.

Anything else names no match, and is answered as such before it reaches the database
(PostgreSQL text cannot even hold some of what a path may carry, such as NUL).
"""

import re

MATCH_ID = re.compile(r"[0-9a-f]{32}")


def is_match_id(value: str) -> bool:
    return isinstance(value, str) and MATCH_ID.fullmatch(value) is not None
