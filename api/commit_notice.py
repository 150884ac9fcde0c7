"""Telling whoever started this process that the database may have changed: one byte per commit.

``BONEYARD_COMMIT_FD`` names the write end of a pipe the process inherited. When it is set,
every unit of work that commits writes one byte to it, after the commit. The reader (the
end-to-end tests, watching what servers and runners do in other processes: waiter slots,
an all-bot match's moves, webhook deliveries) wakes when there is something new to look at,
instead of looking again on a clock. The byte means "look again", nothing more: it names
no match and carries nothing of the game.

The write never blocks and never fails a commit. A full pipe already holds a "look again"
that the reader has not read, so the byte is dropped; a reader that has gone is ignored.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from contextlib import suppress


def commit_notice(fd: int | None) -> Callable[[], None] | None:
    """The after-commit hook writing to ``fd`` (None: no hook)."""
    if fd is None:
        return None
    os.set_blocking(fd, False)  # a reader that stops reading must not stall a commit

    def notify() -> None:
        # full: the reader has a byte to wake on already; gone: nobody to tell
        with suppress(BlockingIOError, BrokenPipeError):
            os.write(fd, b".")

    return notify
