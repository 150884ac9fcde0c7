"""The seeded shuffle, ``boneyard-shuffle-v1`` and ``-v2`` (specified in openapi/shuffle.md).

All randomness of a match comes from its seed. A byte stream is the concatenation of
blocks ``HMAC-SHA256(key=UTF-8(seed), msg=UTF-8(label) || 0x00 || uint32_be(counter))``
for counter = 0, 1, 2, …; it is read as big-endian unsigned 32-bit words. A
Fisher–Yates shuffle of the set's N tiles in canonical order (0-0, 1-0, 1-1, 2-0, …)
takes, for i = N-1 down to 1, the next word u that is below ``2**32 - 2**32 % (i+1)``
(rejection keeps it unbiased) and swaps positions i and ``u % (i+1)``.

v1 is that shuffle of the double-six set's 28 tiles; v2 is the same construction over any
set's tiles (double-nine, double-twelve), so a double-six match keeps naming v1 and its
deals are unchanged. The label names what is shuffled, so hand k's deal depends only on the
seed and k.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator, Sequence

from .tiles import Tile, TileSet

ALGORITHM = "boneyard-shuffle-v1"  # the double-six set's (the name logs have always carried)
ANY_SET_ALGORITHM = "boneyard-shuffle-v2"  # every other set's
ALGORITHMS = (ALGORITHM, ANY_SET_ALGORITHM)


def algorithm_for(tile_set: TileSet) -> str:
    """The ``seed_algorithm`` a match on ``tile_set`` names in ``match_created``."""
    return ALGORITHM if tile_set is TileSet.DOUBLE_6 else ANY_SET_ALGORITHM


def deal_label(hand_number: int) -> str:
    return f"hand:{hand_number}"


TURN_UP_LABEL = "turn-up"


def _words(seed: str, label: str) -> Iterator[int]:
    key = seed.encode("utf-8")
    prefix = label.encode("utf-8") + b"\x00"
    counter = 0
    while True:
        block = hmac.new(key, prefix + counter.to_bytes(4, "big"), hashlib.sha256).digest()
        for offset in range(0, 32, 4):
            yield int.from_bytes(block[offset : offset + 4], "big")
        counter += 1


def shuffled_tiles(seed: str, label: str, tile_set: TileSet = TileSet.DOUBLE_6) -> list[Tile]:
    """The tiles of ``tile_set`` in the order the seed and label give."""
    tiles = list(tile_set.tiles)
    words = _words(seed, label)
    for i in range(len(tiles) - 1, 0, -1):
        n = i + 1
        limit = 2**32 - (2**32 % n)
        u = next(words)
        while u >= limit:
            u = next(words)
        j = u % n
        tiles[i], tiles[j] = tiles[j], tiles[i]
    return tiles


def deal_seed(server_seed: str, client_seeds: Sequence[str | None]) -> str:
    """The seed the deals use: the server's alone, or mixed with the seats' client seeds.

    With any client seed, it is the hex SHA-256 of the server seed and every seat's client
    seed in seat order ("" for a seat without one), each as uint32_be(byte length) ||
    UTF-8 bytes. Neither side alone chooses the shuffle: the server committed to its
    seed first (``seed_commitment``), and cannot know the seeds claims add later.
    """
    if not any(client_seeds):
        return server_seed
    digest = hashlib.sha256()
    for part in (server_seed, *(c or "" for c in client_seeds)):
        data = part.encode("utf-8")
        digest.update(len(data).to_bytes(4, "big") + data)
    return digest.hexdigest()


def seed_commitment(seed: str) -> str:
    """What ``match_created`` publishes before play: SHA-256 of the seed, hex."""
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()
