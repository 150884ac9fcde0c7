"""The use cases of a match: create, claim, view, act, read the log, audit, list.

Each one opens a unit of work, loads what it needs, lets the rules engine decide,
appends the events in the same transaction, and answers only through the engine's
redaction (``view``/``redact_event``). Nothing here knows SQL or HTTP.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from dataclasses import dataclass
from typing import Any

from api import bots
from api.rules import (PLAYING, claim_seat, create_match, decide, parse_action, ready_to_start,
                       redact_event, resolve_rules, start_match, view)
from api.rules.shuffle import ALGORITHM as SHUFFLE_ALGORITHM
from api.rules.state import ENDED, MatchState
from api.store import Store
from api.rules.audit import verify_log
from api.store.chain import verify_chain
from api.store.records import InvalidCursor as StoreInvalidCursor, MatchRecord, StaleSeq as StoreStaleSeq

from . import clocks, errors, lobby, tokens
from .match_ids import is_match_id
from .snapshots import Snapshot, SnapshotCache, fold
from .waiting import Waiter

SEAT_TYPES = ("remote", "bot", "open")
DEFAULT_BOT_LEVEL = "greedy"
MAX_EVENTS_PAGE = 1000
MIN_CLOCK_NAP = 0.2       # seconds: a waiting request re-checks an overdue clock at most this often


@dataclass(frozen=True)
class SeatSpec:
    name: str
    type: str
    level: str | None = None
    client_seed: str | None = None
    player_ref: str | None = None      # the portal's id for the player (lobby)
    reserved_for: str | None = None    # open seats of a rematch: the old seat token's hash


class MatchService:
    """The use cases, wired to one store and one per-process snapshot cache."""

    def __init__(self, store: Store, cache: SnapshotCache | None = None, *, allow_client_seed: bool = False,
                 waiter: Waiter | None = None, now=None):
        self.store = store
        self.now = now or clocks.utcnow    # the turn clocks' time (tests inject theirs)
        self.cache = cache or SnapshotCache()
        self.allow_client_seed = allow_client_seed
        self.waiter = waiter or Waiter(store)

    def _committed(self, match_id: str, snap: Snapshot) -> None:
        """After a commit: remember the new state and wake whoever waits on this match."""
        self.cache.put(match_id, snap)
        self.waiter.announce(match_id, snap.seq)

    # --- create and claim ----------------------------------------------------------
    def create(self, preset: str, overrides: dict | None, seats: list[SeatSpec],
               seed: str | None = None, *, rematch_of: str | None = None) -> dict[str, Any]:
        rules = resolve_rules(preset, overrides or {}, len(seats))
        if seed is not None and not self.allow_client_seed:
            raise errors.ClientSeedNotAllowed("this server does not accept client-chosen server seeds")
        seeded_by_client = seed is not None
        seed = seed if seeded_by_client else secrets.token_hex(32)
        seat_rows, issued = [], {}
        for number, spec in enumerate(seats):
            level = spec.level or (DEFAULT_BOT_LEVEL if spec.type == "bot" else None)
            token_hash = None
            if spec.type == "remote":
                issued[number] = tokens.new_token()
                token_hash = tokens.hash_token(issued[number])
            seat_rows.append({"seat": number, "name": spec.name, "type": spec.type, "level": level,
                              "token_hash": token_hash, "player_ref": spec.player_ref,
                              "reserved_for": spec.reserved_for})
        created = create_match(rules, [{"name": r["name"], "type": r["type"], "level": r["level"],
                                        **({"client_seed": spec.client_seed} if spec.client_seed else {})}
                                       for r, spec in zip(seat_rows, seats)], seed,
                               seeded_by_client=seeded_by_client)
        with self.store.unit_of_work() as uow:
            record = uow.matches.add({"preset": preset, "players": rules.players, "seed": seed,
                                      "seed_commitment": created[0].seed_commitment, "summary": {},
                                      **({"rematch_of": rematch_of} if rematch_of else {})})
            for row in seat_rows:
                uow.seats.add({"match_id": record.id, **row})
            snap = fold(None, _rows(created, 0))
            appended = _rows(created, 0)
            if ready_to_start(snap.state):
                snap, more = self._advance(record, snap, start_match(snap.state, seed))
                appended += more
            deadline = self._append(uow, record.id, 0, appended, snap)
            uow.commit()
        self._committed(record.id, snap)
        summary = clocks.show_deadline(self._summary(record.id, record, snap), snap.state, deadline)
        lobby.attach_refs(summary["seats"], {n: s.player_ref for n, s in enumerate(seats) if s.player_ref})
        for seat in summary["seats"]:
            if seat["seat"] in issued:
                seat["token"] = issued[seat["seat"]]
        return summary

    def claim(self, match_id: str, seat: int, name: str, client_seed: str | None = None, *,
              player_ref: str | None = None, token: str | None = None) -> dict[str, Any]:
        """``token``: a rematch seat is kept for the old seat's token, which claims it."""
        with self.store.unit_of_work() as uow:
            record = self._lock(uow, match_id)
            snap = self._snapshot(uow, record)
            if not isinstance(seat, int) or not 0 <= seat < record.players:
                raise errors.UnknownSeat(f"no seat {seat}; seats are 0 to {record.players - 1}")
            events = claim_seat(snap.state, seat, name, client_seed)
            reserved_ref = lobby.check_reservation(uow, match_id, seat, token)
            token = tokens.new_token()
            uow.seats.update(match_id, seat, name=name, type="remote", token_hash=tokens.hash_token(token),
                             player_ref=player_ref or reserved_ref, reserved_for=None)
            appended = _rows(events, snap.seq)
            snap = fold(snap, appended)
            if ready_to_start(snap.state):
                snap, more = self._advance(record, snap, start_match(snap.state, record.seed))
                appended += more
            deadline = self._append(uow, match_id, record.last_seq, appended, snap)
            uow.commit()
        self._committed(match_id, snap)
        return {"match_id": match_id, "seat": seat, "token": token, "seq": snap.seq,
                "view": clocks.show_deadline(self._view(snap, seat), snap.state, deadline)}

    # --- reads ---------------------------------------------------------------------
    def summary(self, match_id: str) -> dict[str, Any]:
        clocks.run_due(self, match_id)
        with self.store.unit_of_work(readonly=True) as uow:
            record = self._get(uow, match_id)
            snap = self._snapshot(uow, record)
            refs = uow.seats.refs_for([match_id]).get(match_id, {})
        summary = self._summary(match_id, record, snap)
        lobby.attach_refs(summary["seats"], refs)
        return summary

    def view(self, match_id: str, token: str | None) -> dict[str, Any]:
        clocks.run_due(self, match_id)
        with self.store.unit_of_work(readonly=True) as uow:
            record = self._get(uow, match_id)
            seat = self._authenticate(uow, match_id, token)
            snap = self._snapshot(uow, record)
        return clocks.show_deadline(self._view(snap, seat, match_id), snap.state, record.deadline_at)

    def events(self, match_id: str, token: str | None, after: int = 0, limit: int = 100,
               wait: float = 0) -> dict[str, Any]:
        """The log after ``after``; with ``wait``, hold on up to that many seconds for an event."""
        limit = max(1, min(limit, MAX_EVENTS_PAGE))
        clocks.run_due(self, match_id)
        with self.store.unit_of_work(readonly=True) as uow:
            record = self._get(uow, match_id)
            seat = self._authenticate(uow, match_id, token)
            stored = uow.events.load(match_id, after=after, limit=limit)
        if not stored and wait > 0 and record.status != ENDED:
            self._wait_for_event(record, after, wait)
            with self.store.unit_of_work(readonly=True) as uow:
                record = self._get(uow, match_id)
                stored = uow.events.load(match_id, after=after, limit=limit)
        items = [{"seq": e.seq, **redact_event(e.to_dict(), seat)} for e in stored]
        last = items[-1]["seq"] if items else after
        return {"match_id": match_id, "seat": seat, "seq": record.last_seq, "events": items,
                "next_after": last if last < record.last_seq else None}

    def _wait_for_event(self, record: MatchRecord, after: int, wait: float) -> None:
        """Sleep until an event after ``after`` exists, or ``wait`` seconds pass; a turn clock
        that runs out meanwhile is played here (the waiting client is often the one owed it)."""
        give_up = time.monotonic() + wait
        while (remaining := give_up - time.monotonic()) > 0:
            nap = remaining
            if record.deadline_at is not None:
                until_deadline = (record.deadline_at - self.now()).total_seconds()
                nap = min(remaining, max(MIN_CLOCK_NAP, until_deadline + MIN_CLOCK_NAP))
            seq = self.waiter.wait_for(record.id, after, nap, lambda: self.last_seq(record.id))
            if seq > after or clocks.run_due(self, record.id):
                return
            with self.store.unit_of_work(readonly=True) as uow:
                record = self._get(uow, record.id)

    def last_seq(self, match_id: str) -> int:
        with self.store.unit_of_work(readonly=True) as uow:
            return uow.events.last_seq(match_id)

    def _ended_log(self, match_id: str, what: str) -> tuple[MatchRecord, list]:
        """The record and whole stored log of a match that has ended (else MatchNotOver)."""
        with self.store.unit_of_work(readonly=True) as uow:
            record = self._get(uow, match_id)
            if record.status != ENDED:
                raise errors.MatchNotOver(f"{what} opens when the match has ended", match_status=record.status)
            return record, uow.events.load(match_id)

    def audit(self, match_id: str) -> dict[str, Any]:
        record, stored = self._ended_log(match_id, "the audit log")
        return {"match_id": match_id, "seed": record.seed, "seed_commitment": record.seed_commitment,
                "shuffle_algorithm": SHUFFLE_ALGORITHM, "seq": record.last_seq,
                # The rows as stored (not upcast): what the hash chain covers, verifiable as shown.
                "events": [{"seq": e.seq, "type": e.type, **e.data, "schema_version": e.schema_version,
                            "prev_hash": e.prev_hash, "hash": e.hash} for e in stored]}

    def fairness(self, match_id: str) -> dict[str, Any]:
        """Re-derive every deal from the revealed seeds, re-decide every move, check the chain."""
        record, stored = self._ended_log(match_id, "the fairness check (it needs the revealed seed)")
        chain_problems = verify_chain(stored)
        report = verify_log([e.to_dict() for e in stored], record.seed)
        return {"match_id": match_id, "verified": report.ok and not chain_problems,
                "seed": record.seed, "seed_commitment": record.seed_commitment,
                "commitment_ok": report.commitment_ok, "chain_ok": not chain_problems,
                "deals_checked": report.deals_checked, "moves_checked": report.moves_checked,
                "events_checked": len(stored), "problems": chain_problems + report.problems}

    def list(self, status: str | None, limit: int, cursor: str | None, **filters) -> dict[str, Any]:
        """``filters``: ``preset``, ``has_open_seat``, ``player_ref`` (see ``uow.matches.list``)."""
        with self.store.unit_of_work(readonly=True) as uow:
            try:
                page = uow.matches.list(status=status, limit=limit, cursor=cursor, **filters)
            except StoreInvalidCursor:
                raise errors.InvalidCursor("this cursor was not made by this server") from None
            refs = uow.seats.refs_for([r.id for r in page.items])
        items = [dict(r.summary, id=r.id, status=r.status, preset=r.preset, seq=r.last_seq,
                      created_at=r.created_at.isoformat(), updated_at=r.updated_at.isoformat())
                 for r in page.items]
        for item in items:
            lobby.attach_refs(item.get("seats") or [], refs.get(item["id"], {}))
        return {"items": items, "next_cursor": page.next_cursor}

    # --- act -----------------------------------------------------------------------
    def act(self, match_id: str, token: str | None, action: dict, expected_seq: int | None = None,
            *, if_match_seq: int | None = None) -> dict:
        """``expected_seq`` (body) refuses with StaleSeq, ``if_match_seq`` (header) with PreconditionFailed."""
        clocks.run_due(self, match_id)   # a turn that ran out is played first, committed on its own
        with self.store.unit_of_work() as uow:
            record = self._lock(uow, match_id)
            seat = self._authenticate(uow, match_id, token, required=True)
            if expected_seq is not None and expected_seq != record.last_seq:
                raise errors.StaleSeq(expected_seq, record.last_seq)
            if if_match_seq is not None and if_match_seq != record.last_seq:
                raise errors.PreconditionFailed(if_match_seq, record.last_seq)
            snap = self._snapshot(uow, record)
            command = parse_action(seat, action)
            new_events = decide(snap.state, command, record.seed)
            appended = _rows(new_events, snap.seq)
            snap, more = self._advance(record, fold(snap, appended), [])
            appended += more
            deadline = self._append(uow, match_id, record.last_seq, appended, snap)
            uow.commit()
        self._committed(match_id, snap)
        return {"match_id": match_id, "seat": seat, "seq": snap.seq,
                "events": [{"seq": row["seq"], **redact_event(_without_seq(row), seat)} for row in appended],
                "view": clocks.show_deadline(self._view(snap, seat, match_id), snap.state, deadline)}

    # --- internals ---------------------------------------------------------------------
    def _advance(self, record: MatchRecord, snap: Snapshot, events) -> tuple[Snapshot, list[dict]]:
        """Fold ``events``, then let the computer players move until a remote seat must act."""
        appended = _rows(events, snap.seq)
        if appended:
            snap = fold(snap, appended)
        levels = {i: s.get("level") for i, s in enumerate(snap.state.seats) if s.get("type") == "bot"}
        while snap.state.status == PLAYING:
            seat = snap.state.next_to_act(levels)
            if seat is None:
                break
            action = bots.choose_action(levels[seat] or DEFAULT_BOT_LEVEL, view(snap.state, seat),
                                        [redact_event(_without_seq(row), seat) for row in snap.hand_log],
                                        bot_seed(record.seed, snap.seq, seat))
            rows = _rows(decide(snap.state, parse_action(seat, action), record.seed), snap.seq)
            snap = fold(snap, rows)
            appended += rows
        return snap, appended

    def _append(self, uow, match_id: str, expected: int, rows: list[dict], snap: Snapshot):
        """Append ``rows`` and the match's new summary; answers the turn clock's new deadline."""
        deadline = clocks.deadline_after(snap.state, self.now())
        try:
            uow.events.append(match_id, expected, [_without_seq(r) for r in rows], match_fields={
                "status": snap.state.status, "summary": _public_summary(snap.state), "deadline_at": deadline})
        except StoreStaleSeq as exc:
            raise errors.StaleSeq(expected, exc.current_seq) from None
        return deadline

    def _get(self, uow, match_id: str) -> MatchRecord:
        record = uow.matches.get(match_id) if is_match_id(match_id) else None
        if record is None:
            raise errors.UnknownMatch(f"no match {match_id}")
        return record

    def _lock(self, uow, match_id: str) -> MatchRecord:
        record = uow.matches.get_for_update(match_id) if is_match_id(match_id) else None
        if record is None:
            raise errors.UnknownMatch(f"no match {match_id}")
        return record

    def _snapshot(self, uow, record: MatchRecord) -> Snapshot:
        snap = self.cache.get(record.id)
        if snap is not None and snap.seq == record.last_seq:
            return snap
        if snap is not None and snap.seq > record.last_seq:
            snap = None          # written by a transaction that did not commit: distrust it
        stored = uow.events.load(record.id, after=snap.seq if snap else 0)
        snap = fold(snap, [{"seq": e.seq, **e.to_dict()} for e in stored])
        self.cache.put(record.id, snap)
        return snap

    def _authenticate(self, uow, match_id: str, token: str | None, required: bool = False) -> int | None:
        if token is None:
            if required:
                raise errors.InvalidToken("this action needs the seat's token: Authorization: Bearer <token>")
            return None
        candidate = tokens.hash_token(token)
        found = None
        for seat in uow.seats.list_for_match(match_id):
            if tokens.matches(seat.token_hash, candidate):
                found = seat.seat
        if found is not None:
            return found
        if uow.seats.token_hash_exists(candidate):
            raise errors.WrongMatch("this token belongs to a seat of another match")
        raise errors.InvalidToken("unknown seat token")

    def _view(self, snap: Snapshot, seat: int | None, match_id: str | None = None) -> dict[str, Any]:
        out = view(snap.state, seat)
        out["seq"] = snap.seq
        if match_id is not None:
            out["match_id"] = match_id
        return out

    def _summary(self, match_id: str, record: MatchRecord, snap: Snapshot) -> dict[str, Any]:
        state = snap.state
        return {"id": match_id, "preset": record.preset, "seq": snap.seq,
                "seed_commitment": record.seed_commitment, "rules": state.rules.to_dict(),
                "created_at": record.created_at.isoformat(),
                **clocks.show_deadline(_public_summary(state), state, record.deadline_at)}


def _public_summary(state: MatchState) -> dict[str, Any]:
    return {"status": state.status, "seeded_by_client": state.seeded_by_client,
            "hand_number": state.hand_number, "scores": list(state.scores),
            "turn": state.turn, "winner": state.winner, "players": state.players,
            "seats": [{"seat": i, "name": s.get("name"), "type": s.get("type"), "level": s.get("level"),
                       "client_seed": s.get("client_seed")} for i, s in enumerate(state.seats)],
            "open_seats": [i for i, s in enumerate(state.seats) if s.get("type") == "open"]}


def bot_seed(seed: str, seq: int, seat: int) -> str:
    """A bot's randomness for one decision: derived from the secret seed, so audits can re-check it."""
    return hashlib.sha256(f"bot:{seed}:{seq}:{seat}".encode()).hexdigest()


def _rows(events, after_seq: int) -> list[dict]:
    return [{"seq": after_seq + i, **e.to_dict()} for i, e in enumerate(events, start=1)]


def _without_seq(row: dict) -> dict:
    return {k: v for k, v in row.items() if k != "seq"}
