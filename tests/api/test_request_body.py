"""RequestBodyDeadline: an address may have only so many request bodies on their way."""

from __future__ import annotations

import io
import json
import threading

from api.http.request_body import RequestBodyDeadline


class SlowBody(io.RawIOBase):
    """A body whose bytes come only when the test says so."""

    def __init__(self, arrived: threading.Event, reading: threading.Semaphore):
        self.arrived, self.reading = arrived, reading

    def read(self, size=-1):
        self.reading.release()
        self.arrived.wait(10)
        return b"{}"


def post(app, address, body):
    statuses, headers = [], {}

    def start_response(status, response_headers):
        statuses.append(status)
        headers.update(response_headers)

    out = b"".join(
        app(
            {
                "REQUEST_METHOD": "POST",
                "PATH_INFO": "/v1/matches",
                "REMOTE_ADDR": address,
                "CONTENT_LENGTH": "2",
                "wsgi.input": body,
            },
            start_response,
        )
    )
    return statuses[0], headers, out


def test_one_address_has_at_most_its_cap_of_bodies_on_their_way():
    app = RequestBodyDeadline(
        lambda environ, start_response: (start_response("200 OK", []), [b"ok"])[1],
        timeout=10,
        max_length=65536,
        per_address=2,
    )
    arrived, reading = threading.Event(), threading.Semaphore(0)
    answers = []
    slow = [
        threading.Thread(target=lambda: answers.append(post(app, "192.0.2.1", SlowBody(arrived, reading))))
        for _ in range(2)
    ]
    for thread in slow:
        thread.start()
    assert reading.acquire(timeout=5) and reading.acquire(timeout=5)  # both are being read
    status, headers, body = post(app, "192.0.2.1", io.BytesIO(b"{}"))
    assert status.startswith("429") and headers["Retry-After"] == "1"
    assert json.loads(body)["code"] == "too_many_waiters"
    assert post(app, "192.0.2.2", io.BytesIO(b"{}"))[0] == "200 OK"  # another address is not held back
    arrived.set()
    for thread in slow:
        thread.join(timeout=5)
    assert [a[0] for a in answers] == ["200 OK", "200 OK"]
    assert post(app, "192.0.2.1", io.BytesIO(b"{}"))[0] == "200 OK"  # their slots are free again
