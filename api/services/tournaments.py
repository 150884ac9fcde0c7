"""Tournaments' use cases: create, enter and withdraw, start, pause, resume, cancel, read; and the
sweep that starts tournaments at their time and pairs each round once the one before has ended.

A tournament is its portal's (a portal key creates and runs it; its players read and enter it
with their player tokens). Every change is an event of the tournament's own hash-chained log
(:mod:`.tournament_log`), decided by the pure core (``api.tournaments``). A round's matches are
made by the match-creation use case (:func:`.creating.prepare_match`, :func:`.creating.insert_match`)
with the turn clock mandatory, in the transaction that appends the round's pairing; their results
come back through :mod:`.tournament_results` as each match ends.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from api import bots
from api import tournaments as core
from api.rules import BOT_SEAT, REMOTE_SEAT, resolve_requested_rules, seed_commitment
from api.store.records import MatchRecord
from api.store.tournaments import TournamentMatchRecord, TournamentRecord

from . import errors, tournament_log
from .commands import (
    SEAT_NAME_MAX,
    Answer,
    Caller,
    ChangeTournament,
    CreateMatch,
    CreateTournament,
    GetCrosstable,
    GetStandings,
    GetTournament,
    GetTournamentEvents,
    GetTournamentFairness,
    GetTournamentRounds,
    MemberSpec,
    RegisterEntrant,
    SeatSpec,
    Seeker,
    SweepTournaments,
    WithdrawEntrant,
)
from .creating import NewMatch, insert_match, prepare_match, shown
from .flow import MatchFlow
from .ports import UnitOfWork
from .ratings import newcomer_record
from .tournament_results import record_tournament_result

log = logging.getLogger(__name__)

#: Tournaments the sweep moves on per round (it runs every second).
SWEEP_BATCH = 20
#: Events per page of a tournament's log at most.
MAX_EVENTS_PAGE = 1000
#: Rows per page of the standings at most.
MAX_STANDINGS_PAGE = 500
CHANGES = ("start", "pause", "resume", "close", "cancel")


def portal_of(who: Seeker | Caller) -> str:
    portal_id = who.portal_id
    if portal_id is None:
        raise errors.PortalKeyRequired("tournaments are a portal's: send its key (X-API-Key) or a player token")
    return portal_id


# --- creating ------------------------------------------------------------------------------------
def create_tournament_handler(command: CreateTournament, flow: MatchFlow) -> Answer:
    portal_id = portal_of(command.caller)
    side_size = 2 if command.teams else 1
    # The rules every match will be played under, its turn clock included (InvalidRules: 422 now, not at a pairing).
    clock = {"turn_seconds": command.turn_seconds, "timeout_limit": flow.limits.rated_timeout_limit}
    rules = resolve_requested_rules(command.preset, {**(command.rules or {}), **clock}, 2 * side_size)
    if command.teams != rules.partners:
        raise core.InvalidTournament(
            "teams", "partner teams play a 4-seat partner game, and a partner game is played by teams"
        )
    for level in command.bot_levels:
        if level not in bots.LEVELS:
            raise core.InvalidTournament("bot_levels", f"{level!r} is none of {', '.join(bots.LEVELS)}")
    settings = core.Settings(
        format=command.format,
        preset=command.preset,
        side_size=side_size,
        rounds=command.rounds,
        tiebreaks=command.tiebreaks,
        turn_seconds=command.turn_seconds,
        rules=dict(command.rules or {}),
        rated=command.rated,
        starts_at=command.starts_at.isoformat() if command.starts_at else None,
        max_entrants=command.max_entrants,
        rating_min=command.rating_min,
        rating_max=command.rating_max,
        bot_levels=command.bot_levels,
        duration_minutes=command.duration_minutes,
        duplicate=command.duplicate,
        name=command.name,
    )
    tournament_id = secrets.token_hex(16)
    events = core.create(tournament_id, settings)  # InvalidTournament: 422
    now = flow.now()
    with flow.store.unit_of_work() as uow:
        record = uow.tournaments.add(tournament_id, portal_id, now)
        state = core.replay(events)
        due = tournament_log.due_at(state, now)
        uow.tournaments.append(record.id, record.head, [e.to_dict() for e in events], status=state.status, due_at=due)
        uow.commit()
    return get_tournament_handler(GetTournament(tournament_id, Seeker(portal_id)), flow)


# --- entering and leaving --------------------------------------------------------------------------
def register_handler(command: RegisterEntrant, flow: MatchFlow) -> Answer:
    portal_id = portal_of(command.who)
    me = command.who.player_ref
    if command.members and me is not None:
        raise errors.EntryRefused("a player enters itself; the portal enters others and teams", reason="members")
    specs = command.members or ((MemberSpec(player_ref=me),) if me is not None else ())
    if not specs:
        raise errors.EntryRefused("name the entrant's members (the portal enters others)", reason="members")
    now = flow.now()
    with flow.store.unit_of_work() as uow:
        record, state = tournament_log.load(uow, command.tournament_id, portal_id, for_update=True)
        members, rating = admitted(uow, portal_id, state.settings, specs)
        name = (command.name or " & ".join(m.player_ref or f"{m.level} bot" for m in members))[:SEAT_NAME_MAX]
        events = core.register(state, name, members, rating)
        state, _ = tournament_log.append(uow, record, state, events, now)  # no player hears of an entry
        uow.commit()
    registered = events[0]
    assert isinstance(registered, core.EntrantRegistered)
    return entrant_answer(registered.entrant, state)


def admitted(
    uow: UnitOfWork, portal_id: str, settings: core.Settings, specs: Sequence[MemberSpec]
) -> tuple[list[core.Member], float | None]:
    """The members the entry rules let in, and the entrant's seeding rating (its players' mean
    rating in the game's family, a newcomer's where none is kept; None for bots alone)."""
    members = []
    for spec in specs:
        if (spec.player_ref is None) == (spec.level is None):
            raise errors.EntryRefused("each member is a player_ref or a bot level", reason="members")
        if spec.level is not None and spec.level not in settings.bot_levels:
            raise errors.EntryRefused(f"this tournament admits no {spec.level} bots", reason="bot_level")
        kind = core.PLAYER if spec.player_ref is not None else core.BOT
        members.append(core.Member(kind, spec.player_ref, spec.level))
    refs = [m.player_ref for m in members if m.player_ref is not None]
    if not refs:
        return members, None
    family = str(resolve_requested_rules(settings.preset, settings.rules, 2 * settings.side_size).family)
    kept = uow.ratings.current(portal_id, family, refs)
    ratings = [kept.get(ref, newcomer_record(ref, family)).ordinal for ref in refs]
    for ref, rating in zip(refs, ratings):
        low, high = settings.rating_min, settings.rating_max
        if (low is not None and rating < low) or (high is not None and rating > high):
            raise errors.EntryRefused(f"{ref}'s rating {rating:.1f} is outside the entry range", reason="rating")
    return members, sum(ratings) / len(ratings)


def withdraw_handler(command: WithdrawEntrant, flow: MatchFlow) -> Answer:
    portal_id = portal_of(command.who)
    me = command.who.player_ref
    now = flow.now()
    with flow.store.unit_of_work() as uow:
        record, state = tournament_log.load(uow, command.tournament_id, portal_id, for_update=True)
        if me is not None:
            mine = state.entrant_of_player(me)
            if mine is None or (command.entrant_id is not None and command.entrant_id != mine.id):
                raise errors.NotYourEntrant(f"{me} withdraws its own entry only")
            entrant_id, by = mine.id, "entrant"
        else:
            if command.entrant_id is None:
                raise core.UnknownEntrant("name the entrant to withdraw")
            entrant_id, by = command.entrant_id, "portal"
        state, notes = tournament_log.append(uow, record, state, core.withdraw(state, entrant_id, by), now)
        uow.commit()
    announce(flow, notes)
    return entrant_answer(state.entrants[entrant_id], state)


# --- the portal's word -------------------------------------------------------------------------------
def change_handler(command: ChangeTournament, flow: MatchFlow) -> Answer:
    portal_id = portal_of(command.caller)
    now = flow.now()
    with flow.store.unit_of_work() as uow:
        record, state = tournament_log.load(uow, command.tournament_id, portal_id, for_update=True)
        if command.change == "start":
            events = core.start(state, now)
        elif command.change == "pause":
            events = core.pause(state)
        elif command.change == "resume":
            events = core.resume(state)
        elif command.change == "close":
            events = core.close_arena(state, "portal")
        else:
            events = core.cancel(state, command.reason)
        _, notes = tournament_log.append(uow, record, state, events, now)
        uow.commit()
    announce(flow, notes)
    pair_due(flow, command.tournament_id)  # a start or a resume pairs the next round at once
    return get_tournament_handler(GetTournament(command.tournament_id, Seeker(portal_id)), flow)


# --- rounds ------------------------------------------------------------------------------------------
def seat_specs(state: core.TournamentState, table: core.Table) -> tuple[tuple[SeatSpec, ...], list[dict[str, Any]]]:
    """The match's seats for a table: side 0's members at seats 0 (and 2), side 1's at 1 (and 3);
    and what ``tournament_matches.seats`` keeps of each."""
    size = state.settings.side_size
    placed: dict[int, tuple[int, core.Entrant, core.Member]] = {}
    for side, entrant_id in enumerate(table.sides):
        entrant = state.entrants[entrant_id]
        for index, member in enumerate(entrant.members):
            placed[2 * index + side] = (side, entrant, member)
    specs, kept = [], []
    for seat in range(2 * size):
        side, entrant, member = placed[seat]
        if member.kind == core.PLAYER:
            specs.append(
                SeatSpec(name=(member.player_ref or "")[:SEAT_NAME_MAX], type=REMOTE_SEAT, player_ref=member.player_ref)
            )
        else:
            specs.append(SeatSpec(name=entrant.name[:SEAT_NAME_MAX], type=BOT_SEAT, level=member.level))
        kept.append(
            {"seat": seat, "side": side, "entrant_id": entrant.id, "player_ref": member.player_ref, "token": None}
        )
    return tuple(specs), kept


def pair_due(flow: MatchFlow, tournament_id: str) -> bool:
    """Pair the tournament's next round if it is due: its matches made and the pairing appended
    in one transaction (answers whether it was). The matches are prepared before it."""
    with flow.store.unit_of_work(readonly=True) as uow:
        record, state = tournament_log.load(uow, tournament_id, None, any_portal=True)
    if not core.is_due_for_pairing(state):
        return False
    events = core.pair_round(state)
    paired = events[0]
    prepared: dict[int, tuple[NewMatch, list[dict[str, Any]]]] = {}
    # A duplicate round's matches are all dealt from one seed (each match's deals depend only on
    # its seed and the hand's number: openapi/shuffle.md), committed to in the round's pairing.
    round_seed = secrets.token_hex(32) if state.settings.duplicate else None
    if isinstance(paired, core.RoundPaired):
        decided = {e.table for e in events[1:] if isinstance(e, core.MatchResult)}
        settings = state.settings
        overrides = {
            **settings.rules,
            "turn_seconds": settings.turn_seconds,
            "timeout_limit": flow.limits.rated_timeout_limit,
        }
        for table in paired.tables:
            if table.number in decided:
                continue
            specs, kept = seat_specs(state, table)
            # Rated where a player sits: a table of bots alone has no rating to move.
            rated = settings.rated and any(spec.player_ref is not None for spec in specs)
            create = CreateMatch(
                settings.preset,
                overrides,
                specs,
                caller=Caller(record.portal_id),
                rated=rated,
                capped=False,
                server_seed=round_seed,
            )
            prepared[table.number] = (prepare_match(create, flow), kept)
    now = flow.now()
    made: list[tuple[NewMatch, MatchRecord, datetime | None]] = []
    with flow.store.unit_of_work() as uow:
        locked = uow.tournaments.get(tournament_id, for_update=True)
        if locked is None:
            return False
        if locked.head != record.head:
            # Another process moved it on first: a Swiss's round is paired by one of them. An
            # arena's results keep coming while its free entrants are paired: the pairing still
            # stands if every entrant in it is still free (the log refuses it otherwise).
            if not state.is_arena:
                return False
            state = tournament_log.fold(uow, locked)
            if state.paused:
                return False
            try:
                core.apply(state, paired)
            except core.ImpossibleTournamentEvent:
                return False
        match_ids: dict[int, str] = {}
        started: list[tournament_log.PlayerEvent] = []
        for number, (new, kept) in prepared.items():
            match, deadline = insert_match(uow, new, flow)
            made.append((new, match, deadline))
            match_ids[number] = match.id
            for seat in kept:
                seat["token"] = new.issued.get(seat["seat"])
            uow.tournaments.add_match(
                {
                    "match_id": match.id,
                    "tournament_id": tournament_id,
                    "round": len(state.rounds) + 1,
                    "table_number": number,
                    "seats": kept,
                }
            )
            started += [
                (seat["player_ref"], "match_started", {"match_id": match.id, "seat": seat["seat"]})
                for seat in kept
                if seat["player_ref"] is not None
            ]
        if isinstance(paired, core.RoundPaired):
            dealt = core.with_match_ids(paired, match_ids)
            events[0] = core.with_deals(dealt, seed_commitment(round_seed)) if round_seed is not None else dealt
        _, notes = tournament_log.append(uow, locked, state, events, now, also_heard=started)
        for new, match, _ in made:
            # A match can end as it is dealt (a first hand blocked at its first play, to the
            # target): its end was appended before its table was the tournament's, so its result
            # is recorded here, once the round it is played in is.
            record_tournament_result(uow, match.id, new.appended, now)
        uow.commit()
    for one in made:
        shown(*one, flow)
    announce(flow, notes)
    return True


def announce(flow: MatchFlow, notes: Sequence[tournament_log.Note]) -> None:
    """After the commit: wake whoever waits on these players' streams."""
    for key, seq in notes:
        flow.waiter.announce(key, seq)


def sweep_handler(command: SweepTournaments, flow: MatchFlow) -> int:
    """Start the tournaments whose time has come, close the arenas whose time is over, and pair
    the rounds that are due (an arena's free entrants: the autoplay runner calls this every
    second, so a free entrant waits a second at most); answers how many moved on."""
    now = flow.now()
    with flow.store.unit_of_work(readonly=True) as uow:
        due = uow.tournaments.due(now, SWEEP_BATCH)
    moved = 0
    for tournament_id in due:
        try:
            moved += (
                start_on_time(flow, tournament_id)
                or close_on_time(flow, tournament_id)
                or pair_due(flow, tournament_id)
            )
            with flow.store.unit_of_work() as uow:  # nothing left to do now: off the sweep's list, or later
                record, state = tournament_log.load(uow, tournament_id, None, any_portal=True)
                later = tournament_log.due_at(state, now)
                if record.due_at is not None and record.due_at <= now and (later is None or later > now):
                    uow.tournaments.set_due(tournament_id, later)
                    uow.commit()
        except Exception:  # one tournament that cannot move on must not hold up the others
            log.exception("tournament %s not moved on; retried by the next sweep", tournament_id)
    return moved


def start_on_time(flow: MatchFlow, tournament_id: str) -> bool:
    """A tournament at its start time starts (or, with too few entrants, is cancelled)."""
    now = flow.now()
    with flow.store.unit_of_work() as uow:
        record, state = tournament_log.load(uow, tournament_id, None, for_update=True, any_portal=True)
        starts = state.settings.starts_at
        if state.status != core.REGISTERING or starts is None or datetime.fromisoformat(starts) > now:
            return False
        try:
            events = core.start(state, now)
        except core.TooFewEntrants as refused:
            events = core.cancel(state, f"not started at its time: {refused.message}")
        _, notes = tournament_log.append(uow, record, state, events, now)
        uow.commit()
    announce(flow, notes)
    pair_due(flow, tournament_id)
    return True


def close_on_time(flow: MatchFlow, tournament_id: str) -> bool:
    """An arena at its end of pairing closes: no new pairing; the matches in play finish and
    count (it ends with the last of them, or now when none is in play)."""
    now = flow.now()
    with flow.store.unit_of_work() as uow:
        record, state = tournament_log.load(uow, tournament_id, None, for_update=True, any_portal=True)
        if not core.is_due_to_close(state, now):
            return False
        _, notes = tournament_log.append(uow, record, state, core.close_arena(state, "clock"), now)
        uow.commit()
    announce(flow, notes)
    return True


# --- reading -----------------------------------------------------------------------------------------
def readable(uow: UnitOfWork, tournament_id: str, viewer: Seeker) -> tuple[TournamentRecord, core.TournamentState]:
    return tournament_log.load(uow, tournament_id, portal_of(viewer))


def entrant_answer(entrant: core.Entrant, state: core.TournamentState) -> Answer:
    return {**entrant.to_json(), "withdrawn": entrant.id in state.withdrawn}


def standing_answer(row: core.Standing, state: core.TournamentState) -> Answer:
    return {
        "rank": row.rank,
        "entrant_id": row.entrant_id,
        "name": state.entrants[row.entrant_id].name,
        "match_points": row.match_points,
        "played": row.played,
        "wins": row.wins,
        "draws": row.draws,
        "losses": row.losses,
        "byes": row.byes,
        "points_for": row.points_for,
        "points_against": row.points_against,
        "tiebreaks": [{"name": name, "value": value} for name, value in row.tiebreaks.items()],
        "withdrawn": row.withdrawn,
        "streak": row.streak,
    }


def get_tournament_handler(command: GetTournament, flow: MatchFlow) -> Answer:
    with flow.store.unit_of_work(readonly=True) as uow:
        record, state = readable(uow, command.tournament_id, command.viewer)
    current = state.current
    return {
        "id": record.id,
        "status": state.status,
        "paused": state.paused,
        "cancel_reason": state.cancel_reason,
        "settings": state.settings.to_json(),
        "planned_rounds": state.planned_rounds,
        "ends_at": state.ends_at,
        "closed": state.closed,
        "current_round": current.number if current else None,
        "rounds_ended": sum(1 for r in state.rounds if r.ended),
        "entrants": [entrant_answer(e, state) for e in state.entrants.values()],
        "standings": [standing_answer(row, state) for row in core.standings(state)],
        "seq": record.last_seq,
        "chain_head": record.head.to_dict(),
        "created_at": record.created_at.isoformat(),
    }


def standings_handler(command: GetStandings, flow: MatchFlow) -> Answer:
    limit = max(1, min(command.limit, MAX_STANDINGS_PAGE))
    with flow.store.unit_of_work(readonly=True) as uow:
        record, state = readable(uow, command.tournament_id, command.viewer)
    rows = core.standings(state)
    page = rows[command.offset : command.offset + limit]
    end = command.offset + len(page)
    return {
        "tournament_id": record.id,
        "seq": record.last_seq,
        "standings": [standing_answer(row, state) for row in page],
        "next_offset": end if end < len(rows) else None,
    }


def result_answer(result: core.MatchResult | None) -> Answer | None:
    if result is None:
        return None
    return {"winner": result.winner, "scores": list(result.scores), "forfeit": result.forfeit}


def rounds_handler(command: GetTournamentRounds, flow: MatchFlow) -> Answer:
    with flow.store.unit_of_work(readonly=True) as uow:
        record, state = readable(uow, command.tournament_id, command.viewer)
        played = uow.tournaments.matches(record.id) if command.viewer.player_ref is not None else []
    return {
        "tournament_id": record.id,
        "seq": record.last_seq,
        "rounds": [
            {
                "number": r.number,
                "ended": r.ended,
                "bye": r.bye,
                "seed_commitment": r.seed_commitment,
                "tables": [
                    {
                        "number": t.number,
                        "sides": list(t.sides),
                        "match_id": t.match_id,
                        "result": result_answer(r.results.get(t.number)),
                    }
                    for t in r.tables
                ],
            }
            for r in state.rounds
        ],
        "my_seats": my_seats(played, command.viewer.player_ref),
    }


def my_seats(played: list[TournamentMatchRecord], me: str | None) -> list[Answer]:
    """The viewing player's seats, with their tokens (shown to that player alone)."""
    return [
        {"round": m.round, "table": m.table_number, "match_id": m.match_id, "seat": s["seat"], "token": s["token"]}
        for m in played
        for s in m.seats
        if me is not None and s["player_ref"] == me
    ]


def crosstable_handler(command: GetCrosstable, flow: MatchFlow) -> Answer:
    with flow.store.unit_of_work(readonly=True) as uow:
        record, state = readable(uow, command.tournament_id, command.viewer)
    by_entrant = core.games(state)
    return {
        "tournament_id": record.id,
        "seq": record.last_seq,
        "rows": [
            {
                "entrant_id": row.entrant_id,
                "rank": row.rank,
                "games": [
                    {
                        "round": g.round,
                        "table": g.table,
                        "opponent": g.opponent,
                        "side": g.side,
                        "outcome": g.outcome,
                        "scores": list(g.scores),
                        "match_points": g.match_points,
                        "forfeit": g.forfeit,
                    }
                    for g in by_entrant[row.entrant_id]
                ],
            }
            for row in core.standings(state)
        ],
    }


def fairness_handler(command: GetTournamentFairness, flow: MatchFlow) -> Answer:
    """Each duplicate round's commitment, its matches' own commitments and, once the round has
    ended (or the tournament is over), the seed they reveal, with what keeps them from provably
    sharing their deals (``api.tournaments.duplicate``). Each match's ``/fairness`` proves its
    deals come from its seed."""
    with flow.store.unit_of_work(readonly=True) as uow:
        record, state = readable(uow, command.tournament_id, command.viewer)
        played = {t.match_id: flow.record(uow, t.match_id) for r in state.rounds for t in r.tables if t.match_id}
    rounds = []
    for r in state.rounds:
        if r.seed_commitment is None:
            continue
        revealed = r.ended or state.is_over
        matches = {
            t.match_id: (played[t.match_id].seed_commitment, played[t.match_id].seed if revealed else None)
            for t in r.tables
            if t.match_id is not None
        }
        problems = core.round_deals_problems(r.seed_commitment, matches) if revealed else []
        rounds.append(
            {
                "round": r.number,
                "seed_commitment": r.seed_commitment,
                "seed": next((seed for _, seed in matches.values() if seed is not None), None),
                "matches": [{"match_id": m, "seed_commitment": c} for m, (c, _) in matches.items()],
                "same_deals": (not problems) if revealed else None,
                "problems": problems,
            }
        )
    return {"tournament_id": record.id, "seq": record.last_seq, "duplicate": state.settings.duplicate, "rounds": rounds}


def events_handler(command: GetTournamentEvents, flow: MatchFlow) -> Answer:
    limit = max(1, min(command.limit, MAX_EVENTS_PAGE))
    with flow.store.unit_of_work(readonly=True) as uow:
        record, _ = readable(uow, command.tournament_id, command.viewer)
        stored = uow.tournaments.load(record.id, after=command.after, limit=limit)
    end = stored[-1].seq if stored else command.after
    return {
        "tournament_id": record.id,
        "seq": record.last_seq,
        "chain_head": record.head.to_dict(),
        "events": [
            {
                "seq": e.seq,
                "schema_version": e.schema_version,
                "recorded_at": e.recorded_at.isoformat(),
                "prev_hash": e.prev_hash,
                "hash": e.hash,
                "event": e.to_dict(),
            }
            for e in stored
        ],
        "next_after": end if end < record.last_seq else None,
    }
