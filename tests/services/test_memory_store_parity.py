"""The in-memory store is a faithful stand-in: the same use cases on it and on the SQL store
(SQLite, or PostgreSQL under scripts/test) write the same logs, hash chains included, and
answer the same summaries, lists and refusals."""

from __future__ import annotations

import pytest

from api.services import errors
from api.services.commands import ClaimSeat, GetAudit, GetSummary, ListMatches, Rematch
from api.store import Store
from api.store.memory import MemoryStore

from .support import ANA, GREEDY, OPEN, create, play_to_end, portal, tokens_of, wired

VOLATILE = ("id", "created_at", "updated_at", "token")  # minted or stamped per run
SEATING = ("status", "rules", "seats", "players", "open_seats", "scores", "preset")


def scenario(store) -> dict:
    """A match played to its end and its rematch claimed, a waiting match, and what they show."""
    bus = wired(store)
    played = create(bus, ANA, GREEDY, rules={"target": 20}, creator="10.0.0.1")
    tokens = tokens_of(played)
    ended = play_to_end(bus, played["id"], tokens)
    rematch, _ = bus.handle(Rematch(played["id"], tokens[0]))
    with pytest.raises(errors.SeatReserved):
        bus.handle(ClaimSeat(rematch["id"], 0, "Stranger"))
    claimed = bus.handle(ClaimSeat(rematch["id"], 0, "Ana", token=tokens[0]))
    waiting = create(bus, ANA, OPEN)
    audit, after = [], 0
    while after is not None:
        page = bus.handle(GetAudit(played["id"], after=after, limit=7))
        audit += page["events"]
        after = page["next_after"]
    return {
        "ended": scrub(ended),
        "audit": audit,
        # A rematch is dealt from a new random seed: who sits where and how it stands, not its tiles.
        "claimed_view": {k: scrub(claimed["view"][k]) for k in ("seat", "status", "rules", "seats", "scores")},
        "rematch": {k: scrub(v) for k, v in bus.handle(GetSummary(rematch["id"])).items() if k in SEATING},
        "waiting": scrub(waiting),
        "open_list": [scrub(m) for m in bus.handle(ListMatches(has_open_seat=True, caller=portal(bus)))["items"]],
        "ana_list": len(bus.handle(ListMatches(player_ref="ana", caller=portal(bus)))["items"]),
    }


def scrub(value):
    if isinstance(value, dict):
        return {k: scrub(v) for k, v in value.items() if k not in VOLATILE and k != "match_id"}
    if isinstance(value, list):
        return [scrub(v) for v in value]
    return value


def test_the_memory_store_and_the_sql_store_agree_on_a_whole_scenario(database_url):
    sql = Store.from_url(database_url)
    try:
        on_sql = scenario(sql)
    finally:
        sql.dispose()
    on_memory = scenario(MemoryStore())
    assert on_memory["audit"][-1]["type"] == "match_ended" and len(on_memory["audit"]) > 7
    assert on_memory == on_sql
