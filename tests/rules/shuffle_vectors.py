"""The shuffle's test vectors, for the Python tests (tests/rules/test_shuffle.py) and the
JavaScript ones (tests/clients/test_js_shuffle.py): a plain module, so that importing them
needs nothing of a test folder's conftest."""

from __future__ import annotations

import re
from pathlib import Path

VECTORS = {
    (
        "boneyard-test-vector-1",
        "hand:1",
    ): "5-3 4-1 3-0 6-0 5-2 0-0 6-1 6-2 4-2 5-0 3-2 3-3 6-4 5-4 2-1 1-0 4-4 3-1 5-1 5-5 4-3 2-0 1-1 2-2 "
    "4-0 6-5 6-6 6-3",
    (
        "boneyard-test-vector-1",
        "hand:2",
    ): "3-3 2-0 5-0 5-5 3-0 6-3 4-1 2-1 6-0 0-0 6-4 3-1 4-4 5-2 1-1 5-3 4-3 6-2 1-0 5-1 3-2 6-5 4-2 5-4 "
    "6-1 2-2 6-6 4-0",
    (
        "boneyard-test-vector-1",
        "turn-up",
    ): "3-0 2-1 5-1 6-0 4-3 5-3 6-5 1-0 2-0 2-2 0-0 6-4 3-3 1-1 6-2 3-2 4-1 6-1 3-1 6-6 5-4 4-2 5-2 6-3 "
    "5-0 4-0 5-5 4-4",
    (
        "0123456789abcdef",
        "hand:1",
    ): "2-0 6-3 3-2 5-4 4-1 1-0 6-2 2-2 3-0 3-1 0-0 2-1 3-3 5-0 5-2 4-3 4-4 6-1 6-4 4-0 1-1 5-1 6-6 4-2 "
    "5-3 5-5 6-5 6-0",
    ("", "hand:1"): "1-0 4-1 5-4 6-6 3-1 3-0 6-2 5-3 6-1 5-1 2-0 6-3 1-1 4-3 2-2 5-2 6-0 4-0 4-2 6-5 5-5 6-4 2-1 0-0 "
    "3-3 3-2 5-0 4-4",
    (
        "dé-ü 🁣",
        "hand:7",
    ): "4-3 5-4 3-1 4-4 6-5 0-0 2-0 5-5 1-0 4-0 4-2 4-1 6-4 3-2 6-0 3-3 2-2 6-2 3-0 5-3 6-1 5-0 1-1 6-6 "
    "2-1 6-3 5-1 5-2",
}


def shuffle_md_vectors() -> dict[tuple[str, str], str]:
    """openapi/shuffle.md's v2 vectors (seed 1), by (set, label): the document is the home."""
    text = (Path(__file__).resolve().parents[2] / "openapi" / "shuffle.md").read_text(encoding="utf-8")
    rows = re.findall(r"^- (double-\d+) `([^`]+)`: `([^`]+)`$", text, re.M)
    return {(name, label): order for name, label, order in rows}


V2_VECTORS = shuffle_md_vectors()
