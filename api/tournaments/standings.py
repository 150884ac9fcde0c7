"""Match points, standings and their tiebreaks, and the crosstable: all read from the state.

Match points (one home for the scale): a win 2, a draw 1, a loss 0; a table both sides forfeit
gives both 0. A **bye** in a Swiss scores as a win (2 match points) with no points for or against
and no opponent (it adds nothing to Buchholz or Sonneborn-Berger); in a round robin the round off
that an odd field gives every entrant once scores nothing.

Tiebreaks, applied in the order the tournament names after match points, then the seeding order:

* ``buchholz``: the sum of the final match points of every opponent met;
* ``sonneborn_berger``: the sum, over the games, of the opponent's final match points times the
  match points earned against it (with win 2 and draw 1 this is twice the chess form: the same
  order, in whole numbers);
* ``win_margin``: points for minus points against, the matches' own final scores summed.

A forfeited table counts as met (its opponent is in Buchholz) with scores 0 to 0.

In an **arena** a game's match points are its arena points (:func:`api.tournaments.arena.arena_points`:
a win in a run of wins after the first two counts double), so the standings, and the tiebreaks
read from match points, rank by those.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from .arena import arena_points
from .events import ARENA, BUCHHOLZ, SONNEBORN_BERGER, SWISS, WIN_MARGIN, MatchResult
from .state import TournamentState

WIN_POINTS = 2
DRAW_POINTS = 1
LOSS_POINTS = 0

WIN = "win"
DRAW = "draw"
LOSS = "loss"
BYE = "bye"


def match_points(result: MatchResult) -> tuple[int, int]:
    """Each side's match points for a table's result."""
    if result.winner is None:
        return (LOSS_POINTS, LOSS_POINTS) if result.forfeit else (DRAW_POINTS, DRAW_POINTS)
    return (WIN_POINTS, LOSS_POINTS) if result.winner == 0 else (LOSS_POINTS, WIN_POINTS)


def bye_points(format_: str) -> int:
    """What a bye scores in this format."""
    return WIN_POINTS if format_ == SWISS else 0


@dataclass(frozen=True, slots=True)
class Game:
    """One entrant's part in one round: its opponent (None for a bye), its outcome from its side
    (None while the table is undecided), its score and the opponent's, and its match points."""

    round: int
    table: int | None
    opponent: str | None
    side: int | None
    outcome: str | None
    scores: tuple[int, int]  # (its own, the opponent's)
    match_points: int
    forfeit: bool = False


@dataclass(frozen=True, slots=True)
class Standing:
    entrant_id: str
    rank: int  # 1 first; entrants equal in match points and every tiebreak share a rank
    match_points: int
    played: int
    wins: int
    draws: int
    losses: int
    byes: int
    points_for: int
    points_against: int
    tiebreaks: Mapping[str, int]
    withdrawn: bool
    streak: int = 0  # wins in a row up to its last decided game


def games(state: TournamentState, of: Collection[str] | None = None) -> dict[str, list[Game]]:
    """Every entrant's games, round by round (the crosstable's rows); ``of``: those entrants' only
    (an arena pairs its free pool many times an hour: it reads the games of the pool alone)."""
    wanted = set(state.entrants if of is None else of)
    found: dict[str, list[Game]] = {entrant: [] for entrant in state.entrants if entrant in wanted}
    bye_score = bye_points(state.settings.format)
    arena = state.settings.format == ARENA
    run = dict.fromkeys(state.entrants, 0)  # wins in a row so far, for an arena's streaks
    for round_ in state.rounds:
        if round_.bye is not None and round_.bye in wanted:
            found[round_.bye].append(Game(round_.number, None, None, None, BYE, (0, 0), bye_score))
        for table in round_.tables:
            if table.sides[0] not in wanted and table.sides[1] not in wanted:
                continue
            result = round_.results.get(table.number)
            points = match_points(result) if result is not None else (0, 0)
            for side, entrant in enumerate(table.sides):
                if entrant not in wanted:
                    continue
                opponent = table.sides[1 - side]
                if result is None:
                    found[entrant].append(Game(round_.number, table.number, opponent, side, None, (0, 0), 0))
                    continue
                own, other = result.scores[side], result.scores[1 - side]
                if result.winner is None:
                    outcome = LOSS if result.forfeit else DRAW
                else:
                    outcome = WIN if result.winner == side else LOSS
                earned = points[side]
                if arena:
                    earned = arena_points(earned, outcome == WIN, run[entrant])
                    run[entrant] = run[entrant] + 1 if outcome == WIN else 0
                found[entrant].append(
                    Game(round_.number, table.number, opponent, side, outcome, (own, other), earned, result.forfeit)
                )
    return found


def standings(state: TournamentState) -> list[Standing]:
    """Every entrant, best first: by match points, then the named tiebreaks in order, then the
    seeding order (registration order before the start)."""
    by_entrant = games(state)
    points = {entrant: sum(g.match_points for g in played) for entrant, played in by_entrant.items()}
    values: dict[str, dict[str, int]] = {}
    for entrant, played in by_entrant.items():
        met = [g for g in played if g.opponent is not None and g.outcome is not None]
        values[entrant] = {
            BUCHHOLZ: sum(points[g.opponent] for g in met if g.opponent is not None),
            SONNEBORN_BERGER: sum(points[g.opponent] * g.match_points for g in met if g.opponent is not None),
            WIN_MARGIN: sum(g.scores[0] - g.scores[1] for g in met),
        }
    order = state.order or tuple(state.entrants)
    seed = {entrant: position for position, entrant in enumerate(order)}
    named = state.settings.tiebreaks

    def merit(entrant: str) -> tuple[int, ...]:
        return (points[entrant], *(values[entrant][name] for name in named))

    ranked = sorted(by_entrant, key=lambda e: (tuple(-v for v in merit(e)), seed.get(e, len(seed))))
    rows: list[Standing] = []
    for position, entrant in enumerate(ranked):
        rank = position + 1
        if position and merit(ranked[position - 1]) == merit(entrant):
            rank = rows[-1].rank
        played = [g for g in by_entrant[entrant] if g.outcome is not None]
        met = [g for g in played if g.outcome != BYE]
        rows.append(
            Standing(
                entrant_id=entrant,
                rank=rank,
                match_points=points[entrant],
                played=len(met),
                wins=sum(1 for g in met if g.outcome == WIN),
                draws=sum(1 for g in met if g.outcome == DRAW),
                losses=sum(1 for g in met if g.outcome == LOSS),
                byes=sum(1 for g in played if g.outcome == BYE),
                points_for=sum(g.scores[0] for g in met),
                points_against=sum(g.scores[1] for g in met),
                tiebreaks={name: values[entrant][name] for name in named},
                withdrawn=entrant in state.withdrawn,
                streak=_streak(played),
            )
        )
    return rows


def _streak(played: list[Game]) -> int:
    """Wins in a row at the end of an entrant's decided games (byes do not count)."""
    count = 0
    for game in reversed(played):
        if game.outcome == BYE:
            continue
        if game.outcome != WIN:
            break
        count += 1
    return count
