"""Every use case through the message bus, on the in-memory store: no app, no HTTP, no SQL.

What is asserted here is the use cases' own behaviour (who may do what, what is stored, what
each seat is shown); the HTTP layer's translation of it is tested in tests/api.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import replace

import pytest

from api.rules import RulesError, SeatTaken
from api.services import commands, errors, fairness
from api.services import flow as flow_module
from api.services.bus import HANDLERS
from api.services.commands import (
    Act,
    Caller,
    ClaimSeat,
    Command,
    CreateMatch,
    GetAudit,
    GetEvents,
    GetFairness,
    GetPlayerStats,
    GetSummary,
    GetView,
    ListMatches,
    PlayBots,
    Rematch,
    SweepClocks,
)
from api.services.idempotency import Keyed, Replay
from api.services.tokens import hash_token
from api.store.memory import MemoryIdempotencyKeys

from .support import ANA, BO, GREEDY, OPEN, RANDOM, create, play_to_end, portal, tokens_of, wired


def test_every_command_has_one_handler_and_nothing_else_is_taken(bus):
    defined = {
        cls
        for _, cls in inspect.getmembers(commands, inspect.isclass)
        if issubclass(cls, Command) and cls is not Command
    }
    assert set(HANDLERS) == defined
    with pytest.raises(TypeError, match="no handler for Command"):
        bus.handle(Command())


def test_the_flows_docstring_names_every_module_whose_handlers_it_serves():
    """api.services.flow says which use cases are functions of a command and the flow: every
    module with a handler the bus registers that takes the flow, and the ones that take none."""
    named = set(re.findall(r"``(?:api\.services\.)?(\w+)``", flow_module.__doc__ or ""))
    modules = {handler.__module__.split(".")[2]: handler for handler in HANDLERS.values()}
    takes_flow = {name for name, h in modules.items() if "flow" in inspect.signature(h).parameters}
    assert set(modules) - takes_flow == {"webhook_delivery"}  # the one the docstring says needs the courier
    assert set(modules) <= named


# --- create and claim ------------------------------------------------------------------------------
def test_create_deals_and_shows_each_remote_seat_its_token_once_storing_only_its_hash(bus, store):
    created = create(bus, ANA, GREEDY)
    assert created["status"] == "playing" and created["seq"] >= 2  # created, dealt (and a lead)
    [ana, greedy] = created["seats"]
    assert "token" in ana and "token" not in greedy and greedy["level"] == "greedy"
    assert ana["player_ref"] == "ana"
    with store.unit_of_work(readonly=True) as uow:
        seats = uow.seats.list_for_match(created["id"])
        logged = [e.type for e in uow.events.load(created["id"])]
    assert seats[0].token_hash == hash_token(ana["token"]) and seats[1].token_hash is None
    assert ana["token"] not in repr(store.tables)
    assert logged[:2] == ["match_created", "hand_started"]


def test_a_client_chosen_seed_is_refused_where_the_server_does_not_allow_it(bus, flow):
    flow.allow_client_seed = False
    with pytest.raises(errors.ClientSeedNotAllowed):
        create(bus, ANA, GREEDY)
    assert create(bus, ANA, GREEDY, seed=None)["seeded_by_client"] is False


def test_an_address_may_run_only_so_many_all_bot_matches(bus, flow):
    flow.limits = replace(flow.limits, bot_matches_per_creator=2)
    for _ in range(2):
        create(bus, GREEDY, RANDOM, creator="10.0.0.1")
    with pytest.raises(errors.TooManyBotMatches) as refused:
        create(bus, GREEDY, RANDOM, creator="10.0.0.1")
    assert refused.value.extra == {"limit": 2}
    create(bus, GREEDY, RANDOM, creator="10.0.0.2")  # another address has its own count


def test_an_all_bot_match_is_answered_at_once_and_played_by_steps(bus, flow, store, clock):
    created = create(bus, GREEDY, RANDOM)
    with store.unit_of_work(readonly=True) as uow:
        assert uow.matches.bots_backlog(clock()) == (0, None)  # due after the pace, not now
        clock.advance(flow.limits.autoplay_pace)
        assert uow.matches.bots_backlog(clock()) == (1, clock())
    moved, ended = bus.handle(PlayBots(created["id"], 3))
    assert (moved, ended) == (3, False)
    assert bus.handle(GetSummary(created["id"]))["seq"] == created["seq"] + 3
    assert play_to_end(bus, created["id"], {})["status"] == "ended"


def test_a_claim_takes_an_open_seat_once_and_the_deal_follows(bus):
    created = create(bus, ANA, OPEN)
    assert created["status"] == "waiting" and created["open_seats"] == [1]
    claimed = bus.handle(ClaimSeat(created["id"], 1, "Cy"))
    assert claimed["seat"] == 1 and claimed["token"] and claimed["view"]["status"] == "playing"
    assert len(claimed["view"]["hand"]) == 7  # the claimer's own tiles, in its view
    with pytest.raises(SeatTaken):
        bus.handle(ClaimSeat(created["id"], 1, "Dee"))
    with pytest.raises(errors.UnknownSeat):
        bus.handle(ClaimSeat(created["id"], 2, "Dee"))


# --- reading ----------------------------------------------------------------------------------------
def test_a_view_shows_its_own_hand_only_and_tokens_are_checked(bus):
    created = create(bus, ANA, BO)
    tokens = tokens_of(created)
    mine = bus.handle(GetView(created["id"], tokens[0]))
    spectator = bus.handle(GetView(created["id"], None))
    assert mine["seat"] == 0 and len(mine["hand"]) == mine["hand_counts"][0] and sum(mine["hand_counts"]) >= 13
    assert spectator["seat"] is None and "hand" not in spectator and spectator["legal_actions"] == []
    with pytest.raises(errors.InvalidToken):
        bus.handle(GetView(created["id"], "not-a-token"))
    other = create(bus, ANA, BO)
    with pytest.raises(errors.WrongMatch):
        bus.handle(GetView(other["id"], tokens[0]))
    with pytest.raises(errors.UnknownMatch):
        bus.handle(GetSummary("0" * 32))


def test_the_list_pages_newest_first_and_filters(bus, clock):
    made = []
    for _ in range(3):
        made.append(create(bus, ANA, GREEDY)["id"])
        clock.advance(1)
    waiting = create(bus, ANA, OPEN)["id"]
    first = bus.handle(ListMatches(limit=2, caller=portal(bus)))
    second = bus.handle(ListMatches(limit=2, cursor=first["next_cursor"], caller=portal(bus)))
    assert [m["id"] for m in first["items"] + second["items"]] == [waiting, *reversed(made)]
    assert second["next_cursor"] is None
    assert [m["id"] for m in bus.handle(ListMatches(has_open_seat=True, caller=portal(bus)))["items"]] == [waiting]
    assert [m["id"] for m in bus.handle(ListMatches(status="waiting", caller=portal(bus)))["items"]] == [waiting]
    assert len(bus.handle(ListMatches(player_ref="ana", caller=portal(bus)))["items"]) == 4
    with pytest.raises(errors.InvalidCursor):
        bus.handle(ListMatches(cursor="yesterday", caller=portal(bus)))


def test_events_page_by_after_and_limit_and_hide_other_hands(bus):
    created = create(bus, ANA, BO)
    match_id, tokens = created["id"], tokens_of(created)
    page = bus.handle(GetEvents(match_id, tokens[0], after=0, limit=1))
    assert [e["seq"] for e in page["events"]] == [1] and page["next_after"] == 1
    rest = bus.handle(GetEvents(match_id, tokens[0], after=1))
    [dealt] = [e for e in rest["events"] if e["type"] == "hand_started"]
    assert len(dealt["hand"]) == 7 and "hands" not in dealt and dealt["hand_counts"] == [7, 7]  # own tiles only
    assert "hand" not in bus.handle(GetEvents(match_id, None, after=1))["events"][0]  # a spectator: none
    assert rest["next_after"] is None and rest["seq"] == created["seq"]


def test_a_long_poll_with_nothing_new_waits_its_time_on_the_clock_and_answers_empty(bus, clock):
    created = create(bus, ANA, BO)
    page = bus.handle(GetEvents(created["id"], None, after=created["seq"], wait=5))
    assert page["events"] == [] and clock.naps == [5]


def test_an_ended_match_opens_its_audit_log_by_pages_and_its_fairness_check(bus, monkeypatch):
    created = create(bus, ANA, GREEDY, rules={"target": 20})
    with pytest.raises(errors.MatchNotOver):
        bus.handle(GetAudit(created["id"]))
    with pytest.raises(errors.MatchNotOver):
        bus.handle(GetFairness(created["id"]))
    ended = play_to_end(bus, created["id"], tokens_of(created))
    first = bus.handle(GetAudit(created["id"], limit=10))
    assert first["seed"] == "7" * 64 and [e["seq"] for e in first["events"]] == list(range(1, 11))
    assert first["events"][1]["prev_hash"] == first["events"][0]["hash"]
    last = bus.handle(GetAudit(created["id"], after=ended["seq"] - 1))
    assert [e["seq"] for e in last["events"]] == [ended["seq"]] and last["next_after"] is None
    report = bus.handle(GetFairness(created["id"]))
    assert report["verified"] is True and report["events_checked"] == ended["seq"]
    monkeypatch.setattr(fairness, "check", lambda *_: pytest.fail("checked twice"))
    assert bus.handle(GetFairness(created["id"])) == report  # stored once, read after


# --- acting -----------------------------------------------------------------------------------------
def test_an_action_appends_and_answers_what_the_seat_may_see(bus):
    created = create(bus, ANA, BO)
    tokens = tokens_of(created)
    turn = created["turn"]
    action = bus.handle(GetView(created["id"], tokens[turn]))["legal_actions"][0]
    done = bus.handle(Act(created["id"], tokens[turn], action))
    assert done["seq"] == created["seq"] + 1 and done["events"][0]["seq"] == created["seq"] + 1
    assert done["view"]["seat"] == turn and done["view"]["turn"] == 1 - turn
    with pytest.raises(RulesError):  # not this seat's turn any more
        bus.handle(Act(created["id"], tokens[turn], action))
    with pytest.raises(errors.InvalidToken):
        bus.handle(Act(created["id"], None, action))


def test_an_action_on_a_seq_that_moved_on_is_refused(bus):
    created = create(bus, ANA, BO)
    tokens, turn = tokens_of(created), created["turn"]
    action = bus.handle(GetView(created["id"], tokens[turn]))["legal_actions"][0]
    with pytest.raises(errors.StaleSeq) as stale:
        bus.handle(Act(created["id"], tokens[turn], action, expected_seq=created["seq"] - 1))
    assert stale.value.current_seq == created["seq"]
    with pytest.raises(errors.PreconditionFailed):
        bus.handle(Act(created["id"], tokens[turn], action, if_match_seq=created["seq"] - 1))


def test_an_action_whose_match_keeps_moving_under_the_lock_gives_up_stale(bus, flow, monkeypatch):
    created = create(bus, ANA, BO)
    tokens, turn = tokens_of(created), created["turn"]
    action = bus.handle(GetView(created["id"], tokens[turn]))["legal_actions"][0]
    real_lock, locks = flow.lock, []

    def moved_on(uow, match_id):
        locks.append(match_id)
        return replace(real_lock(uow, match_id), last_seq=created["seq"] + 1)

    monkeypatch.setattr(flow, "lock", moved_on)
    with pytest.raises(errors.StaleSeq):
        bus.handle(Act(created["id"], tokens[turn], action))
    assert len(locks) == 5  # decided again each time, then given up
    assert bus.handle(GetSummary(created["id"]))["seq"] == created["seq"]  # nothing appended


def _keyed(key: str, fingerprint: str) -> Keyed:
    return Keyed(
        key,
        fingerprint,
        render_result=lambda result: f"seq {result['seq']}",
        render_refusal=lambda refusal: (409, type(refusal).__name__),
    )


def test_a_keyed_action_is_answered_again_not_applied_again_and_a_keyed_refusal_too(bus):
    created = create(bus, ANA, BO)
    tokens, turn = tokens_of(created), created["turn"]
    action = bus.handle(GetView(created["id"], tokens[turn]))["legal_actions"][0]
    bus.handle(Act(created["id"], tokens[turn], action, keyed=_keyed("k1", "play")))
    with pytest.raises(Replay) as again:
        bus.handle(Act(created["id"], tokens[turn], action, keyed=_keyed("k1", "play")))
    assert (again.value.stored.status, again.value.stored.text) == (200, f"seq {created['seq'] + 1}")
    with pytest.raises(errors.ServiceError, match="different request"):
        bus.handle(Act(created["id"], tokens[turn], action, keyed=_keyed("k1", "another")))
    with pytest.raises(RulesError):
        bus.handle(Act(created["id"], tokens[turn], {"type": "dance"}, keyed=_keyed("k2", "dance")))
    with pytest.raises(Replay) as refused:
        bus.handle(Act(created["id"], tokens[turn], {"type": "dance"}, keyed=_keyed("k2", "dance")))
    assert refused.value.stored.status == 409 and refused.value.stored.problem
    assert bus.handle(GetSummary(created["id"]))["seq"] == created["seq"] + 1


def test_a_duplicate_that_missed_the_key_by_a_moment_replays_instead_of_refusing(bus, monkeypatch):
    """The race of two copies of one keyed action: the second looks for the key just before the
    first commits, then reads the state just after; the move is made, so it is refused (not your
    turn) — and finding the first answer stored, it replays that answer instead."""
    created = create(bus, ANA, BO)
    tokens, turn = tokens_of(created), created["turn"]
    action = bus.handle(GetView(created["id"], tokens[turn]))["legal_actions"][0]
    bus.handle(Act(created["id"], tokens[turn], action, keyed=_keyed("k1", "play")))
    real_get, misses = MemoryIdempotencyKeys.get, []

    def missed_once(keys, token_hash, key):
        if not misses:
            misses.append(key)
            return None  # looked before the first request committed
        return real_get(keys, token_hash, key)

    monkeypatch.setattr(MemoryIdempotencyKeys, "get", missed_once)
    with pytest.raises(Replay) as again:
        bus.handle(Act(created["id"], tokens[turn], action, keyed=_keyed("k1", "play")))
    assert misses == ["k1"] and again.value.stored.status == 200
    assert bus.handle(GetSummary(created["id"]))["seq"] == created["seq"] + 1


def test_a_match_stops_at_its_event_limit(store, clock):
    bus = wired(store, clock, {"MAX_EVENTS_PER_MATCH": 1})
    with pytest.raises(errors.EventLimitReached):
        create(bus, ANA, BO)


# --- turn clocks, rematch, statistics ---------------------------------------------------------------
def test_a_turn_that_ran_out_is_played_by_the_sweep_and_by_the_next_read(bus, clock):
    clocked = {"turn_seconds": 30}
    first = create(bus, ANA, BO, rules=clocked)
    second = create(bus, ANA, BO, rules=clocked)
    assert bus.handle(SweepClocks()) == 0
    clock.advance(31)
    assert bus.handle(SweepClocks()) == 2
    assert bus.handle(SweepClocks()) == 0  # the next seats' clocks started at those appends
    events = bus.handle(GetEvents(first["id"], None, after=first["seq"]))["events"]
    assert [e["type"] for e in events][:1] == ["turn_timed_out"]
    clock.advance(31)
    assert bus.handle(GetSummary(second["id"]))["seq"] > second["seq"] + 1  # a read plays it first


def test_a_rematch_keeps_the_players_seats_for_their_tokens(bus):
    created = create(bus, ANA, GREEDY, rules={"target": 20})
    tokens = tokens_of(created)
    with pytest.raises(errors.MatchNotOver):
        bus.handle(Rematch(created["id"], tokens[0]))
    play_to_end(bus, created["id"], tokens)
    again, made = bus.handle(Rematch(created["id"], tokens[0]))
    assert made is True and again["status"] == "waiting" and again["open_seats"] == [0]
    assert again["rules"]["target"] == 20 and again["seats"][1]["type"] == "bot"
    assert bus.handle(Rematch(created["id"], tokens[0])) == (bus.handle(GetSummary(again["id"])), False)
    with pytest.raises(errors.SeatReserved):
        bus.handle(ClaimSeat(again["id"], 0, "Stranger"))
    claimed = bus.handle(ClaimSeat(again["id"], 0, "Ana", token=tokens[0]))
    assert claimed["view"]["status"] == "playing"
    assert bus.handle(GetSummary(again["id"]))["seats"][0]["player_ref"] is None  # ids: for the portal only
    assert bus.handle(GetSummary(again["id"], portal(bus)))["seats"][0]["player_ref"] == "ana"


def test_player_stats_count_the_ended_matches_of_a_player(bus):
    played = []
    for _ in range(2):
        created = create(bus, ANA, GREEDY, rules={"target": 20})
        played.append(play_to_end(bus, created["id"], tokens_of(created)))
    stats = bus.handle(GetPlayerStats("ana", portal(bus)))
    won = sum(1 for s in played if s["winner"] == 0)
    assert stats["matches_played"] == 2 and stats["matches_won"] == won
    assert bus.handle(GetPlayerStats("nobody", portal(bus)))["matches_played"] == 0
    with pytest.raises(errors.PlayerRefNeedsPortal):
        bus.handle(GetPlayerStats("ana", Caller()))
    assert isinstance(CreateMatch, type)  # the commands are plain classes, built by any caller
