"""Golden vectors (openapi/examples/): what the engine writes, what each log folds to."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from api import create_app
from api.rules import PRESETS, ImpossibleEvent, replay
from api.rules.audit import verify_log
from api.rules.events import DEAL_TYPES, event_from_dict
from api.store.chain import verify_chain
from api.store.records import StoredEvent
from api.tools.golden import EXAMPLES, VECTORS, audit_document, files, log_of, summarize
from tests.api.helpers import play_bots, whole_audit
from tests.tampered_logs import PERSON_AND_BOT, rewritten_deal

from .support import VECTOR_NAMES, golden

REMOTE_MOVES = {"tile_played", "tile_drawn", "knocked"}


def test_the_committed_golden_files_are_exactly_what_the_engine_produces_now():
    produced = files()
    committed = {path.name: path.read_text() for path in EXAMPLES.glob("*.json")}
    assert sorted(committed) == sorted(produced), "run: python -m api.tools.golden"
    stale = [name for name, text in produced.items() if committed[name] != text]
    assert stale == [], f"the engine's output changed for {stale}: run python -m api.tools.golden and review the diff"


def test_every_preset_at_every_player_count_has_a_vector_and_partners_are_covered():
    covered = {(v.preset, v.players, bool(v.rules.get("partners"))) for v in VECTORS}
    for name, preset in PRESETS.items():
        for players in preset.players:
            assert (name, players, False) in covered
    assert ("standard-draw", 4, True) in covered and ("all-fives", 4, True) in covered


def test_the_vectors_hold_every_event_type_and_flag():
    seen = set()
    for name in VECTOR_NAMES:
        rows = golden(name)[0]["events"]
        rules = rows[0]["rules"]
        seen.add(f"deal:{rows[0]['seed_algorithm']}")
        for i, row in enumerate(rows):
            seen.add(row["type"])
            # the new games' options (issue 33): an exact target met mid-hand, a hand whose
            # points would pass it (0, its side named), the bonus alone where no pips count
            won = row["type"] == "hand_ended" and row["side"] is not None  # a hand that pays a side
            if rules.get("exact_target") and row["type"] == "match_ended" and row["hands"]:
                seen.add("match_ended:exact-target-mid-hand")
            if rules.get("exact_target") and won and row["points"] == 0 < sum(row["pips"]):
                seen.add("hand_ended:past-exact-target")
            if rules.get("hand_end_pips") is False and won:
                seen.add(f"hand_ended:bonus-alone-{row['reason']}-{row['points']}")
            if rules.get("hand_points") == "all_hands" and won:
                seen.add(f"hand_ended:all-hands-{row['reason']}")
            if row["type"] == "turn_timed_out":
                # what the server did with the turn: draw first, play (with a claim), lead, knock
                after = rows[i + 1]
                seen.add(f"timed_out:{after['type']}" + (":claim" if after.get("claim") else ""))
                if rows[i - 1]["type"] == "hand_started":
                    seen.add("timed_out:lead")
                if row["consecutive"] > 1:
                    seen.add("timed_out:in_a_row")
            if row.get("auto"):
                seen.add(f"{row['type']}:auto")
            if row["type"] == "points_scored":
                seen.add(f"points_scored:{row['how']}")
            if row["type"] == "tile_played" and row["claim"] is not None:
                seen.add("tile_played:claim")
            if row["type"] == "match_ended" and row["hands"]:
                seen.add("match_ended:mid-hand")
            if row["type"] == "hand_ended" and row["side"] is None:
                seen.add("hand_ended:tie")
    assert seen >= {
        "match_created",
        "seat_claimed",
        "tiles_turned_up",
        "hand_started",
        "tile_played",
        "tile_drawn",
        "knocked",
        "points_scored",
        "hand_ended",
        "match_ended",
        "tile_played:auto",
        "tile_drawn:auto",
        "knocked:auto",
        "points_scored:play",
        "points_scored:muggins",
        "tile_played:claim",
        "match_ended:mid-hand",
        "hand_ended:tie",
        "turn_timed_out",
        "seat_replaced",
        "timed_out:tile_drawn",
        "timed_out:tile_played",
        "timed_out:tile_played:claim",
        "timed_out:knocked",
        "timed_out:lead",
        "timed_out:in_a_row",
        "deal:boneyard-shuffle-v1",
        "deal:boneyard-shuffle-v2",
        "match_ended:exact-target-mid-hand",
        "hand_ended:past-exact-target",
        "hand_ended:bonus-alone-domino-1",
        "hand_ended:all-hands-domino",
        "hand_ended:all-hands-blocked",
    }


def test_a_replaced_seat_is_played_by_the_greedy_bot_from_its_replacement_on():
    audit, _ = golden("standard-draw-clock-2p")
    log = log_of(audit)
    at = next(i for i, e in enumerate(log) if e["type"] == "seat_replaced")
    assert log[at] == {"type": "seat_replaced", "seat": 1, "level": "greedy"}
    assert log[at - 2] == {"type": "turn_timed_out", "seat": 1, "consecutive": 3}
    assert not any(e["type"] == "turn_timed_out" for e in log[at:])  # a bot's turn never times out
    assert replay(event_from_dict(e) for e in log).seats[1] == {"name": "Idle", "type": "bot", "level": "greedy"}


@pytest.mark.parametrize("name", VECTOR_NAMES)
def test_each_golden_log_replays_verifies_and_folds_to_its_expected_state(name):
    audit, expected = golden(name)
    log = log_of(audit)
    state = replay(event_from_dict(e) for e in log)
    assert state.status == expected["status"] == "ended"
    assert state.winner == expected["winner"]
    assert list(state.scores) == expected["scores"]
    if state.trains is not None:  # a trains game: rounds, and the lowest totals win
        assert state.hand_number == expected["round"] == len(expected["rounds"])
        assert expected["winners"] == [s for s, t in enumerate(state.scores) if t == min(state.scores)]
    else:
        assert state.hand_number == expected["hand_number"] == len(expected["hands"])
        assert max(expected["scores"]) >= expected["target"]
    assert summarize(audit) == expected
    report = verify_log(log, audit["seed"])
    assert report.ok, report.problems
    assert report.deals_checked == sum(1 for e in log if e["type"] in DEAL_TYPES)
    rows = [
        StoredEvent(
            r["seq"],
            r["type"],
            r["schema_version"],
            {k: v for k, v in r.items() if k not in ("seq", "type", "schema_version", "prev_hash", "hash")},
            None,
            r["prev_hash"],
            r["hash"],
        )
        for r in audit["events"]
    ]
    assert verify_chain(rows) == []


class FrozenClock:
    """The service's time, moved only by the test (turn clocks run out when told to)."""

    def __init__(self):
        self.now = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def seeding_client(database_url):
    app = create_app(
        {
            "TESTING": True,
            "DATABASE_URL": database_url,
            "ALLOW_CLIENT_SEED": True,
            "RATELIMIT_ENABLED": False,
            "AUTOPLAY_PACE_SECONDS": 0,
        }
    )
    clock = app.extensions["boneyard.bus"].flow.now = FrozenClock()
    client = app.test_client()
    client.clock = clock
    yield client
    app.extensions["boneyard.store"].dispose()


@pytest.mark.parametrize(
    "name",
    [
        "all-fives-4p-partners",
        "muggins-calls-2p",
        "standard-draw-client-seeds-2p",
        "standard-draw-clock-2p",
        "muggins-block-clock-3p",
    ],
)
def test_a_server_given_the_same_seed_and_moves_writes_the_very_same_log(seeding_client, name):
    """The vectors are what the server itself records: same events, same hashes (turns left
    to run out included: the test lets the server's clock pass the deadline there)."""
    audit, _ = golden(name)
    vector = next(v for v in VECTORS if v.name == name)
    # The seats as a request states them: a level for computer seats only (the log's null omitted).
    seats = [{key: value for key, value in spec.items() if value is not None} for spec in vector.seat_specs()]
    response = seeding_client.post(
        "/v1/matches", json={"preset": vector.preset, "rules": vector.rules, "seats": seats, "seed": vector.seed}
    )
    assert response.status_code == 201, response.get_json()
    match_id = response.get_json()["id"]
    tokens = {s["seat"]: s["token"] for s in response.get_json()["seats"] if s.get("token")}
    for seat, player, client_seed in vector.claims:
        claimed = seeding_client.post(
            f"/v1/matches/{match_id}/seats/{seat}/claim", json={"name": player, "client_seed": client_seed}
        ).get_json()
        tokens[seat] = claimed["token"]
    turn_seconds = vector.rules.get("turn_seconds")
    for row in audit["events"]:  # a remote seat's own moves, sent as a person would
        seat = row.get("seat")
        if row["type"] == "turn_timed_out":  # the person waits: the next request plays its turn
            seeding_client.clock.now += timedelta(seconds=turn_seconds + 1)
            assert seeding_client.get(f"/v1/matches/{match_id}").status_code == 200
            continue
        if row["type"] == "seat_replaced":  # from here on the server's bot plays the seat
            tokens.pop(seat)
        if seat not in tokens or row.get("auto"):
            continue
        if row["type"] in REMOTE_MOVES or (row["type"] == "points_scored" and row["how"] == "muggins"):
            action = {
                "tile_played": lambda r: {
                    "type": "play",
                    "tile": r["tile"],
                    "end": r["end"],
                    **({"claim": r["claim"]} if r["claim"] is not None else {}),
                },
                "tile_drawn": lambda r: {"type": "draw"},
                "knocked": lambda r: {"type": "knock"},
                "points_scored": lambda r: {"type": "muggins"},
            }[row["type"]](row)
            answer = seeding_client.post(
                f"/v1/matches/{match_id}/actions", json=action, headers={"Authorization": f"Bearer {tokens[seat]}"}
            )
            assert answer.status_code == 200, (row["seq"], answer.get_json())
    play_bots(seeding_client)  # all-bot tables (from the start, or once a seat is replaced)
    served = whole_audit(seeding_client, match_id)
    assert served["events"] == audit["events"]
    assert {k: v for k, v in served.items() if k != "match_id"} == {k: v for k, v in audit.items() if k != "match_id"}


def test_summarizing_a_rewritten_deal_names_the_impossible_play_and_its_seq():
    forged = rewritten_deal()
    audit = audit_document("rewritten-deal", PERSON_AND_BOT.seed, forged.log)
    with pytest.raises(ImpossibleEvent) as refused:
        summarize(audit)
    tile = f"{forged.tile[0]}-{forged.tile[1]}"
    assert refused.value.seq == forged.play_seq
    assert str(refused.value) == f"seq {forged.play_seq}: impossible event: seat 0 plays {tile}, which it does not hold"
