"""WorkLimit: working requests queue for a permit; waiters and probes never do."""

from __future__ import annotations

import threading

from api.http.work_limit import WorkLimit, is_waiting_request


def test_waiting_requests_and_probes_are_told_apart_from_work():
    def env(path, query=""):
        return {"PATH_INFO": path, "QUERY_STRING": query}

    assert is_waiting_request(env("/v1/matches/m/events", "after=3&wait=30"))
    assert is_waiting_request(env("/v1/matches/m/stream", "token=t"))
    assert is_waiting_request(env("/healthz")) and is_waiting_request(env("/livez"))
    assert is_waiting_request(env("/readyz"))
    assert not is_waiting_request(env("/v1/matches/m/events", "after=3&wait=0"))
    assert not is_waiting_request(env("/v1/matches/m/events", "after=3"))
    assert not is_waiting_request(env("/v1/matches/m/actions"))
    assert not is_waiting_request(env("/v1/matches"))


def test_at_most_limit_requests_work_at_once_and_waiters_pass_by():
    inside, most, lock = [0], [0], threading.Lock()
    release = threading.Event()
    entered = threading.Semaphore(0)

    def app(environ, start_response):
        with lock:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        entered.release()
        release.wait(10)
        with lock:
            inside[0] -= 1
        return [b"ok"]

    limited = WorkLimit(app, limit=2)
    work = [threading.Thread(target=limited, args=({"PATH_INFO": "/v1/matches/m/actions"}, None)) for _ in range(5)]
    for thread in work:
        thread.start()
    assert entered.acquire(timeout=5) and entered.acquire(timeout=5)
    waiter = threading.Thread(target=limited, args=({"PATH_INFO": "/v1/matches/m/stream"}, None))
    waiter.start()
    assert entered.acquire(timeout=5)  # a stream is not held back by the queue
    assert inside[0] == 3  # two working (the other three queue) and the stream
    release.set()
    for thread in [*work, waiter]:
        thread.join(timeout=5)
    assert most[0] == 3 and inside[0] == 0  # two working requests and the stream


def test_no_limit_lets_everything_through():
    app = WorkLimit(lambda environ, start_response: [b"ok"], limit=0)
    assert app({"PATH_INFO": "/v1/matches"}, None) == [b"ok"]


def test_permits_go_to_waiters_in_arrival_order_and_a_newcomer_never_barges_in():
    from api.http.work_limit import FifoPermits

    permits, order = FifoPermits(1), []
    permits.acquire()  # held by the first request

    def request(name):
        permits.acquire()
        order.append(name)
        permits.release()

    waiters = []
    for n, name in enumerate("abc", start=1):
        waiters.append(threading.Thread(target=request, args=(name,)))
        waiters[-1].start()
        while permits.waiting < n:  # queued before the next one arrives
            threading.Event().wait(0.001)
    permits.release()  # handed to "a", who hands it to "b", ...
    for thread in waiters:
        thread.join(timeout=5)
    assert order == ["a", "b", "c"] and permits.waiting == 0
    permits.acquire()  # all returned: one free permit again
    assert permits.waiting == 0
