"""Upgrades lose nothing: a database written by the release before, upgraded to ``head`` by alembic,
reads as it did then, and play goes on.

The fixture (``tests/upgrade/fixture/``, written by ``scripts/write-upgrade-fixture`` on that
release) holds every row of its database at its alembic revision and the answers its API gave
to some 300 reads. Here an empty database (SQLite, and PostgreSQL in the database pass) is
migrated to the fixture's revision, given those rows, upgraded to ``head`` with alembic's own
``upgrade`` command, and served by today's app: every recorded read must answer the same
status and the same value in every recorded field (a field that ``head`` adds is allowed:
docs/versioning.md, additive changes only). Then play continues on it: a move on a live match
(played to its end and verified), a claim of an open seat, a seek paired with one that waited
through the upgrade, a webhook delivery attempted again.

When the fixture's revision is ``head`` the upgrade is a no-op and everything else still runs.
Only the public API is used (HTTP through the test client, ``flask boneyard`` commands,
``api.create_app`` and ``api.store``), so the test outlives refactors of what is behind it.
"""

from __future__ import annotations

import json
from typing import Any

from alembic.script import ScriptDirectory

from api import create_app
from api.store import make_engine, upgrade
from api.store.migrate import alembic_config
from tests.upgrade import rows
from tests.upgrade.write_fixture import CONFIG, DATABASE_FILE, READS_FILE, TRANSIENT_TABLES, auth, send

#: Differences shown when reads do not match (the count of the rest follows).
SHOWN = 40


#: Reads whose lists may gain items at their end, as a new key is allowed: what the server offers,
#: not what the database holds (``GET /v1/ratings/bots`` gains a new rules family's rows).
GROWING = {"GET /v1/ratings/bots"}


def differences(recorded: Any, now: Any, where: str = "", growing: bool = False) -> list[str]:
    """Where ``now`` differs from ``recorded``, field by field: each recorded key must be there
    with the same value (a new key is allowed), each list must hold the same items in order
    (with ``growing``, more may follow them: items added, none changed)."""
    if isinstance(recorded, dict) and isinstance(now, dict):
        found = []
        for key, value in recorded.items():
            if key not in now:
                found.append(f"{where}.{key}: gone (was {short(value)})")
            else:
                found += differences(value, now[key], f"{where}.{key}", growing)
        return found
    if isinstance(recorded, list) and isinstance(now, list):
        grew = growing and len(now) > len(recorded)
        found = (
            [f"{where}: {len(recorded)} items before, {len(now)} now"] if len(recorded) != len(now) and not grew else []
        )
        for index, (before, after) in enumerate(zip(recorded, now)):
            found += differences(before, after, f"{where}[{index}]", growing)
        return found
    if recorded != now or type(recorded) is not type(now):
        return [f"{where or '.'}: was {short(recorded)}, now {short(now)}"]
    return []


def same_rows(dumped: dict[str, Any], expected: dict[str, Any]) -> bool:
    """Whether two dumps hold the same tables, columns and rows (rows in any order: the
    databases' collations may sort a primary key differently)."""

    def rows_of(dump: dict[str, Any]) -> dict[str, Any]:
        return {
            name: (table["columns"], sorted(table["rows"], key=lambda row: json.dumps(row, sort_keys=True)))
            for name, table in dump["tables"].items()
        }

    return rows_of(dumped) == rows_of(expected)


def short(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 120 else text[:117] + "..."


def test_the_fixture_fills_every_table_but_the_transient_ones():
    """A table that a later release adds must be filled by the writer before the fixture is
    written again (else its rows would never be upgraded here)."""
    database = json.loads(DATABASE_FILE.read_text(encoding="utf-8"))
    empty = {name for name, table in database["tables"].items() if not table["rows"]}
    assert empty == set(TRANSIENT_TABLES)


def test_the_fixture_stays_small():
    assert DATABASE_FILE.stat().st_size + READS_FILE.stat().st_size < 1_000_000


def test_a_database_of_the_release_before_upgrades_to_head_and_reads_and_plays_as_before(empty_database_url):
    database = json.loads(DATABASE_FILE.read_text(encoding="utf-8"))
    fixture = json.loads(READS_FILE.read_text(encoding="utf-8"))
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()

    engine = make_engine(empty_database_url)
    try:
        upgrade(engine, database["revision"])
        assert rows.load(engine, database) == sum(len(t["rows"]) for t in database["tables"].values())
        assert same_rows(rows.dump(engine), database)  # the loading itself lost nothing, on either database
        upgrade(engine, "head")  # alembic's own command, as `flask boneyard migrate` runs it
        with engine.connect() as connection:
            assert rows.revision_of(connection) == head
    finally:
        engine.dispose()

    app = create_app({**CONFIG, "DATABASE_URL": empty_database_url})
    client = app.test_client()
    try:
        found: list[str] = []
        for read in fixture["reads"]:
            answer = send(client, read)
            label = f"{read['method']} {read['path']}"
            if answer.status_code != read["status"]:
                found.append(f"{label}: status {read['status']} before, {answer.status_code} now")
            now = answer.get_json(silent=True)
            found += [f"{label}: {line}" for line in differences(read["answer"], now, growing=label in GROWING)]
        assert not found, (
            f"{len(found)} differences after upgrading {database['revision']} -> {head}:\n"
            + "\n".join(found[:SHOWN])
            + (f"\n... and {len(found) - SHOWN} more" if len(found) > SHOWN else "")
        )
        play_on(app, client, fixture["continue"])
    finally:
        app.extensions["boneyard.store"].dispose()


def play_on(app: Any, client: Any, handles: dict[str, Any]) -> None:
    """The upgraded server keeps playing: a move, a claim, a pairing and a delivery, each on
    something the fixture left waiting."""
    # A live match moves, and its log (old events and new) verifies at its end.
    playing = handles["playing"]
    base = f"/v1/matches/{playing['id']}"
    seq_before = client.get(base).get_json()["seq"]
    for _ in range(500):
        spectator = client.get(f"{base}/view").get_json()
        if spectator["status"] == "ended":
            break
        token = playing["tokens"][str(spectator["turn"])]
        action = client.get(f"{base}/view", headers=auth(token)).get_json()["legal_actions"][0]
        moved = client.post(f"{base}/actions", json=action, headers=auth(token))
        assert moved.status_code == 200, moved.get_json()
    assert spectator["status"] == "ended" and spectator["seq"] > seq_before
    fairness = client.get(f"{base}/fairness").get_json()
    assert (fairness["problems"], fairness["chain_ok"], fairness["commitment_ok"]) == ([], True, True)

    # An open seat is claimed, and the first hand is dealt.
    waiting = handles["waiting"]
    claimed = client.post(f"/v1/matches/{waiting['id']}/seats/{waiting['open_seat']}/claim", json={"name": "Late"})
    assert claimed.status_code == 200, claimed.get_json()
    seat_view = client.get(f"/v1/matches/{waiting['id']}/view", headers=auth(claimed.get_json()["token"])).get_json()
    assert (seat_view["status"], seat_view["seat"]) == ("playing", waiting["open_seat"])

    # A seek that waited through the upgrade is paired with a new one.
    seek = handles["waiting_seek"]
    paired = client.post("/v1/seeks", json=seek["body"], headers=auth(seek["pair_with"])).get_json()
    assert paired["status"] == "paired", paired
    mine = client.get(f"/v1/seeks/{seek['id']}", headers=auth(seek["token"])).get_json()
    assert (mine["status"], mine["match_id"]) == ("paired", paired["match_id"])
    their_view = client.get(f"/v1/matches/{mine['match_id']}/view", headers=auth(mine["token"])).get_json()
    assert their_view["seat"] == mine["seat"]

    # A stored webhook delivery is replayed and attempted once more (its endpoint is long gone:
    # the attempt is logged all the same).
    hook = handles["webhook"]
    deliveries = f"/v1/portal/webhooks/{hook['id']}/deliveries"

    def attempts() -> int:
        page = client.get(f"{deliveries}?limit=100", headers={"X-API-Key": hook["key"]}).get_json()
        (delivery,) = [d for d in page["items"] if d["id"] == hook["delivery"]]
        assert delivery["attempts"] == len(delivery["log"])
        return delivery["attempts"]

    before = attempts()
    replayed = client.post(f"{deliveries}/{hook['delivery']}/replay", headers={"X-API-Key": hook["key"]})
    assert replayed.status_code == 202, replayed.get_json()
    sent = app.test_cli_runner().invoke(args=["boneyard", "webhooks", "deliver", "--once"])
    assert sent.exit_code == 0 and "attempted" in sent.output, sent.output
    assert attempts() == before + 1
