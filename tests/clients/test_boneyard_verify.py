"""``boneyard verify AUDIT.json`` (api/verify.py): an ended match's audit log checked offline, bot
decisions included, by the fairness check's own code; it accepts every honest log and refuses a
tampered one at the seq where it departs. In-process here (``api.cli.main``); the real command
runs as a process in tests/clients/test_js_replayer.py, beside the JS replayer it completes."""

from __future__ import annotations

import io
import json
import tomllib
from pathlib import Path
from typing import Any

import pytest

from api import cli, verify
from api.services.commands import GetFairness, SeatSpec
from api.tools.golden import EXAMPLES, VECTORS, audit_document, log_of
from api.verify import verify_audit
from tests.api.helpers import create_played, whole_audit
from tests.services.support import ANA
from tests.services.test_bot_moves_audited import SwapOnce
from tests.tampered_logs import PERSON_AND_BOT, rewritten_deal

from .support import ROOT, bots, golden, served

NO_BOT_MOVES = {"random": 0, "greedy": 0, "intermediate": 0, "expert": 0}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any] | None, str]:
    """``boneyard verify ARGV``: its exit code, its report (None when it printed none), its stderr."""
    code = cli.main(["verify", *argv])
    out, err = capsys.readouterr()
    return code, json.loads(out) if out else None, err


def written(tmp_path: Path, audit: Any, name: str = "audit.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(audit))
    return str(path)


def rechained(audit: dict, log: list[dict]) -> dict:
    """A forged log with its hash chain recomputed: only the replay and the bots can catch it."""
    return audit_document(audit["match_id"], audit["seed"], log)


# --- honest logs ---------------------------------------------------------------------------------
def test_every_golden_log_is_verified_with_each_bot_decision_made_again():
    for vector in VECTORS:
        audit, _ = golden(vector.name)
        report = verify_audit(audit)
        assert report["verified"] is True and report["departure"] is None and report["problems"] == [], vector.name
        assert report["chain_ok"] and report["commitment_ok"]
        assert report["events_checked"] == len(audit["events"])
        assert report["bot_moves_checked"]["random"] + report["bot_moves_checked"]["greedy"] > 0, vector.name


def test_the_report_of_a_golden_log_counts_what_it_checked(capsys):
    code, report, err = run(capsys, str(EXAMPLES / "all-fives-2p.audit.json"))
    assert (code, err) == (0, "")
    assert report == {
        "verified": True,
        "departure": None,
        "match_id": "golden-all-fives-2p",
        "seed": "boneyard-golden:all-fives-2p",
        "seed_commitment": "a62777215ea28079cf04d4da2dfdec393ff3cead4d8a1512caf746cfbc377f67",
        "commitment_ok": True,
        "chain_ok": True,
        "deals_checked": 3,
        "moves_checked": 33,
        "events_checked": 53,
        "pins_checked": 0,
        "bot_moves_checked": {"random": 16, "greedy": 17, "intermediate": 0, "expert": 0},
        "problems": [],
    }
    # a person's seat handed to a bot (turn clocks): the greedy bot's moves from then on
    code, report, _ = run(capsys, str(EXAMPLES / "standard-draw-clock-2p.audit.json"))
    assert code == 0 and report is not None
    assert report["bot_moves_checked"] == {**NO_BOT_MOVES, "greedy": 234}


def test_standard_input_is_read_for_a_dash(capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO((EXAMPLES / "muggins-2p.audit.json").read_text()))
    code, report, _ = run(capsys, "-")
    assert code == 0 and report is not None and report["match_id"] == "golden-muggins-2p"


def test_matches_played_through_the_api_are_verified_as_their_fairness_check_says(client):
    for preset, seats, rules in (
        ("standard-block", bots("random", "greedy", "random"), {"target": 30}),
        ("muggins", bots("greedy", "random"), {"muggins_calls": True, "target": 61}),
    ):
        created = create_played(client, seats, preset=preset, rules=rules)
        audit = whole_audit(client, created["id"])
        fairness = client.get(f"/v1/matches/{created['id']}/fairness").get_json()
        report = verify_audit(audit)
        assert report["verified"] is True and fairness["verified"] is True
        assert {key: report[key] for key in fairness} == fairness  # the same check, the same findings
        assert report["bot_moves_checked"]["random"] > 0 and report["bot_moves_checked"]["greedy"] > 0


INTERMEDIATE = SeatSpec("In", "bot", "intermediate")
GREEDY = SeatSpec("Gr", "bot", "greedy")


def test_a_served_match_with_a_person_and_an_intermediate_bot_is_verified_per_level():
    _bus, _id, audit, _log = served({"target": 30}, (ANA, INTERMEDIATE))
    report = verify_audit(audit)
    assert report["verified"] is True
    assert report["bot_moves_checked"]["intermediate"] > 5
    assert report["bot_moves_checked"] == {**NO_BOT_MOVES, "intermediate": report["bot_moves_checked"]["intermediate"]}


# --- tampered logs -------------------------------------------------------------------------------
def test_a_bot_move_swapped_for_another_legal_one_departs_at_its_seq(capsys, tmp_path):
    swap = SwapOnce()
    bus, match_id, audit, log = served({"target": 30}, (ANA, GREEDY), offload=swap)
    assert swap.swapped is not None, "no bot had a choice to swap"
    at = next(i for i, e in enumerate(log) if e["type"] == "tile_played" and e["tile"] == swap.swapped["tile"])
    code, report, err = run(capsys, written(tmp_path, audit))  # chained anew: only the bot, asked again, tells
    assert (code, err) == (1, "") and report is not None
    assert report["verified"] is False and report["chain_ok"] is True and report["commitment_ok"] is True
    assert report["departure"]["seq"] == at + 1
    assert report["departure"]["reason"].startswith(f"seq {at + 1}: the greedy computer at seat 1 chooses to play ")
    assert report["problems"] == bus.handle(GetFairness(match_id))["problems"]  # what /fairness finds


def test_a_rewritten_deal_departs_at_the_deal(capsys, tmp_path):
    forged = rewritten_deal()
    audit = audit_document("rewritten-deal", PERSON_AND_BOT.seed, forged.log)
    code, report, _ = run(capsys, written(tmp_path, audit))
    assert code == 1 and report is not None and report["verified"] is False and report["chain_ok"] is True
    assert report["departure"]["seq"] == forged.deal_seq
    assert report["departure"]["reason"].startswith(f"seq {forged.deal_seq}: ")
    tile = f"{forged.tile[0]}-{forged.tile[1]}"  # the bots, asked on past the deal, meet the impossible play
    assert f"seq {forged.play_seq}: impossible event: seat 0 plays {tile}, which it does not hold" in report["problems"]


def test_an_edited_row_breaks_the_chain_at_its_seq(capsys, tmp_path):
    audit, _ = golden("standard-draw-2p")
    row = next(r for r in audit["events"] if r["type"] == "hand_ended")
    row["points"] += 1
    code, report, _ = run(capsys, written(tmp_path, audit))
    assert code == 1 and report is not None and report["chain_ok"] is False
    assert report["departure"] == {"seq": row["seq"], "reason": f"event {row['seq']}: hash does not match its contents"}


def test_a_missing_row_departs_where_it_was_expected():
    audit, _ = golden("standard-draw-2p")
    del audit["events"][9]
    report = verify_audit(audit)
    assert report["verified"] is False and report["departure"]["seq"] == 10
    assert report["departure"]["reason"] == "seq 11 where 10 was expected"


def test_a_seed_that_is_not_the_committed_one_departs_at_match_created():
    audit, _ = golden("standard-block-2p")
    audit["seed"] += "x"
    report = verify_audit(audit)
    assert report["verified"] is False and report["commitment_ok"] is False
    assert report["departure"]["seq"] == 1


def test_a_bot_level_this_version_does_not_know_is_not_passed_off_as_checked():
    audit, _ = golden("all-fives-2p")
    log = log_of(audit)
    log[0]["seats"][1]["level"] = "grandmaster"  # seat 1 played random
    first = next(i for i, e in enumerate(log) if e.get("seat") == 1 and e["type"] == "tile_played" and not e["auto"])
    report = verify_audit(rechained(audit, log))
    assert report["verified"] is False
    assert report["departure"]["seq"] == first + 1
    assert "level 'grandmaster', which this version does not know" in report["departure"]["reason"]


# --- pinned heads ----------------------------------------------------------------------------------
def test_pinned_heads_are_held_to_the_log(capsys, tmp_path):
    audit, _ = golden("all-fives-2p")
    rows = audit["events"]
    source = str(EXAMPLES / "all-fives-2p.audit.json")
    heads = [{"seq": 0, "hash": "0" * 64}, {"seq": 1, "hash": rows[0]["hash"]}, {"seq": 53, "hash": rows[-1]["hash"]}]
    pins = written(tmp_path, heads, "pins.json")
    code, report, _ = run(capsys, "--pin", f"20:{rows[19]['hash'].upper()}", "--pins", pins, source)
    assert code == 0 and report is not None and report["pins_checked"] == 4

    wrong = "ab" * 32
    code, report, _ = run(capsys, "--pin", f"20:{wrong}", source)
    assert code == 1 and report is not None and report["verified"] is False and report["chain_ok"] is True
    reason = f"seq 20: pinned hash {wrong} but the log has {rows[19]['hash']}"
    assert report["departure"] == {"seq": 20, "reason": reason}

    code, report, _ = run(capsys, "--pins", written(tmp_path, [{"seq": 58, "hash": wrong}], "late.json"), source)
    assert code == 1 and report is not None
    assert report["problems"] == [f"seq 58: pinned hash {wrong}, but the log ends at seq 53"]


def test_a_head_pinned_before_a_rewrite_catches_the_rewritten_log(capsys, tmp_path):
    audit, _ = golden("standard-draw-2p")
    log = log_of(audit)
    i = next(i for i, e in enumerate(log) if e["type"] == "hand_ended")
    log[i]["points"] += 1
    forged = rechained(audit, log)
    last = audit["events"][-1]
    code, report, _ = run(capsys, "--pin", f"{last['seq']}:{last['hash']}", written(tmp_path, forged))
    assert code == 1 and report is not None and report["chain_ok"] is True
    assert (
        f"seq {last['seq']}: pinned hash {last['hash']} but the log has {forged['events'][-1]['hash']}"
        in (report["problems"])
    )
    assert report["departure"]["seq"] == i + 1  # the rules find the rewrite itself, before the pin


# --- what is no whole audit log: exit 2, one line ------------------------------------------------
def test_what_is_not_a_whole_audit_log_is_refused_in_one_line(capsys, tmp_path):
    audit, _ = golden("standard-draw-2p")
    page = {**audit, "events": audit["events"][:10], "next_after": 10}
    later = {**audit, "events": audit["events"][10:], "next_after": None}
    running = {**audit, "seed": None}
    not_json = tmp_path / "broken.json"
    not_json.write_text('{"events": [')
    cases = [
        (str(tmp_path / "missing.json"), "cannot read "),
        (str(not_json), f"{not_json} is not JSON: "),
        (written(tmp_path, page, "page.json"), "this is one page of the audit (rows after 10 are on the next pages)"),
        (written(tmp_path, later, "later.json"), "the audit starts at seq 11: it is a later page, not the whole log"),
        (written(tmp_path, running, "running.json"), "the audit reveals no seed: its match has not ended"),
        (written(tmp_path, {"id": "x", "status": "ended"}, "match.json"), "not an audit log"),
        (written(tmp_path, [1, 2], "list.json"), "not an audit log"),
        (written(tmp_path, {**audit, "events": [{"seq": 1}]}, "rows.json"), "row 1 of the audit is not an event row"),
    ]
    for source, message in cases:
        code, report, err = run(capsys, source)
        assert (code, report) == (2, None), source
        assert err.startswith(f"boneyard verify: {message}") and err.count("\n") == 1, err


def test_a_bad_command_line_exits_2(capsys, tmp_path):
    source = str(EXAMPLES / "all-fives-2p.audit.json")
    for argv in (
        ["--pin", "20:not-a-hash", source],
        ["--pins", str(tmp_path / "none.json"), source],
        ["--pins", written(tmp_path, {"seq": 1}, "object.json"), source],
        ["--pins", written(tmp_path, [{"seq": "1", "hash": "0" * 64}], "text-seq.json"), source],
        [],
    ):
        with pytest.raises(SystemExit) as exit_:
            cli.main(["verify", *argv])
        assert exit_.value.code == 2, argv
        assert "boneyard verify: error: " in capsys.readouterr().err


def test_the_boneyard_console_script_is_api_clis_main():
    """``[project.scripts]`` names a function that exists (the install itself is the lead's to redo)."""
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    module, _, name = scripts["boneyard"].partition(":")
    assert (module, name) == ("api.cli", "main")
    assert getattr(__import__(module, fromlist=[name]), name) is cli.main


def test_a_field_of_another_shape_is_a_finding_at_its_seq_not_a_crash(monkeypatch):
    """A file may hold anything the server never writes (``rules`` a number): the row the checks
    cannot read is reported at its seq, as the shortest prefix of the log that they cannot read."""
    audit, _ = golden("all-fives-2p")
    log = log_of(audit)
    log[0]["rules"] = 99
    report = verify_audit(rechained(audit, log))
    assert report["verified"] is False and report["chain_ok"] is True
    assert report["departure"] == {
        "seq": 1,
        "reason": "seq 1: a match_created the checks cannot read (TypeError: 'int' object is not iterable)",
    }
    real = verify.check_log

    def unreadable_from_seq_17(rows, seed):
        if len(rows) >= 17:
            raise KeyError("tile")
        return real(rows, seed)

    monkeypatch.setattr(verify, "check_log", unreadable_from_seq_17)
    audit, _ = golden("all-fives-2p")
    report = verify_audit(audit)
    assert report["verified"] is False
    kind = audit["events"][16]["type"]
    assert report["problems"] == [f"seq 17: a {kind} the checks cannot read (KeyError: 'tile')"]
