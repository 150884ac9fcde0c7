"""``legal_actions`` is the whole contract: a client that only ever sends listed actions,
verbatim, plays every preset perfectly — under ``muggins_calls`` too, where a scoring play
is listed with its claim and a muggins call with the points it takes.

Seat 0 (and its partner) is such a client: it calls muggins when it is listed, else sends
the listed play with the highest ``scores``, else the listed draw or knock. The other seats
send listed actions at random without their claims (they forget to count), so points are
left for muggins calls, and they call muggins whenever it is listed. Every listed item of
every seat is checked against the documented shape at every step.
"""

from __future__ import annotations

import random

import pytest

from api.rules import create_match, decide, legal_actions, parse_action, replay, resolve_rules, start_match
from api.rules.games import presets_of
from api.rules.layout import END_INDEX
from api.rules.state import ENDED, PLAYING
from api.rules.tiles import Tile
from api.rules.views import view

CONFIGS = [(preset, players, {}) for preset, spec in presets_of("line").items() for players in spec.players]
CONFIGS += [
    (preset, players, {"muggins_calls": True})
    for preset, spec in presets_of("line").items()
    if spec.options.get("end_count_scoring") and not spec.options.get("exact_target")  # muggins_calls can go with it
    for players in spec.players
]
CONFIGS += [
    ("all-fives", 4, {"muggins_calls": True, "partners": True}),
    ("muggins", 4, {"muggins_calls": True, "partners": True}),
    ("all-fives", 3, {"muggins_calls": True, "draw_at_will": True}),
]
PLAY_KEYS = {"type", "tile", "end"}


def _name(config) -> str:
    preset, players, options = config
    return f"{preset}-{players}p" + "".join(f"-{k}" for k in options)


def points_of(st, action: dict) -> int:
    """What a listed play scores under end_count_scoring, counted here from the layout itself."""
    after = st.layout.copy()
    after.place(Tile.from_json(action["tile"]), END_INDEX[action["end"]])
    count = after.count()
    if count == 0:
        return 0
    if st.rules.end_count_scoring == "fives":
        return count if count % 5 == 0 else 0  # (no preset plays fives to an exact target)
    points = (0 if count % 5 else count // 5) + (0 if count % 3 else count // 3)  # fives_and_threes
    if st.rules.exact_target and st.scores[st.rules.side_of(st.turn)] + points > st.rules.target:
        return 0  # past an exact target a count scores nothing
    return points


def check_listing(st, seat: int) -> None:
    """Every item ``seat`` is shown has exactly the documented shape and the right numbers."""
    rules = st.rules
    shown = view(st, seat)
    listed = shown["legal_actions"]
    assert listed == legal_actions(st, seat)
    if rules.scores_the_count:
        assert shown["count"] == st.layout.count()  # under muggins_calls too
    else:
        assert "count" not in shown
    pending = st.pending_muggins
    may_call = pending is not None and rules.side_of(pending[0]) != rules.side_of(seat)
    assert [a for a in listed if a["type"] == "muggins"] == (
        [{"type": "muggins", "scores": pending[1]}] if may_call else []
    )
    for action in listed:
        kind = action["type"]
        if kind == "play":
            points = points_of(st, action) if rules.scores_the_count else 0
            expected = {k: action[k] for k in PLAY_KEYS}
            if points:
                expected["scores"] = points
                if rules.muggins_calls:
                    expected["claim"] = points
            assert action == expected, (action, points)
        elif kind != "muggins":
            assert action in ({"type": "draw"}, {"type": "draw", "until": "playable"}, {"type": "knock"}), action


def verbatim_choice(listed: list[dict]) -> dict:
    """The perfect listed-only client: muggins first (it costs no turn), then the best score."""
    for kind in ("muggins", "play"):
        options = [a for a in listed if a["type"] == kind]
        if options:
            return max(options, key=lambda a: a.get("scores", 0))
    return next((a for a in listed if a.get("until") == "playable"), listed[0])


def forgetful_choice(listed: list[dict], rng: random.Random) -> dict:
    calls = [a for a in listed if a["type"] == "muggins"]
    action = calls[0] if calls else rng.choice(listed)
    return {k: v for k, v in action.items() if k != "claim"}


@pytest.mark.parametrize("config", CONFIGS, ids=_name)
def test_a_client_sending_only_listed_actions_plays_every_preset_perfectly(config):
    preset, players, options = config
    rules = resolve_rules(preset, options, players)
    seed = f"listed-only:{_name(config)}"
    rng = random.Random(seed)
    seats = [{"name": f"p{i}", "type": "remote"} for i in range(players)]
    st = replay(create_match(rules, seats, seed))
    st = replay(start_match(st, seed), st)
    mine = rules.side_of(0)
    scored_plays = calls_made = steps = 0
    while st.status == PLAYING:
        steps += 1
        assert steps < 5000, "the match never ended"
        for seat in range(players):
            check_listing(st, seat)
        seat = st.next_to_act(range(players))
        listed = legal_actions(st, seat)
        perfect = rules.side_of(seat) == mine
        action = verbatim_choice(listed) if perfect else forgetful_choice(listed, rng)
        events = decide(st, parse_action(seat, action), seed)
        if perfect and action["type"] == "play":
            played, after = events[0], events[1] if len(events) > 1 else None
            assert (played.type, played.seat, played.auto) == ("tile_played", seat, False)
            if "scores" in action:  # every scoring play it makes is scored
                assert (after.type, after.seat, after.how, after.points) == (
                    "points_scored",
                    seat,
                    "play",
                    action["scores"],
                )
                scored_plays += 1
            else:
                assert after is None or after.type != "points_scored"
        if perfect and action["type"] == "muggins":  # the listed points are the points taken
            taken = events[0]  # then match_ended when they reach the target
            assert (taken.type, taken.seat, taken.how, taken.points) == (
                "points_scored",
                seat,
                "muggins",
                action["scores"],
            )
            assert [e.type for e in events[1:]] in ([], ["match_ended"])
            calls_made += 1
        taken = [e for e in events if e.type == "points_scored" and e.how == "muggins"]
        assert not [e for e in taken if rules.side_of(e.seat) != mine], "points left for a muggins call"
        st = replay(events, st)
        assert st.pending_muggins is None or rules.side_of(st.pending_muggins[0]) != mine
    assert st.status == ENDED and max(st.scores) >= rules.target
    if rules.scores_the_count:
        assert scored_plays > 0
    if rules.muggins_calls:
        assert calls_made > 0, "the forgetful seats never left points to call: choose another seed"
