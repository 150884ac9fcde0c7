"""Rows every app server shares that only the SQL store keeps (no port of api.services.ports):
rate-limit counters and health probes. The ports' rows are in tests/store/contract/."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from api.services.rate_limits import RateLimitCounters
from api.store import tables


def hit(store, key, now, expiry=60, amount=1):
    with store.unit_of_work() as uow:
        counted = uow.rate_limits.hit(key, amount, expiry, now)
        uow.commit()
    return counted


def test_a_window_counts_hits_until_it_ends_then_a_new_one_starts(store):
    assert hit(store, "k", 1000.0) == (1, 1060.0)
    assert hit(store, "k", 1010.0, amount=2) == (3, 1060.0)  # the window's end does not move
    assert hit(store, "other", 1010.0) == (1, 1070.0)
    with store.unit_of_work(readonly=True) as uow:
        assert uow.rate_limits.get("k", 1059.9) == (3, 1060.0)
        assert uow.rate_limits.get("k", 1060.0) is None  # ended
        assert uow.rate_limits.get("nobody", 1000.0) is None
    assert hit(store, "k", 1060.0) == (1, 1120.0)  # a new window, counted from 1


def test_purge_drops_only_ended_windows_and_clear_forgets(store):
    hit(store, "old", 1000.0, expiry=10)
    hit(store, "live", 1000.0, expiry=100)
    hit(store, "gone", 1000.0, expiry=100)
    with store.unit_of_work() as uow:
        assert uow.rate_limits.purge(1050.0) == 1
        uow.rate_limits.clear("gone")
        uow.commit()
    with store.engine.connect() as conn:
        assert conn.execute(select(tables.rate_limit_counters.c.key)).scalars().all() == ["live"]


def test_concurrent_hits_on_one_key_each_get_their_own_count(store):
    """The upsert is atomic: 6 threads x 15 hits see every count from 1 to 90 exactly once."""
    seen, barrier, lock = [], threading.Barrier(6), threading.Lock()

    def hammer():
        barrier.wait()
        for _ in range(15):
            count, _ = hit(store, "shared", 5000.0)
            with lock:
                seen.append(count)

    threads = [threading.Thread(target=hammer) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sorted(seen) == list(range(1, 91))


def test_the_counters_service_purges_now_and_then_on_its_clock(store):
    now = [1000.0]
    counters = RateLimitCounters(store, clock=lambda: now[0], purge_interval=30)
    counters.hit("short", 5)
    counters.hit("long", 600)
    now[0] = 1020.0  # "short" ended, but no purge is due yet
    counters.hit("long", 600)
    assert counters.current("short") is None and counters.current("long") == (2, 1600.0)
    with store.engine.connect() as conn:
        assert len(conn.execute(select(tables.rate_limit_counters)).all()) == 2
    now[0] = 1031.0
    counters.hit("long", 600)  # the purge is due: ended rows go
    with store.engine.connect() as conn:
        assert conn.execute(select(tables.rate_limit_counters.c.key)).scalars().all() == ["long"]


def test_a_health_probe_rewrites_its_own_row_and_old_rows_are_purged(store):
    start = datetime(2026, 1, 1, tzinfo=UTC)
    with store.unit_of_work() as uow:
        uow.health_probes.touch("host:1", start)
        uow.health_probes.touch("host:2", start)
        uow.health_probes.touch("host:1", start + timedelta(days=2))
        assert uow.health_probes.purge(start + timedelta(days=1)) == 1
        uow.commit()
    with store.engine.connect() as conn:
        rows = conn.execute(select(tables.health_probes)).all()
    assert [(r.id, r.checked_at) for r in rows] == [("host:1", start + timedelta(days=2))]
