"""The runner's analyses after a match (api/services/analyses.py): claimed once each, never more at
once than its slots, stored when done; and read only after the end."""

from __future__ import annotations

from concurrent.futures import Future

import pytest

from api.bots.analysis import analyse
from api.services import analyses, errors
from api.services.analyses import ANALYSIS_ATTEMPTS, AnalysisRunner, analyse_job
from api.services.commands import AnalysisJob, GetAnalysis, GetAudit, GetGameRecord

from .support import ANA, BO, GREEDY, create, play_to_end, tokens_of

SHORT = {"target": 20}


class HeldPool:
    """An executor whose futures finish only when the test says (``finish``): what is in flight is seen."""

    def __init__(self) -> None:
        self.submitted: list[tuple[Future, AnalysisJob]] = []

    def submit(self, fn, job):  # the one call AnalysisRunner makes
        future: Future = Future()
        self.submitted.append((future, job))
        return future

    def finish(self) -> None:
        for future, job in self.submitted:
            if not future.done():
                future.set_result(analyse_job(job))


def ended_match(bus) -> str:
    created = create(bus, ANA, GREEDY, rules=SHORT)
    play_to_end(bus, created["id"], tokens_of(created))
    return created["id"]


def test_the_runner_never_has_more_analyses_in_flight_than_slots_and_stores_each_once(bus):
    first, second = ended_match(bus), ended_match(bus)
    pool = HeldPool()
    runner = AnalysisRunner(bus.handle, slots=1, pool=pool)  # type: ignore[arg-type]
    assert runner.run_once() == 0 and len(pool.submitted) == 1  # one slot: one claimed
    assert runner.run_once() == 0 and len(pool.submitted) == 1  # busy: nothing more claimed
    pool.finish()
    assert runner.run_once() == 1 and len(pool.submitted) == 2  # stored, and the next one started
    pool.finish()
    assert runner.run_once() == 1 and runner.run_once() == 0
    assert {job.match_id for _, job in pool.submitted} == {first, second}
    for match_id in (first, second):
        analysis = bus.handle(GetAnalysis(match_id))
        log = [
            {k: v for k, v in e.items() if k not in ("seq", "schema_version", "prev_hash", "hash")}
            for e in bus.handle(GetAudit(match_id, limit=5000))["events"]
        ]
        assert analysis["decisions"] == analyse(log, bus.handle(GetAudit(match_id))["seed"]).to_json()["decisions"]


def test_no_analysis_is_made_or_read_before_the_end(bus):
    created = create(bus, ANA, BO, rules=SHORT)
    assert AnalysisRunner(bus.handle).drain() == 0
    with pytest.raises(errors.MatchNotOver):
        bus.handle(GetAnalysis(created["id"]))


def test_an_ended_match_reads_not_ready_until_its_analysis_is_stored(bus):
    match_id = ended_match(bus)
    with pytest.raises(errors.AnalysisNotReady):
        bus.handle(GetAnalysis(match_id))
    assert AnalysisRunner(bus.handle).drain() == 1
    assert bus.handle(GetAnalysis(match_id))["match_id"] == match_id


def broken(job: AnalysisJob) -> dict:
    raise RuntimeError(f"no analysis of {job.match_id}")


def test_a_failing_analysis_is_tried_three_times_then_given_up_and_read_as_failed(bus, monkeypatch, caplog):
    match_id = ended_match(bus)
    monkeypatch.setattr(analyses, "analyse_job", broken)
    runner = AnalysisRunner(bus.handle)
    for attempt in range(1, ANALYSIS_ATTEMPTS + 1):
        with pytest.raises(errors.AnalysisNotReady):
            bus.handle(GetAnalysis(match_id))
        caplog.clear()
        assert runner.run_once() == 0
        # each failure gives its claim back at once: the next round tries again, no lease to wait for
        assert [r.getMessage() for r in caplog.records if r.levelname == "ERROR"] == [
            f"analysis of match {match_id} failed (attempt {attempt} of {ANALYSIS_ATTEMPTS}): "
            + (
                "it will be made again"
                if attempt < ANALYSIS_ATTEMPTS
                else "given up, GET .../analysis answers analysis_failed"
            )
        ]
    caplog.clear()
    assert runner.run_once() == 0 and not caplog.records  # never claimed again
    with pytest.raises(errors.AnalysisFailed) as failed:
        bus.handle(GetAnalysis(match_id))
    assert failed.value.extra["attempts"] == ANALYSIS_ATTEMPTS
    with pytest.raises(errors.AnalysisFailed):
        bus.handle(GetGameRecord(match_id, None, annotate=True))
    monkeypatch.setattr(analyses, "analyse_job", analyse_job)
    assert runner.drain() == 0  # given up: a working analysis is not made either


def test_an_analysis_that_fails_once_is_made_on_the_next_try(bus, monkeypatch):
    match_id = ended_match(bus)
    monkeypatch.setattr(analyses, "analyse_job", broken)
    runner = AnalysisRunner(bus.handle)
    assert runner.run_once() == 0
    monkeypatch.setattr(analyses, "analyse_job", analyse_job)
    assert runner.run_once() == 1
    assert bus.handle(GetAnalysis(match_id))["match_id"] == match_id
