"""Seeks and challenges for the trains games (issue 34): their presets seat 2 to 8, so a pool of
five or eight is paired, and a challenge names up to seven opponents."""

from __future__ import annotations

import pytest

from api.rules.errors import InvalidRules
from api.services.bus import MessageBus
from api.services.commands import AnswerChallenge, CreateChallenge, CreateSeek, GetSummary, Seeker

from .support import portal


def player(bus: MessageBus, ref: str) -> Seeker:
    portal_id = portal(bus).portal_id
    assert portal_id is not None
    return Seeker(portal_id, ref)


def test_five_rated_mexican_train_seeks_are_paired_into_one_five_seat_match(bus: MessageBus):
    refs = [f"p{n}" for n in range(5)]
    answers = [
        bus.handle(CreateSeek(player(bus, ref), "mexican-train", {"rounds": 2}, 5, 600, rated=True)) for ref in refs
    ]
    assert [a["status"] for a in answers] == ["waiting"] * 4 + ["paired"]
    match = bus.handle(GetSummary(answers[-1]["match_id"], portal(bus)))
    assert (match["players"], match["rated"], match["rules"]["preset"]) == (5, True, "mexican-train")
    assert (match["rules"]["rounds"], match["rules"]["hand_size"]) == (2, 12)  # 12 each for five or six
    assert sorted(seat["player_ref"] for seat in match["seats"]) == refs


def test_a_seek_for_more_seats_than_a_trains_game_has_is_refused(bus: MessageBus):
    with pytest.raises(InvalidRules) as refused:
        bus.handle(CreateSeek(player(bus, "ana"), "chicken-foot", None, 9, 600))
    assert refused.value.field == "players"


def test_a_chicken_foot_challenge_seats_eight_when_its_seven_opponents_accept(bus: MessageBus):
    opponents = tuple(f"p{n}" for n in range(1, 8))
    challenge = bus.handle(CreateChallenge(player(bus, "p0"), "chicken-foot", None, opponents, 600, rated=True))
    answers = [bus.handle(AnswerChallenge(challenge["id"], player(bus, ref), accept=True)) for ref in opponents]
    assert [a.get("match_id") is None for a in answers] == [True] * 6 + [False]
    match = bus.handle(GetSummary(answers[-1]["match_id"], portal(bus)))
    assert (match["players"], match["rated"], match["rules"]["hand_size"]) == (8, True, 6)  # 6 each for 7-8
    assert [seat["player_ref"] for seat in match["seats"]] == ["p0", *opponents]
