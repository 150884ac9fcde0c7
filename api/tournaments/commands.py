"""Commands: each decides, from a state, the events it makes, or refuses with a precise error.

Nothing here changes a state: the caller folds the events (:func:`api.tournaments.state.apply`)
and stores them. Pure: no clock, no randomness, no I/O; the ids of the matches a round is played
in are the caller's (:func:`with_match_ids`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime, timedelta

from . import berger
from .arena import ArenaContender, pair_arena
from .errors import (
    AlreadyRegistered,
    InvalidTournament,
    PairingImpossible,
    RegistrationClosed,
    RoundInPlay,
    TooFewEntrants,
    TournamentAlreadyStarted,
    TournamentFull,
    TournamentIsNotPaused,
    TournamentIsPaused,
    TournamentNotRunning,
    TournamentOver,
    UnknownEntrant,
    UnknownTable,
)
from .events import (
    ARENA,
    FORMATS,
    MEMBER_KINDS,
    PLAYER,
    ROUND_ROBIN,
    SWISS,
    TIEBREAKS,
    ArenaClosed,
    Entrant,
    EntrantRegistered,
    EntrantWithdrawn,
    MatchResult,
    Member,
    RoundEnded,
    RoundPaired,
    Settings,
    Table,
    TournamentCancelled,
    TournamentCreated,
    TournamentEnded,
    TournamentEvent,
    TournamentPaused,
    TournamentResumed,
    TournamentStarted,
)
from .standings import BYE, games
from .state import REGISTERING, RUNNING, TournamentState, apply
from .swiss import Contender, pair_swiss

MAX_ROUNDS = 30
MAX_ENTRANTS = 4096
SIDE_SIZES = (1, 2)
WITHDRAWN_BY = ("entrant", "portal")
MAX_ARENA_MINUTES = 24 * 60
CLOSED_BY = ("clock", "portal")


def create(tournament_id: str, settings: Settings) -> list[TournamentEvent]:
    """A new tournament, its settings checked."""
    if settings.format not in FORMATS:
        raise InvalidTournament("format", f"one of {', '.join(FORMATS)}")
    if settings.side_size not in SIDE_SIZES:
        raise InvalidTournament("side_size", "1 (players alone) or 2 (partner teams)")
    if settings.format == SWISS and (settings.rounds is None or not 1 <= settings.rounds <= MAX_ROUNDS):
        raise InvalidTournament("rounds", f"a Swiss names its rounds, 1 to {MAX_ROUNDS}")
    if settings.format == ROUND_ROBIN and settings.rounds is not None:
        raise InvalidTournament("rounds", "a round robin's rounds follow from its entrants: leave it out")
    if settings.format == ARENA:
        if settings.rounds is not None:
            raise InvalidTournament("rounds", "an arena pairs until its time is over: name duration_minutes")
        minutes = settings.duration_minutes
        if minutes is None or not 1 <= minutes <= MAX_ARENA_MINUTES:
            raise InvalidTournament("duration_minutes", f"an arena lasts 1 to {MAX_ARENA_MINUTES} minutes")
        if settings.duplicate:
            raise InvalidTournament("duplicate", "an arena's tables do not play in rounds: duplicate deals need rounds")
    elif settings.duration_minutes is not None:
        raise InvalidTournament("duration_minutes", "only an arena has a duration")
    if not settings.tiebreaks or len(set(settings.tiebreaks)) != len(settings.tiebreaks):
        raise InvalidTournament("tiebreaks", "at least one, each once")
    unknown = [name for name in settings.tiebreaks if name not in TIEBREAKS]
    if unknown:
        raise InvalidTournament("tiebreaks", f"{unknown[0]!r} is none of {', '.join(TIEBREAKS)}")
    if settings.turn_seconds < 1:
        raise InvalidTournament("turn_seconds", "a tournament's matches have a turn clock")
    if settings.max_entrants is not None and not 2 <= settings.max_entrants <= MAX_ENTRANTS:
        raise InvalidTournament("max_entrants", f"2 to {MAX_ENTRANTS}")
    low, high = settings.rating_min, settings.rating_max
    if low is not None and high is not None and low > high:
        raise InvalidTournament("rating_max", "at least rating_min")
    return [TournamentCreated(tournament_id, settings)]


def _open(state: TournamentState) -> None:
    if state.is_over:
        raise TournamentOver(f"tournament {state.id} is {state.status}")


def _running(state: TournamentState) -> None:
    _open(state)
    if state.status != RUNNING:
        raise TournamentNotRunning(f"tournament {state.id} has not started")


def register(
    state: TournamentState, name: str, members: Sequence[Member], rating: float | None = None
) -> list[TournamentEvent]:
    """Enter a player alone, or a partner team; its id is the next ``e<n>``."""
    _open(state)
    if state.status != REGISTERING:
        raise RegistrationClosed(f"tournament {state.id} has started")
    if len(members) != state.settings.side_size:
        raise InvalidTournament("members", f"an entrant of this tournament is {state.settings.side_size} seat(s)")
    for member in members:
        if member.kind not in MEMBER_KINDS or (member.kind == PLAYER) != (member.player_ref is not None):
            raise InvalidTournament("members", "a player names its player_ref, a bot its level")
    refs = [m.player_ref for m in members if m.player_ref is not None]
    if len(set(refs)) != len(refs):
        raise AlreadyRegistered("a team holds two different players")
    for ref in refs:
        known = state.entrant_of_player(ref)
        if known is not None and known.id not in state.withdrawn:
            raise AlreadyRegistered(f"player {ref!r} is entered as {known.id}")
    limit = state.settings.max_entrants
    if limit is not None and len(state.active) >= limit:
        raise TournamentFull(f"tournament {state.id} has its {limit} entrants")
    entrant = Entrant(f"e{len(state.entrants) + 1}", name, tuple(members), rating)
    return [EntrantRegistered(entrant)]


def _closing(state: TournamentState, numbers: Sequence[int]) -> list[TournamentEvent]:
    """What follows once a round's last table is decided: its end, and after the last round
    (or with fewer than two entrants left; an arena's: once closed, or with fewer than two
    left, and nothing in play) the tournament's."""
    events: list[TournamentEvent] = []
    for number in sorted(set(numbers)):
        played = state.round_numbered(number)
        if played is not None and not played.ended and not played.pending():
            events.append(RoundEnded(number))
    after = state
    for event in events:
        after = apply(after, event)
    if after.status == RUNNING and _finished(after):
        events.append(TournamentEnded(len(after.rounds)))
    return events


def _finished(state: TournamentState) -> bool:
    """Whether a running tournament has nothing more to play (no round in play, nothing to pair)."""
    if state.round_in_play():
        return False
    if state.is_arena:
        return state.closed or len(state.active) < 2
    return state.rounds_left() <= 0 or len(state.active) < 2


def _decided(state: TournamentState, events: list[TournamentEvent]) -> list[TournamentEvent]:
    """``events`` and whatever closes the rounds they decide."""
    after = state
    for event in events:
        after = apply(after, event)
    touched = [e.round for e in events if isinstance(e, MatchResult)]
    if state.current is not None and not touched:
        touched = [state.current.number]  # a withdrawal without a table to forfeit: only the end
    return events + _closing(after, touched)


def _forfeit(round_: int, table: Table, absent: set[str]) -> MatchResult:
    """The result of a table one or both of whose sides are absent."""
    first, second = (side in absent for side in table.sides)
    winner = None if first and second else (1 if first else 0)
    return MatchResult(round_, table.number, winner, (0, 0), forfeit=True)


def withdraw(state: TournamentState, entrant_id: str, by: str) -> list[TournamentEvent]:
    """Take an entrant out: before the start it simply leaves; after it, its table in the round
    in play (if undecided) is forfeited and it is paired no more."""
    _open(state)
    if by not in WITHDRAWN_BY:
        raise InvalidTournament("by", f"one of {', '.join(WITHDRAWN_BY)}")
    if entrant_id not in state.entrants or entrant_id in state.withdrawn:
        raise UnknownEntrant(f"no active entrant {entrant_id!r} in tournament {state.id}")
    events: list[TournamentEvent] = [EntrantWithdrawn(entrant_id, by)]
    for played in state.rounds:
        for table in played.tables_of(entrant_id) if not played.ended else ():
            if table.number not in played.results:
                events.append(_forfeit(played.number, table, {entrant_id}))
    return _decided(state, events)


def seeding(state: TournamentState) -> tuple[str, ...]:
    """The active entrants by rating (highest first, unrated last), then registration."""
    registered = {entrant: position for position, entrant in enumerate(state.entrants)}
    return tuple(
        sorted(
            state.active,
            key=lambda e: (state.entrants[e].rating is None, -(state.entrants[e].rating or 0), registered[e]),
        )
    )


def start(state: TournamentState, now: datetime | None = None) -> list[TournamentEvent]:
    """Close registration and fix the rounds and the seeding order (an arena's end of pairing:
    ``now``, the caller's clock, plus its duration)."""
    _open(state)
    if state.status != REGISTERING:
        raise TournamentAlreadyStarted(f"tournament {state.id} has started")
    field = len(state.active)
    if field < 2:
        raise TooFewEntrants(f"tournament {state.id} has {field} entrant(s); it needs 2")
    rounds = state.settings.rounds
    if state.settings.format == SWISS:
        assert rounds is not None  # checked at creation
        if rounds >= field:
            raise TooFewEntrants(f"a Swiss of {rounds} rounds needs more than {rounds} entrants, not {field}")
    elif state.settings.format == ARENA:
        minutes = state.settings.duration_minutes
        if now is None or minutes is None:
            raise InvalidTournament("starts_at", "an arena starts at a time the caller gives")
        return [TournamentStarted(0, seeding(state), (now + timedelta(minutes=minutes)).isoformat())]
    else:
        rounds = berger.rounds_for(field)
    return [TournamentStarted(rounds, seeding(state))]


def is_due_for_pairing(state: TournamentState) -> bool:
    """Whether the next round should be paired now (an arena's: two entrants are free)."""
    if state.status != RUNNING or state.paused:
        return False
    if state.is_arena:
        return not state.closed and len(state.free()) >= 2
    return not state.round_in_play() and state.rounds_left() > 0


def is_due_to_close(state: TournamentState, now: datetime) -> bool:
    """Whether an arena's time is over at ``now`` (the caller's clock) and it still pairs."""
    return (
        state.is_arena
        and state.status == RUNNING
        and not state.closed
        and state.ends_at is not None
        and datetime.fromisoformat(state.ends_at) <= now
    )


def close_arena(state: TournamentState, by: str) -> list[TournamentEvent]:
    """An arena pairs no more (its time is over, or its portal says); it ends at once when no
    match is in play, else with the last one's result."""
    _running(state)
    if not state.is_arena:
        raise InvalidTournament("format", "only an arena is closed: a Swiss or round robin ends after its rounds")
    if by not in CLOSED_BY:
        raise InvalidTournament("by", f"one of {', '.join(CLOSED_BY)}")
    if state.closed:
        raise TournamentOver(f"arena {state.id} is closed already")
    events: list[TournamentEvent] = [ArenaClosed(by)]
    if not state.round_in_play():
        events.append(TournamentEnded(len(state.rounds)))
    return events


def arena_contenders(state: TournamentState) -> list[ArenaContender]:
    """What arena pairing reads of each free entrant."""
    seed = {entrant: position for position, entrant in enumerate(state.order)}
    free = state.free()
    played = games(state, free)
    return [
        ArenaContender(
            id=entrant,
            points=sum(g.match_points for g in played[entrant]),
            seed=seed.get(entrant, len(seed)),
            last_opponent=next((g.opponent for g in reversed(played[entrant]) if g.opponent is not None), None),
            firsts=sum(1 for g in played[entrant] if g.side == 0),
        )
        for entrant in free
    ]


def contenders(state: TournamentState) -> list[Contender]:
    """What Swiss pairing reads of each active entrant."""
    seed = {entrant: position for position, entrant in enumerate(state.order)}
    found = []
    for entrant, played in games(state).items():
        if entrant in state.withdrawn:
            continue
        found.append(
            Contender(
                id=entrant,
                match_points=sum(g.match_points for g in played),
                seed=seed.get(entrant, len(seed)),
                opponents=frozenset(g.opponent for g in played if g.opponent is not None),
                had_bye=any(g.outcome == BYE for g in played),
                firsts=sum(1 for g in played if g.side == 0),
            )
        )
    return found


def pair_round(state: TournamentState) -> list[TournamentEvent]:
    """The next round's tables (their ``match_id`` still None: see :func:`with_match_ids`),
    with the results of the tables an absent entrant forfeits; or the tournament's end when
    fewer than two entrants are left."""
    _running(state)
    if state.paused:
        raise TournamentIsPaused(f"tournament {state.id} is paused")
    number = len(state.rounds) + 1
    if state.is_arena:
        if state.closed:
            raise TournamentOver(f"arena {state.id} pairs no more")
        if len(state.free()) < 2:
            raise PairingImpossible("fewer than two free entrants")
        tables = tuple(Table(n, sides) for n, sides in enumerate(pair_arena(arena_contenders(state)), start=1))
        seated = {side for table in tables for side in table.sides}
        return [RoundPaired(number, tables, None, tuple(e for e in state.free() if e not in seated))]
    if state.round_in_play():
        raise RoundInPlay(f"round {len(state.rounds)} of tournament {state.id} is in play")
    if _finished(state):
        return [TournamentEnded(len(state.rounds))]
    if state.settings.format == SWISS:
        pairing = pair_swiss(contenders(state))
        return [RoundPaired(number, _tables(state, pairing.tables), pairing.bye)]
    order = state.order
    bye = None
    pairs = []
    for first, second in berger.berger_round(len(order), number):
        if max(first, second) > len(order):
            bye = order[min(first, second) - 1]
        else:
            pairs.append((order[first - 1], order[second - 1]))
    tables = _tables(state, pairs)
    absent = set(state.withdrawn)
    forfeits: list[TournamentEvent] = [
        _forfeit(number, table, absent) for table in tables if absent.intersection(table.sides)
    ]
    return _decided(state, [RoundPaired(number, tables, bye if bye not in absent else None), *forfeits])


def _tables(state: TournamentState, pairs: Sequence[tuple[str, str]]) -> tuple[Table, ...]:
    """A round's tables for its pairs, numbered from 1; with duplicate deals each pair plays two
    tables, the second with the seats swapped (pair k at tables 2k - 1 and 2k)."""
    if state.settings.duplicate:
        pairs = [legs for first, second in pairs for legs in ((first, second), (second, first))]
    return tuple(Table(n, sides) for n, sides in enumerate(pairs, start=1))


def with_deals(event: RoundPaired, seed_commitment: str) -> RoundPaired:
    """The paired duplicate round with the commitment to the one seed its matches are dealt from
    (the caller's: the core draws no randomness)."""
    return replace(event, seed_commitment=seed_commitment)


def with_match_ids(event: RoundPaired, match_ids: Mapping[int, str]) -> RoundPaired:
    """The paired round with each played table's match (by table number)."""
    return replace(event, tables=tuple(replace(t, match_id=match_ids.get(t.number, t.match_id)) for t in event.tables))


def record_result(
    state: TournamentState, round_: int, table: int, winner: int | None, scores: tuple[int, int], forfeit: bool = False
) -> list[TournamentEvent]:
    """A table's result, and what it closes."""
    _running(state)
    played = state.round_numbered(round_)
    if played is None or played.ended:
        raise UnknownTable(f"round {round_} of tournament {state.id} is not in play")
    if played.table(table) is None or table in played.results:
        raise UnknownTable(f"table {table} of round {round_} is no undecided table")
    if winner not in (None, 0, 1):
        raise InvalidTournament("winner", "side 0, side 1, or none")
    return _decided(state, [MatchResult(round_, table, winner, scores, forfeit)])


def pause(state: TournamentState) -> list[TournamentEvent]:
    _running(state)
    if state.paused:
        raise TournamentIsPaused(f"tournament {state.id} is already paused")
    return [TournamentPaused()]


def resume(state: TournamentState) -> list[TournamentEvent]:
    _running(state)
    if not state.paused:
        raise TournamentIsNotPaused(f"tournament {state.id} is not paused")
    return [TournamentResumed()]


def cancel(state: TournamentState, reason: str) -> list[TournamentEvent]:
    _open(state)
    return [TournamentCancelled(reason)]
