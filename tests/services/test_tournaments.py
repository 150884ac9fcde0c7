"""Tournaments' use cases on the memory store: whole tournaments played through the bus, their
results checked against the matches' own logs, forfeits, the sweep, the tournament's own chain."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from datetime import timedelta

import pytest

from api import tournaments as core
from api.rules import InvalidRules
from api.services import errors
from api.services import tournaments as use_cases
from api.services.bus import MessageBus
from api.services.commands import (
    AddWebhook,
    ChangeTournament,
    CreateTournament,
    GetAudit,
    GetCrosstable,
    GetPlayerEvents,
    GetStandings,
    GetSummary,
    GetTournament,
    GetTournamentEvents,
    GetTournamentFairness,
    GetTournamentRounds,
    MemberSpec,
    PlayBots,
    RegisterEntrant,
    Seeker,
    SweepClocks,
    SweepTournaments,
    WithdrawEntrant,
)
from api.store.chain import verify_chain
from api.store.records import StoredEvent

from .support import SEED, play_to_end, portal


@pytest.fixture(autouse=True)
def matches_dealt_from_one_seed(monkeypatch):
    """Every tournament match these tests make is dealt from ``SEED`` (support's: its first hand
    is not blocked at its first play), unless it has a seed already (a duplicate round's, or a
    test's own). From a random seed a match ends as it is dealt about once in a few hundred, and
    is then decided with its pairing (``test_a_round_whose_matches_end_as_they_are_dealt_...``),
    which the other tests' counts of tables in play, forfeits and closes do not expect."""
    prepare = use_cases.prepare_match

    def dealt(command, flow):
        if command.seed is None and command.server_seed is None:
            command = replace(command, seed=SEED)
        return prepare(command, flow)

    monkeypatch.setattr(use_cases, "prepare_match", dealt)


def public_dns(host: str, port: int) -> list[str]:
    return ["93.184.216.34"]  # a webhook endpoint's address, public as the sender requires


def create(bus: MessageBus, **options) -> dict:
    defaults = {"format": "swiss", "preset": "standard-block", "rules": {"target": 20}, "turn_seconds": 30}
    return bus.handle(CreateTournament(portal(bus), **{**defaults, **options}))


def enter_bots(bus: MessageBus, tournament_id: str, count: int, level: str = "random", size: int = 1) -> None:
    owner = Seeker(portal(bus).portal_id)
    for number in range(count):
        members = tuple(MemberSpec(level=level) for _ in range(size))
        bus.handle(RegisterEntrant(tournament_id, owner, f"Bot {number + 1}", members))


def viewer(bus: MessageBus, ref: str | None = None) -> Seeker:
    return Seeker(portal(bus).portal_id, ref)


def play_round(bus: MessageBus, tournament_id: str) -> None:
    """Every match of the round in play to its end (their bots moved as the runner would), then
    the sweep, which pairs the next round."""
    rounds = bus.handle(GetTournamentRounds(tournament_id, viewer(bus)))["rounds"]
    for table in rounds[-1]["tables"]:
        if table["match_id"] is not None:
            for _ in range(2000):
                if bus.handle(GetSummary(table["match_id"]))["status"] == "ended":
                    break
                bus.handle(PlayBots(table["match_id"], 200))
    bus.handle(SweepTournaments())


def tiebreak(row: dict, name: str) -> int:
    return next(t["value"] for t in row["tiebreaks"] if t["name"] == name)


def independent_standings(bus: MessageBus, tournament_id: str) -> dict[str, tuple[int, int]]:
    """Each entrant's (match points, win margin), recomputed from every match's own audit log:
    its ``match_ended`` (who won, the final scores), and the round's byes."""
    rounds = bus.handle(GetTournamentRounds(tournament_id, viewer(bus)))["rounds"]
    tournament = bus.handle(GetTournament(tournament_id, viewer(bus)))
    found = {e["id"]: [0, 0] for e in tournament["entrants"]}
    for round_ in rounds:
        if round_["bye"] is not None and tournament["settings"]["format"] == "swiss":
            found[round_["bye"]][0] += 2
        for table in round_["tables"]:
            log = bus.handle(GetAudit(table["match_id"]))["events"]
            final = next(e for e in log if e["type"] == "match_ended")
            for side, entrant in enumerate(table["sides"]):
                won = final["winner"] == side
                found[entrant][0] += 2 if won else 0
                found[entrant][1] += final["scores"][side] - final["scores"][1 - side]
    return {entrant: (points, margin) for entrant, (points, margin) in found.items()}


def test_a_round_robin_of_four_bots_plays_to_its_end_and_its_standings_match_the_matches(bus: MessageBus):
    made = create(bus, format="round_robin", bot_levels=("random",), tiebreaks=("win_margin", "buchholz"))
    tournament_id = made["id"]
    assert made["status"] == "registering" and made["settings"]["side_size"] == 1
    enter_bots(bus, tournament_id, 4)
    started = bus.handle(ChangeTournament(tournament_id, portal(bus), "start"))
    assert started["status"] == "running" and started["planned_rounds"] == 3 and started["current_round"] == 1
    for _ in range(3):
        play_round(bus, tournament_id)
    final = bus.handle(GetTournament(tournament_id, viewer(bus)))
    assert final["status"] == "ended" and final["rounds_ended"] == 3
    server = {r["entrant_id"]: (r["match_points"], tiebreak(r, "win_margin")) for r in final["standings"]}
    assert server == independent_standings(bus, tournament_id)
    rounds = bus.handle(GetTournamentRounds(tournament_id, viewer(bus)))["rounds"]
    met = [frozenset(t["sides"]) for r in rounds for t in r["tables"]]
    assert len(met) == len(set(met)) == 6  # everyone met everyone once
    crosstable = bus.handle(GetCrosstable(tournament_id, viewer(bus)))
    assert all(len(row["games"]) == 3 for row in crosstable["rows"])


def test_a_swiss_of_partner_teams_plays_to_its_end_without_rematches(bus: MessageBus):
    made = create(bus, rounds=3, teams=True, rules={"partners": True, "target": 20}, bot_levels=("random",))
    enter_bots(bus, made["id"], 5, size=2)
    bus.handle(ChangeTournament(made["id"], portal(bus), "start"))
    for _ in range(3):
        play_round(bus, made["id"])
    final = bus.handle(GetTournament(made["id"], viewer(bus)))
    assert final["status"] == "ended"
    rounds = bus.handle(GetTournamentRounds(made["id"], viewer(bus)))["rounds"]
    met = [frozenset(t["sides"]) for r in rounds for t in r["tables"]]
    assert len(met) == len(set(met)) == 6
    byes = [r["bye"] for r in rounds]
    assert None not in byes and len(set(byes)) == 3
    summary = bus.handle(GetSummary(rounds[0]["tables"][0]["match_id"]))
    assert summary["rules"]["partners"] and summary["rules"]["turn_seconds"] == 30
    server = {r["entrant_id"]: (r["match_points"], tiebreak(r, "win_margin")) for r in final["standings"]}
    assert server == independent_standings(bus, made["id"])


def test_the_tournaments_log_is_hash_chained_and_replays_to_its_standings(bus: MessageBus):
    made = create(bus, format="round_robin", bot_levels=("random",))
    enter_bots(bus, made["id"], 3)
    bus.handle(ChangeTournament(made["id"], portal(bus), "start"))
    for _ in range(3):
        play_round(bus, made["id"])
    page = bus.handle(GetTournamentEvents(made["id"], viewer(bus)))
    rows = [stored(e) for e in page["events"]]
    assert verify_chain(rows) == [] and page["chain_head"] == {"seq": rows[-1].seq, "hash": rows[-1].hash}
    state = core.replay(core.event_from_dict(e["event"]) for e in page["events"])
    final = bus.handle(GetTournament(made["id"], viewer(bus)))
    assert [r.entrant_id for r in core.standings(state)] == [r["entrant_id"] for r in final["standings"]]
    assert [e["event"]["type"] for e in page["events"]][-2:] == ["round_ended", "tournament_ended"]


def stored(logged: dict) -> StoredEvent:
    """A page's event as the row its hash covers: its type, schema version and data (the event less its type)."""
    event = logged["event"]
    data = {name: value for name, value in event.items() if name != "type"}
    return StoredEvent(
        logged["seq"],
        event["type"],
        logged["schema_version"],
        data,
        logged["recorded_at"],
        logged["prev_hash"],
        logged["hash"],
    )


def test_a_player_who_never_moves_forfeits_when_the_clock_hands_the_seat_to_a_bot(bus: MessageBus, clock):
    made = create(bus, rounds=1, bot_levels=("random",))
    ana = viewer(bus, "ana")
    entered = bus.handle(RegisterEntrant(made["id"], ana))
    assert entered["members"] == [{"kind": "player", "player_ref": "ana", "level": None}]
    enter_bots(bus, made["id"], 1)
    bus.handle(ChangeTournament(made["id"], portal(bus), "start"))
    mine = bus.handle(GetTournamentRounds(made["id"], ana))["my_seats"]
    assert len(mine) == 1 and mine[0]["round"] == 1 and mine[0]["token"]
    for _ in range(3):  # three timeouts in a row: the seat is handed to a computer player
        clock.advance(31)
        bus.handle(SweepClocks())
    result = bus.handle(GetTournamentRounds(made["id"], ana))["rounds"][0]["tables"][0]["result"]
    ana_side = bus.handle(GetTournamentRounds(made["id"], ana))["rounds"][0]["tables"][0]["sides"].index(entered["id"])
    assert result == {"winner": 1 - ana_side, "scores": [0, 0], "forfeit": True}
    assert bus.handle(GetTournament(made["id"], ana))["status"] == "ended"


def test_withdrawing_mid_round_forfeits_and_the_matchs_later_end_changes_nothing(bus: MessageBus):
    made = create(bus, rounds=2, bot_levels=("random",))
    enter_bots(bus, made["id"], 4)
    bus.handle(ChangeTournament(made["id"], portal(bus), "start"))
    table = bus.handle(GetTournamentRounds(made["id"], viewer(bus)))["rounds"][0]["tables"][0]
    bus.handle(WithdrawEntrant(made["id"], viewer(bus), table["sides"][0]))
    play_round(bus, made["id"])
    rounds = bus.handle(GetTournamentRounds(made["id"], viewer(bus)))["rounds"]
    assert rounds[0]["tables"][0]["result"] == {"winner": 1, "scores": [0, 0], "forfeit": True}
    assert bus.handle(GetSummary(table["match_id"]))["status"] == "ended"  # played on, not counted
    assert len(rounds) == 2 and rounds[1]["bye"] is not None  # three left: one rests


def test_a_tournament_starts_at_its_time_or_is_cancelled_with_too_few(bus: MessageBus, clock):
    soon = clock() + timedelta(minutes=5)
    full = create(bus, rounds=1, bot_levels=("random",), starts_at=soon)
    empty = create(bus, rounds=1, starts_at=soon)
    enter_bots(bus, full["id"], 2)
    assert bus.handle(SweepTournaments()) == 0
    clock.advance(301)
    assert bus.handle(SweepTournaments()) == 2
    assert bus.handle(GetTournament(full["id"], viewer(bus)))["current_round"] == 1
    cancelled = bus.handle(GetTournament(empty["id"], viewer(bus)))
    assert cancelled["status"] == "cancelled" and "needs 2" in cancelled["cancel_reason"]


def test_entry_rules_and_who_may_do_what(bus: MessageBus):
    made = create(bus, rounds=1, bot_levels=("greedy",), rating_min=-5.0)
    with pytest.raises(errors.EntryRefused) as refused:
        bus.handle(RegisterEntrant(made["id"], viewer(bus), "r", (MemberSpec(level="random"),)))
    assert refused.value.extra == {"reason": "bot_level"}
    with pytest.raises(errors.EntryRefused):
        bus.handle(RegisterEntrant(made["id"], viewer(bus, "ana"), "team", (MemberSpec(level="greedy"),)))
    bus.handle(RegisterEntrant(made["id"], viewer(bus, "ana")))
    with pytest.raises(core.AlreadyRegistered):
        bus.handle(RegisterEntrant(made["id"], viewer(bus, "ana")))
    with pytest.raises(errors.NotYourEntrant):
        bus.handle(WithdrawEntrant(made["id"], viewer(bus, "bo")))
    with pytest.raises(errors.UnknownTournament):
        bus.handle(GetTournament(made["id"], Seeker("another-portal")))
    with pytest.raises(core.InvalidTournament):
        create(bus, teams=True)  # standard-block without partners is no partner game
    with pytest.raises(core.TooFewEntrants):
        bus.handle(ChangeTournament(made["id"], portal(bus), "start"))


def test_a_player_hears_of_the_tournament_on_its_own_stream_and_plays_its_seats(bus: MessageBus):
    made = create(bus, format="round_robin", bot_levels=("random",))
    ana = viewer(bus, "ana")
    bus.handle(RegisterEntrant(made["id"], ana))
    enter_bots(bus, made["id"], 2)
    bus.handle(ChangeTournament(made["id"], portal(bus), "start"))
    for number in (1, 2, 3):
        for seat in bus.handle(GetTournamentRounds(made["id"], ana))["my_seats"]:
            if seat["round"] == number:
                play_to_end(bus, seat["match_id"], {seat["seat"]: seat["token"]})
        play_round(bus, made["id"])
    assert bus.handle(GetTournament(made["id"], ana))["status"] == "ended"
    heard = bus.handle(GetPlayerEvents(ana))["events"]
    rounds = bus.handle(GetTournamentRounds(made["id"], ana))
    seats = {s["round"]: (s["match_id"], s["seat"]) for s in rounds["my_seats"]}
    expected = [("tournament_started", None, None, None)]
    for number in (1, 2, 3):
        match_id, seat = seats.get(number, (None, None))
        if match_id is not None:
            expected.append(("match_started", None, match_id, seat))
        expected += [("round_paired", number, match_id, seat), ("round_ended", number, None, None)]
    expected.append(("tournament_ended", 3, None, None))
    assert [(e["type"], e["round"], e["match_id"], e["seat"]) for e in heard] == expected
    assert {e["tournament_id"] for e in heard if e["type"] != "match_started"} == {made["id"]}
    assert len(seats) == 2  # three entrants: ana rests one round


def test_the_portals_webhooks_get_the_tournaments_start_rounds_and_end(bus: MessageBus, store):
    hook = bus.handle(AddWebhook(portal(bus).portal_id, "https://hooks.example.com/t", None, resolve=public_dns))
    made = create(bus, format="round_robin", bot_levels=("random",))
    enter_bots(bus, made["id"], 2)
    bus.handle(ChangeTournament(made["id"], portal(bus), "start"))
    play_round(bus, made["id"])
    bodies = [
        json.loads(d.body)
        for d, _ in store.tables.webhook_deliveries.values()
        if d.webhook_id == hook["id"] and d.event_type.startswith("tournament.")
    ]
    bodies.sort(key=lambda body: body["seq"])
    assert [b["type"] for b in bodies] == [
        "tournament.started",
        "tournament.round_paired",
        "tournament.round_ended",
        "tournament.ended",
    ]
    assert {b["tournament_id"] for b in bodies} == {made["id"]} and "match_id" not in bodies[0]
    log = {e["seq"]: e["event"] for e in bus.handle(GetTournamentEvents(made["id"], viewer(bus)))["events"]}
    assert all(b["data"] == {k: v for k, v in log[b["seq"]].items() if k != "type"} for b in bodies)
    assert bodies[1]["data"]["tables"][0]["match_id"] is not None


def test_a_rated_tournament_rates_the_tables_a_player_sits_at(bus: MessageBus):
    made = create(bus, rounds=1, rated=True, bot_levels=("random",))
    bus.handle(RegisterEntrant(made["id"], viewer(bus, "ana")))
    enter_bots(bus, made["id"], 3)
    bus.handle(ChangeTournament(made["id"], portal(bus), "start"))
    tables = bus.handle(GetTournamentRounds(made["id"], viewer(bus)))["rounds"][0]["tables"]
    rated = {bus.handle(GetSummary(t["match_id"]))["rated"]: "e1" in t["sides"] for t in tables}
    assert rated == {True: True, False: False}  # ana's table rated, the bots' alone not


def test_a_clock_the_rules_refuse_is_refused_at_creation(bus: MessageBus):
    with pytest.raises(InvalidRules) as refused:
        create(bus, turn_seconds=1)
    assert refused.value.field == "turn_seconds"


def test_the_standings_come_in_pages(bus: MessageBus):
    made = create(bus, rounds=1, bot_levels=("random",))
    enter_bots(bus, made["id"], 5)
    whole = bus.handle(GetTournament(made["id"], viewer(bus)))["standings"]
    first = bus.handle(GetStandings(made["id"], viewer(bus), 0, 2))
    last = bus.handle(GetStandings(made["id"], viewer(bus), 4, 2))
    assert first["standings"] == whole[:2] and first["next_offset"] == 2
    assert last["standings"] == whole[4:] and last["next_offset"] is None


def arena_points_by_hand(bus: MessageBus, tournament_id: str) -> dict[str, int]:
    """Each entrant's arena points from the matches' own audit logs, its games in the order they
    were paired: a win 2, a draw 1, a loss 0; a win after two wins in a row 4."""
    rounds = bus.handle(GetTournamentRounds(tournament_id, viewer(bus)))["rounds"]
    tournament = bus.handle(GetTournament(tournament_id, viewer(bus)))
    points, run = {e["id"]: 0 for e in tournament["entrants"]}, {e["id"]: 0 for e in tournament["entrants"]}
    for round_ in rounds:
        for table in round_["tables"]:
            final = next(e for e in bus.handle(GetAudit(table["match_id"]))["events"] if e["type"] == "match_ended")
            for side, entrant in enumerate(table["sides"]):
                if final["winner"] == side:
                    points[entrant] += 4 if run[entrant] >= 2 else 2
                    run[entrant] += 1
                else:
                    run[entrant] = 0
    return points


def test_an_arena_pairs_whoever_is_free_until_its_time_is_over_and_the_last_matches_count(bus: MessageBus, clock):
    made = create(bus, format="arena", duration_minutes=10, bot_levels=("random",), rules={"target": 10})
    enter_bots(bus, made["id"], 5)
    started = bus.handle(ChangeTournament(made["id"], portal(bus), "start"))
    assert started["ends_at"] == (clock() + timedelta(minutes=10)).isoformat() and started["planned_rounds"] == 0
    assert started["current_round"] == 1  # two tables at once; the fifth waits

    def pending() -> list[dict]:
        rounds = bus.handle(GetTournamentRounds(made["id"], viewer(bus)))["rounds"]
        return [t for r in rounds for t in r["tables"] if t["result"] is None]

    def finish(table: dict) -> None:
        while bus.handle(GetSummary(table["match_id"]))["status"] != "ended":
            bus.handle(PlayBots(table["match_id"], 200))

    for _ in range(8):  # one match ends at a time; the sweep pairs whoever is then free
        finish(pending()[0])
        bus.handle(SweepTournaments())
        busy = [side for table in pending() for side in table["sides"]]
        assert len(busy) == len(set(busy)) == 4  # everyone but one plays, no one at two tables
    clock.advance(601)
    assert bus.handle(SweepTournaments()) == 1  # the clock closes it
    closed = bus.handle(GetTournament(made["id"], viewer(bus)))
    assert closed["closed"] and closed["status"] == "running"
    paired = closed["current_round"]
    for table in pending():
        finish(table)
    bus.handle(SweepTournaments())
    final = bus.handle(GetTournament(made["id"], viewer(bus)))
    assert final["status"] == "ended" and final["current_round"] == paired  # nothing paired after the close
    assert {r["entrant_id"]: r["match_points"] for r in final["standings"]} == arena_points_by_hand(bus, made["id"])
    events = [e["event"]["type"] for e in bus.handle(GetTournamentEvents(made["id"], viewer(bus)))["events"]]
    assert events.count("arena_closed") == 1 and events[-1] == "tournament_ended"


def test_the_portal_closes_an_arena_and_a_swiss_is_not_closed(bus: MessageBus):
    arena = create(bus, format="arena", duration_minutes=60, bot_levels=("random",))
    enter_bots(bus, arena["id"], 2)
    bus.handle(ChangeTournament(arena["id"], portal(bus), "start"))
    closed = bus.handle(ChangeTournament(arena["id"], portal(bus), "close"))
    assert closed["closed"] and closed["status"] == "running"  # its one match plays on
    with pytest.raises(core.TournamentOver):
        bus.handle(ChangeTournament(arena["id"], portal(bus), "close"))
    swiss = create(bus, rounds=1, bot_levels=("random",))
    enter_bots(bus, swiss["id"], 2)
    bus.handle(ChangeTournament(swiss["id"], portal(bus), "start"))
    with pytest.raises(core.InvalidTournament):
        bus.handle(ChangeTournament(swiss["id"], portal(bus), "close"))


def deals(bus: MessageBus, match_id: str) -> dict[int, tuple]:
    """Each hand's deal in a match's audit log: every seat's hand and the boneyard, by hand number."""
    log = bus.handle(GetAudit(match_id))["events"]
    return {e["hand_number"]: (e["hands"], e["boneyard"]) for e in log if e["type"] == "hand_started"}


def test_a_duplicate_round_robin_deals_every_table_of_a_round_alike_and_reveals_its_seed_at_the_rounds_end(
    bus: MessageBus,
):
    made = create(bus, format="round_robin", duplicate=True, bot_levels=("random",), rules={"target": 30})
    assert made["settings"]["duplicate"]
    enter_bots(bus, made["id"], 4)
    bus.handle(ChangeTournament(made["id"], portal(bus), "start"))
    (first,) = bus.handle(GetTournamentRounds(made["id"], viewer(bus)))["rounds"]
    tables = first["tables"]
    assert len(tables) == 4 and first["seed_commitment"] is not None
    assert [t["sides"] for t in tables[1::2]] == [t["sides"][::-1] for t in tables[::2]]  # each pair twice, swapped
    leg = tables[0]["match_id"]
    while bus.handle(GetSummary(leg))["status"] != "ended":
        bus.handle(PlayBots(leg, 200))
    with pytest.raises(errors.MatchNotOver):  # the other tables still play on the same deals
        bus.handle(GetAudit(leg))
    sealed = bus.handle(GetTournamentFairness(made["id"], viewer(bus)))["rounds"]
    assert [(r["round"], r["seed"], r["same_deals"]) for r in sealed] == [(1, None, None)]
    play_round(bus, made["id"])
    proof = bus.handle(GetTournamentFairness(made["id"], viewer(bus)))["rounds"][0]
    assert proof["same_deals"] is True and proof["problems"] == [] and len(proof["matches"]) == 4
    (first, second) = bus.handle(GetTournamentRounds(made["id"], viewer(bus)))["rounds"]
    assert first["ended"] and first["seed_commitment"] != second["seed_commitment"]
    by_table = {}
    for table in first["tables"]:
        audit = bus.handle(GetAudit(table["match_id"]))
        assert audit["seed_commitment"] == first["seed_commitment"]
        assert hashlib.sha256(audit["seed"].encode()).hexdigest() == first["seed_commitment"]
        by_table[table["number"]] = deals(bus, table["match_id"])
    shared = set.intersection(*(set(d) for d in by_table.values()))
    assert 1 in shared and all(len({repr(d[k]) for d in by_table.values()}) == 1 for k in shared)
    for _ in range(2):
        play_round(bus, made["id"])
    final = bus.handle(GetTournament(made["id"], viewer(bus)))
    assert final["status"] == "ended" and all(r["played"] == 6 for r in final["standings"])  # 3 pairings, 2 legs
    server = {r["entrant_id"]: (r["match_points"], tiebreak(r, "win_margin")) for r in final["standings"]}
    assert server == independent_standings(bus, made["id"])


# Dealt from this seed, a two-player standard-block hand is blocked at its first play (seat 0's
# double six; the other sixes are all in the boneyard): seat 0 wins it by 20, the match's target.
BLOCKED_AT_ONCE = "88ed339fd674fb7ab34c08371c2fc739c685fd9cbd6b13ae90bb04131a6d4164"


def test_a_round_whose_matches_end_as_they_are_dealt_is_decided_and_the_next_is_paired(bus: MessageBus, monkeypatch):
    """A match can end in the transaction that makes it, before its table is the tournament's:
    its result is recorded with the round's pairing, and the tournament moves on (it waited for
    ever before: 1 run in ~200 of a round robin of random bots)."""
    prepare = use_cases.prepare_match
    monkeypatch.setattr(
        use_cases, "prepare_match", lambda command, flow: prepare(replace(command, seed=BLOCKED_AT_ONCE), flow)
    )
    made = create(bus, format="round_robin", bot_levels=("random",), rules={"target": 20})
    enter_bots(bus, made["id"], 4)
    bus.handle(ChangeTournament(made["id"], portal(bus), "start"))
    (first,) = bus.handle(GetTournamentRounds(made["id"], viewer(bus)))["rounds"]
    assert [t["result"] for t in first["tables"]] == [{"winner": 0, "scores": [20, 0], "forfeit": False}] * 2
    for table in first["tables"]:
        kinds = [e["type"] for e in bus.handle(GetAudit(table["match_id"]))["events"]]
        assert kinds == ["match_created", "hand_started", "tile_played", "hand_ended", "match_ended"]
    monkeypatch.setattr(use_cases, "prepare_match", prepare)
    assert bus.handle(SweepTournaments()) == 1
    tournament = bus.handle(GetTournament(made["id"], viewer(bus)))
    assert tournament["rounds_ended"] == 1 and tournament["current_round"] == 2
    for _ in range(2):
        play_round(bus, made["id"])
    final = bus.handle(GetTournament(made["id"], viewer(bus)))
    assert final["status"] == "ended" and final["rounds_ended"] == 3


def test_an_arena_pairing_stands_when_a_result_comes_in_while_its_matches_are_prepared(bus: MessageBus, monkeypatch):
    """The sweep prepares a pairing's matches before its transaction; a result appended meanwhile
    moves the log on. A Swiss's round is then left to the next sweep; an arena's pairing still
    stands if its entrants are all still free (the log takes it), and is appended after the result."""
    made = create(bus, format="arena", duration_minutes=30, bot_levels=("random",), rules={"target": 10})
    enter_bots(bus, made["id"], 5)
    bus.handle(ChangeTournament(made["id"], portal(bus), "start"))
    first, second = bus.handle(GetTournamentRounds(made["id"], viewer(bus)))["rounds"][0]["tables"]

    def finish(table: dict) -> None:
        while bus.handle(GetSummary(table["match_id"]))["status"] != "ended":
            bus.handle(PlayBots(table["match_id"], 200))

    finish(first)
    prepare = use_cases.prepare_match
    meanwhile = []

    def prepared_while_a_table_ends(command, flow):
        if not meanwhile:
            meanwhile.append(second["match_id"])
            finish(second)  # its result is appended before the pairing's transaction
        return prepare(command, flow)

    monkeypatch.setattr(use_cases, "prepare_match", prepared_while_a_table_ends)
    assert bus.handle(SweepTournaments()) == 1 and meanwhile
    events = [e["event"] for e in bus.handle(GetTournamentEvents(made["id"], viewer(bus)))["events"]]
    kinds = [e["type"] for e in events]
    assert kinds[-3:] == ["match_result", "round_ended", "round_paired"]  # the pairing after the result
    (table,) = events[-1]["tables"]
    waited = next(e for e in events if e["type"] == "round_paired")["waiting"]
    assert {*table["sides"], *events[-1]["waiting"]} == {*first["sides"], *waited}  # the pool it read
    assert bus.handle(SweepTournaments()) == 1  # the second table's two, and whoever waited, paired next
    rounds = bus.handle(GetTournamentRounds(made["id"], viewer(bus)))["rounds"]
    busy = [side for r in rounds for t in r["tables"] if t["result"] is None for side in t["sides"]]
    assert len(rounds) == 3 and len(busy) == len(set(busy)) == 4
