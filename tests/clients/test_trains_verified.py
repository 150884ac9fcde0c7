"""The trains games (issue 34) through both verifiers: ``boneyard verify`` (api/verify.py: the
engine re-runs every command, and every computer player is asked again) and the JS replayer
(clients/js/replay.mjs). Honest matches are verified by both, counting the same deals and bot
moves; each forged log of tests/clients/test_js_trains.py is refused by both at the same seq;
a bot move swapped for another legal one passes the replayer and fails ``boneyard verify``."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest

from api.tools.golden import audit_document, summarize
from api.verify import verify_audit
from tests.api.helpers import create_played, whole_audit

from .support import run_replayer
from .test_js_trains import CHICKEN_FORGERIES, MEXICAN_FORGERIES, clock_match, forged_from, refused
from .trains_logs import Played, play_match

LEVELS = ("greedy", "random", "greedy", "random")


def bots(players: int) -> list[dict[str, Any]]:
    return [{"name": f"Bot {s}", "type": "bot", "level": LEVELS[s % 4]} for s in range(players)]


@cache
def bot_match(game: str, players: int) -> Played:
    return play_match(game, players, f"verify-{game}-{players}", seats=bots(players))


HONEST = [("mexican-train", 2), ("mexican-train", 8), ("chicken-foot", 3), ("chicken-foot", 8)]


@pytest.mark.parametrize(("game", "players"), HONEST)
def test_both_verifiers_accept_a_match_of_computer_players_and_count_the_same(tmp_path, game, players):
    match = bot_match(game, players)
    report = verify_audit(match.audit)
    assert (report["verified"], report["problems"], report["departure"]) == (True, [], None)
    rounds = match.state.rules.rounds
    assert report["deals_checked"] == rounds  # a deal per round
    assert report["events_checked"] == len(match.log)
    path = tmp_path / "audit.json"
    path.write_text(json.dumps(match.audit))
    done = run_replayer(path)
    assert done.returncode == 0, done.stderr
    checks = json.loads(done.stdout)["checks"]
    assert checks["deals_checked"] == rounds
    made_again = {level: n for level, n in report["bot_moves_checked"].items() if n}
    assert made_again == checks["bot_moves_not_checked"] and sum(made_again.values()) > 100


@pytest.mark.parametrize("game", ["mexican-train", "chicken-foot"])
def test_every_bot_level_is_asked_again_by_boneyard_verify(game):
    seats = [{"name": level, "type": "bot", "level": level} for level in ("expert", "intermediate", "greedy", "random")]
    match = play_match(game, 4, f"levels-{game}", seats=seats, rounds=2)
    report = verify_audit(match.audit)
    assert report["verified"], report["problems"]
    assert all(report["bot_moves_checked"][level] > 5 for level in ("expert", "intermediate", "greedy", "random"))


@pytest.mark.parametrize("game", ["mexican-train", "chicken-foot"])
def test_boneyard_verify_replays_timed_out_turns_client_seeds_and_replaced_seats(game):
    match = clock_match(game)
    report = verify_audit(match.audit)
    assert report["verified"], report["problems"]
    replaced = any(e["type"] == "seat_replaced" for e in match.log)
    assert replaced and report["bot_moves_checked"]["greedy"] > 0


@pytest.mark.parametrize(
    ("game", "forge"),
    [("mexican-train", f) for f in MEXICAN_FORGERIES] + [("chicken-foot", f) for f in CHICKEN_FORGERIES],
    ids=lambda value: getattr(value, "__name__", value),
)
def test_both_verifiers_refuse_each_forged_log_at_its_seq_node_saying_what_the_rules_give(tmp_path, game, forge):
    match = forged_from(game)
    log, reason = forge(match)
    seq = int(reason.split(":")[0].removeprefix("seq "))
    assert refused(log, tmp_path).startswith(reason)
    report = verify_audit(audit_document("forged", match.seed, log))
    assert report["verified"] is False
    assert report["departure"]["seq"] == seq, report["departure"]


def test_a_swapped_bot_move_passes_node_and_fails_boneyard_verify(tmp_path):
    match = play_match("mexican-train", 4, "verify-swap", seats=bots(4), swap=True, rounds=3)
    at = match.swapped_at
    assert at is not None
    path = tmp_path / "swapped.json"
    path.write_text(json.dumps(match.audit))
    done = run_replayer(path)
    assert done.returncode == 0, done.stderr
    report = verify_audit(match.audit)
    assert report["verified"] is False and report["chain_ok"] is True
    seat = match.log[at]["seat"]
    level = LEVELS[seat]
    assert report["departure"]["seq"] == at + 1
    assert report["departure"]["reason"].startswith(f"seq {at + 1}: the {level} computer at seat {seat} chooses to ")


SERVED = [
    ("mexican-train", 2, {"rounds": 2}),
    ("mexican-train", 8, {"rounds": 2}),
    ("chicken-foot", 4, {"rounds": 3}),
]


def test_matches_played_through_the_api_are_verified_by_both_and_by_fairness(client, tmp_path):
    for game, players, rules in SERVED:
        created = create_played(client, bots(players), preset=game, rules=rules)
        match = client.get(f"/v1/matches/{created['id']}").get_json()
        assert match["status"] == "ended", game
        audit = whole_audit(client, created["id"])
        path = tmp_path / f"{game}-{players}.json"
        path.write_text(json.dumps(audit))
        done = run_replayer(path)
        assert done.returncode == 0, done.stderr
        summary = json.loads(done.stdout)
        checks = summary.pop("checks")
        assert summary == summarize(audit)  # the server's own fold (api.rules.replay), as golden prints it
        assert (summary["preset"], summary["round"]) == (game, rules["rounds"])
        assert (summary["scores"], summary["winner"]) == (match["scores"], match["winner"])
        report = verify_audit(audit)
        assert report["verified"], report["problems"]
        assert report["deals_checked"] == checks["deals_checked"] == rules["rounds"]
        made_again = {level: n for level, n in report["bot_moves_checked"].items() if n}
        assert made_again == checks["bot_moves_not_checked"]
        fairness = client.get(f"/v1/matches/{created['id']}/fairness").get_json()
        assert fairness["verified"] is True and fairness["deals_checked"] == rules["rounds"], fairness


def test_the_bot_recheck_shows_a_trains_bot_the_events_since_its_rounds_deal(monkeypatch):
    """As the server's snapshots do (``DEAL_TYPES`` in api/rules/events.py): each question's log
    starts at the round's own round_started, not at an earlier round's."""
    import api.bots.turns as turns
    from api.bots.audit import recheck_bot_moves
    from api.tools.golden import log_of

    match = bot_match("chicken-foot", 3)  # (played before the bots are watched)
    asked: list[tuple[int, list[dict[str, Any]]]] = []
    choose = turns.choose_action

    def recording(level, view, log, rng_seed):
        asked.append((view["round"], log))
        return choose(level, view, log, rng_seed)

    monkeypatch.setattr(turns, "choose_action", recording)
    report = recheck_bot_moves(log_of(match.audit), match.seed)
    assert report.problems == [] and report.decisions_checked == len(asked) > 100
    assert {round_number for round_number, _ in asked} == set(range(1, 11))
    assert all(log[0]["type"] == "round_started" and log[0]["round"] == r for r, log in asked)
