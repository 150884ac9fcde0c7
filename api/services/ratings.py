"""Ratings of a portal's players per rules family, updated by the transaction that decides them.

The model is openskill's Plackett-Luce (``MODEL``, the library's defaults: mu 25, sigma 25/3,
beta 25/6, tau 25/300): a Weng-Lin Bayesian model that rates any number of sides, each a team,
from one ranking, so one model serves two players, a free-for-all of up to eight, and
partners (each side one team; a team's strength is its members' summed). A rating is (mu,
sigma); the leaderboard orders by the model's conservative ``ordinal`` (mu - 3 sigma), so a
newcomer with few matches is not ranked above a player who has proved as much.

What a rated match counts (``record_ratings``, called from ``api.services.effects`` inside
the transaction that appends the deciding events; its rules mirror ``api.services.results``):

* ``match_ended``: the sides ranked by the result (``api.services.standings``): the winning
  side first, the others by their final score (equal scores tie); every named seat still its
  player's is updated. A trains match (Mexican Train, Chicken Foot: 2 to 8 seats, each its own
  side) is a free-for-all ranked by the final totals, LOWER first: every seat in ``winners``
  (the lowest total; a tie shares it) first and ``won``, the others by their totals, equal
  totals tied.
* ``seat_replaced`` (the seat timed out ``timeout_limit`` times in a row and a bot took it
  over): a loss for its player at once, ranked below every other side as they stand; at the
  end that seat is the bot's (rated at the bot's fixed rating, and not its player's).

Computer players take part at their level's fixed public rating for the family
(``api.bots.ratings``), and are never updated. Ratings are per portal and family: another
portal's players, and the public space (no portal, no rated matches), never meet them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import permutations

from openskill.models import PlackettLuce

from api import bots
from api.bots.ratings import bot_rating
from api.rules import BOT_SEAT, MatchState
from api.rules.events import MatchEnded, SeatReplaced
from api.store.ratings import RatingChange, RatingRecord
from api.store.records import SeatRecord

from . import errors
from .commands import SeatSpec
from .ports import UnitOfWork
from .snapshots import Row, Snapshot
from .standings import standing

MODEL = PlackettLuce()

#: How a rated match went for a player (``rating_history.outcome``).
WON, LOST, FORFEITED = "won", "lost", "forfeited"


@dataclass(frozen=True, slots=True)
class Skill:
    """A rating as the model keeps it: its mean and its uncertainty."""

    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """The conservative estimate the leaderboard orders by (the model's own: mu - 3 sigma)."""
        return float(MODEL.rating(mu=self.mu, sigma=self.sigma).ordinal())


NEWCOMER = Skill(MODEL.mu, MODEL.sigma)


def rate(sides: Sequence[Sequence[Skill]], ranks: Sequence[int]) -> list[list[Skill]]:
    """Each side's members' skills after one match in which the sides finished at ``ranks``
    (0 first; equal ranks tie).

    openskill's own tie rule (Weng-Lin's, in Plackett-Luce) rates the side just after a tie as if
    it were in the tie, unless that side is in the last place: a shared win followed by a lone
    third and a fourth rates the third with the winners (ranks 0, 0, 1, 2 from newcomers: mu
    25.93, 25.93, 25.93, 22.20), and in eight seats a sixth can gain more than the winners. So a
    tie with two or more places after it is rated as the mean of the model's updates over every
    order the ties could have been broken in (``tie_orders``: at most 6! = 720 for eight seats),
    which rises with the rank and gives tied sides of equal skills equal updates. Ties only in the
    last two places (every line game's: one winner, at most four sides; a forfeit's, the others
    tied above it) keep openskill's rule, sound there."""
    teams = [[MODEL.rating(mu=s.mu, sigma=s.sigma) for s in side] for side in sides]
    # ints, not floats: openskill 6.0.2 reads ties only from int ranks (a float rank is taken as the
    # team's position, so equal float ranks would not tie)
    runs = [MODEL.rate(teams, ranks=list(order)) for order in tie_orders(ranks)]
    return [
        [
            Skill(
                sum(run[side][member].mu for run in runs) / len(runs),
                sum(run[side][member].sigma for run in runs) / len(runs),
            )
            for member in range(len(team))
        ]
        for side, team in enumerate(teams)
    ]


def tie_orders(ranks: Sequence[int]) -> list[list[int]]:
    """The finishing orders ``rate`` averages over, each a rank per side (0 first): ``ranks``
    itself when every tie is in the last two places, else every strict order ``ranks`` allows
    (the tied sides of each rank in every order, in the places that rank spans)."""
    tiers = [[side for side, rank in enumerate(ranks) if rank == tier] for tier in sorted(set(ranks))]
    if all(len(tier) == 1 for tier in tiers[:-2]):
        return [list(ranks)]
    orders: list[list[int]] = [[0] * len(ranks)]
    place = 0
    for tier in tiers:
        orders = [
            [place + arranged.index(side) if side in tier else at for side, at in enumerate(order)]
            for order in orders
            for arranged in permutations(tier)
        ]
        place += len(tier)
    return orders


def newcomer_record(player_ref: str, family: str) -> RatingRecord:
    return RatingRecord(player_ref, family, NEWCOMER.mu, NEWCOMER.sigma, NEWCOMER.ordinal, 0)


def check_rated_seats(seats: Sequence[SeatSpec], portal_id: str | None) -> None:
    """Refuse a rated match that cannot be rated: without a portal, with a player's seat (remote
    or open) the portal did not name, one player at two seats, or no player at all."""
    if portal_id is None:
        raise errors.RatedNeedsPortal("a rated match is a portal's: send its key (X-API-Key)")
    players = [spec for spec in seats if spec.type != BOT_SEAT]
    if not players:
        raise errors.InvalidRatedSeats("a rated match needs a player's seat (remote or open)", reason="no_players")
    unnamed = [number for number, spec in enumerate(seats) if spec.type != BOT_SEAT and not spec.player_ref]
    if unnamed:
        raise errors.InvalidRatedSeats(
            f"in a rated match every remote or open seat names its player_ref; seat {unnamed[0]} does not",
            reason="missing_player_ref",
        )
    refs = Counter(spec.player_ref for spec in seats if spec.player_ref)
    twice = sorted(ref for ref, count in refs.items() if count > 1)
    if twice:
        raise errors.InvalidRatedSeats(
            f"player_ref {twice[0]!r} is at more than one seat: in a rated match a player has one seat",
            reason="duplicate_player_ref",
        )


def record_ratings(
    uow: UnitOfWork, portal_id: str, match_id: str, appended: Sequence[Row], snap: Snapshot, now: datetime
) -> None:
    """Rate what ``appended`` (just stored in ``uow``) decided in a rated match: a forfeit by a
    seat handed to a bot, the match's end (the module's docstring says how)."""
    replaced = [row["seat"] for row in appended if row["type"] == SeatReplaced.type]
    final = next((row for row in appended if row["type"] == MatchEnded.type), None)
    if not replaced and final is None:
        return
    state = snap.state
    family = state.rules.family.value
    seats = uow.seats.list_for_match(match_id)
    owners = players_of(seats, state, replaced)
    if not owners:
        return
    forfeiting = {owners[n] for n in replaced if n in owners}
    finishing = {ref for n, ref in owners.items() if n not in replaced and final is not None}
    kept = uow.ratings.lock(portal_id, family, forfeiting | finishing, newcomer_record("", family), now)
    # the players still at the table stand at their ratings as they are (a newcomer's if none)
    as_they_stand = uow.ratings.current(portal_id, family, set(owners.values()) - kept.keys())
    skills = {ref: Skill(r.mu, r.sigma) for ref, r in {**as_they_stand, **kept}.items()}
    seat_of = {ref: n for n, ref in owners.items()}

    def side_skills(side: int, rated: dict[int, str]) -> list[Skill]:
        """The side's members: a player of ``rated`` at its rating, anyone else (a bot) at its fixed one."""
        return [
            skills.get(rated[n], NEWCOMER) if n in rated else bot_skill(family, state.seats[n].get("level"))
            for n in state.rules.seats_of_side(side)
        ]

    changes: dict[str, tuple[Skill, str]] = {}
    for ref in sorted(forfeiting):
        # A loss at once, to every other side as it stands: the player's side ranked last.
        lost_side = state.rules.side_of(seat_of[ref])
        sides = list(range(state.rules.sides))
        after = rate([side_skills(side, owners) for side in sides], [1 if side == lost_side else 0 for side in sides])
        changes[ref] = (after[lost_side][state.rules.seats_of_side(lost_side).index(seat_of[ref])], FORFEITED)
    if final is not None and finishing:
        result = standing(final)
        # the seats handed over in this append are their bots' now
        playing = {n: ref for n, ref in owners.items() if n not in replaced}
        after = rate([side_skills(side, playing) for side in range(len(result.ranks))], result.ranks)
        for ref in sorted(finishing):
            side = state.rules.side_of(seat_of[ref])
            member = state.rules.seats_of_side(side).index(seat_of[ref])
            changes[ref] = (after[side][member], WON if side in result.winners else LOST)
    for ref, (skill, outcome) in sorted(changes.items()):
        before = kept[ref]
        uow.ratings.save(
            portal_id,
            RatingRecord(ref, family, skill.mu, skill.sigma, skill.ordinal, before.matches + 1),
            now,
        )
        uow.ratings.add_change(
            portal_id,
            RatingChange(ref, family, match_id, now, outcome, before.mu, before.sigma, skill.mu, skill.sigma),
        )


def players_of(seats: Sequence[SeatRecord], state: MatchState, replaced: Sequence[int]) -> dict[int, str]:
    """The seats rated as their players (seat -> player_ref): each a seat the portal named that a
    client holds (its token), not one a bot took over before ``replaced`` (this append's
    hand-overs, still their players' for the forfeit). Computer players' seats are rated at
    their level's fixed rating, whatever their player_ref, and never updated."""
    owners: dict[int, str] = {}
    for seat in sorted(seats, key=lambda s: s.seat):
        if seat.player_ref is None or seat.token_hash is None or seat.player_ref in owners.values():
            continue  # no player, a computer's seat, or a player already rated by its first seat
        if state.seats[seat.seat].get("type") == BOT_SEAT and seat.seat not in replaced:
            continue  # handed to a bot earlier: its forfeit was rated then
        owners[seat.seat] = seat.player_ref
    return owners


def bot_skill(family: str, level: str | None) -> Skill:
    found = bot_rating(family, level or bots.DEFAULT_LEVEL)
    return Skill(found.mu, found.sigma)
