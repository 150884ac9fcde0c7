"""clients/js/shuffle.mjs against openapi/shuffle.md's vectors: v1 (double-six) and v2 (double-nine,
double-twelve) orders, and the algorithm each set names, as the Python shuffle gives them."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from api.rules import TileSet, shuffled_tiles
from api.rules.shuffle import algorithm_for
from tests.rules.shuffle_vectors import V2_VECTORS, VECTORS

ROOT = Path(__file__).resolve().parents[2]
NODE = shutil.which("node")

SCRIPT = """
import { algorithmFor, shuffledTiles, topOf } from "./clients/js/shuffle.mjs";
const cases = JSON.parse(process.argv[1]);
const out = cases.map(([seed, label, set]) => ({
  order: shuffledTiles(seed, label, topOf(set)).map(([h, l]) => `${h}-${l}`).join(" "),
  algorithm: algorithmFor(set),
}));
console.log(JSON.stringify(out));
"""


@pytest.mark.skipif(NODE is None, reason="needs node")
def test_the_js_shuffle_gives_the_specs_orders_for_every_set():
    cases = [[seed, label, "double-6"] for seed, label in VECTORS]
    cases += [["boneyard-test-vector-1", label, name] for name, label in V2_VECTORS]
    cases += [["dé-ü", "hand:3", name] for name in TileSet]  # beside the vectors: any seed, every set
    done = subprocess.run(
        [NODE, "--input-type=module", "-e", SCRIPT, json.dumps(cases)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    got = json.loads(done.stdout)
    for (seed, label, name), row in zip(cases, got, strict=True):
        tile_set = TileSet(name)
        assert row["order"].split() == [str(t) for t in shuffled_tiles(seed, label, tile_set)], (seed, label, name)
        assert row["algorithm"] == algorithm_for(tile_set)
    assert [row["order"] for row in got[: len(VECTORS)]] == [" ".join(v.split()) for v in VECTORS.values()]
