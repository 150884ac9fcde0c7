"""The chain head the use cases show is the store's own (``matches.last_seq`` / ``last_hash``), read
with what it is shown with, on the SQL store and on the in-memory one alike."""

from __future__ import annotations

import pytest

from api.services.commands import Act, ClaimSeat, GetAudit, GetEvents, GetView
from api.store import Store
from api.store.chain import GENESIS
from api.store.memory import MemoryStore
from api.store.records import ChainHead

from .support import ANA, GREEDY, OPEN, create, play_to_end, tokens_of, wired


@pytest.fixture(params=["memory", "sql"])
def any_store(request: pytest.FixtureRequest, database_url: str):
    if request.param == "memory":
        yield MemoryStore()
        return
    store = Store.from_url(database_url)
    yield store
    store.dispose()


def test_a_match_without_events_has_the_genesis_head_and_each_append_moves_it(any_store):
    with any_store.unit_of_work() as uow:
        record = uow.matches.add({"preset": "standard-draw", "players": 2, "seed": "s", "seed_commitment": "c"})
        assert record.head == ChainHead(0, GENESIS) == uow.events.head(record.id)
        uow.events.append(record.id, 0, [{"type": "tile_played", "seat": 0, "tile": [6, 6], "end": "left"}])
        stored = uow.events.load(record.id)
        assert uow.events.head(record.id) == ChainHead(1, stored[0].hash) != ChainHead(1, GENESIS)
        uow.commit()
    with any_store.unit_of_work(readonly=True) as uow:
        assert uow.matches.get(record.id).head == ChainHead(1, stored[0].hash)


def test_views_answers_and_pages_show_the_head_of_the_log_they_show(any_store):
    bus = wired(any_store)
    created = create(bus, ANA, GREEDY, OPEN, rules={"target": 20})
    claimed = bus.handle(ClaimSeat(created["id"], 2, "Cy"))
    tokens = {**tokens_of(created), 2: claimed["token"]}
    heads = [claimed["view"]["chain_head"]]
    seat_view = bus.handle(GetView(created["id"], tokens[0]))
    heads.append(seat_view["chain_head"])
    if seat_view["legal_actions"]:
        heads.append(bus.handle(Act(created["id"], tokens[0], seat_view["legal_actions"][0]))["view"]["chain_head"])
    page = bus.handle(GetEvents(created["id"], None, 0, 3))
    assert [e["seq"] for e in page["events"]] == [1, 2, 3] and page["chain_head"]["seq"] == page["seq"]
    heads.append(page["chain_head"])
    play_to_end(bus, created["id"], tokens)
    audit = bus.handle(GetAudit(created["id"], 0, 5000))
    hashes = {row["seq"]: row["hash"] for row in audit["events"]}
    assert audit["chain_head"] == {"seq": audit["seq"], "hash": hashes[audit["seq"]]}
    for head in heads:
        assert head["hash"] == hashes[head["seq"]]
