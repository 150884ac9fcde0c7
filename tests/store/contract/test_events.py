"""``uow.events``: a match's stream, appended by compare-and-set on its last seq, hash-chained."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

import pytest
from sqlalchemy.exc import IntegrityError

from api.store import EventCodecError, MatchNotFound, StaleSeq
from api.store.chain import row_hash
from api.store.codec import encode_event
from api.store.tables import GENESIS_HASH

NOW = datetime(2030, 1, 1, tzinfo=UTC)


def ev(kind: str = "tile_played", **fields):
    return {"type": kind, **fields}


def test_appended_events_load_back_as_the_same_dicts(store, make_match):
    match = make_match()
    events = [ev("hand_started", hand=1), ev("tile_played", seat=0, tile=[6, 6], end="left")]
    with store.unit_of_work() as uow:
        assert uow.events.append(match.id, 0, events) == 2
        uow.commit()

    with store.unit_of_work(readonly=True) as uow:
        loaded = uow.events.load(match.id)
    assert [e.seq for e in loaded] == [1, 2]
    assert [e.to_dict() for e in loaded] == events
    assert loaded[1].type == "tile_played"
    assert loaded[1].schema_version == 1
    assert loaded[1].data == {"seat": 0, "tile": [6, 6], "end": "left"}
    assert loaded[0].recorded_at.tzinfo is UTC


def test_the_stream_is_hash_chained_from_the_genesis_hash_and_the_head_follows(store, make_match):
    match = make_match()
    events = [ev("hand_started", hand=1), ev(seat=0, tile=[6, 6]), ev(seat=1, tile=[6, 3])]
    expected, prev = [], GENESIS_HASH
    for seq, event in enumerate((encode_event(e) for e in events), start=1):
        prev = row_hash(prev, seq, event.type, event.schema_version, event.data)
        expected.append(prev)
    with store.unit_of_work() as uow:
        assert uow.events.head(match.id).to_dict() == {"seq": 0, "hash": GENESIS_HASH}
        uow.events.append(match.id, 0, events[:1])
        assert uow.events.head(match.id).to_dict() == {"seq": 1, "hash": expected[0]}  # its own append
        uow.events.append(match.id, 1, events[1:])
        uow.commit()
    with store.unit_of_work(readonly=True) as uow:
        loaded = uow.events.load(match.id)
        assert [(e.prev_hash, e.hash) for e in loaded] == list(
            zip([GENESIS_HASH, *expected[:2]], expected, strict=True)
        )
        assert uow.events.head(match.id).to_dict() == {"seq": 3, "hash": expected[2]}
        assert uow.matches.get(match.id).head == uow.events.head(match.id)
        with pytest.raises(MatchNotFound):
            uow.events.head("0" * 32)


def test_seqs_are_gapless_across_appends_and_last_seq_follows(store, make_match):
    match = make_match()
    expected = 0
    for batch in ([ev(n=1)], [ev(n=2), ev(n=3)], [ev(n=4)]):
        with store.unit_of_work() as uow:
            expected = uow.events.append(match.id, expected, batch)
            uow.commit()
    with store.unit_of_work() as uow:
        assert [e.seq for e in uow.events.load(match.id)] == [1, 2, 3, 4]
        assert uow.events.last_seq(match.id) == 4
        assert uow.matches.get(match.id).last_seq == 4


def test_load_after_and_limit_page_through_the_stream(store, make_match):
    match = make_match()
    with store.unit_of_work() as uow:
        uow.events.append(match.id, 0, [ev(n=i) for i in range(1, 8)])
        uow.commit()
    with store.unit_of_work() as uow:
        assert [e.seq for e in uow.events.load(match.id, after=3)] == [4, 5, 6, 7]
        assert [e.seq for e in uow.events.load(match.id, after=3, limit=2)] == [4, 5]
        assert uow.events.load(match.id, after=7) == []
        assert uow.events.load("no-such-match") == []


def test_wrong_expected_seq_raises_stale_seq_with_the_current_seq(store, make_match):
    match = make_match()
    with store.unit_of_work() as uow:
        uow.events.append(match.id, 0, [ev(), ev()])
        uow.commit()
    for wrong in (0, 1, 3):
        with store.unit_of_work() as uow, pytest.raises(StaleSeq) as caught:
            uow.events.append(match.id, wrong, [ev()])
        assert caught.value.expected_seq == wrong
        assert caught.value.current_seq == 2
    with store.unit_of_work() as uow:
        assert uow.events.last_seq(match.id) == 2


def test_empty_append_only_checks_the_expected_seq(store, make_match):
    match = make_match()
    with store.unit_of_work() as uow:
        assert uow.events.append(match.id, 0, []) == 0
        with pytest.raises(StaleSeq):
            uow.events.append(match.id, 5, [])


def test_appending_to_an_unknown_match_raises_match_not_found(store):
    with store.unit_of_work() as uow:
        with pytest.raises(MatchNotFound):
            uow.events.append("0" * 32, 0, [ev()])
        with pytest.raises(MatchNotFound):
            uow.events.last_seq("0" * 32)


def test_a_seq_already_stored_is_reported_as_stale_seq(store, make_match, rows):
    """The ``(match_id, seq)`` key is the last line of defence, e.g. against a writer that
    stored events without moving the match's last_seq."""
    match = make_match()
    rows.insert_stray_event(match.id, 1, NOW)
    with store.unit_of_work() as uow:
        assert uow.events.last_seq(match.id) == 0
        with pytest.raises(StaleSeq) as caught:
            uow.events.append(match.id, 0, [ev()])
        assert (caught.value.expected_seq, caught.value.current_seq) == (0, 1)


def test_match_fields_are_written_with_the_append(store, make_match):
    match = make_match(status="playing")
    fields = {"status": "ended", "summary": {"scores": [3, 1]}, "deadline_at": NOW, "bots_due_at": None}
    with store.unit_of_work() as uow:
        uow.events.append(match.id, 0, [ev("match_ended")], match_fields=fields)
        uow.commit()
    with store.unit_of_work(readonly=True) as uow:
        found = uow.matches.get(match.id)
    assert (found.status, found.summary, found.deadline_at, found.last_seq) == ("ended", {"scores": [3, 1]}, NOW, 1)


def test_match_fields_the_schema_refuses_refuse_the_append(store, make_match):
    match = make_match(status="playing")
    fields = {"status": "paused", "summary": {}, "deadline_at": None, "bots_due_at": None}
    with store.unit_of_work() as uow, pytest.raises(IntegrityError):
        uow.events.append(match.id, 0, [ev()], match_fields=fields)
    with store.unit_of_work(readonly=True) as uow:
        assert uow.events.last_seq(match.id) == 0 and uow.events.load(match.id) == []


def test_events_are_not_stored_unless_committed(store, make_match):
    match = make_match()
    with store.unit_of_work() as uow:
        uow.events.append(match.id, 0, [ev()])
    with store.unit_of_work() as uow:
        assert uow.events.load(match.id) == []
        assert uow.events.last_seq(match.id) == 0


def test_nested_json_survives_the_round_trip(store, make_match):
    match = make_match()
    data = {
        "type": "hand_ended",
        "scores": {"0": 35, "1": 0},
        "hands": [[[6, 6], [6, 3]], [], [[0, 0]]],
        "result": {"reason": "blocked", "winner": None, "pips": [12, 7.5], "ok": True},
        "text": 'ünïcødé ✓ "quoted"',
        "big": 2**53,
        "negative": -1,
    }
    with store.unit_of_work() as uow:
        uow.events.append(match.id, 0, [data])
        uow.commit()
    with store.unit_of_work() as uow:
        assert uow.events.load(match.id)[0].to_dict() == data


def test_events_that_are_not_plain_json_are_refused_before_writing(store, make_match):
    match = make_match()
    with store.unit_of_work() as uow:
        with pytest.raises(EventCodecError):
            uow.events.append(match.id, 0, [{"type": "x", "bad": object()}])
        with pytest.raises(EventCodecError):
            uow.events.append(match.id, 0, [{"type": "x", "bad": float("nan")}])
        with pytest.raises(EventCodecError):
            uow.events.append(match.id, 0, [{"type": "api.rules.events.TilePlayed"}])
        assert uow.events.last_seq(match.id) == 0


def _run_threads(target, count):
    barrier = threading.Barrier(count)
    errors = []

    def run(index):
        try:
            barrier.wait(timeout=10)
            target(index)
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors


def test_two_concurrent_writers_with_the_same_expected_seq_exactly_one_wins(store, make_match):
    match = make_match()
    outcomes = []

    def writer(index):
        try:
            with store.unit_of_work() as uow:
                seq = uow.events.append(match.id, 0, [ev("note", writer=index)])
                uow.commit()
            outcomes.append(("won", seq))
        except StaleSeq as stale:
            outcomes.append(("stale", stale.current_seq))

    _run_threads(writer, 2)
    assert sorted(outcomes) == [("stale", 1), ("won", 1)]
    with store.unit_of_work() as uow:
        assert [e.seq for e in uow.events.load(match.id)] == [1]


def test_writers_that_lock_the_match_first_never_conflict(store, make_match):
    match = make_match()
    writers, rounds = 4, 5

    def writer(index):
        for round_ in range(rounds):
            with store.unit_of_work() as uow:
                locked = uow.matches.get_for_update(match.id)
                uow.events.append(match.id, locked.last_seq, [ev("note", w=index, r=round_)])
                uow.commit()

    _run_threads(writer, writers)
    with store.unit_of_work() as uow:
        loaded = uow.events.load(match.id)
    assert [e.seq for e in loaded] == list(range(1, writers * rounds + 1))


def test_optimistic_writers_retrying_on_stale_seq_produce_a_gapless_stream(store, make_match):
    match = make_match()
    writers, rounds = 4, 5

    def writer(index):
        for round_ in range(rounds):
            while True:
                with store.unit_of_work() as uow:
                    last = uow.events.last_seq(match.id)
                    try:
                        uow.events.append(match.id, last, [ev("note", w=index, r=round_)])
                    except StaleSeq:
                        continue
                    uow.commit()
                    break

    _run_threads(writer, writers)
    with store.unit_of_work() as uow:
        loaded = uow.events.load(match.id)
    assert [e.seq for e in loaded] == list(range(1, writers * rounds + 1))
    assert sorted((e.data["w"], e.data["r"]) for e in loaded) == sorted(
        (w, r) for w in range(writers) for r in range(rounds)
    )
