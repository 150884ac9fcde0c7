"""Write the upgrade fixture of this release: ``scripts/write-upgrade-fixture`` (or
``python -m tests.upgrade.write_fixture``), run on the release that a later one upgrades from.

1. Populate a fresh SQLite database through the public API of this release's app (its test
   client; portals and webhook deliveries through the operator's ``flask boneyard`` commands):
   matches of every preset waiting for an open seat, playing and ended; all-bot ones; clocked
   ones with a turn timed out (and a seat handed to a bot); a rematch with reserved seats;
   rated matches of portal players, so ratings, histories and statistics; two portals, one
   key revoked; player tokens, one revoked; seeks waiting, paired and canceled; challenges
   pending, started, declined and canceled; webhook deliveries delivered, failed and pending;
   idempotency keys; stored fairness reports.
2. Dump every row (``tests/upgrade/rows.py``) with the alembic revision, every stored time
   moved so that the earliest is ``EPOCH``: the reads below then never depend on the day the
   test runs (nothing in the fixture expires, falls due or counts as abandoned before then).
3. Load that dump into a second database at the same revision, start a fresh app on it, and
   record every read the upgrade test repeats: each match's summary, spectator's and seats'
   views, audit and fairness; portals, keys, webhooks and deliveries; players' tokens,
   statistics, ratings, histories and event streams; leaderboards; seeks; challenges; the
   replay of each stored idempotency key. The secrets those reads need (seat tokens, portal
   keys, player tokens, seek secrets) are kept in the fixture; so are the handles the test
   plays on with.

It runs on the release itself, so it may reach past the API where the API tests do: the match
flow's clock (``boneyard.bus``'s ``flow.now``) is moved a few seconds on so that turn clocks run
out without waiting, and the autoplay runner's work is drained at once (``tests.api.helpers.play_bots``).
The upgrade test itself uses only the API.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

os.environ.setdefault("BOT_REPLY_FLOOR_MS", "")  # no padding of the bots' replies: the fixture is data

from api import create_app
from api.store import make_engine, upgrade
from tests.api.helpers import play_bots
from tests.upgrade import rows
from tests.webhook_receiver import running_receiver

HERE = Path(__file__).resolve().parent
FIXTURE = HERE / "fixture"
DATABASE_FILE = FIXTURE / "database.json"
READS_FILE = FIXTURE / "reads.json"

#: Tables the fixture may leave empty: their rows live only while something is under way.
TRANSIENT_TABLES = frozenset({"waiter_slots"})  # an open long-poll's or stream's slot
#: Where the fixture's earliest stored time is put: after any day the test will run on.
EPOCH = datetime(2100, 1, 1, tzinfo=UTC)
#: Short matches, one hand each: the fixture stays small, and every state is there all the same.
SHORT = {"target": 1}
#: What the webhook is sent: every kind but ``turn.started`` (one a turn would be most of the fixture).
EVENTS = ["match.created", "match.started", "hand.ended", "match.ended", "seat.timed_out"]
CONFIG = {
    "TESTING": True,
    "RATELIMIT_ENABLED": False,
    "AUTOPLAY_PACE_SECONDS": 0,
    "WEBHOOK_ALLOW_PRIVATE_ADDRESSES": True,
    "WEBHOOK_MAX_ATTEMPTS": 1,  # the first refused delivery is given up: a `failed` one
}


def auth(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


class Writer:
    """Drives one app through its API and remembers the secrets and ids it was answered."""

    def __init__(self, app: Any):
        self.app = app
        self.client = app.test_client()
        self.runner = app.test_cli_runner()
        self.matches: list[dict[str, Any]] = []  # {id, label, tokens: {seat: token}}
        self.keys: dict[str, str] = {}  # portal name -> a live key
        self.players: dict[str, str] = {}  # player ref (of arcade) -> a live player token
        self.seeks: list[dict[str, Any]] = []  # {id, token}
        self.challenges: list[dict[str, Any]] = []  # {id, token}
        self.idempotent: list[dict[str, Any]] = []  # requests sent with an Idempotency-Key
        self.handles: dict[str, Any] = {}

    # --- plumbing -----------------------------------------------------------------------------
    def call(self, method: str, path: str, *, token=None, key=None, body=None, headers=None, status=None) -> Any:
        sent = {**auth(token), **({"X-API-Key": key} if key else {}), **(headers or {})}
        response = self.client.open(path, method=method, json=body, headers=sent)
        wanted = status or {"POST": (200, 201, 202), "DELETE": (200, 204)}.get(method, (200,))
        wanted = wanted if isinstance(wanted, tuple) else (wanted,)
        assert response.status_code in wanted, (method, path, response.status_code, response.get_json())
        return response.get_json(silent=True)

    def command(self, *args: str) -> str:
        result = self.runner.invoke(args=["boneyard", *args])
        assert result.exit_code == 0, (args, result.output)
        return result.output

    def create(self, label: str, seats: list[dict], *, preset="standard-draw", rules=None, key=None, rated=False):
        body: dict[str, Any] = {"preset": preset, "seats": seats, "rules": {**SHORT, **(rules or {})}}
        if rated:
            body["rated"] = True
        created = self.call("POST", "/v1/matches", key=key, body=body)
        match = {
            "id": created["id"],
            "label": label,
            "tokens": {str(s["seat"]): s["token"] for s in created["seats"] if "token" in s},
        }
        self.matches.append(match)
        return match

    def spectate(self, match: dict) -> dict:
        return self.call("GET", f"/v1/matches/{match['id']}/view")

    def move(self, match: dict, times: int = 1) -> None:
        """The seat to move plays its first legal action, ``times`` times (bots reply inline)."""
        for _ in range(times):
            if self.spectate(match)["status"] != "playing":
                return
            self.call("POST", **self.next_action(match))

    def next_action(self, match: dict, **headers: str) -> dict[str, Any]:
        """The request of the seat to move's first legal action."""
        token = match["tokens"][str(self.spectate(match)["turn"])]
        action = self.call("GET", f"/v1/matches/{match['id']}/view", token=token)["legal_actions"][0]
        return {"path": f"/v1/matches/{match['id']}/actions", "token": token, "body": action, "headers": headers}

    def move_idempotently(self, match: dict, key: str) -> None:
        """One move sent with an ``Idempotency-Key``: its stored answer is a read to replay."""
        request = self.next_action(match, **{"Idempotency-Key": key})
        self.call("POST", **request)
        self.idempotent.append({"method": "POST", **request})

    def play_out(self, match: dict) -> None:
        for _ in range(2000):
            if self.spectate(match)["status"] == "ended":
                return
            self.move(match)
        raise AssertionError(f"{match['label']} did not end")

    # --- what the fixture holds -----------------------------------------------------------------
    def presets(self) -> None:
        """Every preset waiting for an open seat, playing (two remote seats and a few moves) and
        ended (a remote seat against bots), at 2, 3 and 4 players in turn."""
        answer = self.call("GET", "/v1/presets")
        for number, preset in enumerate(answer["presets"]):
            players = preset["players"][number % len(preset["players"])]
            bots = [{"name": f"Bot{i}", "type": "bot", "level": ("greedy", "random")[i % 2]} for i in range(players)]
            ana, ben = {"name": "Ana", "type": "remote"}, {"name": "Ben", "type": "remote"}
            self.create(
                f"{preset['name']} waiting",
                [ana, {"name": "Seat", "type": "open"}, *bots[2:players]],
                preset=preset["name"],
            )
            playing = self.create(f"{preset['name']} playing", [ana, ben, *bots[2:players]], preset=preset["name"])
            self.move(playing, 3)
            ended = self.create(f"{preset['name']} ended", [ana, *bots[1:players]], preset=preset["name"])
            self.play_out(ended)
        playing, waiting = self.by_label("standard-draw playing"), self.by_label("standard-draw waiting")
        self.handles["playing"] = {"id": playing["id"], "tokens": playing["tokens"]}
        self.handles["waiting"] = {"id": waiting["id"], "open_seat": 1}

    def by_label(self, label: str) -> dict:
        (match,) = [m for m in self.matches if m["label"] == label]
        return match

    def public_extras(self) -> None:
        """A rematch with its seats reserved, the smarter bots at a table, an idempotent action,
        stored fairness reports, and turn clocks that ran out."""
        pair = self.create("rematched", [{"name": "Ana", "type": "remote"}, {"name": "Ben", "type": "remote"}])
        self.play_out(pair)
        rematch = self.call("POST", f"/v1/matches/{pair['id']}/rematch", token=pair["tokens"]["0"])
        self.matches.append({"id": rematch["id"], "label": "rematch waiting", "tokens": {}})
        smart = self.create(
            "smarter bots playing",
            [
                {"name": "Ana", "type": "remote"},
                {"name": "Mid", "type": "bot", "level": "intermediate"},
                {"name": "Ace", "type": "bot", "level": "expert"},
            ],
            preset="standard-block",
        )
        self.move(smart, 2)
        self.move_idempotently(self.by_label("standard-draw playing"), "upgrade-fixture-1")
        for match in self.matches[::4]:
            if self.spectate(match)["status"] == "ended":
                self.call("GET", f"/v1/matches/{match['id']}/fairness")  # stored once computed
        # Clocks: Ana's turn runs out (the server plays it); in the other match her seat is
        # handed to a bot at the first timeout, and the bots finish the match.
        clock = {"turn_seconds": 5}
        timed = self.create("clocked timed out", [{"name": "Ana", "type": "remote"}, *self.bots(1)], rules=clock)
        replaced = self.create(
            "clocked seat replaced",
            [{"name": "Ana", "type": "remote"}, *self.bots(1)],
            rules={**clock, "timeout_limit": 1},
        )
        for match in (timed, replaced):
            while self.spectate(match)["turn"] != 0:
                self.move(match)  # only Ana has a token; the bot replies inline
        flow = self.app.extensions["boneyard.bus"].flow
        real_now = flow.now
        flow.now = lambda: real_now() + timedelta(seconds=10)
        assert "timed out 2 turns" in self.command("sweep")
        flow.now = real_now
        play_bots(self.client)
        self.create("clocked playing", [{"name": "Ana", "type": "remote"}, *self.bots(1)], rules=clock)
        all_bots = self.create("all-bot ended", self.bots(3), preset="all-fives")
        play_bots(self.client)
        assert self.spectate(all_bots)["status"] == "ended"
        self.create("all-bot playing", self.bots(2), preset="muggins")  # owed moves; the runner is not run again

    @staticmethod
    def bots(count: int) -> list[dict]:
        return [{"name": f"Bot{i}", "type": "bot", "level": "greedy"} for i in range(count)]

    def portals(self, receiver_url: str) -> None:
        """Two portals (one with a revoked key and a webhook), player tokens, rated matches."""
        for name in ("arcade", "club"):
            made = self.command("portal", "create", name)
            self.keys[name] = re.search(r"key \S+: (\S+)", made).group(1)
        second = self.call("POST", "/v1/portal/keys", key=self.keys["arcade"])
        self.call("DELETE", f"/v1/portal/keys/{second['key_id']}", key=self.keys["arcade"])
        arcade = self.keys["arcade"]
        self.webhook = self.call(
            "POST", "/v1/portal/webhooks", key=arcade, body={"url": receiver_url, "events": EVENTS}
        )
        for ref in ("ana", "ben", "cy", "dee", "eve", "fay"):
            self.players[ref] = self.call("POST", f"/v1/portal/players/{ref}/tokens", key=arcade)["token"]
        spare = self.call("POST", "/v1/portal/players/ana/tokens", key=arcade)
        self.call("DELETE", f"/v1/portal/players/ana/tokens/{spare['token_id']}", key=arcade)
        # rated: draw and block families, and fives with a bot at the table; one still playing
        for preset, refs in (("standard-draw", "ana ben"), ("standard-block", "ana cy"), ("all-fives", "ben cy")):
            seats = [{"name": ref.title(), "type": "remote", "player_ref": ref} for ref in refs.split()]
            if preset == "all-fives":
                seats.append({"name": "Bot", "type": "bot", "level": "random"})
            self.play_out(self.create(f"rated {preset} ended", seats, preset=preset, key=arcade, rated=True))
        live = [
            {"name": "Ana", "type": "remote", "player_ref": "ana"},
            {"name": "Dee", "type": "remote", "player_ref": "dee"},
        ]
        self.move(self.create("rated playing", live, key=arcade, rated=True), 2)
        club = [{"name": "Zed", "type": "remote", "player_ref": "zed"}, *self.bots(1)]
        self.play_out(self.create("club ended", club, key=self.keys["club"]))

    def matchmaking(self) -> None:
        """Seeks waiting (a portal player's and an anonymous one), paired and canceled;
        challenges pending, started, declined and canceled."""
        players = self.players
        block = {"preset": "standard-block", "players": 2, "rules": SHORT}
        first = self.call("POST", "/v1/seeks", token=players["ana"], body=block)
        paired = self.call("POST", "/v1/seeks", token=players["ben"], body=block)
        assert paired["status"] == "paired", paired
        seekers = [(f"/v1/seeks/{first['id']}", players["ana"]), (f"/v1/seeks/{paired['id']}", players["ben"])]
        self.matches.append({"id": paired["match_id"], "label": "seek paired", "tokens": self.seated(seekers)})
        canceled = self.call("POST", "/v1/seeks", token=players["fay"], body={"preset": "pagat-draw"})
        self.call("DELETE", f"/v1/seeks/{canceled['id']}", token=players["fay"])
        wanted = {"preset": "standard-draw", "players": 2, "ttl_seconds": 3600}
        waiting = self.call("POST", "/v1/seeks", token=players["dee"], body=wanted)
        anonymous = self.call("POST", "/v1/seeks", body={"preset": "muggins", "ttl_seconds": 3600})
        self.seeks += [
            {"id": first["id"], "token": players["ana"]},
            {"id": paired["id"], "token": players["ben"]},
            {"id": canceled["id"], "token": players["fay"]},
            {"id": waiting["id"], "token": players["dee"]},
            {"id": anonymous["id"], "token": anonymous["secret"]},
        ]
        self.handles["waiting_seek"] = {
            "id": waiting["id"],
            "token": players["dee"],
            "body": wanted,
            "pair_with": players["eve"],  # a player of the same portal with no seek of its own
        }

        def challenge(by: str, opponents: list[str]) -> dict:
            made = self.call("POST", "/v1/challenges", token=players[by], body={"opponents": opponents})
            self.challenges += [{"id": made["id"], "token": players[ref]} for ref in (by, *opponents)]
            return made

        started = challenge("ana", ["ben"])
        done = self.call("POST", f"/v1/challenges/{started['id']}/accept", token=players["ben"])
        both = [(f"/v1/challenges/{started['id']}", players[ref]) for ref in ("ana", "ben")]
        self.matches.append({"id": done["match_id"], "label": "challenge started", "tokens": self.seated(both)})
        declined = challenge("ana", ["cy"])
        self.call("POST", f"/v1/challenges/{declined['id']}/decline", token=players["cy"])
        canceled_challenge = challenge("ben", ["ana"])
        self.call("POST", f"/v1/challenges/{canceled_challenge['id']}/cancel", token=players["ben"])
        challenge("cy", ["dee", "eve"])

    def seated(self, reads: list[tuple[str, str]]) -> dict[str, str]:
        """Each player's seat token, from its paired seek or started challenge (``(path, token)``)."""
        answers = [self.call("GET", path, token=token) for path, token in reads]
        return {str(answer["seat"]): answer["token"] for answer in answers}

    def deliveries(self) -> None:
        """Send what the webhook has so far: the first is refused (503, given up: `failed`), the
        rest delivered; the failed one is replayed (pending again); a match made afterwards has
        its `match.created` pending, never attempted."""
        assert "attempted" in self.command("webhooks", "deliver", "--once")
        base = f"/v1/portal/webhooks/{self.webhook['id']}"
        page = self.call("GET", f"{base}/deliveries?limit=100", key=self.keys["arcade"])
        (failed,) = [d for d in page["items"] if d["status"] == "failed"]
        self.call("POST", f"{base}/deliveries/{failed['id']}/replay", key=self.keys["arcade"])
        self.handles["webhook"] = {"id": self.webhook["id"], "delivery": failed["id"], "key": self.keys["arcade"]}
        ana = {"name": "Ana", "type": "remote", "player_ref": "ana"}
        self.create("portal waiting", [ana, {"name": "Seat", "type": "open"}], key=self.keys["arcade"])


def populate(url: str) -> Writer:
    """The release's database, filled through its API (the receiver refuses the first delivery)."""
    app = create_app({**CONFIG, "DATABASE_URL": url})
    writer = Writer(app)
    with running_receiver(503) as receiver:
        writer.portals(receiver.url)
        writer.presets()
        writer.public_extras()
        writer.matchmaking()
        writer.deliveries()
    writer.call("GET", "/healthz")  # the readiness probe's row
    app.extensions["boneyard.store"].dispose()
    # Rate-limit counters: one request counted by an app with the limits on (the default storage,
    # the database). ``waiter_slots`` stays empty: a row lives only while a wait is open.
    limited = create_app({**CONFIG, "DATABASE_URL": url, "RATELIMIT_ENABLED": True})
    assert limited.test_client().get(f"/v1/matches/{writer.handles['playing']['id']}/audit").status_code == 409
    limited.extensions["boneyard.store"].dispose()
    return writer


def requests_to_record(writer: Writer) -> list[dict[str, Any]]:
    """Every read the upgrade test repeats, as ``{method, path, token?, key?, body?, headers?}``."""
    out: list[dict[str, Any]] = []

    def get(path: str, token: str | None = None, key: str | None = None) -> None:
        out.append({"method": "GET", "path": path, "token": token, "key": key})

    for match in writer.matches:
        base = f"/v1/matches/{match['id']}"
        get(base)
        get(f"{base}/view")
        for token in match["tokens"].values():
            get(f"{base}/view", token=token)
        get(f"{base}/audit?limit=5000")
        get(f"{base}/fairness")
    get("/v1/matches?limit=100")
    get("/v1/ratings/bots")
    for name, key in writer.keys.items():
        get("/v1/portal", key=key)
        get("/v1/matches?limit=100", key=key)
        get("/v1/portal/webhooks", key=key)
        for family in ("draw", "block", "fives"):
            get(f"/v1/leaderboards/{family}", key=key)
        for ref in ("ana", "ben", "cy", "dee", "zed") if name == "arcade" else ("zed",):
            get(f"/v1/players/{ref}/stats", key=key)
            get(f"/v1/players/{ref}/ratings", key=key)
            get(f"/v1/portal/players/{ref}/tokens", key=key)
            get(f"/v1/matches?player_ref={ref}&limit=100", key=key)
            for family in ("draw", "block", "fives"):
                get(f"/v1/players/{ref}/history?family={family}", key=key)
    hook = f"/v1/portal/webhooks/{writer.webhook['id']}"
    get(hook, key=writer.keys["arcade"])
    get(f"{hook}/deliveries?limit=100", key=writer.keys["arcade"])
    for token in writer.players.values():
        get("/v1/me/events?after=0", token=token)
    for seek in writer.seeks:
        get(f"/v1/seeks/{seek['id']}", token=seek["token"])
    for challenge in writer.challenges:
        get(f"/v1/challenges/{challenge['id']}", token=challenge["token"])
    out += writer.idempotent  # the stored answer, replayed
    return out


def record(url: str, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each request with the status and JSON body a fresh app on ``url`` answers."""
    app = create_app({**CONFIG, "DATABASE_URL": url})
    client = app.test_client()
    recorded = []
    for request in requests:
        answer = send(client, request)
        recorded.append({**request, "status": answer.status_code, "answer": answer.get_json(silent=True)})
    app.extensions["boneyard.store"].dispose()
    return recorded


def send(client: Any, request: dict[str, Any]) -> Any:
    """One recorded request, sent as it was (the upgrade test sends them through this too)."""
    headers = {**auth(request.get("token")), **(request.get("headers") or {})}
    if request.get("key"):
        headers["X-API-Key"] = request["key"]
    return client.open(request["path"], method=request["method"], json=request.get("body"), headers=headers)


def commit() -> str:
    """The commit the fixture was written on (``-dirty``: with changes not committed)."""
    try:
        return subprocess.run(
            ["git", "describe", "--always", "--dirty", "--abbrev=40"],
            cwd=HERE,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def load_into(url: str, dumped: dict[str, Any]) -> str:
    """A new database at the dump's revision holding its rows; answers its URL."""
    engine = make_engine(url)
    upgrade(engine, dumped["revision"])
    rows.load(engine, dumped)
    engine.dispose()
    return url


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        populated_url = f"sqlite:///{tmp}/populated.db"
        writer = populate(populated_url)
        engine = make_engine(populated_url)
        dumped = rows.dump(engine)
        engine.dispose()
        dumped = rows.shift_times(dumped, EPOCH - rows.earliest_time(dumped))
        requests = requests_to_record(writer)
        reads, again = (record(load_into(f"sqlite:///{tmp}/loaded{n}.db", dumped), requests) for n in (1, 2))
        varying = [read["path"] for read, other in zip(reads, again) if read != other]
        assert not varying, f"reads that differ between two loads of one dump (not a fixture's to keep): {varying}"
    FIXTURE.mkdir(exist_ok=True)
    database = {"written_at_commit": commit(), **dumped}
    DATABASE_FILE.write_text(dump_json(database), encoding="utf-8")
    READS_FILE.write_text(dump_json({"continue": writer.handles, "reads": reads}), encoding="utf-8")
    count = sum(len(table["rows"]) for table in dumped["tables"].values())
    print(f"wrote {DATABASE_FILE.relative_to(HERE.parents[1])} ({count} rows at revision {dumped['revision']})")
    print(f"wrote {READS_FILE.relative_to(HERE.parents[1])} ({len(reads)} reads of {len(writer.matches)} matches)")
    return 0


def dump_json(value: Any) -> str:
    """Compact JSON, one table or read per line: small, and a regenerated fixture diffs by line."""
    if "tables" in value:
        tables = ",\n".join(
            f"{json.dumps(name)}: {json.dumps(table, separators=(',', ':'), sort_keys=True)}"
            for name, table in value["tables"].items()
        )
        head = {k: v for k, v in value.items() if k != "tables"}
        return json.dumps(head, sort_keys=True)[:-1] + ', "tables": {\n' + tables + "\n}}\n"
    reads = ",\n".join(json.dumps(read, separators=(",", ":"), sort_keys=True) for read in value["reads"])
    return '{"continue": ' + json.dumps(value["continue"], sort_keys=True) + ', "reads": [\n' + reads + "\n]}\n"


if __name__ == "__main__":
    sys.exit(main())
