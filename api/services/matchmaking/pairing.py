"""Pairing, pure: which waiting seeks of a pool make one match.

Plain values in, a decision out: no store, no clock, no I/O, no randomness (who sits where is
drawn by :mod:`api.services.matchmaking.seeks`, which also reads and writes the seeks).

Two seeks can meet only in one **pool** (:func:`pool_of`): everything a match is made of, the
space (a portal, or the public one), the preset, the rules resolved for the player count, the
player count, and rated or not. Within a pool, seeks come oldest first; a group is mutually
compatible when it holds each player once and every seek's rating range admits every other
seeker's rating (:func:`admits`). The match goes to the first full group, tried from each seek
oldest first (:func:`choose_group`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, TypeVar


class Waiting(Protocol):
    """What pairing reads of a waiting seek (the store's ``SeekRecord`` is one)."""

    @property
    def player_ref(self) -> str | None: ...  # None: an anonymous seeker (no player, no rating)

    @property
    def rating_min(self) -> float | None: ...

    @property
    def rating_max(self) -> float | None: ...


W = TypeVar("W", bound=Waiting)


def pool_of(portal_id: str | None, preset: str, rules: Mapping[str, Any], players: int, rated: bool) -> str:
    """The pool's name: a hash of everything two seeks must share to meet (``rules`` resolved
    for the player count, so overrides that resolve alike meet)."""
    text = json.dumps([portal_id, preset, rules, players, rated], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def names_a_range(waiting: Sequence[Waiting]) -> bool:
    """Does a seek name a rating range? Only then are the pool's players' ratings needed."""
    return any(seek.rating_min is not None or seek.rating_max is not None for seek in waiting)


def choose_group(
    waiting: Sequence[W], players: int, ratings: Mapping[str, float], *, fill: bool = False
) -> list[W] | None:
    """The seeks to seat in one match, of one pool's ``waiting`` (oldest first): the first full
    group, tried from each seek in turn (:func:`group_from`); with ``fill``, when no group is
    full, the oldest seek's group however short (computer players take the seats left). None:
    no match yet, everyone keeps waiting. ``ratings``: each player's rating, where one is known."""
    for start in range(len(waiting)):
        group = group_from(waiting, start, players, ratings)
        if len(group) == players:
            return group
    if fill and waiting:
        return group_from(waiting, 0, players, ratings)
    return None


def group_from(waiting: Sequence[W], start: int, players: int, ratings: Mapping[str, float]) -> list[W]:
    """Up to ``players`` mutually compatible seeks: ``waiting[start]``, then the oldest others
    that fit (one seat per player; each seek admits every other, both ways)."""
    group = [waiting[start]]
    for seek in waiting:
        if len(group) == players:
            break
        if seek is waiting[start] or (seek.player_ref is not None and seek.player_ref in {g.player_ref for g in group}):
            continue
        if all(admits(seek, other, ratings) and admits(other, seek, ratings) for other in group):
            group.append(seek)
    return group


def admits(seek: Waiting, other: Waiting, ratings: Mapping[str, float]) -> bool:
    """Does ``other``'s rating fall in ``seek``'s range (bounds included)? A seeker without a
    rating (no player) meets only seeks that name no range."""
    if seek.rating_min is None and seek.rating_max is None:
        return True
    rating = ratings.get(other.player_ref) if other.player_ref is not None else None
    if rating is None:
        return False
    return (seek.rating_min is None or rating >= seek.rating_min) and (
        seek.rating_max is None or rating <= seek.rating_max
    )
