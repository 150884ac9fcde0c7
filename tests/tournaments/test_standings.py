"""Standings and tiebreaks, computed by hand for a round robin of four."""

from __future__ import annotations

from api import tournaments as t

from .support import fold, tournament

# Berger for four: R1 e1-e4, e2-e3; R2 e4-e3, e1-e2; R3 e2-e4, e3-e1 (first named sits first).
# (round, table) -> (winner side, scores by side)
RESULTS = {
    (1, 1): (0, (100, 40)),  # e1 beats e4
    (1, 2): (None, (50, 50)),  # e2 and e3 draw
    (2, 1): (0, (100, 90)),  # e4 beats e3
    (2, 2): (1, (60, 100)),  # e2 beats e1
    (3, 1): (0, (100, 0)),  # e2 beats e4
    (3, 2): (0, (100, 80)),  # e3 beats e1
}


def played(tiebreaks: tuple[str, ...]) -> t.TournamentState:
    state = tournament(4, format=t.ROUND_ROBIN, rounds=None, tiebreaks=tiebreaks)
    state = fold(state, t.start(state))
    for round_ in (1, 2, 3):
        state = fold(state, t.pair_round(state))
        for table in (1, 2):
            winner, scores = RESULTS[(round_, table)]
            state = fold(state, t.record_result(state, round_, table, winner, scores))
    return state


def test_buchholz_sonneborn_berger_and_win_margin_by_hand():
    state = played((t.BUCHHOLZ, t.SONNEBORN_BERGER, t.WIN_MARGIN))
    assert state.status == t.ENDED
    rows = {row.entrant_id: row for row in t.standings(state)}
    # match points: e1 W L L = 2, e2 D W W = 5, e3 D L W = 3, e4 L W L = 2
    assert {e: r.match_points for e, r in rows.items()} == {"e1": 2, "e2": 5, "e3": 3, "e4": 2}
    # Buchholz: e1 met e4 (2), e2 (5), e3 (3) = 10; e2 met e3, e1, e4 = 3 + 2 + 2 = 7; ...
    assert {e: r.tiebreaks[t.BUCHHOLZ] for e, r in rows.items()} == {"e1": 10, "e2": 7, "e3": 9, "e4": 10}
    # Sonneborn-Berger: e1 beat e4 (2 x 2) = 4; e2 drew e3 (3 x 1), beat e1 and e4 (2 x 2 each) = 11;
    # e3 drew e2 (5 x 1), beat e1 (2 x 2) = 9; e4 beat e3 (3 x 2) = 6.
    assert {e: r.tiebreaks[t.SONNEBORN_BERGER] for e, r in rows.items()} == {"e1": 4, "e2": 11, "e3": 9, "e4": 6}
    # win margin: e1 +60 -40 -20 = 0; e2 0 +40 +100 = 140; e3 0 -10 +20 = 10; e4 -60 +10 -100 = -150
    assert {e: r.tiebreaks[t.WIN_MARGIN] for e, r in rows.items()} == {"e1": 0, "e2": 140, "e3": 10, "e4": -150}
    assert [(r.entrant_id, r.rank) for r in t.standings(state)] == [("e2", 1), ("e3", 2), ("e4", 3), ("e1", 4)]
    assert (rows["e2"].wins, rows["e2"].draws, rows["e2"].losses, rows["e2"].points_for) == (2, 1, 0, 250)


def test_the_named_order_of_tiebreaks_decides():
    state = played((t.WIN_MARGIN, t.BUCHHOLZ))
    assert [r.entrant_id for r in t.standings(state)] == ["e2", "e3", "e1", "e4"]  # e1's 0 beats e4's -150


def test_equal_in_everything_shares_a_rank():
    state = tournament(2, format=t.ROUND_ROBIN, rounds=None, tiebreaks=(t.BUCHHOLZ,))
    state = fold(state, t.start(state))
    state = fold(state, t.pair_round(state))
    state = fold(state, t.record_result(state, 1, 1, None, (30, 30)))
    assert [(r.entrant_id, r.rank, r.match_points) for r in t.standings(state)] == [("e1", 1, 1), ("e2", 1, 1)]


def test_a_swiss_bye_scores_a_win_and_adds_no_opponent():
    state = tournament(3, rounds=1)
    state = fold(state, t.start(state))
    state = fold(state, t.pair_round(state))
    assert state.rounds[0].bye == "e3"
    state = fold(state, t.record_result(state, 1, 1, 0, (100, 20)))
    rows = {r.entrant_id: r for r in t.standings(state)}
    assert (rows["e3"].match_points, rows["e3"].byes, rows["e3"].played, rows["e3"].tiebreaks) == (
        2,
        1,
        0,
        {t.BUCHHOLZ: 0, t.SONNEBORN_BERGER: 0, t.WIN_MARGIN: 0},
    )
    assert t.match_points(state.rounds[0].results[1]) == (t.WIN_POINTS, t.LOSS_POINTS)
