"""A round robin of four computer players to its end over real HTTP: gunicorn serves the portal's
requests, the autoplay runner plays every match and its sweep pairs each round once the one before
has ended. Independent checks, through the public API only: every table's result and the
standings (match points, Buchholz, Sonneborn-Berger, win margin) recomputed from each match's own
audit log, every match's fairness report, and the tournament's own hash chain recomputed row by row."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from contextlib import ExitStack
from datetime import datetime, timedelta
from itertools import combinations

import pytest
import requests

from api.store.chain import GENESIS, row_hash
from tests.e2e.test_client_lobby_http import client_process, finished, player_token
from tests.e2e.test_portals_http import operator_portal
from tests.servers import running_autoplay, running_gunicorn, watching_changes

SETTINGS = {"WEB_CONCURRENCY": "2", "RATELIMIT_ENABLED": "false", "AUTOPLAY_PACE_SECONDS": "0"}
LEVELS = ["random", "greedy", "random", "greedy"]
TIMEOUT = 10  # a bound on a broken request, never a measure


def tournament_ended(changes, url: str, key: dict[str, str], within: float, what: str) -> dict:
    """The tournament once it has ended (waited for as the servers' logs change: no sleeps)."""

    def ended() -> dict | None:
        answer = requests.get(url, headers=key, timeout=TIMEOUT).json()
        return answer if answer["status"] == "ended" else None

    return changes.until(ended, within, what)


def started_with_random_teams(base: str, key: dict[str, str], body: dict, teams: int) -> str:
    """A tournament of ``body`` made, ``teams`` teams of two random computers entered, started: its URL."""
    made = requests.post(f"{base}/v1/tournaments", json=body, headers=key, timeout=TIMEOUT)
    assert made.status_code == 201, made.text
    url = f"{base}/v1/tournaments/{made.json()['id']}"
    for _ in range(teams):
        team = {"members": [{"level": "random"}, {"level": "random"}]}
        assert requests.post(f"{url}/entrants", json=team, headers=key, timeout=TIMEOUT).status_code == 201
    assert requests.post(f"{url}/start", headers=key, timeout=TIMEOUT).status_code == 200
    return url


def all_pages(base: str, path: str, headers: dict[str, str]) -> tuple[list[dict], dict]:
    """Every row of a paged log (``after`` / ``next_after``), and its last page."""
    rows: list[dict] = []
    after: int | None = 0
    page: dict = {}
    while after is not None:
        answer = requests.get(f"{base}{path}", params={"after": after}, headers=headers, timeout=TIMEOUT)
        assert answer.status_code == 200, answer.text
        page = answer.json()
        rows += page["events"]
        after = page["next_after"]
    return rows, page


def test_a_round_robin_of_four_bots_plays_to_its_end_and_its_standings_follow_from_the_matches(database_url, tmp_path):
    key = {"X-API-Key": operator_portal(database_url, "club-http")}
    with ExitStack() as stack:
        changes = stack.enter_context(watching_changes())
        base, _ = stack.enter_context(
            running_gunicorn(database_url, tmp_path / "gunicorn.log", changes=changes, **SETTINGS)
        )
        stack.enter_context(running_autoplay(database_url, tmp_path / "runner.log", changes=changes, **SETTINGS))
        made = requests.post(
            f"{base}/v1/tournaments",
            json={
                "format": "round_robin",
                "preset": "standard-block",
                "rules": {"target": 20},
                "turn_seconds": 60,
                "bot_levels": ["random", "greedy"],
                "tiebreaks": ["sonneborn_berger", "buchholz", "win_margin"],
            },
            headers=key,
            timeout=TIMEOUT,
        )
        assert made.status_code == 201, made.text
        url = f"{base}/v1/tournaments/{made.json()['id']}"
        for number, level in enumerate(LEVELS, start=1):
            entered = requests.post(
                f"{url}/entrants",
                json={"name": f"Bot {number}", "members": [{"level": level}]},
                headers=key,
                timeout=TIMEOUT,
            )
            assert entered.status_code == 201 and entered.json()["id"] == f"e{number}", entered.text
        started = requests.post(f"{url}/start", headers=key, timeout=TIMEOUT)
        assert started.status_code == 200 and started.json()["current_round"] == 1, started.text

        final = tournament_ended(changes, url, key, 300, "the runner plays every round and its sweep pairs the next")
        again = requests.get(url, headers={**key, "If-None-Match": f'"{final["seq"]}"'}, timeout=TIMEOUT)
        assert again.status_code == 304
        rounds = requests.get(f"{url}/rounds", headers=key, timeout=TIMEOUT).json()["rounds"]

        # Every pair met once, in three rounds; each table's result is its match's own end.
        assert [r["number"] for r in rounds] == [1, 2, 3] and all(r["ended"] for r in rounds)
        met = sorted(tuple(sorted(t["sides"])) for r in rounds for t in r["tables"])
        assert met == sorted(combinations(["e1", "e2", "e3", "e4"], 2))
        games: dict[str, list[tuple[str, int, int]]] = defaultdict(list)  # entrant -> (opponent, points, margin)
        for round_ in rounds:
            for table in round_["tables"]:
                log, _ = all_pages(base, f"/v1/matches/{table['match_id']}/audit", key)
                final_event = next(e for e in log if e["type"] == "match_ended")
                scores, winner = final_event["scores"], final_event["winner"]
                assert table["result"] == {"winner": winner, "scores": scores, "forfeit": False}
                for side, entrant in enumerate(table["sides"]):
                    opponent = table["sides"][1 - side]
                    games[entrant].append((opponent, 2 if winner == side else 0, scores[side] - scores[1 - side]))
                fairness = requests.get(f"{base}/v1/matches/{table['match_id']}/fairness", timeout=60).json()
                assert fairness["verified"] is True and fairness["problems"] == [], fairness
                summary = requests.get(f"{base}/v1/matches/{table['match_id']}", headers=key, timeout=TIMEOUT).json()
                assert summary["rules"]["turn_seconds"] == 60  # the tournament's clock, mandatory

        points = {entrant: sum(p for _, p, _ in played) for entrant, played in games.items()}
        expected = {
            entrant: {
                "match_points": points[entrant],
                "sonneborn_berger": sum(points[o] * p for o, p, _ in played),
                "buchholz": sum(points[o] for o, _, _ in played),
                "win_margin": sum(m for _, _, m in played),
            }
            for entrant, played in games.items()
        }
        server = {
            row["entrant_id"]: {
                "match_points": row["match_points"],
                **{t["name"]: t["value"] for t in row["tiebreaks"]},
            }
            for row in final["standings"]
        }
        assert server == expected
        order = [row["entrant_id"] for row in final["standings"]]
        merit = {
            e: (v["match_points"], v["sonneborn_berger"], v["buchholz"], v["win_margin"]) for e, v in expected.items()
        }
        assert [merit[e] for e in order] == sorted(merit.values(), reverse=True)

        # The tournament's own log: every row chained onto the one before, up to the head shown.
        rows, last_page = all_pages(base, f"{url.removeprefix(base)}/events", key)
        prev = GENESIS
        for seq, row in enumerate(rows, start=1):
            data = {name: value for name, value in row["event"].items() if name != "type"}
            assert row["seq"] == seq and row["prev_hash"] == prev
            assert row["hash"] == row_hash(prev, seq, row["event"]["type"], row["schema_version"], data)
            prev = row["hash"]
        assert last_page["chain_head"] == final["chain_head"] == {"seq": len(rows), "hash": prev}
        assert [row["event"]["type"] for row in rows][-2:] == ["round_ended", "tournament_ended"]


@pytest.mark.parametrize("duplicate", [False, True], ids=["single", "duplicate"])
def test_two_reference_clients_enter_a_round_robin_and_play_each_round_to_its_end(database_url, tmp_path, duplicate):
    """``python -m boneyard_client --tournament ID``: each client enters with its player token,
    follows its event stream, plays the match of every round it is paired in and stops at the end;
    with duplicate deals both legs of each pairing, each checked once its round has ended."""
    key = {"X-API-Key": operator_portal(database_url, "club-clients")}
    with ExitStack() as stack:
        changes = stack.enter_context(watching_changes())
        base, _ = stack.enter_context(
            running_gunicorn(database_url, tmp_path / "gunicorn.log", changes=changes, **SETTINGS)
        )
        stack.enter_context(running_autoplay(database_url, tmp_path / "runner.log", changes=changes, **SETTINGS))
        body = {
            "format": "round_robin",
            "duplicate": duplicate,
            "rules": {"target": 10},
            "turn_seconds": 60,
            "bot_levels": ["greedy"],
        }
        made = requests.post(f"{base}/v1/tournaments", json=body, headers=key, timeout=TIMEOUT).json()
        url = f"{base}/v1/tournaments/{made['id']}"
        clients = [
            client_process(base, player_token(base, key["X-API-Key"], ref), "--tournament", made["id"])
            for ref in ("ana", "ben")
        ]

        def entered() -> bool:
            return len(requests.get(url, headers=key, timeout=TIMEOUT).json()["entrants"]) == 2

        changes.until(entered, 60, "both clients enter the tournament")
        bot = requests.post(f"{url}/entrants", json={"members": [{"level": "greedy"}]}, headers=key, timeout=TIMEOUT)
        assert bot.status_code == 201, bot.text
        assert requests.post(f"{url}/start", headers=key, timeout=TIMEOUT).status_code == 200
        played = [finished(process) for process in clients]
        final = requests.get(url, headers=key, timeout=TIMEOUT).json()
        assert final["status"] == "ended"
        mine = {e["members"][0]["player_ref"]: e["id"] for e in final["entrants"]}
        rounds = requests.get(f"{url}/rounds", headers=key, timeout=TIMEOUT).json()["rounds"]
        for ref, results in zip(("ana", "ben"), played):
            tables = [t for r in rounds for t in r["tables"] if mine[ref] in t["sides"]]
            assert sorted(row["match_id"] for row in results) == sorted(t["match_id"] for t in tables)
            assert all(row["tournament_id"] == made["id"] and row["fairness_verified"] for row in results)


def test_a_swiss_of_partner_teams_pairs_without_rematches_one_bye_each_and_scores_as_its_matches(
    database_url, tmp_path
):
    """Five partner teams of bots, four rounds of a 4-seat partner game: every round one team rests,
    no two teams meet twice, no team rests twice, and the standings (a bye a win) follow from the
    matches' own logs."""
    key = {"X-API-Key": operator_portal(database_url, "club-teams")}
    with ExitStack() as stack:
        changes = stack.enter_context(watching_changes())
        base, _ = stack.enter_context(
            running_gunicorn(database_url, tmp_path / "gunicorn.log", changes=changes, **SETTINGS)
        )
        stack.enter_context(running_autoplay(database_url, tmp_path / "runner.log", changes=changes, **SETTINGS))
        body = {
            "format": "swiss",
            "rounds": 4,
            "teams": True,
            "preset": "standard-block",
            "rules": {"partners": True, "target": 10},
            "turn_seconds": 60,
            "bot_levels": ["random"],
        }
        url = started_with_random_teams(base, key, body, teams=5)

        final = tournament_ended(changes, url, key, 300, "four rounds played and paired")
        rounds = requests.get(f"{url}/rounds", headers=key, timeout=TIMEOUT).json()["rounds"]
        assert len(rounds) == 4 and all(len(r["tables"]) == 2 for r in rounds)  # two tables a round
        byes = [r["bye"] for r in rounds]
        assert None not in byes and len(set(byes)) == 4  # one team rests each round, none twice
        teams = [e["id"] for e in final["entrants"]]
        met: set[frozenset[str]] = set()
        for number, paired in enumerate(rounds, start=1):
            # no rematch while one is avoidable: round by round, as few as any pairing of that round
            # allowed (its bye to a team that had none); five teams over four rounds can be forced
            # into one by the rounds before (a Swiss pairs one round at a time, it does not plan)
            rematches = sum(frozenset(t["sides"]) in met for t in paired["tables"])
            assert rematches == fewest_rematches(teams, met, set(byes[: number - 1])), number
            met |= {frozenset(t["sides"]) for t in paired["tables"]}
        points = dict.fromkeys(teams, 0)
        for bye in byes:
            points[bye] += 2
        for table in (t for r in rounds for t in r["tables"]):
            log, _ = all_pages(base, f"/v1/matches/{table['match_id']}/audit", key)
            created = next(e for e in log if e["type"] == "match_created")
            assert created["rules"]["partners"] and len(created["seats"]) == 4
            winner = next(e for e in log if e["type"] == "match_ended")["winner"]
            points[table["sides"][winner]] += 2
        assert {row["entrant_id"]: row["match_points"] for row in final["standings"]} == points


def chained_log(base: str, url: str, headers: dict[str, str]) -> tuple[list[dict], dict]:
    """The tournament's log, every row's hash recomputed onto the one before (and the last page)."""
    rows, last_page = all_pages(base, f"{url.removeprefix(base)}/events", headers)
    prev = GENESIS
    for seq, row in enumerate(rows, start=1):
        data = {name: value for name, value in row["event"].items() if name != "type"}
        assert row["seq"] == seq and row["prev_hash"] == prev
        assert row["hash"] == row_hash(prev, seq, row["event"]["type"], row["schema_version"], data)
        prev = row["hash"]
    assert last_page["chain_head"] == {"seq": len(rows), "hash": prev}
    return rows, last_page


def pairings(pool: list[str], tables: int) -> list[list[tuple[str, str]]]:
    """Every way to seat ``tables`` disjoint pairs from ``pool`` (brute force: pools are small)."""
    if tables == 0:
        return [[]]
    found = []
    for i, first in enumerate(pool):
        for second in pool[i + 1 :]:
            rest = [e for e in pool[i + 1 :] if e != second]
            found += [[(first, second), *more] for more in pairings(rest, tables - 1)]
    return found


def fewest_rematches(field: list[str], met: set[frozenset[str]], rested: set[str]) -> int:
    """The fewest rematches any pairing of ``field`` can have after the games ``met``, an odd
    field's bye going to an entrant not in ``rested`` (brute force: fields are small)."""
    resting = [e for e in field if e not in rested] if len(field) % 2 else [None]
    return min(
        sum(frozenset(pair) in met for pair in tables)
        for bye in resting
        for tables in pairings([e for e in field if e != bye], len(field) // 2)
    )


def test_an_arena_of_five_bots_pairs_whoever_is_free_and_scores_its_streaks_as_its_matches_say(database_url, tmp_path):
    """Five bots in an arena of an hour, which the portal closes once eight games are decided (a
    test waits on no clock; the clock's own close is tests/services'). Checked by this test's own
    fold of the tournament's log, not the server's code: every pairing seats free entrants only,
    as many tables as its free pool allows, with no more immediate rematches than the pool forces;
    nothing is paired after the close and the matches then in play count; the standings are the
    arena points (a win 2, 4 after two wins in a row) recomputed from each match's own audit log."""
    key = {"X-API-Key": operator_portal(database_url, "club-arena")}
    with ExitStack() as stack:
        changes = stack.enter_context(watching_changes())
        base, _ = stack.enter_context(
            running_gunicorn(database_url, tmp_path / "gunicorn.log", changes=changes, **SETTINGS)
        )
        stack.enter_context(running_autoplay(database_url, tmp_path / "runner.log", changes=changes, **SETTINGS))
        body = {
            "format": "arena",
            "duration_minutes": 60,
            "rules": {"target": 10},
            "turn_seconds": 60,
            "bot_levels": ["random", "greedy"],
        }
        made = requests.post(f"{base}/v1/tournaments", json=body, headers=key, timeout=TIMEOUT)
        assert made.status_code == 201, made.text
        url = f"{base}/v1/tournaments/{made.json()['id']}"
        for level in LEVELS + ["greedy"]:
            entered = requests.post(
                f"{url}/entrants", json={"members": [{"level": level}]}, headers=key, timeout=TIMEOUT
            )
            assert entered.status_code == 201, entered.text
        started = requests.post(f"{url}/start", headers=key, timeout=TIMEOUT).json()
        assert started["status"] == "running" and started["planned_rounds"] == 0 and started["ends_at"]

        def decided(enough: int) -> list[dict] | None:
            rounds = requests.get(f"{url}/rounds", headers=key, timeout=TIMEOUT).json()["rounds"]
            tables = [t for r in rounds for t in r["tables"] if t["result"] is not None]
            return tables if len(tables) >= enough else None

        changes.until(lambda: decided(8), 300, "eight games of the arena decided")
        closed = requests.post(f"{url}/close", headers=key, timeout=TIMEOUT)
        assert closed.status_code == 200 and closed.json()["closed"], closed.text

        final = tournament_ended(changes, url, key, 120, "the matches in play at the close finish")
        rows, _ = chained_log(base, url, key)
        rounds = requests.get(f"{url}/rounds", headers=key, timeout=TIMEOUT).json()["rounds"]

        # The log, folded by this test: who is busy, who last met whom, what each pairing chose from.
        entrants = [e["id"] for e in final["entrants"]]
        busy: dict[str, tuple[int, int]] = {}  # entrant -> (round, table) undecided
        last: dict[str, str] = {}
        closed_at = None
        for position, row in enumerate(rows):
            event = row["event"]
            if event["type"] == "tournament_started":
                begun = datetime.fromisoformat(row["recorded_at"])
                # its duration after the start (the row's stamp is the store's, taken a moment later)
                ends_at = datetime.fromisoformat(event["ends_at"])
                assert abs(ends_at - begun - timedelta(minutes=60)) < timedelta(seconds=1)
            if event["type"] == "arena_closed":
                closed_at = position
                assert event["by"] == "portal"
            if event["type"] == "round_paired":
                assert closed_at is None  # nothing paired after the close
                seated = [side for table in event["tables"] for side in table["sides"]]
                pool = seated + event["waiting"]
                assert len(pool) == len(set(pool)) and not set(pool) & busy.keys()  # free entrants only
                assert len(event["tables"]) == len(pool) // 2  # as many tables as the pool allows
                forced = min(
                    sum(1 for a, b in way if last.get(a) == b) for way in pairings(sorted(pool), len(event["tables"]))
                )
                made_here = sum(1 for table in event["tables"] if last.get(table["sides"][0]) == table["sides"][1])
                assert made_here == forced, (event, last)
                for table in event["tables"]:
                    first, second = table["sides"]
                    busy[first] = busy[second] = (event["round"], table["number"])
                    last[first], last[second] = second, first
            if event["type"] == "match_result":
                for entrant in [e for e, at in busy.items() if at == (event["round"], event["table"])]:
                    del busy[entrant]
        assert closed_at is not None and not busy and rows[-1]["event"]["type"] == "tournament_ended"

        # The standings: arena points recomputed from each match's own audit log, in pairing order.
        points, run = dict.fromkeys(entrants, 0), dict.fromkeys(entrants, 0)
        games = 0
        for round_ in rounds:
            for table in round_["tables"]:
                log, _ = all_pages(base, f"/v1/matches/{table['match_id']}/audit", key)
                final_event = next(e for e in log if e["type"] == "match_ended")
                assert table["result"] == {
                    "winner": final_event["winner"],
                    "scores": final_event["scores"],
                    "forfeit": False,
                }
                games += 1
                for side, entrant in enumerate(table["sides"]):
                    if final_event["winner"] == side:
                        points[entrant] += 4 if run[entrant] >= 2 else 2
                        run[entrant] += 1
                    else:
                        run[entrant] = 0
        assert games >= 8
        server = {row["entrant_id"]: (row["match_points"], row["streak"]) for row in final["standings"]}
        assert server == {entrant: (points[entrant], run[entrant]) for entrant in entrants}
        shown = [row["match_points"] for row in final["standings"]]
        assert shown == sorted(shown, reverse=True)


def test_a_duplicate_swiss_of_partner_teams_deals_every_table_of_a_round_alike(database_url, tmp_path):
    """Four partner teams of bots, two duplicate rounds: each pairing plays two tables, seats
    swapped, and every match of a round is dealt from the seed its round_paired committed to.
    Checked through the public API only: each match's audit (its commitment, its revealed seed
    hashing to the round's, its deals hand by hand) and fairness report, the tournament's own
    /fairness, no rematch across rounds, and the standings from the matches' own logs."""
    key = {"X-API-Key": operator_portal(database_url, "club-duplicate")}
    with ExitStack() as stack:
        changes = stack.enter_context(watching_changes())
        base, _ = stack.enter_context(
            running_gunicorn(database_url, tmp_path / "gunicorn.log", changes=changes, **SETTINGS)
        )
        stack.enter_context(running_autoplay(database_url, tmp_path / "runner.log", changes=changes, **SETTINGS))
        body = {
            "format": "swiss",
            "rounds": 2,
            "teams": True,
            "duplicate": True,
            "rules": {"partners": True, "target": 10},
            "turn_seconds": 60,
            "bot_levels": ["random"],
        }
        url = started_with_random_teams(base, key, body, teams=4)

        final = tournament_ended(changes, url, key, 300, "two duplicate rounds played and paired")
        rows, _ = chained_log(base, url, key)
        committed = {
            r["event"]["round"]: r["event"]["seed_commitment"] for r in rows if r["event"]["type"] == "round_paired"
        }
        rounds = requests.get(f"{url}/rounds", headers=key, timeout=TIMEOUT).json()["rounds"]
        assert len(rounds) == 2 and len(set(committed.values())) == 2  # a seed of its own each round
        met: list[frozenset[str]] = []
        points = dict.fromkeys((e["id"] for e in final["entrants"]), 0)
        for round_ in rounds:
            tables = round_["tables"]
            assert len(tables) == 4 and [t["sides"] for t in tables[1::2]] == [t["sides"][::-1] for t in tables[::2]]
            met += [frozenset(t["sides"]) for t in tables[::2]]
            dealt: list[dict[int, tuple]] = []
            for table in tables:
                log, audit = all_pages(base, f"/v1/matches/{table['match_id']}/audit", key)
                assert audit["seed_commitment"] == committed[round_["number"]] == round_["seed_commitment"]
                assert hashlib.sha256(audit["seed"].encode()).hexdigest() == audit["seed_commitment"]
                dealt.append(
                    {e["hand_number"]: (e["hands"], e["boneyard"]) for e in log if e["type"] == "hand_started"}
                )
                fairness = requests.get(f"{base}/v1/matches/{table['match_id']}/fairness", timeout=60).json()
                assert fairness["verified"] is True and fairness["problems"] == [], fairness
                winner = next(e for e in log if e["type"] == "match_ended")["winner"]
                points[table["sides"][winner]] += 2
            shared = set.intersection(*(set(d) for d in dealt))
            assert 1 in shared and all(len({repr(d[k]) for d in dealt}) == 1 for k in shared)
        assert len(met) == len(set(met)) == 4  # two pairings a round, no rematch
        proof = requests.get(f"{url}/fairness", headers=key, timeout=TIMEOUT).json()
        assert [(r["round"], r["same_deals"], r["seed_commitment"]) for r in proof["rounds"]] == [
            (n, True, committed[n]) for n in (1, 2)
        ]
        assert {row["entrant_id"]: row["match_points"] for row in final["standings"]} == points
