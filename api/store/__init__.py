"""The store: the only part of Boneyard that knows SQL.

Public interface::

    Store(engine) / Store.from_url(url)     .unit_of_work(readonly=False) -> UnitOfWork
    UnitOfWork (context manager)            .matches, .seats, .events, .idempotency, .fairness,
                                            .analyses, .rate_limits, .health_probes, .commit(), .rollback()
    make_engine(url)                        engine with Boneyard's per-dialect settings
    upgrade(engine) / downgrade(engine)     alembic migrations from code
    MatchRecord, SeatRecord, StoredEvent, MatchPage, MatchFilter   frozen records
    StaleSeq, MatchNotFound, SeatNotFound, InvalidCursor, EventCodecError
    DatabaseBusy, is_busy_error             a write lock not had in time (503 over HTTP)
"""

from api.store.codec import EventCodecError, decode_event, encode_event
from api.store.engine import is_busy_error, is_sqlite, make_engine
from api.store.migrate import downgrade, upgrade
from api.store.records import (
    EVERY_MATCH,
    DatabaseBusy,
    InvalidCursor,
    MatchFilter,
    MatchNotFound,
    MatchPage,
    MatchRecord,
    SeatNotFound,
    SeatRecord,
    StaleSeq,
    StoredEvent,
    StoreError,
)
from api.store.unit_of_work import Store, UnitOfWork

__all__ = [
    "EVERY_MATCH",
    "DatabaseBusy",
    "EventCodecError",
    "InvalidCursor",
    "MatchFilter",
    "MatchNotFound",
    "MatchPage",
    "MatchRecord",
    "SeatNotFound",
    "SeatRecord",
    "StaleSeq",
    "Store",
    "StoreError",
    "StoredEvent",
    "UnitOfWork",
    "decode_event",
    "downgrade",
    "encode_event",
    "is_busy_error",
    "is_sqlite",
    "make_engine",
    "upgrade",
]
