"""bench/versus.py's adapters: the public AIs see only what their seat may see, and the
positions rebuilt for them are the real ones (board, passes, legal moves).

Needs the ``bench`` extra (``dominoes``, ``open_spiel``); each test skips without its
library. ``scripts/test`` installs only the ``test`` extra, so there these tests skip
unless the bench extra was installed into the same venv (``pip install -e '.[bench]'``).
"""

from __future__ import annotations

import random

import pytest

from api.bots.arena import BotMatch, next_actor
from api.rules import Tile, redact_event, replay, view
from api.rules.events import HandStarted
from bench import versus
from tests.bots.test_no_peeking import hidden_twin


def decision_points(rules, seed: str, hands: int = 3):
    """(match, seat) at every turn of a few greedy hands: the seat to move and its inputs."""
    for h in range(hands):
        match = BotMatch(rules, f"{seed}:{h}", ["greedy"] * rules.players)
        while match.live and match.state.hand_number == 1:
            yield match, next_actor(match.state)
            match.step()


def seen(match: BotMatch, seat: int):
    return match.inputs(seat)


def plays_of(seat_view) -> set[tuple[Tile, str]]:
    return {(Tile.from_json(a["tile"]), a["end"]) for a in seat_view["legal_actions"] if a["type"] == "play"}


# --- dominoes --------------------------------------------------------------------------------------
def native_dominoes(match: BotMatch):
    """A ``dominoes.Game`` dealt the true hands, with every play of the hand so far made on it."""
    dominoes = pytest.importorskip("dominoes")
    started = next(e for e in match.events if isinstance(e, HandStarted))
    hands = [dominoes.Hand([dominoes.Domino(t.high, t.low) for t in h]) for h in started.hands]
    game = dominoes.Game(dominoes.Board(), hands, [], started.leader, (), started.leader, None)
    for e in match.events:
        if e.type == "tile_played":
            game.make_move(dominoes.Domino(e.tile.high, e.tile.low), e.end == "left")
    return game


def test_the_dominoes_game_matches_the_real_one_and_boneyards_legal_plays():
    pytest.importorskip("dominoes")
    checked = 0
    for match, seat in decision_points(versus.four_player_rules(), "versus-dominoes"):
        seat_view, log = seen(match, seat)
        plays = plays_of(seat_view)
        if not plays:
            continue  # a knock: dominoes never gives that seat the turn
        game = versus.dominoes_game(seat_view, log, "s")
        native = native_dominoes(match)
        assert native.turn == game.turn == seat
        assert game.moves == native.moves  # passes (None) exactly where dominoes records them
        assert game.starting_player == native.starting_player
        assert (game.board.left_end(), game.board.right_end()) == (native.board.left_end(), native.board.right_end())
        ends = {e["end"]: e["value"] for e in seat_view["ends"]}
        assert (game.board.left_end(), game.board.right_end()) == (ends["left"], ends["right"])
        assert game.missing_values() == native.missing_values()
        lacks = [set() for _ in range(4)]
        for e in log:
            if e["type"] == "knocked":
                lacks[e["seat"]] |= set(e["ends"].values())
        assert game.missing_values() == lacks
        assert set(game.valid_moves) == set(native.valid_moves)
        # Boneyard lists a tile fitting two equal ends on both; dominoes once, on the left.
        same_ends = ends["left"] == ends["right"]
        expected = {(t, end == "left") for t, end in plays if not (same_ends and end == "right")}
        assert {(Tile(d.first, d.second), left) for d, left in game.valid_moves} == expected
        checked += 1
    assert checked > 30


def test_the_dominoes_anchor_is_given_the_same_game_whatever_the_hidden_tiles():
    pytest.importorskip("dominoes")
    rules = versus.four_player_rules()
    rng = random.Random(4)
    differed = 0
    for game_number in range(4):
        match = BotMatch(rules, f"versus-twin:{game_number}", ["greedy"] * 4)
        for _ in range(6 + game_number):
            match.step()
        seat = next_actor(match.state)
        twin_events = hidden_twin(match.events, seat, rng)
        twin = replay(twin_events)
        assert twin.hands[seat] == match.state.hands[seat]
        inputs = [
            (view(st, seat), [redact_event(e.to_dict(), seat) for e in events])
            for st, events in ((match.state, match.events), (twin, twin_events))
        ]
        games = [versus.dominoes_game(v, log, "same-seed") for v, log in inputs]
        assert [list(h) for h in games[0].hands] == [list(h) for h in games[1].hands]
        assert games[0].moves == games[1].moves
        truths = [match.state.hands, twin.hands]
        if truths[0] != truths[1]:
            differed += 1
            # The input is the same for two different truths, so it is not built from either;
            # and it is not the truth of the world it was asked in.
            given = [sorted(Tile(d.first, d.second).index for d in h) for h in games[0].hands]
            true = [sorted(t.index for t in h) for h in truths[0]]
            assert given[seat] == true[seat]
            assert given != true
            others = [t for s in range(4) if s != seat for t in truths[0][s]]
            assert sorted(i for s in range(4) if s != seat for i in given[s]) == sorted(t.index for t in others)
    assert differed


# --- OpenSpiel ---------------------------------------------------------------------------------------
def native_open_spiel(match: BotMatch, tables: versus.OpenSpielTables):
    """python_block_dominoes dealt the true hands (the leader's to player 0), the plays so far made."""
    started = next(e for e in match.events if isinstance(e, HandStarted))
    state = tables.game.new_initial_state()
    for seat in (started.leader, 1 - started.leader):
        for t in started.hands[seat]:
            state.apply_action(tables.deck_index[t])
    ends: dict[str, int] = {}
    for e in match.events:
        if e.type == "tile_played":
            player = 0 if e.seat == started.leader else 1
            state.apply_action(tables.action_of(versus.OsPlay(player, e.tile, ends.get(e.end))))
            ends = dict(e.ends)
    return state


def test_the_open_spiel_state_matches_the_real_one_and_boneyards_legal_plays():
    pytest.importorskip("pyspiel")
    import numpy as np

    anchor = versus.IsmctsAnchor(simulations=10)
    tables = anchor.tables
    checked = 0
    for match, seat in decision_points(versus.two_player_rules(), "versus-open-spiel", hands=4):
        seat_view, log = seen(match, seat)
        plays = plays_of(seat_view)
        if not plays:
            continue  # a knock: OpenSpiel skips the stuck player
        root, player = anchor.root_state(seat_view, log, "s")
        native = native_open_spiel(match, tables)
        assert root.current_player() == native.current_player() == player
        assert root.information_state_string() == native.information_state_string()
        assert root.legal_actions() == native.legal_actions()
        ends = {e["end"]: e["value"] for e in seat_view["ends"]}
        mapped = {(tables.play_of(a).tile, tables.play_of(a).edge) for a in root.legal_actions()}
        assert mapped == {(t, ends[end]) for t, end in plays}
        # Every resampled world: the same information state, the opponent's tiles consistent
        # with its knocks and never the seat's own or the played ones.
        knocked = {n for e in log if e["type"] == "knocked" and e["seat"] != seat for n in e["ends"].values()}
        resample = anchor.resampler(np.random.RandomState(checked))
        for _ in range(5):
            world = resample(root, player)
            assert world.information_state_string() == root.information_state_string()
            theirs = [Tile(int(b), int(a)) for a, b in world.hands[1 - player]]
            assert len(theirs) == seat_view["hand_counts"][1 - seat]
            assert not any(t.high in knocked or t.low in knocked for t in theirs)
            known = {Tile.from_json(t) for t in seat_view["hand"]} | {
                Tile.from_json(e["tile"]) for e in log if e["type"] == "tile_played"
            }
            assert not known & set(theirs)
        checked += 1
    assert checked > 20


def test_the_open_spiel_anchor_is_given_the_same_state_whatever_the_hidden_tiles():
    pytest.importorskip("pyspiel")
    anchor = versus.IsmctsAnchor(simulations=10)
    rules = versus.two_player_rules()
    rng = random.Random(2)
    differed = 0
    for game_number in range(4):
        match = BotMatch(rules, f"versus-os-twin:{game_number}", ["greedy"] * 2)
        for _ in range(3):
            match.step()
        seat = next_actor(match.state) if match.state.hand_live else None
        if seat is None or not plays_of(view(match.state, seat)):
            continue  # asked only with a tile to play
        twin_events = hidden_twin(match.events, seat, rng)
        twin = replay(twin_events)
        roots = [
            anchor.root_state(view(st, seat), [redact_event(e.to_dict(), seat) for e in events], "same-seed")[0]
            for st, events in ((match.state, match.events), (twin, twin_events))
        ]
        assert str(roots[0]) == str(roots[1])  # both hands and the history
        if match.state.hands != twin.hands:
            differed += 1
            opponent = 1 - seat
            given = {Tile(int(b), int(a)) for a, b in roots[0].hands[1 if seat == match.state.leader else 0]}
            truths = [set(match.state.hands[opponent]), set(twin.hands[opponent])]
            assert given != truths[0] or given != truths[1]
    assert differed


# --- whole hands ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("row", ["alphabeta8", "alphabeta32", "ismcts"])
def test_a_seeded_pair_of_hands_replays_identically(row):
    pytest.importorskip("pyspiel" if row == "ismcts" else "dominoes")
    settings = versus.Settings(level="greedy", seed=3, ismcts_sims=20)  # seed 3: short searches
    first = versus.play_pair((row, 0, settings))[2]
    again = versus.play_pair((row, 0, settings))[2]
    assert [(h.actions, h.side, h.points) for h in first] == [(h.actions, h.side, h.points) for h in again]
    assert [h.boneyard_side for h in first] == [0, 1]
    assert all(h.anchor_cpu for h in first)  # the anchor was asked


def test_a_tuning_run_changes_only_the_budget_fields_it_names_with_their_own_types():
    from api.bots import DEFAULT_BUDGET, INTERMEDIATE_BUDGET

    tuned = versus.parse_budget("inference=8, lean=4", "expert")
    assert (tuned.inference, tuned.lean) == (8, 4.0) and isinstance(tuned.lean, float)
    assert tuned.determinizations == DEFAULT_BUDGET.determinizations and tuned.exact_tiles == DEFAULT_BUDGET.exact_tiles
    assert versus.parse_budget("sure=0", "intermediate").determinizations == INTERMEDIATE_BUDGET.determinizations
    assert versus.parse_budget("greedy_model=true", "expert").greedy_model is True
    assert versus.parse_budget("greedy_model=False", "expert").greedy_model is False
    for text, level, message in [
        ("nope=1", "expert", "no budget field 'nope'"),
        ("deals_for=3", "expert", "no budget field 'deals_for'"),
        ("inference=2.5", "expert", "takes int values"),
        ("greedy_model=1", "expert", "takes bool values"),
        ("lean=2", "greedy", "has no budget"),
    ]:
        with pytest.raises(ValueError, match=message):
            versus.parse_budget(text, level)


def test_the_boneyard_sides_seats_are_listed_as_bots_of_its_level_so_expert_partners_know_each_other():
    from api.bots.expert import signalling_partner
    from api.bots.knowledge import Knowledge

    rules = versus.four_player_rules()
    partners: dict[int, int | None] = {}

    def watch(state, seat, log):
        partners[seat] = signalling_partner(Knowledge.read(view(state, seat), log))

    greedy = versus.boneyard_player("greedy")
    versus.play_hand(rules, "versus:seats", [greedy] * 4, 0, watch, boneyard_level="greedy")
    assert partners[0] == 2 and partners[2] == 0  # side 0: bots of one level, partnered
    assert partners[1] is None and partners[3] is None  # side 1 plays for the anchor: remote seats
    partners.clear()
    versus.play_hand(rules, "versus:seats", [greedy] * 4, 0, watch)  # no level: every seat remote
    assert set(partners.values()) == {None}
