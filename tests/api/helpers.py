"""Small helpers for driving the API in tests."""

from __future__ import annotations

import json

from api.rules.tiles import LARGEST_PIP  # any set's tile

PROBLEM = "application/problem+json"
# two remote seats: the match most API tests start from
TWO_REMOTE = [{"name": "Ana", "type": "remote"}, {"name": "Ben", "type": "remote"}]


def create(client, seats, preset="standard-draw", rules=None, status=201):
    body = {"preset": preset, "seats": seats}
    if rules is not None:
        body["rules"] = rules
    response = client.post("/v1/matches", json=body)
    assert response.status_code == status, response.get_json()
    return response.get_json()


def auth(token):
    return {"Authorization": f"Bearer {token}"}


def tokens_of(created):
    return {s["seat"]: s["token"] for s in created["seats"] if "token" in s}


def act(client, match_id, token, action, status=200):
    response = client.post(f"/v1/matches/{match_id}/actions", json=action, headers=auth(token))
    assert response.status_code == status, (action, response.get_json())
    return response.get_json()


def view(client, match_id, token=None):
    headers = auth(token) if token else {}
    response = client.get(f"/v1/matches/{match_id}/view", headers=headers)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def assert_problem(response, status, code):
    assert response.status_code == status, response.get_json()
    assert response.mimetype == PROBLEM
    body = response.get_json()
    assert body["code"] == code, body
    assert body["status"] == status
    assert body["title"] and body["detail"] and body["type"]
    return body


def play_to_end(client, match_id, tokens, choose=lambda actions: actions[0], max_actions=5000):
    """Drive a match of remote seats (and bots) to its end through the API only."""
    for _ in range(max_actions):
        spectator = view(client, match_id)
        if spectator["status"] == "ended":
            return spectator
        turn = spectator["turn"]
        assert turn in tokens, f"seat {turn} to move has no token"
        seat_view = view(client, match_id, tokens[turn])
        act(client, match_id, tokens[turn], choose(seat_view["legal_actions"]))
    raise AssertionError("match did not end")


NUMBER_LISTS = {"scores", "hand_counts", "drawn", "pips", "sides", "open_seats", "totals", "round_pips", "winners"}


def tiles_in(body, skip=()) -> set[tuple[int, int]]:
    """Every [a, b] pair of small integers anywhere in a JSON body (candidate tiles),
    except under keys that hold plain numbers per seat (scores, counts) and ``skip``."""
    found = set()

    def walk(node):
        if isinstance(node, list):
            if len(node) == 2 and all(
                isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= LARGEST_PIP for v in node
            ):
                found.add((max(node), min(node)))
            for item in node:
                walk(item)
        elif isinstance(node, dict):
            for key, value in node.items():
                if key not in NUMBER_LISTS and key not in skip:
                    walk(value)

    walk(json.loads(body) if isinstance(body, (str, bytes)) else body)
    return found


def seq_of(client, match_id):
    """The match's current seq, from its public summary."""
    return client.get(f"/v1/matches/{match_id}").get_json()["seq"]


def whole_audit(client, match_id, limit=None):
    """The whole audit document of an ended match, its pages put together (as clients do)."""
    query = f"?limit={limit}" if limit else ""
    response = client.get(f"/v1/matches/{match_id}/audit{query}")
    assert response.status_code == 200, response.get_json()
    audit = response.get_json()
    while audit["next_after"] is not None:
        page = client.get(
            f"/v1/matches/{match_id}/audit?after={audit['next_after']}" + (f"&limit={limit}" if limit else "")
        ).get_json()
        assert {k: v for k, v in page.items() if k not in ("events", "next_after")} == {
            k: v for k, v in audit.items() if k not in ("events", "next_after")
        }
        audit["events"] += page["events"]
        audit["next_after"] = page["next_after"]
    del audit["next_after"]
    return audit


def play_bots(client) -> int:
    """Play every computer move owed now, as the autoplay runner (``flask boneyard autoplay``)
    would; answers the events appended. All-bot matches end only through this in tests."""
    from api.services.autoplay import Autoplay

    return Autoplay(client.application.extensions["boneyard.bus"], step_moves=50).drain()


def create_played(client, seats, **kwargs):
    """Create an all-bot match and let the runner play it to its end; answers the creation."""
    created = create(client, seats, **kwargs)
    play_bots(client)
    return created


def new_portal(app, name="arcade", create_limit=None) -> str:
    """Make a portal as its operator would (the use case behind ``flask boneyard portal create``);
    answers its key."""
    from api.http.callers import BUS_KEY
    from api.services.commands import CreatePortal

    with app.app_context():
        return app.extensions[BUS_KEY].handle(CreatePortal(name, create_limit))["key"]


def portal_client(app, key):
    """A test client that sends the portal's key with every request."""
    client = app.test_client()
    client.environ_base["HTTP_X_API_KEY"] = key
    return client
