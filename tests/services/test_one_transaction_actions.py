"""An action decided before its one write transaction (``act_in_one_transaction``): the state
cached and the seat its token held at the last action, both checked again under the lock, and
the read path (read, decide, lock, append) whenever anything differs."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from api.rules import RulesError
from api.services import errors
from api.services.commands import Act, CreateMatch, GetSummary, GetView
from api.services.idempotency import Keyed, Replay
from api.services.snapshots import fold
from api.services.tokens import hash_token
from api.store.memory import MemoryMatches
from tests.rules.support import snapshot

from .support import ANA, GREEDY, SEED, create, tokens_of


def counting_units_of_work(store: Any, monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Each unit of work opened from now on, as its ``readonly`` flag."""
    opened: list[bool] = []
    real = store.unit_of_work

    def counted(*, readonly: bool = False) -> Any:
        opened.append(readonly)
        return real(readonly=readonly)

    monkeypatch.setattr(store, "unit_of_work", counted)
    return opened


def first_action(bus) -> tuple[str, str, dict]:
    """A match of Ana against a greedy bot after Ana's first action (the read path's)."""
    created = create(bus, ANA, GREEDY)
    match_id, token = created["id"], tokens_of(created)[0]
    view = bus.handle(GetView(match_id, token))  # the bot has moved: Ana's turn
    done = bus.handle(Act(match_id, token, view["legal_actions"][0]))
    return match_id, token, done


@pytest.fixture
def created(bus):
    return first_action(bus)


def test_the_next_action_of_a_seat_opens_one_write_transaction_and_no_read(bus, store, created, monkeypatch):
    match_id, token, done = created
    opened = counting_units_of_work(store, monkeypatch)
    again = bus.handle(Act(match_id, token, done["view"]["legal_actions"][0]))
    assert opened == [False]
    assert again["seat"] == 0 and again["seq"] > done["seq"] and again["events"][0]["seq"] == done["seq"] + 1
    assert bus.handle(GetView(match_id, token)) == again["view"]


def test_a_token_that_is_no_longer_the_seats_is_refused_and_nothing_is_appended(bus, store, created):
    match_id, token, done = created
    with store.unit_of_work() as uow:
        uow.seats.update(match_id, 0, token_hash=hash_token("another token"))
        uow.commit()
    with pytest.raises(errors.InvalidToken):
        bus.handle(Act(match_id, token, done["view"]["legal_actions"][0]))
    assert bus.handle(GetSummary(match_id))["seq"] == done["seq"]


def test_a_match_at_another_seq_under_the_lock_is_decided_again_by_the_read_path(bus, store, created, monkeypatch):
    """Another process appended after this one cached the state: the one transaction finds
    another seq under the lock and writes nothing; the read path reads the match and decides."""
    match_id, token, done = created
    real, locked = MemoryMatches.get_with_seats, []

    def moved_once(matches: Any, key: str, *, for_update: bool = False) -> Any:
        found = real(matches, key, for_update=for_update)
        if for_update and not locked:
            locked.append(key)
            return replace(found[0], last_seq=found[0].last_seq + 1), found[1]
        return found

    monkeypatch.setattr(MemoryMatches, "get_with_seats", moved_once)
    opened = counting_units_of_work(store, monkeypatch)
    again = bus.handle(Act(match_id, token, done["view"]["legal_actions"][0]))
    assert locked == [match_id] and opened == [False, True, False]  # tried; then read and written
    assert again["events"][0]["seq"] == done["seq"] + 1
    with store.unit_of_work(readonly=True) as uow:
        seqs = [e.seq for e in uow.events.load(match_id)]
    assert seqs == list(range(1, again["seq"] + 1))


def test_a_refusal_is_the_read_paths_refusal_in_its_order(bus, store, created, monkeypatch):
    match_id, token, done = created
    opened = counting_units_of_work(store, monkeypatch)
    with pytest.raises(RulesError):
        bus.handle(Act(match_id, token, {"type": "dance"}))
    with pytest.raises(errors.StaleSeq):
        bus.handle(Act(match_id, token, done["view"]["legal_actions"][0], expected_seq=done["seq"] - 1))
    assert opened == [True, True]  # each refused by the read path alone: nothing written
    with pytest.raises(errors.UnknownMatch):
        bus.handle(Act("f" * 32, token, done["view"]["legal_actions"][0]))


def test_a_key_answered_before_is_replayed_from_the_one_transaction_and_nothing_appended(bus, store, monkeypatch):
    match_id, token, done = first_action(bus)
    keyed = Keyed("k1", "same", render_result=lambda r: f"seq {r['seq']}", render_refusal=lambda e: (409, "no"))
    first = bus.handle(Act(match_id, token, done["view"]["legal_actions"][0], keyed=keyed))
    opened = counting_units_of_work(store, monkeypatch)
    # a legal action under the same key and fingerprint: decided, then the stored key is found
    with pytest.raises(Replay) as replay:
        bus.handle(Act(match_id, token, first["view"]["legal_actions"][0], keyed=keyed))
    assert opened == [False] and replay.value.stored.text == f"seq {first['seq']}"
    assert bus.handle(GetSummary(match_id))["seq"] == first["seq"]


@pytest.mark.parametrize(
    ("preset", "bots", "rules"),
    [
        ("standard-draw", 1, {"target": 50}),
        ("all-fives", 1, {"target": 61}),
        ("double-nine-partners", 3, {"target": 100}),
        ("mexican-train", 3, {"rounds": 2}),
        ("chicken-foot", 2, {"rounds": 2}),
    ],
)
def test_the_state_each_action_leaves_cached_is_the_stored_log_folded_afresh(bus, store, flow, preset, bots, rules):
    """The events an action decides (and the computers' replies) are folded as they are, not read
    back from their rows (``fold_decided``): the cache must hold what a process that reads the
    stored log folds, after every action, in every family of game."""
    seats = (replace(ANA, player_ref=None), *[replace(GREEDY, name=f"Greedy {i}") for i in range(bots)])
    created = bus.handle(CreateMatch(preset, rules, seats, SEED))
    match_id, token = created["id"], tokens_of(created)[0]
    view = bus.handle(GetView(match_id, token))
    actions = 0
    while view["status"] != "ended":
        view = bus.handle(Act(match_id, token, view["legal_actions"][0]))["view"]
        actions += 1
        with store.unit_of_work(readonly=True) as uow:
            stored = [{"seq": e.seq, **e.to_dict()} for e in uow.events.load(match_id)]
        cached = flow.cache.get(match_id)
        assert cached is not None and cached.seq == stored[-1]["seq"] == view["seq"]
        afresh = fold(None, stored)
        assert snapshot(cached.state) == snapshot(afresh.state), f"{preset}, action {actions}"
        assert cached.hand_log == afresh.hand_log
    assert actions > 10
