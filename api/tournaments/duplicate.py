"""Duplicate deals, checked: every table of a round dealt from the one seed its pairing committed to.

A duplicate round's ``round_paired`` carries ``seed_commitment``, the SHA-256 of the seed every
match of the round is dealt from (a match's deals depend only on its seed and each hand's number:
``openapi/shuffle.md``). Each match publishes its own commitment in ``match_created`` and reveals
its seed in its audit once the round has ended; each match's ``/fairness`` re-derives its deals
from that seed. So the tables got the same deals when every match's commitment is the round's and
the revealed seed hashes to it: :func:`round_deals_problems` says what is not so.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping


def commitment_of(seed: str) -> str:
    """SHA-256 of the seed's UTF-8 bytes, hex: what a match's ``match_created`` publishes."""
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()


def round_deals_problems(commitment: str, matches: Mapping[str, tuple[str, str | None]]) -> list[str]:
    """What keeps a duplicate round's tables from provably sharing their deals, given the round's
    ``commitment`` and each match's ``(seed_commitment, revealed seed)``; [] when nothing does."""
    problems = []
    for match_id, (published, seed) in matches.items():
        if published != commitment:
            problems.append(f"match {match_id} committed to {published}, not the round's {commitment}")
        if seed is None:
            problems.append(f"match {match_id}'s seed is not revealed")
        elif commitment_of(seed) != commitment:
            problems.append(f"match {match_id}'s revealed seed does not hash to the round's commitment")
    return problems
