"""The trains games' computer players: legal, deterministic, blind to what their seat cannot see,
and each level playing as its docstring says (greedy's heaviest tile, the expert's plan)."""

from __future__ import annotations

import random

import pytest

from api.bots import LEVELS, choose_action
from api.bots.audit import recheck_bot_moves
from api.bots.trains_expert import best_chain
from api.bots.trains_rollout import Round
from api.bots.trains_table import is_trains_view, read_table
from api.bots.turns import bot_turn
from api.rules import PLAYING, Tile, create_match, replay, resolve_rules, start_match, view
from api.rules.engine import mutate
from api.rules.events import RoundEnded, RoundStarted
from bench.trains_strength import TrainsBotMatch


def tiles(text: str) -> list[Tile]:
    return [Tile.parse(t) for t in text.split()]


def short_match(preset: str, players: int, levels: list[str], rounds: int = 2) -> TrainsBotMatch:
    rules = resolve_rules(preset, {"rounds": rounds}, players)
    return TrainsBotMatch(rules, f"trains-bots-test:{preset}:{players}:{'-'.join(levels)}", levels)


def mexican_view(hand: str, trains: list[dict], legal: list[dict], hand_counts: list[int] | None = None) -> dict:
    """A seat-0 view of a 4-player Mexican Train round with engine 12-12, as the contract writes it."""
    counts = hand_counts or [len(hand.split()), 10, 10, 10]
    return {
        "seat": 0,
        "rules": resolve_rules("mexican-train", {}, 4).to_dict() | {"set": "double-12"},
        "board": {"engine": [12, 12], "trains": trains, "uncovered": None},
        "hand": [t.to_json() for t in tiles(hand)],
        "hand_counts": counts,
        "boneyard": 20,
        "legal_actions": legal,
    }


def train(seat: int | str, open_: int, marker: bool = False) -> dict:
    owner = seat if isinstance(seat, int) else None
    return {"train": seat, "owner": owner, "open": open_, "marker": marker, "awaits_cover": False, "tiles": []}


def play(tile: str, where: int | str) -> dict:
    return {"type": "play", "tile": Tile.parse(tile).to_json(), "train": where}


@pytest.mark.parametrize(
    ("preset", "players"),
    [("mexican-train", 2), ("mexican-train", 4), ("mexican-train", 8), ("chicken-foot", 2), ("chicken-foot", 8)],
)
def test_every_answer_of_every_level_is_a_listed_action(preset: str, players: int) -> None:
    levels = [LEVELS[i % len(LEVELS)] for i in range(players)]
    match = short_match(preset, players, levels)
    asked = 0
    while match.live:
        _, _, seat_view, action = match.step()
        assert action in seat_view["legal_actions"]
        asked += 1
    assert match.state.trains is not None and match.state.trains.winners is not None
    assert asked > 20  # two whole rounds were played by the bots


def test_a_trains_view_is_known_by_its_preset() -> None:
    match = short_match("chicken-foot", 2, ["greedy", "greedy"])
    assert is_trains_view(view(match.state, 0))
    assert not is_trains_view({"rules": {"preset": "standard-draw"}})


def test_greedy_plays_the_heaviest_tile_wherever_it_fits() -> None:
    legal = [play("5-4", 0), play("5-3", 0), play("12-1", "mexican")]
    seat_view = mexican_view(
        "5-4 12-1 5-3 9-9", [train(0, 5), train(1, 12), train(2, 12), train(3, 12), train("mexican", 12)], legal
    )
    assert choose_action("greedy", seat_view, [], "seed") == play("12-1", "mexican")


def test_greedy_breaks_a_tie_by_the_double_then_the_higher_end_then_the_first_place() -> None:
    trains = [train(0, 5), train(1, 6), train(2, 12), train(3, 12), train("mexican", 5)]
    legal = [play("6-4", 1), play("5-5", 0), play("5-5", "mexican")]
    assert choose_action("greedy", mexican_view("6-4 5-5", trains, legal), [], "s") == play("5-5", 0)
    legal = [play("5-3", 0), play("6-2", 1)]
    assert choose_action("greedy", mexican_view("5-3 6-2", trains, legal), [], "s") == play("6-2", 1)


def test_with_nothing_to_play_the_bots_draw_else_pass() -> None:
    trains = [train(0, 5), train(1, 6), train(2, 12), train(3, 12), train("mexican", 5)]
    for level in LEVELS:
        assert choose_action(level, mexican_view("9-9", trains, [{"type": "draw"}]), [], "s") == {"type": "draw"}
        assert choose_action(level, mexican_view("9-9", trains, [{"type": "pass"}]), [], "s") == {"type": "pass"}


def test_the_expert_keeps_its_planned_chain_where_greedy_breaks_it() -> None:
    # Its own train is open at 5 and it holds the chain 5-2, 2-11, 11-4; the Mexican train is
    # open at 2, so the heaviest tile, 11-2, fits there: greedy plays it and strands 11-4.
    trains = [train(0, 5), train(1, 12), train(2, 12), train(3, 12), train("mexican", 2)]
    legal = [play("5-2", 0), play("5-2", "mexican"), play("11-2", "mexican")]
    seat_view = mexican_view("5-2 11-2 11-4", trains, legal)
    assert choose_action("greedy", seat_view, [], "s") == play("11-2", "mexican")
    assert choose_action("expert", seat_view, [], "s") == play("5-2", 0)


def test_the_expert_sheds_a_tile_off_its_chain_on_a_public_train_first() -> None:
    # 5-2 and 2-11 are its own train's plan; 8-1 fits only the marked train of seat 3: it goes there.
    trains = [train(0, 5), train(1, 12), train(2, 12), train(3, 8, marker=True), train("mexican", 12)]
    legal = [play("5-2", 0), play("8-1", 3)]
    assert choose_action("expert", mexican_view("5-2 11-2 8-1", trains, legal), [], "s") == play("8-1", 3)


def test_the_expert_lifts_its_own_marker_before_shedding_a_light_tile() -> None:
    # 1-0 is off its plan (5-2, 2-11) but light; while its own train carries a marker anyone may
    # change its open number: it plays there first. Unmarked, it sheds the 1-0 first.
    trains = [train(0, 5, marker=True), train(1, 12), train(2, 12), train(3, 3), train("mexican", 1)]
    legal = [play("5-2", 0), play("1-0", "mexican")]
    assert choose_action("expert", mexican_view("5-2 11-2 1-0", trains, legal), [], "s") == play("5-2", 0)
    trains[0] = train(0, 5)
    assert choose_action("expert", mexican_view("5-2 11-2 1-0", trains, legal), [], "s") == play("1-0", "mexican")


def test_the_chain_is_the_run_leaving_the_fewest_points_off_it() -> None:
    hand = tiles("5-2 2-11 11-4 5-1 6-6 4-4")
    points = {t: t.pips for t in hand}
    assert best_chain(hand, 5, points) == tuple(tiles("5-2 2-11 11-4 4-4"))
    assert best_chain(hand, 6, points) == tuple(tiles("6-6"))
    assert best_chain(hand, 9, points) == ()


@pytest.mark.parametrize("preset", ["mexican-train", "chicken-foot"])
def test_the_same_question_gets_the_same_answer(preset: str) -> None:
    match = short_match(preset, 4, ["expert", "greedy", "random", "expert"], rounds=1)
    while match.live:
        seat = match.state.next_to_act(range(4))
        assert seat is not None
        seat_view, log = view(match.state, seat), [dict(e) for e in match.logs[seat]]
        level = match.levels[seat]
        first = choose_action(level, seat_view, log, f"{match.seed}:{match.decisions}")
        again = choose_action(level, seat_view, log, f"{match.seed}:{match.decisions}")
        _, _, _, played = match.step()
        assert first == again == played


@pytest.mark.parametrize("preset", ["mexican-train", "chicken-foot"])
def test_the_bots_read_nothing_hidden(preset: str) -> None:
    """The others' hands and the boneyard dealt differently (the same counts), every answer the same."""
    match = short_match(preset, 4, ["expert"] * 4, rounds=1)
    for _ in range(12):
        match.step()
    seat = match.state.next_to_act(range(4))
    assert seat is not None
    game = match.state.trains
    assert game is not None
    other = match.state.copy()
    shuffled = other.trains
    assert shuffled is not None
    hidden = [t for s, hand in enumerate(game.hands) if s != seat for t in hand] + list(game.boneyard)
    random.Random(7).shuffle(hidden)
    for s, hand in enumerate(game.hands):
        if s != seat:
            shuffled.hands[s], hidden = hidden[: len(hand)], hidden[len(hand) :]
    shuffled.boneyard = hidden
    assert shuffled.hands != game.hands
    seen, seen_then = view(match.state, seat), view(other, seat)
    assert seen == seen_then
    for level in LEVELS:
        for n in range(5):
            asked = choose_action(level, seen, match.logs[seat], f"q{n}")
            assert asked == choose_action(level, seen_then, match.logs[seat], f"q{n}")


def test_the_lookahead_plays_a_greedy_round_out_as_the_engine_does() -> None:
    """``trains_rollout.Round`` with every hand known ends a Chicken Foot round of greedy seats with
    the pips the engine gives."""
    match = short_match("chicken-foot", 4, ["greedy"] * 4, rounds=1)
    game = match.state.trains
    assert game is not None and game.board is not None
    table = read_table(view(match.state, 0))
    points = {t: table.points(t) for t in table.rules.tile_set.tiles}
    guess = Round([list(h) for h in game.hands], list(reversed(game.boneyard)), [], 9, 4, game.to_move or 0, points)
    expected = guess.play_out()
    events = []
    while match.live:
        before = len(match.logs[0])
        match.step()
        events.extend(match.logs[0][before:])
    ended = [e for e in events if e["type"] == RoundEnded.type]
    assert ended and ended[0]["pips"] == expected


@pytest.mark.parametrize("preset", ["mexican-train", "chicken-foot"])
def test_the_fairness_recheck_asks_every_trains_bot_again_and_gets_its_move(preset: str) -> None:
    """Bots asked as the server asks them (``turns.bot_turn``, the log since the deal), then the
    whole log put to ``audit.recheck_bot_moves``: every decision of every level comes out the same."""
    seed = f"trains-recheck:{preset}"
    rules = resolve_rules(preset, {"rounds": 2}, 4)
    seats = [{"name": level, "type": "bot", "level": level} for level in LEVELS]
    created = create_match(rules, seats, seed)
    state = replay(created[:1])
    rows: list[dict] = [created[0].to_dict()]
    hand_log: list[dict] = []

    def add(events: list) -> None:
        for event in events:
            data = event.to_dict()
            rows.append(data)
            mutate(state, event)
            if data["type"] == RoundStarted.type:
                hand_log.clear()
            hand_log.append(data)

    add(created[1:])
    add(start_match(state, seed))
    while state.status == PLAYING:
        turn = bot_turn(state, hand_log, seed, len(rows))
        assert turn is not None
        add(turn.events(state, turn.choose(), seed))
    report = recheck_bot_moves(rows, seed)
    assert report.problems == []
    assert all(report.checked_by_level[level] > 0 for level in LEVELS), report.checked_by_level
