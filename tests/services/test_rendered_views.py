"""Seats' views rendered once per (match, seq, chain head, deadline, seat), and events as each seat
sees them, kept per process (api.services.rendered): never another seat's, another match's or
another seq's, checked against the chain, and bounded."""

from __future__ import annotations

import json
from typing import Any

import pytest

from api.services import errors
from api.services.commands import Act, GetEvents, GetRenderedView, GetView
from api.services.rendered import EventKey, RenderedCache, ViewKey, VisibleEvent

from .support import ANA, BO, create, tokens_of

RENDERED: list[dict[str, Any]] = []  # every view render_text was asked to render


def render_text(view: dict[str, Any]) -> str:
    """A rendering the tests can read back: the view as JSON text (immutable, as the cache wants)."""
    RENDERED.append(view)
    return json.dumps(view, sort_keys=True, default=str)


@pytest.fixture(autouse=True)
def forget_renders():
    RENDERED.clear()


def rendered(bus, match_id: str, token: str | None) -> dict[str, Any]:
    return json.loads(bus.handle(GetRenderedView(match_id, token, render_text)))


def fresh(bus, match_id: str, token: str | None) -> dict[str, Any]:
    """The view as the uncached use case makes it, through the same rendering."""
    return json.loads(json.dumps(bus.handle(GetView(match_id, token)), sort_keys=True, default=str))


def test_a_view_is_rendered_once_then_repeated_as_it_was(bus):
    created = create(bus, ANA, BO)
    token = tokens_of(created)[0]
    first = rendered(bus, created["id"], token)
    assert rendered(bus, created["id"], token) == first == fresh(bus, created["id"], token)
    assert len(RENDERED) == 1 and first["seat"] == 0 and len(first["hand"]) == first["hand_counts"][0] > 0


def test_one_seats_view_is_never_served_to_another_seat_or_a_spectator(bus):
    created = create(bus, ANA, BO)
    tokens = tokens_of(created)
    ana = rendered(bus, created["id"], tokens[0])  # kept first: the others ask at the same seq
    bo = rendered(bus, created["id"], tokens[1])
    spectator = rendered(bus, created["id"], None)
    assert (ana["seat"], bo["seat"], spectator["seat"]) == (0, 1, None)
    assert ana["hand"] != bo["hand"] and "hand" not in spectator
    assert bo == fresh(bus, created["id"], tokens[1]) and spectator == fresh(bus, created["id"], None)
    assert len(RENDERED) == 3 and ana["seq"] == bo["seq"] == spectator["seq"]


def test_a_rendering_kept_under_another_seat_or_head_is_not_served(bus):
    """The key holds the seat and the chain head's hash: renderings planted under keys that
    differ from seat 0's in just one of them (another seat's, a spectator's, a rolled-back log
    at the same seq) never answer seat 0."""
    created = create(bus, ANA, BO)
    tokens = tokens_of(created)
    rendered(bus, created["id"], tokens[0])
    (key,) = bus.flow.rendered_views.kept()  # seat 0's
    assert key.seat == 0 and key.seq == created["seq"] and key.render is render_text
    views = bus.flow.rendered_views = RenderedCache()  # seat 0's forgotten; only the planted kept
    for planted in (key._replace(seat=1), key._replace(seat=None), key._replace(head_hash="f" * 64)):
        views.put(planted, json.dumps({"planted": True}))
    again = rendered(bus, created["id"], tokens[0])
    assert again == fresh(bus, created["id"], tokens[0]) and "planted" not in again and len(RENDERED) == 2
    # what is planted under a seat's very key does answer it: so the key is all that decides
    assert rendered(bus, created["id"], tokens[1]) == {"planted": True}


def test_a_token_is_checked_before_anything_kept_is_answered(bus):
    created = create(bus, ANA, BO)
    rendered(bus, created["id"], None)  # the spectator's view kept
    with pytest.raises(errors.InvalidToken):
        bus.handle(GetRenderedView(created["id"], "not-a-token", render_text))
    other = create(bus, ANA, BO)
    with pytest.raises(errors.WrongMatch):
        bus.handle(GetRenderedView(created["id"], tokens_of(other)[0], render_text))


def test_an_action_moves_the_view_to_a_new_key(bus):
    created = create(bus, ANA, BO)
    tokens = tokens_of(created)
    before = rendered(bus, created["id"], tokens[0])
    mover = before["turn"]
    action = fresh(bus, created["id"], tokens[mover])["legal_actions"][0]
    after_seq = bus.handle(Act(created["id"], tokens[mover], action))["seq"]
    after = rendered(bus, created["id"], tokens[0])
    assert before["seq"] == created["seq"] and after["seq"] == after_seq > before["seq"]
    assert after == fresh(bus, created["id"], tokens[0]) and len(RENDERED) == 2


def test_matches_never_share_a_rendering(bus):
    # the same seed: the same deal, so only the key's match id tells the two views apart
    first, second = create(bus, ANA, BO), create(bus, ANA, BO)
    one = rendered(bus, first["id"], tokens_of(first)[0])
    two = rendered(bus, second["id"], tokens_of(second)[0])
    assert one["hand"] == two["hand"] and one["seq"] == two["seq"]
    assert (one["match_id"], two["match_id"]) == (first["id"], second["id"]) and len(RENDERED) == 2


def test_the_cache_keeps_at_most_its_bound_dropping_the_least_recent(bus):
    bus.flow.rendered_views = RenderedCache(max_entries=2)
    created = create(bus, ANA, BO)
    tokens = tokens_of(created)
    rendered(bus, created["id"], tokens[0])
    rendered(bus, created["id"], tokens[1])
    rendered(bus, created["id"], tokens[0])  # used again: seat 1's is now the least recent
    rendered(bus, created["id"], None)
    assert len(bus.flow.rendered_views) == 2 and len(RENDERED) == 3
    assert {key.seat for key in bus.flow.rendered_views.kept()} == {0, None}
    rendered(bus, created["id"], tokens[1])  # dropped: rendered again
    assert len(RENDERED) == 4 and len(bus.flow.rendered_views) == 2


def test_a_cache_of_nothing_keeps_nothing():
    cache = RenderedCache(max_entries=0)
    key = ViewKey("m" * 32, 1, "0" * 64, None, 0, render_text)
    cache.put(key, "text")
    assert cache.get(key) is None and len(cache) == 0
    with pytest.raises(ValueError):
        RenderedCache(max_entries=-1)


# --- events as each seat sees them -----------------------------------------------------------
def played(bus, moves: int = 6) -> tuple[str, dict[int, str]]:
    """A match of two remote seats, ``moves`` actions in (several hands' events in its log)."""
    created = create(bus, ANA, BO)
    tokens = tokens_of(created)
    for _ in range(moves):
        view = bus.handle(GetView(created["id"], tokens[0]))
        token = tokens[view["turn"]]
        bus.handle(Act(created["id"], token, bus.handle(GetView(created["id"], token))["legal_actions"][0]))
    return created["id"], tokens


def page(bus, match_id: str, token: str | None, after: int = 0, limit: int = 100) -> list[dict[str, Any]]:
    return bus.handle(GetEvents(match_id, token, after, limit))["events"]


def unkept(bus, match_id: str, token: str | None, after: int = 0, limit: int = 100) -> list[dict[str, Any]]:
    """The page as a process that keeps nothing reads it (every row from the store)."""
    kept, bus.flow.visible_events = bus.flow.visible_events, RenderedCache(max_entries=0)
    try:
        return page(bus, match_id, token, after, limit)
    finally:
        bus.flow.visible_events = kept


def test_each_seat_is_shown_the_events_as_it_sees_them_and_never_anothers(bus):
    match_id, tokens = played(bus)
    ana, bo, spectator = page(bus, match_id, tokens[0]), page(bus, match_id, tokens[1]), page(bus, match_id, None)
    assert ana == unkept(bus, match_id, tokens[0]) and bo == unkept(bus, match_id, tokens[1])
    assert spectator == unkept(bus, match_id, None)
    dealt = [i for i, e in enumerate(ana) if e["type"] == "hand_started"]
    assert dealt and all(ana[i] != bo[i] != spectator[i] for i in dealt)  # each its own hand only
    # asked again, each from what was kept for it: still its own
    assert page(bus, match_id, tokens[1]) == bo and page(bus, match_id, None) == spectator
    assert page(bus, match_id, tokens[0]) == ana
    seats = {key.seat for key in bus.flow.visible_events.kept()}
    assert seats == {0, 1, None} and len(bus.flow.visible_events) == 3 * len(ana)


def test_a_page_reads_only_what_it_has_not_kept(bus, monkeypatch):
    match_id, tokens = played(bus, moves=3)
    first = page(bus, match_id, tokens[0])
    reads: list[tuple[int, int | None]] = []
    load = type(bus.flow.store.unit_of_work(readonly=True)).__enter__

    def counting(uow):
        entered = load(uow)
        original = entered.events.load

        def spy(match, after=0, limit=None):
            reads.append((after, limit))
            return original(match, after=after, limit=limit)

        entered.events.load = spy
        return entered

    monkeypatch.setattr(type(bus.flow.store.unit_of_work(readonly=True)), "__enter__", counting)
    assert page(bus, match_id, tokens[0]) == first and reads == []  # all kept: no row read
    played_on = first[-1]["seq"]
    view = bus.handle(GetView(match_id, tokens[0]))
    token = tokens[view["turn"]]
    bus.handle(Act(match_id, token, bus.handle(GetView(match_id, token))["legal_actions"][0]))
    reads.clear()
    later = page(bus, match_id, tokens[0])
    assert later[: len(first)] == first and later[-1]["seq"] > played_on
    assert reads == [(played_on, later[-1]["seq"] - played_on)]  # just the new rows


def test_a_kept_event_that_does_not_fit_the_chain_is_read_again(bus):
    match_id, tokens = played(bus, moves=2)
    shown = page(bus, match_id, tokens[0])
    last = shown[-1]["seq"]
    forged = VisibleEvent({"seq": last, "type": "forged"}, "0" * 64, "f" * 64)
    bus.flow.visible_events.put(EventKey(match_id, last, 0), forged)  # not the head's hash
    assert page(bus, match_id, tokens[0]) == shown
    middle = shown[len(shown) // 2]["seq"]
    bus.flow.visible_events.put(EventKey(match_id, middle, 0), forged._replace(item={"seq": middle}))
    assert page(bus, match_id, tokens[0]) == shown  # its prev_hash is not its predecessor's hash


def test_the_events_kept_are_bounded_and_answered_as_copies(bus):
    bus.flow.visible_events = RenderedCache(max_entries=5)
    match_id, tokens = played(bus, moves=3)
    shown = page(bus, match_id, tokens[0])
    assert len(shown) > 5 and len(bus.flow.visible_events) == 5
    assert [key.seq for key in bus.flow.visible_events.kept()] == [e["seq"] for e in shown[-5:]]
    shown[-1]["type"] = "changed by a reader"
    assert page(bus, match_id, tokens[0])[-1]["type"] != "changed by a reader"
