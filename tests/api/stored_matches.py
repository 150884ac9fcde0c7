"""Ended matches written straight into the store: long logs in milliseconds, whatever plays bots.

The log is a real match played by the engine (``api.tools.golden``), so the audit replays
and the fairness check passes; only the HTTP path that would have played it is skipped.
"""

from __future__ import annotations

from api.tools.golden import Vector, audit_document, generate, log_of


def store_ended_match(store, vector: Vector) -> tuple[str, dict]:
    """Store ``vector``'s match as ended; answers its id and its whole audit document."""
    audit, _ = generate(vector)
    return store_ended_log(store, vector, log_of(audit))


def store_ended_log(store, vector: Vector, rows: list[dict]) -> tuple[str, dict]:
    """Store ``rows`` (events without seq; a rewritten log too) as ``vector``'s ended match,
    chained by the store as it chains every append; answers its id and its audit document."""
    with store.unit_of_work() as uow:
        record = uow.matches.add(
            {
                "preset": vector.preset,
                "players": vector.players,
                "seed": vector.seed,
                "seed_commitment": rows[0]["seed_commitment"],
                "summary": {},
            }
        )
        for number, spec in enumerate(vector.seat_specs()):
            uow.seats.add(
                {
                    "match_id": record.id,
                    "seat": number,
                    "name": spec["name"],
                    "type": spec["type"],
                    "level": spec["level"],
                }
            )
        uow.events.append(record.id, 0, rows)
        uow.matches.update(record.id, status="ended")
        uow.commit()
    return record.id, audit_document(record.id, vector.seed, rows)


LONG = Vector("long-draw-2p", "standard-draw", 2, {"target": 400})  # 1,248 events
SHORT = Vector("short-block-2p", "standard-block", 2, {"target": 30})
DOUBLE_NINE = Vector("double-nine-4p", "double-nine-partners", 4, {"target": 100})  # a set other than double-six
