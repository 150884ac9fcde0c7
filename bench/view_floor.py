"""The floor under a seat's view: what any view must cost inside this app, against ``/healthz``.

    .venv/bin/python bench/view_floor.py            # ~30 s: 5,000 rounds
    .venv/bin/python bench/view_floor.py --rounds 20000

Issue 36 asks a ``GET /view`` for at most 1.35x a ``/healthz`` of the same app (in-process,
``bench/in_process.py``). This script measures, in one run and on one app, how low a view
could go while still doing what a view cannot skip: the match's row and its seats read in a
read-only unit of work (another process may have moved the match or claimed a seat; only
the database knows) and the token compared with every seat's hash. Five requests go through
the Flask test client in turn, round after round (so machine noise falls on all alike), each
timed as this thread's CPU:

* ``GET /healthz``: the app's whole stack (WSGI middleware, request hooks, flask-smorest's
  response, the readiness probe kept between checks) and no database;
* ``GET /floor/ping``: a plain Flask route answering fixed bytes: the same WSGI middleware
  and request hooks, no flask-smorest, no use case;
* ``GET /floor/view``: a plain Flask route doing only a view's unavoidable work (the read
  and the token check above) and answering the seat's view as rendered bytes kept from
  before: the cheapest view that stays correct with many processes;
* ``GET /floor/lane``: the same work and bytes answered by a plain WSGI function between the
  app's middleware and Flask (``in_lane``): what a second request path beside Flask could
  reach, with none of what Flask's handling runs (the input guard, CORS, the other hooks);
* ``GET /v1/matches/{id}/view``: the real route at a seq it has rendered already (a poll,
  answered from ``api.services.rendered``).

Then the real view in a lane: ``GET /floor/lane/v1/matches/{id}/view`` runs the real route's use
case (``GetRenderedView`` with the real route's rendering, in an app context) in the same plain
WSGI function, answering its bytes, ETag and ``Vary``: how far a second request path would take
the real view. Each round first makes an action of its own match (not timed), then times a view
at that new seq, by the real route on even rounds and by the lane on odd ones (the first to ask
renders it), then a poll of each.

The ``/floor`` routes exist only in this script's app. Each median is printed with its
multiple of ``/healthz``'s, and the unavoidable work alone (the read and the token check
called directly, no request) as a share of ``/healthz``: on the first match (read over and
over), and right after an action of its match, then again at once (the first read after an
action is the view's case at a new seq).
"""

from __future__ import annotations

import argparse
import re
import statistics
import tempfile
import time
from collections.abc import Callable
from functools import partial
from types import MethodType
from typing import Any

from _http import machine_line, sqlite_url
from flask import Flask, request

from api import create_app
from api.app import STORE_KEY
from api.http.callers import BUS_KEY
from api.http.matches import render_view
from api.services import tokens
from api.services.commands import GetRenderedView
from api.store import Store

#: The lane's copy of the real view route.
LANE_VIEW = re.compile(r"/floor/lane/v1/matches/([^/]+)/view")
MATCH = {
    "preset": "standard-draw",
    "seats": [{"name": "client", "type": "remote"}, {"name": "bot", "type": "bot", "level": "greedy"}],
}


def unavoidable(store: Store, match_id: str, token: str) -> int | None:
    """A view's own work before it can answer anything: the match and its seats read in one
    read-only unit of work, and the token's hash compared with every seat's."""
    candidate = tokens.hash_token(token)
    with store.unit_of_work(readonly=True) as uow:
        found = uow.matches.get_with_seats(match_id)
    if found is None:
        return None
    held = None
    for seat in found[1]:  # every seat compared, as the real check does
        if tokens.matches(seat.token_hash, candidate):
            held = seat.seat
    return held


def in_lane(app: Flask, store: Store, kept: dict[str, Any]) -> None:
    """Answers ``GET /floor/lane`` with ``floor_view``'s work (and ``GET
    /floor/lane/v1/matches/{id}/view`` with the real view's use case) by a plain WSGI function
    put between the app's innermost middleware and Flask: the request ids, metrics, body
    deadline and work limit still run, and nothing of Flask's own handling (no request context,
    no hooks: no input guard, no CORS), so it is the most a second request path beside Flask
    could save."""
    innermost: Any = app.wsgi_app  # our middleware, each holding the next as its ``app``
    while not isinstance(getattr(innermost, "app", None), MethodType):  # Flask's own, bound
        innermost = innermost.app
    flask_itself = innermost.app

    def lane(environ: dict[str, Any], start_response: Any) -> Any:
        token = environ.get("HTTP_AUTHORIZATION", "")[len("Bearer ") :]
        real = LANE_VIEW.fullmatch(environ["PATH_INFO"])
        if real is not None:
            with app.app_context():  # the real rendering reads the app's JSON provider
                answer = app.extensions[BUS_KEY].handle(GetRenderedView(real.group(1), token, render_view))
            headers = [("Content-Type", answer.mimetype), ("Content-Length", str(len(answer.body)))]
            start_response("200 OK", [*headers, ("ETag", answer.tag), ("Vary", "Authorization")])
            return [answer.body]
        if environ["PATH_INFO"] != "/floor/lane":
            return flask_itself(environ, start_response)
        if unavoidable(store, kept["match"], token) is None:
            start_response("401 UNAUTHORIZED", [("Content-Type", "application/json")])
            return [b"{}"]
        body = kept["view"]
        start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
        return [body]

    innermost.app = lane


NEW = {
    "real": "`GET /view` after an action (a new seq: read, redacted, rendered)",
    "lane": "the real view's use case in the lane, after an action (a new seq)",
}
POLL = {
    "real": "`GET /view` after an action, asked again (a poll)",
    "lane": "the real view's use case in the lane, asked again (a poll)",
}
AFTER_AN_ACTION = [NEW["real"], NEW["lane"], POLL["real"], POLL["lane"]]


class Moving:
    """A match of its own moved one action at a time (its client always plays its first legal
    action); a new match when it ends."""

    def __init__(self, client: Any):
        self.client = client
        self.match_id, self.token, self.view = "", "", {"status": "ended"}
        self.auth = {"Authorization": ""}

    def path(self) -> str:
        return f"/v1/matches/{self.match_id}/view"

    def act(self) -> None:
        if self.view["status"] == "ended":
            created = self.client.post("/v1/matches", json=MATCH).get_json()
            self.match_id, self.token = created["id"], created["seats"][0]["token"]
            self.auth = {"Authorization": f"Bearer {self.token}"}
            self.view = self.client.get(self.path(), headers=self.auth).get_json()
        answer = self.client.post(
            f"/v1/matches/{self.match_id}/actions", json=self.view["legal_actions"][0], headers=self.auth
        )
        if answer.status_code != 200:
            raise RuntimeError(f"action refused: {answer.status_code} {answer.get_json()}")
        self.view = answer.get_json()["view"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app(
            {
                "DATABASE_URL": sqlite_url(tmp),
                "RATELIMIT_ENABLED": False,
                "LOG_LEVEL": "WARNING",
                "BOT_REPLY_FLOOR_MS": None,
            }
        )
        store: Store = app.extensions[STORE_KEY]
        kept: dict[str, Any] = {}

        def ping() -> Any:
            return app.response_class(b'{"status":"ok"}', mimetype="application/json")

        def floor_view() -> Any:
            token = request.headers.get("Authorization", "")[len("Bearer ") :]
            seat = unavoidable(store, kept["match"], token)
            if seat is None:
                return app.response_class(b"{}", status=401, mimetype="application/json")
            return app.response_class(kept["view"], mimetype="application/json")

        app.add_url_rule("/floor/ping", "floor_ping", ping)
        app.add_url_rule("/floor/view", "floor_view", floor_view)
        in_lane(app, store, kept)
        client = app.test_client()
        created = client.post("/v1/matches", json=MATCH).get_json()
        match_id, token = created["id"], created["seats"][0]["token"]
        auth = {"Authorization": f"Bearer {token}"}
        view = client.get(f"/v1/matches/{match_id}/view", headers=auth)
        kept.update(match=match_id, view=view.data)
        requests: dict[str, Callable[[], Any]] = {
            "`GET /healthz`": lambda: client.get("/healthz"),
            "`GET /floor/ping` (plain Flask route, fixed bytes)": lambda: client.get("/floor/ping"),
            "`GET /floor/view` (read + token check, kept bytes)": lambda: client.get("/floor/view", headers=auth),
            "`GET /floor/lane` (the same, before Flask)": lambda: client.get("/floor/lane", headers=auth),
            "`GET /view` at a seq already rendered (a poll)": lambda: client.get(
                f"/v1/matches/{match_id}/view", headers=auth
            ),
        }
        for answer in (request() for request in requests.values()):
            if answer.status_code != 200:
                raise RuntimeError(f"expected 200, got {answer.status_code}")
        cpu: dict[str, list[float]] = {name: [] for name in [*requests, *AFTER_AN_ACTION]}
        names = list(requests)
        moving = Moving(client)

        def timed(name: str, request: Callable[[], Any]) -> None:
            start = time.thread_time()
            answer = request()
            cpu[name].append(time.thread_time() - start)
            if answer.status_code != 200:
                raise RuntimeError(f"{name}: expected 200, got {answer.status_code}")

        for i in range(args.rounds):
            for name in names[i % len(names) :] + names[: i % len(names)]:
                timed(name, requests[name])
            moving.act()  # a new seq for the rows below
            paths = {"real": moving.path(), "lane": f"/floor/lane{moving.path()}"}
            first, then = ("real", "lane") if i % 2 == 0 else ("lane", "real")
            for name, way in ((NEW[first], first), (POLL[first], first), (POLL[then], then)):
                timed(name, partial(client.get, paths[way], headers=moving.auth))
        alone = []
        for _ in range(args.rounds):
            start = time.thread_time()
            unavoidable(store, match_id, token)
            alone.append(time.thread_time() - start)
        after_action: dict[str, list[float]] = {"first": [], "again": []}
        for _ in range(args.rounds // 5):
            moving.act()
            for into in after_action.values():
                start = time.thread_time()
                unavoidable(store, moving.match_id, moving.token)
                into.append(time.thread_time() - start)
    health = statistics.median(cpu[names[0]])
    print(f"# {machine_line()}; Flask test client, SQLite, {args.rounds} rounds, requests in turn")
    print()
    print("| request | CPU median | vs `/healthz` |")
    print("|---|---:|---:|")
    for name in [*names, *AFTER_AN_ACTION]:
        median = statistics.median(cpu[name])
        print(f"| {name} | {median * 1e6:.0f} µs | {median / health:.2f}× |")
    work = statistics.median(alone)
    print(f"| the read and the token check alone, no request | {work * 1e6:.0f} µs | {work / health:.2f}× |")
    cold, warm = (statistics.median(after_action[when]) for when in ("first", "again"))
    print(
        f"| the same right after an action of its match, then again at once ({args.rounds // 5} actions) "
        f"| {cold * 1e6:.0f} µs, {warm * 1e6:.0f} µs | {cold / health:.2f}×, {warm / health:.2f}× |"
    )


if __name__ == "__main__":
    main()
