"""The waiting hub: one wake-up source per process fans out to every waiter, and waiters
never query the database while they wait.

Appends here come from a second engine on the same database, as another process's would:
no in-process ``announce`` helps. The SQLite poller is driven by hand (``poll_once``; its
thread is not started), so the tests say exactly which poll found what. Where a test needs to
know whether a waiter slept and what woke it, the hub's clock is a wakeable fake
(``fake_clock.py``): it tells when a waiter is asleep and records each sleep.
"""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import event

from api.services.waiting import Client, Waiter
from api.store import Store, make_engine
from api.store.notify import SqlitePoller

from .fake_clock import FakeClock
from .helpers import TWO_REMOTE, act, auth, create, tokens_of, view


@pytest.fixture
def other_process(make_client):
    """Another 'process': its own engine and app service, sharing only the database."""
    return make_client(RATELIMIT_ENABLED=False, AUTO_MIGRATE=False)


@pytest.fixture
def hub(database_url):
    engine = make_engine(database_url)
    statements = []
    event.listen(engine, "before_cursor_execute", lambda *args: statements.append(args[2]))
    hub = Waiter(Store(engine), per_address=0, gone_check_interval=0.05)
    hub.statements = statements
    if engine.dialect.name == "sqlite":
        hub._ensure_source = lambda: None  # no poller thread: the tests poll by hand
    yield hub
    hub.stop()
    engine.dispose()


def _move(client, created):
    """One action in ``created`` through the other process; answers the new seq."""
    tokens = tokens_of(created)
    turn = view(client, created["id"])["turn"]
    action = view(client, created["id"], tokens[turn])["legal_actions"][0]
    return act(client, created["id"], tokens[turn], action)["seq"]


def _waiters(hub, created, count, results, client_factory=lambda: None):
    """``count`` threads subscribed to the match (seq as read), waiting for the next event."""
    threads, ready = [], threading.Barrier(count + 1)
    for i in range(count):
        sub = hub.subscribe(created["id"], client_factory())
        sub.saw(created["seq"])

        def run(sub=sub, i=i):
            ready.wait()
            results[i] = sub.wait(created["seq"], 10)
            sub.close()

        threads.append(threading.Thread(target=run))
        threads[-1].start()
    ready.wait()
    return threads


def _source(hub):
    """The hub's wake-up source: on SQLite a poller made here and never started (the tests poll)."""
    if hub.store.engine.dialect.name == "sqlite":
        if getattr(hub, "manual_poller", None) is None:
            hub.manual_poller = SqlitePoller(hub.store.engine.url.database, hub.watched, hub.seen, hub.may_retire)
        return hub.manual_poller
    assert hub.source is not None  # started by the first subscribe, before it returned
    return hub.source


def test_one_sqlite_poll_wakes_every_waiter_of_a_match_with_no_query_of_their_own(hub, other_process, is_postgres):
    if is_postgres:
        pytest.skip("the SQLite poller")
    matches = [create(other_process, TWO_REMOTE) for _ in range(3)]
    results: dict[int, int] = {}
    threads = _waiters(hub, matches[0], 40, results)
    idle = {}
    idle_threads = _waiters(hub, matches[1], 10, idle)
    poller = _source(hub)
    poller.poll_once()  # nothing new: no read
    reads_before = poller.changes.reads
    new_seq = _move(other_process, matches[0])
    _move(other_process, matches[2])  # a match nobody here waits on
    assert results == {}  # nobody polls on its own: still asleep
    poller.poll_once()
    for thread in threads:
        thread.join(5)
    assert results == {i: new_seq for i in range(40)}
    assert poller.changes.reads - reads_before == 1  # one query for all the watched matches
    assert hub.statements == []  # the waiters ran no statement at all
    assert idle == {}  # the other match's waiters sleep on
    hub.announce(matches[1]["id"], matches[1]["seq"] + 1)
    for thread in idle_threads:
        thread.join(5)
    assert set(idle.values()) == {matches[1]["seq"] + 1}


def test_the_poller_reads_nothing_while_no_one_commits(hub, other_process, is_postgres):
    if is_postgres:
        pytest.skip("the SQLite poller")
    created = create(other_process, TWO_REMOTE)
    with hub.subscribe(created["id"]) as sub:
        sub.saw(created["seq"])
        poller = _source(hub)
        poller.poll_once()
        checks, reads = poller.changes.checks, poller.changes.reads
        for _ in range(5):
            poller.poll_once()
        assert (poller.changes.checks - checks, poller.changes.reads - reads) == (5, 0)
        _move(other_process, created)
        poller.poll_once()
        assert poller.changes.reads - reads == 1 and sub.seq == created["seq"] + 1


@pytest.mark.postgres
def test_one_listener_wakes_every_waiter_on_postgresql(hub, other_process):
    created = create(other_process, TWO_REMOTE)
    results: dict[int, int] = {}
    threads = _waiters(hub, created, 30, results)
    listener = _source(hub)
    assert listener.ready.wait(5)
    new_seq = _move(other_process, created)
    for thread in threads:
        thread.join(5)
    assert results == {i: new_seq for i in range(30)}
    assert hub.statements == []


def test_an_append_between_the_read_and_the_subscription_is_not_missed(hub, other_process, is_postgres):
    created = create(other_process, TWO_REMOTE)
    read_seq = created["seq"]  # the client read the match...
    new_seq = _move(other_process, created)  # ...someone appended...
    hub.clock = clock = FakeClock(wakeable=True)
    with hub.subscribe(created["id"]) as sub:  # ...then it subscribed, and says what it read:
        sub.saw(read_seq)
        if not is_postgres:
            _source(hub).poll_once()  # the first poll reads every watched match
        assert sub.wait(read_seq, 5) == new_seq
    if is_postgres:  # the listener reads the watched matches when it starts
        assert all(woken for _, woken in clock.naps), clock.naps
    else:
        assert clock.naps == []  # the poll had told the slot: no sleep at all


def test_a_waiter_whose_client_has_gone_ends_at_the_next_check(hub, other_process):
    created = create(other_process, TWO_REMOTE)
    for _ in range(2):  # the checker stops once nobody waits, and starts again for the next
        gone = threading.Event()
        client = Client("203.0.113.9", gone.is_set)
        hub.clock = clock = FakeClock(wakeable=True)
        with hub.subscribe(created["id"], client) as sub:
            checker = hub._checker
            sub.saw(created["seq"])
            done = {}
            thread = threading.Thread(
                target=lambda sub=sub, done=done: done.setdefault("seq", sub.wait(created["seq"], 30))
            )
            thread.start()
            assert clock.sleeping.wait(5)  # the waiter is asleep...
            gone.set()  # ...when its client goes
            thread.join(5)
            assert not thread.is_alive() and sub.left and done["seq"] == created["seq"]
            assert clock.naps == [(30, True)]  # woken by the checker, not by its own timeout
        checker.join(5)  # nobody left to check: the checker stops
        assert not checker.is_alive() and hub._checker is None


def test_the_cap_counts_waits_per_address_in_the_database(database_url):
    store = Store(make_engine(database_url))
    try:
        hub = Waiter(store, per_address=2)
        first, second = Client("198.51.100.1"), Client("198.51.100.1")
        held = [hub.take(first, 30), hub.take(second, 30)]
        other_address = hub.take(Client("198.51.100.2"), 30)
        from api.services.errors import TooManyWaiters

        with pytest.raises(TooManyWaiters) as refused:
            hub.take(Client("198.51.100.1"), 30)
        assert refused.value.retry_after > 0
        held[0].release()
        held[0].release()  # once only
        held.append(hub.take(Client("198.51.100.1"), 30))
        with store.unit_of_work(readonly=True) as uow:
            from api.services.waiting import address_key

            assert uow.waiters.count(address_key("198.51.100.1"), hub.now()) == 2
        for slot in held[1:] + [other_address]:
            slot.release()
    finally:
        store.dispose()


def test_a_long_poll_holds_a_slot_only_while_it_waits(app, client):
    created = create(client, TWO_REMOTE)
    service = app.extensions["boneyard.bus"].flow
    service.waiter.per_address = 1
    tokens = tokens_of(created)
    # Events already there: answered at once, no slot taken, so the cap of 1 is not in the way.
    for _ in range(3):
        page = client.get(f"/v1/matches/{created['id']}/events?after=0&wait=30", headers=auth(tokens[0]))
        assert page.status_code == 200 and page.get_json()["events"]
    store = app.extensions["boneyard.store"]
    with store.unit_of_work(readonly=True) as uow:
        assert uow.connection.exec_driver_sql("SELECT count(*) FROM waiter_slots").scalar() == 0
