"""The unit of work: one transaction, committed whole or not at all."""

from __future__ import annotations

import pytest

ROW = {"preset": "draw", "players": 2, "seed": "s", "seed_commitment": "c"}


def test_a_match_is_not_stored_unless_committed(store):
    with store.unit_of_work() as uow:
        record = uow.matches.add(ROW)
    with store.unit_of_work() as uow:
        assert uow.matches.get(record.id) is None


def test_an_exception_inside_the_unit_of_work_rolls_back(store, make_match):
    match = make_match()
    with pytest.raises(RuntimeError), store.unit_of_work() as uow:
        uow.events.append(match.id, 0, [{"type": "note"}])
        uow.matches.update(match.id, status="playing")
        raise RuntimeError("boom")
    with store.unit_of_work() as uow:
        assert uow.events.last_seq(match.id) == 0
        assert uow.matches.get(match.id).status == "waiting"


def test_a_unit_of_work_can_commit_twice(store):
    with store.unit_of_work() as uow:
        first = uow.matches.add({**ROW, "preset": "a"})
        uow.commit()
        second = uow.matches.add({**ROW, "preset": "b"})
        uow.commit()
        third = uow.matches.add({**ROW, "preset": "c"})
    with store.unit_of_work() as uow:
        assert uow.matches.get(first.id) and uow.matches.get(second.id)
        assert uow.matches.get(third.id) is None


def test_rollback_discards_what_came_after_the_last_commit(store):
    with store.unit_of_work() as uow:
        kept = uow.matches.add(ROW)
        uow.commit()
        dropped = uow.matches.add(ROW)
        uow.rollback()
        assert uow.matches.get(dropped.id) is None
        after = uow.matches.add(ROW)
        uow.commit()
    with store.unit_of_work(readonly=True) as uow:
        assert [uow.matches.get(m.id) is not None for m in (kept, dropped, after)] == [True, False, True]


def test_a_reader_sees_only_what_is_committed(store, make_match):
    match = make_match()
    with store.unit_of_work() as writer:
        writer.matches.update(match.id, status="playing")
        with store.unit_of_work(readonly=True) as reader:
            assert reader.matches.get(match.id).status == "waiting"
        writer.commit()
    with store.unit_of_work(readonly=True) as reader:
        assert reader.matches.get(match.id).status == "playing"
