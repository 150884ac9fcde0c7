"""``uow.fairness``: an ended match's fairness report, stored once."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy.exc import IntegrityError

NOW = datetime(2030, 1, 1, tzinfo=UTC)


def test_a_fairness_report_is_stored_once(store, make_match):
    match = make_match()
    with store.unit_of_work() as uow:
        assert uow.fairness.get(match.id) is None
        assert uow.fairness.add_if_absent(match.id, {"verified": True, "problems": [], "hands": [{"n": 1}]}, NOW)
        assert uow.fairness.add_if_absent(match.id, {"verified": False}, NOW) is False
        uow.commit()
    with store.unit_of_work(readonly=True) as uow:
        assert uow.fairness.get(match.id) == {"verified": True, "problems": [], "hands": [{"n": 1}]}


def test_a_report_changed_after_storing_is_not_changed_in_the_store(store, make_match):
    match = make_match()
    report = {"verified": True, "problems": []}
    with store.unit_of_work() as uow:
        uow.fairness.add_if_absent(match.id, report, NOW)
        uow.commit()
    report["problems"].append("edited")
    with store.unit_of_work(readonly=True) as uow:
        uow.fairness.get(match.id)["problems"].append("edited too")
        assert uow.fairness.get(match.id) == {"verified": True, "problems": []}


def test_a_report_is_of_a_match(store):
    with store.unit_of_work() as uow, pytest.raises(IntegrityError):
        uow.fairness.add_if_absent("0" * 32, {"verified": True}, NOW)
