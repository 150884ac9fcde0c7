"""The byte a process writes after each commit when it was given ``BONEYARD_COMMIT_FD``: what
the end-to-end tests wait on instead of a clock (``tests.servers.Changes``)."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine

from api.commit_notice import commit_notice
from api.config import from_environ
from api.store import Store

NOW = datetime(2026, 1, 1, tzinfo=UTC)
SOMEONE = "5e" * 32  # an address key as the store keeps it (a SHA-256 in hex)


@pytest.fixture
def pipe():
    read, write = os.pipe()
    os.set_blocking(read, False)
    yield read, write
    os.close(read)
    os.close(write)


def pending(fd: int) -> bytes:
    try:
        return os.read(fd, 1 << 20)
    except BlockingIOError:
        return b""


def test_a_writing_commit_writes_one_byte_after_it_and_reads_and_rollbacks_write_none(engine: Engine, pipe):
    read, write = pipe
    store = Store(engine, on_commit=commit_notice(write))
    with store.unit_of_work(readonly=True) as uow:
        uow.waiters.count(SOMEONE, NOW)
        uow.commit()  # a reader's commit changes nothing
    assert pending(read) == b""
    with store.unit_of_work() as uow:
        assert uow.waiters.take("slot-1", SOMEONE, 4, NOW, NOW + timedelta(seconds=30))
    assert pending(read) == b""  # left without commit(): rolled back, nothing to look at
    with store.unit_of_work() as uow:
        assert uow.waiters.take("slot-1", SOMEONE, 4, NOW, NOW + timedelta(seconds=30))
        uow.commit()
        uow.waiters.release("slot-1")
        uow.commit()
    assert pending(read) == b".."


def test_the_byte_comes_after_the_commit_so_a_reader_woken_by_it_sees_the_change(engine: Engine, pipe):
    read, write = pipe
    seen = []

    def look() -> None:
        commit_notice(write)()  # ...and, woken, the reader looks at the database
        with Store(engine).unit_of_work(readonly=True) as uow:
            seen.append(uow.waiters.count(SOMEONE, NOW))

    with Store(engine, on_commit=look).unit_of_work() as uow:
        uow.waiters.take("slot-1", SOMEONE, 4, NOW, NOW + timedelta(seconds=30))
        uow.commit()
    assert seen == [1] and pending(read) == b"."


def test_a_full_pipe_never_blocks_a_commit(pipe):
    read, write = pipe
    notify = commit_notice(write)
    assert notify is not None
    for _ in range(100_000):  # more than a pipe holds (64 KiB on Linux)
        notify()
    assert 0 < len(pending(read)) < 100_000


def test_the_variable_names_the_descriptor_and_is_off_by_default():
    assert from_environ({})["COMMIT_NOTICE_FD"] is None
    assert from_environ({"BONEYARD_COMMIT_FD": " 7 "})["COMMIT_NOTICE_FD"] == 7
    with pytest.raises(ValueError):
        from_environ({"BONEYARD_COMMIT_FD": "-1"})
    assert commit_notice(None) is None
