"""A player's statistics, derived from the logs of the ended matches it sat in.

The figures the seed 004 table keeps per player: matches played and won, hands won,
the best winning margin, and the current and longest match-win streaks. A player is
found by ``player_ref`` on its seats; with partners a side's win counts for both
partners. Everything comes from ``hand_ended`` and ``match_ended`` events, so it holds
for every preset (a fives match that ends mid-hand has no ``hand_ended`` for that hand).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from .matches import MatchService


def player_stats(service: "MatchService", player_ref: str) -> dict[str, Any]:
    with service.store.unit_of_work(readonly=True) as uow:
        seated = uow.matches.ended_for_player(player_ref)
        order: list[str] = []
        seats: dict[str, set[int]] = {}
        for record, seat in seated:               # oldest end first
            if record.id not in seats:
                order.append(record.id)
                seats[record.id] = set()
            seats[record.id].add(seat)
        logs = uow.matches.result_events(order)
    played = won = hands_won = current = longest = 0
    best_margin = None
    for match_id in order:
        log = logs[match_id]
        if not log or log[0]["type"] != "match_created" or log[-1]["type"] != "match_ended":
            continue                              # not a finished log: nothing to count
        partners = bool(log[0]["rules"].get("partners"))
        sides = {seat % 2 if partners else seat for seat in seats[match_id]}
        hands_won += sum(1 for e in log if e["type"] == "hand_ended" and e["side"] in sides)
        ended = log[-1]
        played += 1
        if ended["winner"] in sides:
            won += 1
            current += 1
            longest = max(longest, current)
            scores = ended["scores"]
            margin = scores[ended["winner"]] - max(s for side, s in enumerate(scores) if side != ended["winner"])
            best_margin = margin if best_margin is None else max(best_margin, margin)
        else:
            current = 0
    return {"player_ref": player_ref, "matches_played": played, "matches_won": won, "hands_won": hands_won,
            "best_margin": best_margin, "current_streak": current, "longest_streak": longest}
