"""The reference client's pinned heads (clients/python/boneyard_client/pins.py), on the golden
audit logs: an honest log passes every pin; an edited, forged or shortened one fails, naming the
seq where it stops matching."""

from __future__ import annotations

import copy
import sys

import pytest

from api.store.chain import GENESIS, row_hash

from .support import ROOT, golden

sys.path.insert(0, str(ROOT / "clients" / "python"))

from boneyard_client import BoneyardError, PinnedHeadMismatch, PinnedHeads, verify_pinned

VECTOR = "standard-draw-3p"


@pytest.fixture
def audit() -> dict:
    return golden(VECTOR)[0]


def pins_of(audit: dict, *seqs: int) -> dict[int, str]:
    return {seq: audit["events"][seq - 1]["hash"] for seq in seqs}


def rehash_from(audit: dict, seq: int) -> None:
    """Re-chain the rows from ``seq`` on, as a forger who rewrote row ``seq`` would."""
    rows = audit["events"]
    prev = rows[seq - 2]["hash"] if seq > 1 else GENESIS
    for row in rows[seq - 1 :]:
        data = {k: v for k, v in row.items() if k not in ("seq", "type", "schema_version", "prev_hash", "hash")}
        row["prev_hash"] = prev
        row["hash"] = prev = row_hash(prev, row["seq"], row["type"], row["schema_version"], data)


def test_an_honest_log_passes_every_head_pinned_on_it_in_either_form(audit):
    last = audit["seq"]
    pins = pins_of(audit, 1, 7, last // 2, last)
    verify_pinned(audit, pins)
    verify_pinned(audit, [{"seq": seq, "hash": digest} for seq, digest in pins.items()])  # replay.mjs --pins
    verify_pinned(audit, {0: GENESIS})  # a head shown before the first event
    verify_pinned(audit, {})


def test_a_row_whose_stated_hash_was_edited_is_caught_at_its_seq(audit):
    pins = pins_of(audit, 5, 20)
    tampered = copy.deepcopy(audit)
    tampered["events"][19]["hash"] = "f" * 64
    with pytest.raises(PinnedHeadMismatch) as caught:
        verify_pinned(tampered, pins)
    assert caught.value.seq == 20 and caught.value.found == "f" * 64
    assert str(caught.value).startswith("seq 20: the row states hash ffff")


def test_a_row_rewritten_and_the_chain_rehashed_is_caught_at_the_first_pin_after_it(audit):
    pins = pins_of(audit, 5, 20, 30)
    forged = copy.deepcopy(audit)
    forged["events"][11]["forged"] = True  # row 12's contents change...
    rehash_from(forged, 12)  # ...and every later hash is made to fit
    with pytest.raises(PinnedHeadMismatch) as caught:
        verify_pinned(forged, pins)
    assert caught.value.seq == 20
    assert caught.value.pinned == pins[20] and caught.value.found == forged["events"][19]["hash"]
    assert f"seq 20: pinned hash {pins[20]}" in str(caught.value)
    verify_pinned(forged, pins_of(audit, 5, 11))  # the rows before the rewrite still match


def test_a_log_shorter_than_a_pin_or_missing_a_row_is_caught_at_the_missing_seq(audit):
    last = audit["seq"]
    shortened = copy.deepcopy(audit)
    del shortened["events"][last - 10 :]
    with pytest.raises(PinnedHeadMismatch) as caught:
        verify_pinned(shortened, pins_of(audit, 3, last - 5, last))
    assert caught.value.seq == last - 5 and caught.value.found is None
    assert f"the audit log ends at seq {last - 10}" in str(caught.value)

    gap = copy.deepcopy(audit)
    del gap["events"][8]
    with pytest.raises(PinnedHeadMismatch) as caught:
        verify_pinned(gap, pins_of(audit, 20))
    assert caught.value.seq == 9 and "no row 9" in str(caught.value)


def test_two_hashes_shown_for_one_seq_are_a_fork_caught_when_pinned():
    pins = PinnedHeads()
    pins.pin("m", {"seq": 4, "hash": "a" * 64})
    pins.pin("m", {"seq": 4, "hash": "a" * 64})  # the same head again is fine
    pins.pin("m", None)  # an answer from a server without chain heads
    with pytest.raises(PinnedHeadMismatch) as caught:
        pins.pin("m", {"seq": 4, "hash": "b" * 64})
    assert caught.value.seq == 4 and caught.value.pinned == "a" * 64 and caught.value.found == "b" * 64
    assert pins.heads("m") == {4: "a" * 64} and pins.as_json("m") == [{"seq": 4, "hash": "a" * 64}]
    with pytest.raises(BoneyardError, match="not a chain head"):
        pins.pin("m", {"seq": 5, "hash": "A" * 64})
