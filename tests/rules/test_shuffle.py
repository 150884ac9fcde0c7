import hashlib
import hmac

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from api.rules import (
    ALL_TILES,
    SHUFFLE_ALGORITHM,
    Tile,
    TileSet,
    create_match,
    replay,
    resolve_rules,
    seed_commitment,
    shuffled_tiles,
    start_match,
)
from api.rules.audit import verify_log
from api.rules.shuffle import TURN_UP_LABEL, algorithm_for, deal_label
from api.rules.state import deal
from tests.rules.shuffle_vectors import V2_VECTORS, VECTORS

QUICK = settings.get_profile("rules-quick")


def spec_shuffle(seed: str, label: str, top: int = 6) -> list[str]:
    """boneyard-shuffle-v1 (top 6) and -v2 (top 9, 12), written again from the docstring of shuffle.py alone."""
    canonical = [f"{h}-{lo}" for h in range(top + 1) for lo in range(h + 1)]

    def words():
        counter = 0
        while True:
            msg = label.encode("utf-8") + b"\x00" + counter.to_bytes(4, "big")
            block = hmac.new(seed.encode("utf-8"), msg, hashlib.sha256).digest()
            for k in range(8):
                yield int.from_bytes(block[4 * k : 4 * k + 4], "big")
            counter += 1

    stream = words()
    out = canonical[:]
    for i in range(len(out) - 1, 0, -1):
        limit = 2**32 - 2**32 % (i + 1)
        while True:
            u = next(stream)
            if u < limit:
                break
        j = u % (i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def test_the_spec_gives_v2_vectors_for_both_larger_sets():
    assert sorted(V2_VECTORS) == [("double-12", "hand:1"), ("double-9", "hand:1")]


@pytest.mark.parametrize("name,label", sorted(V2_VECTORS))
def test_v2_vectors_pin_the_shuffle_of_the_larger_sets(name, label):
    tile_set = TileSet(name)
    order = [str(t) for t in shuffled_tiles("boneyard-test-vector-1", label, tile_set)]
    assert order == V2_VECTORS[(name, label)].split()
    assert order == spec_shuffle("boneyard-test-vector-1", label, tile_set.top)
    assert algorithm_for(tile_set) == "boneyard-shuffle-v2"


def test_a_double_six_match_names_v1_and_a_larger_sets_match_names_v2():
    assert algorithm_for(TileSet.DOUBLE_6) == SHUFFLE_ALGORITHM == "boneyard-shuffle-v1"
    seats = [{"name": f"p{i}", "type": "bot", "level": "random"} for i in range(4)]
    six = create_match(resolve_rules("standard-block", {}, 4), seats, "s")[0].to_dict()
    assert six["seed_algorithm"] == "boneyard-shuffle-v1" and "set" not in six["rules"]
    nine = resolve_rules("standard-block", {"set": "double-9", "partners": True, "hand_size": 10}, 4)
    created = create_match(nine, seats, "s")[0].to_dict()
    assert created["seed_algorithm"] == "boneyard-shuffle-v2" and created["rules"]["set"] == "double-9"


def test_the_worked_double_nine_deal_of_the_spec():
    """shuffle.md: a double-nine partnership block on seed 1; seat 3 holds 9-9 and leads it."""
    rules = resolve_rules("standard-block", {"set": "double-9", "partners": True, "hand_size": 10}, 4)
    seats = [{"name": f"p{i}", "type": "bot", "level": "random"} for i in range(4)]
    seed = "boneyard-test-vector-1"
    log = create_match(rules, seats, seed)
    events = start_match(replay(log), seed)
    started = next(e for e in events if e.type == "hand_started")
    order = V2_VECTORS[("double-9", "hand:1")].split()
    assert [[str(t) for t in h] for h in started.hands] == [order[s * 10 : s * 10 + 10] for s in range(4)]
    assert [str(t) for t in started.boneyard] == order[40:] and len(started.boneyard) == rules.boneyard_size == 15
    lead = next(e for e in events if e.type == "tile_played")
    assert (started.leader, lead.seat, str(lead.tile)) == (3, 3, "9-9")


@pytest.mark.parametrize("seed,label", list(VECTORS))
def test_fixed_vectors_pin_the_algorithm(seed, label):
    assert [str(t) for t in shuffled_tiles(seed, label)] == VECTORS[(seed, label)].split()


@pytest.mark.parametrize("seed,label", list(VECTORS))
def test_independent_reimplementation_agrees_on_the_vectors(seed, label):
    assert spec_shuffle(seed, label) == VECTORS[(seed, label)].split()


@QUICK
@given(seed=st.text(max_size=40), k=st.integers(min_value=1, max_value=10_000))
def test_independent_reimplementation_agrees_on_any_seed(seed, k):
    assert [str(t) for t in shuffled_tiles(seed, deal_label(k))] == spec_shuffle(seed, f"hand:{k}")


@QUICK
@given(seed=st.text(max_size=40), label=st.text(max_size=20))
def test_every_shuffle_is_a_permutation_of_all_28_tiles(seed, label):
    order = shuffled_tiles(seed, label)
    assert len(order) == 28
    assert sorted(order) == list(ALL_TILES)
    assert all(isinstance(t, Tile) for t in order)
    for tile_set in (TileSet.DOUBLE_9, TileSet.DOUBLE_12):
        assert sorted(shuffled_tiles(seed, label, tile_set)) == list(tile_set.tiles)


def test_shuffle_is_deterministic():
    assert shuffled_tiles("abc", "hand:1") == shuffled_tiles("abc", "hand:1")


def test_hand_k_depends_only_on_seed_and_k():
    first = shuffled_tiles("seed-x", deal_label(3))
    # computing other hands (or other seeds) first changes nothing
    shuffled_tiles("seed-x", deal_label(1))
    shuffled_tiles("seed-y", deal_label(3))
    assert shuffled_tiles("seed-x", deal_label(3)) == first
    assert shuffled_tiles("seed-x", deal_label(4)) != first
    assert shuffled_tiles("seed-y", deal_label(3)) != first


def test_labels_and_algorithm_name():
    assert deal_label(1) == "hand:1" and deal_label(12) == "hand:12"
    assert TURN_UP_LABEL == "turn-up"
    assert SHUFFLE_ALGORITHM == "boneyard-shuffle-v1"


def test_seed_commitment_is_sha256_hex_of_the_utf8_seed():
    assert seed_commitment("boneyard-test-vector-1") == (
        "7db2314fbd83c72a4d07cb5ca36a085c521ed4d563c0fb216bc1dc70a4419ac1"
    )
    assert seed_commitment("dé") == hashlib.sha256("dé".encode()).hexdigest()


def test_the_deal_gives_seat_s_the_s_th_run_and_the_rest_is_the_boneyard_in_order():
    order = shuffled_tiles("boneyard-test-vector-1", "hand:1")
    hands, boneyard = deal(order, resolve_rules("standard-draw", {}, 3))
    assert [[str(t) for t in h] for h in hands] == [
        ["5-3", "4-1", "3-0", "6-0", "5-2"],
        ["0-0", "6-1", "6-2", "4-2", "5-0"],
        ["3-2", "3-3", "6-4", "5-4", "2-1"],
    ]
    assert boneyard == order[15:] and len(boneyard) == 13


@pytest.mark.parametrize(("name", "named"), [("double-9", "boneyard-shuffle-v1"), ("double-6", "boneyard-shuffle-v2")])
def test_the_audit_refuses_a_log_whose_algorithm_is_not_its_sets(name, named):
    rules = resolve_rules("standard-block", {"set": name, "hand_size": 5}, 2)
    seats = [{"name": f"p{i}", "type": "bot", "level": "random"} for i in range(2)]
    seed = "audit-set"
    log = create_match(rules, seats, seed)
    rows = [e.to_dict() for e in log + start_match(replay(log), seed)]
    assert verify_log(rows, seed).ok
    rows[0]["seed_algorithm"] = named
    report = verify_log(rows, seed)
    assert not report.ok and report.problems[0].startswith(f"seq 1: seed_algorithm {named!r} is not the {name} set's")
