"""Bots over real HTTP: the reference client (clients/python) against the real server.

The server is gunicorn as deployed (``gunicorn -c gunicorn.conf.py wsgi:app``, two
workers, so consecutive requests of one bot land on different processes and their
snapshot caches) on a free loopback port, one for the module. Its database is the
module's (``module_database_url``: the test database when that is PostgreSQL, else a SQLite
file of its own). The tests are marked ``serving``, so the ``scripts/test`` PostgreSQL pass
leaves them out (see ``pytestmark`` below).
Fixtures live here, not in conftest.py: the browser tests in this folder have their own.

Every finished match is checked the way a stranger would: ``/audit`` replayed by the
engine gives the scores every client saw, and ``/fairness`` verifies the log.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from api.rules import event_from_dict, replay
from tests.servers import running_gunicorn

ROOT = Path(__file__).resolve().parents[2]
CLIENT_DIR = ROOT / "clients" / "python"
sys.path.insert(0, str(CLIENT_DIR))

from boneyard_client import (  # noqa: E402  (found through the sys.path line above)
    BoneyardClient,
    Bot,
    InvalidToken,
    UnknownMatch,
    WrongMatch,
    first_legal,
    heaviest,
    seeded_random,
)

# database: the module's server serves the test database (through a module fixture, which
# collection does not see). serving: what these tests check is the reference clients (and the
# curl loop) speaking HTTP to the deployed server, the same on every database; what the database
# does under them (a stale view's 412, an idempotent replay, the errors they raise, the match
# played to its end) the API tests check on both, and test_idempotency_crash.py and
# test_matchmaking_http.py over gunicorn's workers, so the PostgreSQL pass leaves them out.
pytestmark = [pytest.mark.database, pytest.mark.serving]

STARTUP_SECONDS = 30
MATCH_SECONDS = 60  # a bound on one bot's whole match, so a hang fails instead of stalling


@pytest.fixture(scope="module")
def server(module_database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Base URL of a real gunicorn serving Boneyard; stopped after this module."""
    log_path = tmp_path_factory.mktemp("http-bots-log") / "gunicorn.log"
    # Limits stay on (their code path is part of the deployed server) but far above what
    # two bots playing flat out send in a minute.
    with running_gunicorn(
        module_database_url,
        log_path,
        startup_seconds=STARTUP_SECONDS,
        AUTO_MIGRATE="0",
        WEB_CONCURRENCY="2",
        GUNICORN_THREADS="4",
        RATE_LIMIT_ACTIONS_PER_TOKEN="100000 per minute",
        RATE_LIMIT_ACTIONS_PER_ADDRESS="100000 per minute",
        RATE_LIMIT_CREATE="10000 per minute",
    ) as (base, _log):
        yield base


def client_for(server: str) -> BoneyardClient:
    # Each bot gets its own client (its own connection pool), as separate programs would.
    return BoneyardClient(server, retries=2)


@pytest.fixture
def api_client(server: str) -> Iterator[BoneyardClient]:
    """A client of the server (named so as not to shadow conftest's Flask test ``client``)."""
    client = client_for(server)
    yield client
    client.session.close()


def assert_verified_end(client: BoneyardClient, match_id: str, finals: list[dict]) -> None:
    """Every final view shows the end that the audit log replays to, and the log verifies: it
    passes through every chain head the client pinned in play (``audit`` checks), the last one too."""
    audit = client.audit(match_id)
    assert max(client.pinned_heads.heads(match_id)) == audit["seq"]
    events = [event_from_dict({k: v for k, v in e.items() if k != "seq"}) for e in audit["events"]]
    assert events[-1].type == "match_ended"
    state = replay(events)
    for final in finals:
        assert final["status"] == "ended"
        assert final["scores"] == state.scores
        assert final["winner"] == state.winner
        assert final["seq"] == audit["seq"]
    fairness = client.fairness(match_id)
    assert fairness["verified"] is True, fairness
    assert fairness["problems"] == []
    assert fairness["deals_checked"] >= 1 and fairness["moves_checked"] >= 1
    assert client.summary(match_id)["status"] == "ended"


def test_two_reference_clients_play_a_whole_match_against_each_other_over_http(server, api_client):
    client = api_client
    # Seat 1 is open: the second client joins by claiming it, as a stranger would.
    creator, created = Bot.create(
        client,
        [{"name": "heavy", "type": "remote"}, {"name": "open", "type": "open"}],
        heaviest,
        rules={"target": 50},
        max_wait=MATCH_SECONDS,
    )
    assert created["status"] == "waiting" and created["open_seats"] == [1]
    joiner = Bot.claim(client_for(server), created["id"], 1, "random", seeded_random(7), max_wait=MATCH_SECONDS)
    assert joiner.seat == 1 and joiner.last_view["status"] == "playing"

    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = [pool.submit(bot.play) for bot in (creator, joiner)]
        finals = [future.result(timeout=MATCH_SECONDS + 10) for future in futures]

    assert_verified_end(client, created["id"], finals)
    assert max(finals[0]["scores"]) >= created["rules"]["target"]
    # Both sides really played, and waiting costs bodiless 304s rather than full views. (How
    # many polls of the match found nothing new depends on timing: the server's gevent workers
    # often answer before the other bot's next poll, so the check is one poll of the ended match.)
    assert creator.actions_sent > 0 and joiner.actions_sent > 0
    seen = creator.not_modified
    assert creator.refresh() == finals[0] and creator.not_modified == seen + 1


def test_a_reference_client_plays_a_whole_match_against_the_servers_expert_bot(server, api_client):
    client = api_client
    bot, created = Bot.create(
        client,
        [{"name": "py", "type": "remote"}, {"name": "cpu", "type": "bot", "level": "expert"}],
        heaviest,
        preset="all-fives",
        max_wait=MATCH_SECONDS,
    )
    final = bot.play()
    assert_verified_end(client, created["id"], [final])
    assert final["winner"] in (0, 1) and final["scores"][final["winner"]] >= created["rules"]["target"]
    assert bot.actions_sent > 0 and bot.refetches == 0


def test_a_bot_whose_view_went_stale_refetches_and_still_plays_to_the_end(server, api_client):
    client = api_client
    bot, created = Bot.create(
        client,
        [{"name": "py", "type": "remote"}, {"name": "cpu", "type": "bot", "level": "greedy"}],
        first_legal,
        rules={"target": 50},
        max_wait=MATCH_SECONDS,
    )
    view = bot.wait_for_turn()
    # Someone else holding the same token moves first: the bot's ETag now names an old seq,
    # so its next post is refused 412 precondition_failed and must be re-decided.
    client.act(created["id"], bot.token, view["legal_actions"][0])
    final = bot.play()
    assert bot.refetches >= 1
    assert_verified_end(client, created["id"], [final])


def test_a_retried_action_with_the_same_idempotency_key_is_applied_once(server, api_client):
    client = api_client
    created = client.create_match([{"name": "py", "type": "remote"}, {"name": "cpu", "type": "bot"}])
    token = created["seats"][0]["token"]
    bot = Bot(client, created["id"], token)
    view = bot.wait_for_turn()
    action = view["legal_actions"][0]
    # The same post twice stands for a retry after a lost answer.
    first = client.act(created["id"], token, action, if_match=bot.etag, idempotency_key="move-1")
    again = client.act(created["id"], token, action, if_match=bot.etag, idempotency_key="move-1")
    assert again.headers.get("Idempotent-Replayed") == "true"
    assert again.json() == first.json()
    assert client.summary(created["id"])["seq"] == first.json()["seq"]


def test_a_bad_token_a_token_of_another_match_and_an_unknown_match_raise_clear_errors(server, api_client):
    client = api_client
    seats = [{"name": "py", "type": "remote"}, {"name": "cpu", "type": "bot"}]
    one, other = client.create_match(seats), client.create_match(seats)
    with pytest.raises(InvalidToken):
        Bot(client, one["id"], "not-a-token").play()
    with pytest.raises(WrongMatch):
        Bot(client, one["id"], other["seats"][0]["token"]).play()
    with pytest.raises(UnknownMatch):
        Bot(client, "no-such-match", one["seats"][0]["token"]).play()


def test_the_command_line_client_creates_a_match_against_a_bot_and_plays_it_out(server):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "boneyard_client",
            "--server",
            server,
            "--create",
            "--vs",
            "random",
            "--target",
            "50",
            "--strategy",
            "random",
            "--seed",
            "1",
        ],
        cwd=CLIENT_DIR,
        capture_output=True,
        text=True,
        check=False,
        timeout=MATCH_SECONDS,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == "ended" and result["fairness_verified"] is True
    assert result["heads_pinned"] > 1  # every one found in the revealed log, or it exits 1
    assert "--token" in done.stderr  # the resume hint names the token


def test_the_command_line_client_names_the_error_and_exits_1_on_an_unknown_match(server):
    done = subprocess.run(
        [sys.executable, "-m", "boneyard_client", "--server", server, "--match", "nope", "--token", "nope"],
        cwd=CLIENT_DIR,
        capture_output=True,
        text=True,
        check=False,
        timeout=MATCH_SECONDS,
    )
    assert done.returncode == 1
    assert "UnknownMatch: 404 unknown_match" in done.stderr


def test_the_readme_shows_the_curl_loop_exactly_as_shipped_in_examples():
    readme = (CLIENT_DIR / "README.md").read_text(encoding="utf-8")
    block = readme.split("```bash\n", 1)[1].split("```", 1)[0]
    assert block == (CLIENT_DIR / "examples" / "curl_bot.sh").read_text(encoding="utf-8")


# slow: a few seconds of process spawning that tests a shell script, not the database,
# so once per full run is enough.
@pytest.mark.slow
@pytest.mark.skipif(not (shutil.which("curl") and shutil.which("jq")), reason="needs curl and jq")
def test_the_curl_loop_plays_a_whole_match_against_the_expert_bot(server):
    done = subprocess.run(
        ["bash", str(CLIENT_DIR / "examples" / "curl_bot.sh")],
        capture_output=True,
        text=True,
        check=False,
        # Every move is a few curl and jq processes: a match to 30, not the preset's 100 (to 50
        # it took 7 to 16 s, by the deals).
        env={**os.environ, "BONEYARD_SERVER": server, "BONEYARD_RULES": '{"target": 30}'},
        timeout=MATCH_SECONDS,
    )
    assert done.returncode == 0, done.stderr
    result, fairness = (json.loads(line) for line in done.stdout.splitlines())
    assert fairness == {"verified": True}
    summary = client_for(server).summary(result["match_id"])
    assert summary["scores"] == result["scores"] and max(result["scores"]) >= 30
    assert summary["rules"]["target"] == 30
