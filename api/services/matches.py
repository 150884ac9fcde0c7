"""The use cases of a match: create, claim, view, act, read the log, audit, list.

Each one opens a unit of work, loads what it needs, lets the rules engine decide,
appends the events in the same transaction, and answers only through the engine's
redaction (``view``/``redact_event``). Nothing here knows SQL or HTTP.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from api import bots
from api.rules import (
    PLAYING,
    RulesError,
    claim_seat,
    create_match,
    decide,
    parse_action,
    ready_to_start,
    redact_event,
    resolve_rules,
    start_match,
    view,
)
from api.rules.shuffle import ALGORITHM as SHUFFLE_ALGORITHM
from api.rules.state import ENDED, MatchState
from api.rules.views import public_summary
from api.store import Store
from api.store.records import InvalidCursor as StoreInvalidCursor
from api.store.records import MatchRecord
from api.store.records import StaleSeq as StoreStaleSeq
from api.store.repositories import CURSOR_PATTERN  # noqa: F401  (the list cursor's grammar, for the document)

from . import clocks, errors, fairness, lobby, tokens
from .idempotency import PURGE_EVERY, RETENTION, Keyed, Replay, StoredAnswer, check_same_request
from .limits import WorkLimits
from .match_ids import is_match_id
from .snapshots import Snapshot, SnapshotCache, fold
from .waiting import Client, Subscription, Waiter

MAX_EVENTS_PAGE = 1000
AUDIT_PAGE, MAX_AUDIT_PAGE = 1000, 5000  # rows per /audit page: by default, and at most
MIN_CLOCK_NAP = 0.2  # seconds: a waiting request re-checks an overdue clock at most this often
ACT_ATTEMPTS = 5  # an action decided on a state another writer moved past is re-decided


@dataclass(frozen=True)
class SeatSpec:
    name: str
    type: str
    level: str | None = None
    client_seed: str | None = None
    player_ref: str | None = None  # the portal's id for the player (lobby)
    reserved_for: str | None = None  # open seats of a rematch: the old seat token's hash


class MatchService:
    """The use cases, wired to one store and one per-process snapshot cache."""

    def __init__(
        self,
        store: Store,
        cache: SnapshotCache | None = None,
        *,
        allow_client_seed: bool = False,
        waiter: Waiter | None = None,
        now=None,
        limits: WorkLimits | None = None,
        offload: Callable[..., Any] | None = None,
    ):
        """``offload(fn, *args)`` runs CPU-heavy pure work (a bot's thinking, a fairness check)
        and answers its result: by default right here; under gevent in a native thread, so the
        worker's other requests keep being served meanwhile (see ``api.serving.cpu_offload``)."""
        self.store = store
        self.limits = limits or WorkLimits()
        self.offload = offload or run_here
        self._keys_stored = 0
        self.now = now or clocks.utcnow  # the turn clocks' time (tests inject theirs)
        self.cache = cache or SnapshotCache()
        self.allow_client_seed = allow_client_seed
        self.waiter = waiter or Waiter(store)

    def committed(self, match_id: str, snap: Snapshot) -> None:
        """After a commit: remember the new state and wake whoever waits on this match."""
        self.cache.put(match_id, snap)
        self.waiter.announce(match_id, snap.seq)

    # --- create and claim ----------------------------------------------------------
    def create(
        self,
        preset: str,
        overrides: dict | None,
        seats: list[SeatSpec],
        seed: str | None = None,
        *,
        rematch_of: str | None = None,
        creator: str | None = None,
    ) -> dict[str, Any]:
        """``creator``: the client's address; it may run only so many all-bot matches at once."""
        rules = resolve_rules(preset, overrides or {}, len(seats))
        if seed is not None and not self.allow_client_seed:
            raise errors.ClientSeedNotAllowed("this server does not accept client-chosen server seeds")
        seeded_by_client = seed is not None
        seed = seed if seeded_by_client else secrets.token_hex(32)
        seat_rows, issued = [], {}
        for number, spec in enumerate(seats):
            level = spec.level or (bots.DEFAULT_LEVEL if spec.type == "bot" else None)
            token_hash = None
            if spec.type == "remote":
                issued[number] = tokens.new_token()
                token_hash = tokens.hash_token(issued[number])
            seat_rows.append(
                {
                    "seat": number,
                    "name": spec.name,
                    "type": spec.type,
                    "level": level,
                    "token_hash": token_hash,
                    "player_ref": spec.player_ref,
                    "reserved_for": spec.reserved_for,
                }
            )
        created = create_match(
            rules,
            [
                {
                    "name": r["name"],
                    "type": r["type"],
                    "level": r["level"],
                    **({"client_seed": spec.client_seed} if spec.client_seed else {}),
                }
                for r, spec in zip(seat_rows, seats)
            ],
            seed,
            seeded_by_client=seeded_by_client,
        )
        all_bots = all(spec.type == "bot" for spec in seats)
        creator_key = creator_hash(creator) if creator else None
        appended = _rows(created, 0)
        snap = fold(None, appended)
        if ready_to_start(snap.state):
            # Decided before the transaction: the write lock is held for the inserts only.
            snap, more = self.advance(seed, snap, start_match(snap.state, seed))
            appended += more
        with self.store.unit_of_work() as uow:
            if all_bots and creator_key is not None:
                uow.matches.lock_creator(creator_key)
                running = uow.matches.count_running_all_bots(creator_key)
                if running >= self.limits.bot_matches_per_creator:
                    raise errors.TooManyBotMatches(
                        f"this address already runs {running} unfinished all-bot matches "
                        f"(at most {self.limits.bot_matches_per_creator}); wait for one to end",
                        limit=self.limits.bot_matches_per_creator,
                    )
            record = uow.matches.add(
                {
                    "preset": preset,
                    "players": rules.players,
                    "seed": seed,
                    "seed_commitment": created[0].seed_commitment,
                    "summary": {},
                    "creator_key": creator_key,
                    "all_bots": all_bots,
                    **({"rematch_of": rematch_of} if rematch_of else {}),
                }
            )
            for row in seat_rows:
                uow.seats.add({"match_id": record.id, **row})
            deadline = self.append(uow, record.id, 0, appended, snap)
            uow.commit()
        self.committed(record.id, snap)
        summary = clocks.show_deadline(self._summary(record.id, record, snap), snap.state, deadline)
        lobby.attach_refs(summary["seats"], {n: s.player_ref for n, s in enumerate(seats) if s.player_ref})
        for seat in summary["seats"]:
            if seat["seat"] in issued:
                seat["token"] = issued[seat["seat"]]
        return summary

    def claim(
        self,
        match_id: str,
        seat: int,
        name: str,
        client_seed: str | None = None,
        *,
        player_ref: str | None = None,
        token: str | None = None,
    ) -> dict[str, Any]:
        """``token``: a rematch seat is kept for the old seat's token, which claims it.

        Like an action: decided on the state as read (the first deal and the computer
        players' first moves included), appended under the lock if nobody appended since."""
        for _attempt in range(ACT_ATTEMPTS):
            with self.store.unit_of_work(readonly=True) as uow:
                record = self.get_record(uow, match_id)
                snap = self.snapshot(uow, record)
            if not isinstance(seat, int) or not 0 <= seat < record.players:
                raise errors.UnknownSeat(f"no seat {seat}; seats are 0 to {record.players - 1}")
            appended = _rows(claim_seat(snap.state, seat, name, client_seed), snap.seq)
            after = fold(snap, appended)
            if ready_to_start(after.state):
                after, more = self.advance(record.seed, after, start_match(after.state, record.seed))
                appended += more
            with self.store.unit_of_work() as uow:
                if self._lock(uow, match_id).last_seq != snap.seq:
                    continue  # someone else moved the match (a claim of another seat)
                reserved_ref = lobby.check_reservation(uow, match_id, seat, token)
                issued = tokens.new_token()
                uow.seats.update(
                    match_id,
                    seat,
                    name=name,
                    type="remote",
                    token_hash=tokens.hash_token(issued),
                    player_ref=player_ref or reserved_ref,
                    reserved_for=None,
                )
                deadline = self.append(uow, match_id, snap.seq, appended, after)
                uow.commit()
            self.committed(match_id, after)
            return {
                "match_id": match_id,
                "seat": seat,
                "token": issued,
                "seq": after.seq,
                "view": clocks.show_deadline(self._view(after, seat, match_id), after.state, deadline),
            }
        raise errors.StaleSeq(snap.seq, self.last_seq(match_id))

    # --- reads ---------------------------------------------------------------------
    def summary(self, match_id: str) -> dict[str, Any]:
        clocks.run_due(self, match_id)
        with self.store.unit_of_work(readonly=True) as uow:
            record = self.get_record(uow, match_id)
            snap = self.snapshot(uow, record)
            refs = uow.seats.refs_for([match_id]).get(match_id, {})
        summary = self._summary(match_id, record, snap)
        lobby.attach_refs(summary["seats"], refs)
        return summary

    def view(self, match_id: str, token: str | None) -> dict[str, Any]:
        clocks.run_due(self, match_id)
        with self.store.unit_of_work(readonly=True) as uow:
            record = self.get_record(uow, match_id)
            seat = self.authenticate(uow, match_id, token)
            snap = self.snapshot(uow, record)
        return clocks.show_deadline(self._view(snap, seat, match_id), snap.state, record.deadline_at)

    def events(
        self,
        match_id: str,
        token: str | None,
        after: int = 0,
        limit: int = 100,
        wait: float = 0,
        *,
        client: Client | None = None,
    ) -> dict[str, Any]:
        """The log after ``after``; with ``wait``, hold on up to that many seconds for an event.

        ``client`` says who waits (its address's cap, how to tell it has gone: the HTTP layer
        knows). A wait counts against the cap only while it actually waits."""
        limit = max(1, min(limit, MAX_EVENTS_PAGE))
        # Subscribed before the read below, so an append just after that read still wakes it.
        sub = self.waiter.subscribe(match_id, client) if wait > 0 else None
        try:
            clocks.run_due(self, match_id)
            with self.store.unit_of_work(readonly=True) as uow:
                record = self.get_record(uow, match_id)
                seat = self.authenticate(uow, match_id, token)
                stored = uow.events.load(match_id, after=after, limit=limit)
            if sub is not None and not stored and record.status != ENDED:
                sub.saw(record.last_seq)
                with self.waiter.hold(client, wait):
                    seq = self._wait_for_event(match_id, record.deadline_at, after, wait, sub)
                if seq > after and not sub.left:
                    with self.store.unit_of_work(readonly=True) as uow:
                        record = self.get_record(uow, match_id)
                        stored = uow.events.load(match_id, after=after, limit=limit)
        finally:
            if sub is not None:
                sub.close()
        items = [{"seq": e.seq, **redact_event(e.to_dict(), seat)} for e in stored]
        last = items[-1]["seq"] if items else after
        return {
            "match_id": match_id,
            "seat": seat,
            "seq": record.last_seq,
            "events": items,
            "next_after": last if last < record.last_seq else None,
        }

    def wait_for_event(self, match_id: str, after: int, wait: float, sub: Subscription) -> int:
        """Hold a subscribed waiter (a stream between events) until the match is past ``after``,
        ``wait`` seconds pass or its client goes; the seq then. No query unless a turn clock runs."""
        cached = self.cache.get(match_id)
        deadline_at = None
        if cached is None or cached.state.rules.turn_seconds:
            with self.store.unit_of_work(readonly=True) as uow:
                record = self.get_record(uow, match_id)
            sub.saw(record.last_seq)
            deadline_at = record.deadline_at
        return self._wait_for_event(match_id, deadline_at, after, wait, sub)

    def _wait_for_event(self, match_id: str, deadline_at, after: int, wait: float, sub: Subscription) -> int:
        """Sleep until an event after ``after`` exists, ``wait`` seconds pass or the client goes;
        the seq then. A turn clock that runs out meanwhile is played here (the waiting client is
        often the one owed it); the deadline moves only with an append, which ends the wait."""
        clock = self.waiter.clock  # the waiters' clock: tests move it without sleeping
        give_up = clock.monotonic() + wait
        seq = sub.seq
        while (remaining := give_up - clock.monotonic()) > 0:
            nap = remaining
            if deadline_at is not None:
                until_deadline = (deadline_at - self.now()).total_seconds()
                nap = min(remaining, max(MIN_CLOCK_NAP, until_deadline + MIN_CLOCK_NAP))
            seq = sub.wait(after, nap)
            if seq > after or sub.left or deadline_at is None:
                return seq
            if clocks.run_due(self, match_id):
                return sub.seq  # the timeout was announced by this process's commit
            with self.store.unit_of_work(readonly=True) as uow:
                record = self.get_record(uow, match_id)
            sub.saw(record.last_seq)
            deadline_at = record.deadline_at
        return seq

    def last_seq(self, match_id: str) -> int:
        with self.store.unit_of_work(readonly=True) as uow:
            return uow.events.last_seq(match_id)

    def _ended(self, uow, match_id: str, what: str) -> MatchRecord:
        """The record of a match that has ended (else MatchNotOver: ``what`` opens at the end)."""
        record = self.get_record(uow, match_id)
        if record.status != ENDED:
            raise errors.MatchNotOver(f"{what} opens when the match has ended", match_status=record.status)
        return record

    def audit(self, match_id: str, after: int = 0, limit: int = AUDIT_PAGE) -> dict[str, Any]:
        """One page of an ended match's unredacted log: at most ``limit`` rows after ``after``,
        with the seed, its commitment, the shuffle and ``seq`` on every page; ``next_after`` is
        the ``after`` of the next page (None on the last), so no answer holds a whole long log."""
        limit = max(1, min(limit, MAX_AUDIT_PAGE))
        with self.store.unit_of_work(readonly=True) as uow:
            record = self._ended(uow, match_id, "the audit log")
            stored = uow.events.load(match_id, after=after, limit=limit)
        last = stored[-1].seq if stored else after
        return {
            "match_id": match_id,
            "seed": record.seed,
            "seed_commitment": record.seed_commitment,
            "shuffle_algorithm": SHUFFLE_ALGORITHM,
            "seq": record.last_seq,
            # The rows as stored (not upcast): what the hash chain covers, verifiable as shown.
            "events": [
                {
                    "seq": e.seq,
                    "type": e.type,
                    **e.data,
                    "schema_version": e.schema_version,
                    "prev_hash": e.prev_hash,
                    "hash": e.hash,
                }
                for e in stored
            ],
            "next_after": last if last < record.last_seq else None,
        }

    def fairness_report(self, match_id: str) -> dict[str, Any]:
        """The fairness check of an ended match (deals re-derived from the revealed seeds, moves
        re-decided, the chain verified): read if stored, else made now and stored, once.

        Meant for the background runner too: called when a match ends, readers find it made."""
        what = "the fairness check (it needs the revealed seed)"
        with self.store.unit_of_work(readonly=True) as uow:
            self._ended(uow, match_id, what)
            report = uow.fairness.get(match_id)
        if report is not None:
            return report
        with fairness.one_at_a_time(match_id):
            with self.store.unit_of_work(readonly=True) as uow:
                record = self._ended(uow, match_id, what)
                report = uow.fairness.get(match_id)  # made while this request waited
                stored = uow.events.load(match_id) if report is None else []
            if report is not None:
                return report
            report = self.offload(fairness.check, record, stored)
            with self.store.unit_of_work() as uow:
                if not uow.fairness.add_if_absent(match_id, report, self.now()):
                    report = uow.fairness.get(match_id)  # another server stored it first
                uow.commit()
        return report

    def list(self, status: str | None, limit: int, cursor: str | None, **filters) -> dict[str, Any]:
        """``filters``: ``preset``, ``has_open_seat``, ``player_ref`` (see ``uow.matches.list``)."""
        with self.store.unit_of_work(readonly=True) as uow:
            try:
                page = uow.matches.list(status=status, limit=limit, cursor=cursor, **filters)
            except StoreInvalidCursor:
                raise errors.InvalidCursor(
                    "a cursor is written <microseconds since 1970>-<match id>, as next_cursor is"
                ) from None
            refs = uow.seats.refs_for([r.id for r in page.items])
        items = [
            dict(
                r.summary,
                id=r.id,
                status=r.status,
                preset=r.preset,
                seq=r.last_seq,
                created_at=r.created_at.isoformat(),
                updated_at=r.updated_at.isoformat(),
            )
            for r in page.items
        ]
        for item in items:
            lobby.attach_refs(item.get("seats") or [], refs.get(item["id"], {}))
        return {"items": items, "next_cursor": page.next_cursor}

    # --- act -----------------------------------------------------------------------
    def act(
        self,
        match_id: str,
        token: str | None,
        action: dict,
        expected_seq: int | None = None,
        *,
        if_match_seq: int | None = None,
        keyed: Keyed | None = None,
    ) -> dict:
        """``expected_seq`` (body) refuses with StaleSeq, ``if_match_seq`` (header) with PreconditionFailed.

        Decided outside the write transaction, on the state as read (the computer players'
        replies included), then appended under the match's lock if nobody appended in
        between (else decided again): the write lock is held for the appends only. With
        ``keyed`` the answer is stored in that same transaction; a retry raises ``Replay``.
        """
        clocks.run_due(self, match_id)  # a turn that ran out is played first, committed on its own
        for _attempt in range(ACT_ATTEMPTS):
            with self.store.unit_of_work(readonly=True) as uow:
                record = self.get_record(uow, match_id)
                seat = self.authenticate(uow, match_id, token, required=True)
                token_hash = tokens.hash_token(token or "")
                if keyed is not None and (seen := uow.idempotency.get(token_hash, keyed.key)) is not None:
                    raise Replay(check_same_request(seen, keyed, match_id))
                snap = self.snapshot(uow, record)
            try:
                if expected_seq is not None and expected_seq != snap.seq:
                    raise errors.StaleSeq(expected_seq, snap.seq)
                if if_match_seq is not None and if_match_seq != snap.seq:
                    raise errors.PreconditionFailed(if_match_seq, snap.seq)
                appended = _rows(decide(snap.state, parse_action(seat, action), record.seed), snap.seq)
            except (RulesError, errors.ServiceError) as refusal:
                if keyed is not None:
                    self._remember_refusal(token_hash, keyed, match_id, refusal)
                raise
            after, more = self.advance(record.seed, fold(snap, appended), [])
            appended += more
            with self.store.unit_of_work() as uow:
                locked = self._lock(uow, match_id)
                if keyed is not None and (seen := uow.idempotency.get(token_hash, keyed.key)) is not None:
                    raise Replay(check_same_request(seen, keyed, match_id))  # a duplicate got here first
                if locked.last_seq != snap.seq:
                    continue  # another writer moved the match: decide again on its state
                deadline = self.append(uow, match_id, snap.seq, appended, after)
                result = {
                    "match_id": match_id,
                    "seat": seat,
                    "seq": after.seq,
                    "events": [{"seq": row["seq"], **redact_event(_without_seq(row), seat)} for row in appended],
                    "view": clocks.show_deadline(self._view(after, seat, match_id), after.state, deadline),
                }
                if keyed is not None:
                    self._remember(uow, token_hash, keyed, match_id, StoredAnswer(200, keyed.render_result(result)))
                uow.commit()
            self.committed(match_id, after)
            return result
        raise errors.StaleSeq(snap.seq, self.last_seq(match_id))

    # --- computer players out of the request path ----------------------------------------
    def play_bots(self, match_id: str, max_moves: int) -> tuple[int, bool]:
        """One step of the autoplay runner: up to ``max_moves`` computer moves owed at this
        table, decided outside any transaction, appended in a short one if the match is still
        where they were decided (else nothing: whoever moved it rescheduled it). Answers how
        many events were appended, and whether the match has now ended."""
        with self.store.unit_of_work(readonly=True) as uow:
            record = self.get_record(uow, match_id)
            snap = self.snapshot(uow, record)
        after, rows = self.advance(record.seed, snap, [], max_moves)
        with self.store.unit_of_work() as uow:
            locked = self._lock(uow, match_id)
            if locked.last_seq != snap.seq:
                return 0, False
            if not rows:
                uow.matches.set_bots_due(match_id, None)  # nothing owed after all: off the queue
                uow.commit()
                return 0, False
            try:
                self.append(uow, match_id, snap.seq, rows, after)
            except errors.EventLimitReached:
                uow.rollback()
                uow.matches.set_bots_due(match_id, None)  # stays as it is; a person can see why
                uow.commit()
                raise
            uow.commit()
        self.committed(match_id, after)
        return len(rows), after.state.status == ENDED

    def _remember(self, uow, token_hash: str, keyed: Keyed, match_id: str, answer: StoredAnswer) -> bool:
        self._keys_stored += 1
        if self._keys_stored % PURGE_EVERY == 0:
            uow.idempotency.purge(RETENTION)
        return uow.idempotency.remember(
            token_hash, keyed.key, match_id, keyed.fingerprint, answer.status, answer.to_body()
        )

    def _remember_refusal(self, token_hash: str, keyed: Keyed, match_id: str, refusal: Exception) -> None:
        """A refusal appends nothing, so it is stored on its own (first answer wins)."""
        status, text = keyed.render_refusal(refusal)
        with self.store.unit_of_work() as uow:
            if self._remember(uow, token_hash, keyed, match_id, StoredAnswer(status, text, problem=True)):
                uow.commit()

    # --- the match flow the use cases share (clocks and the lobby too) ----------------------
    def advance(self, seed: str, snap: Snapshot, events, budget: int | None = None) -> tuple[Snapshot, list[dict]]:
        """Fold ``events``, then let the computer players move until a remote seat must act or
        ``budget`` moves are played. By default a table with a person at it gets the inline
        budget and an all-bot table none: the autoplay runner plays those, paced."""
        appended = _rows(events, snap.seq)
        if appended:
            snap = fold(snap, appended)
        if budget is None:
            budget = 0 if is_all_bots(snap.state) else self.limits.inline_bot_moves
        levels = bot_levels(snap.state)
        while budget > 0 and snap.state.status == PLAYING:
            seat = snap.state.next_to_act(levels)
            if seat is None:
                break
            action = self.offload(
                bots.choose_action,
                levels[seat] or bots.DEFAULT_LEVEL,
                view(snap.state, seat),
                [redact_event(_without_seq(row), seat) for row in snap.hand_log],
                bots.bot_seed(seed, snap.seq, seat),
            )
            rows = _rows(decide(snap.state, parse_action(seat, action), seed), snap.seq)
            snap = fold(snap, rows)
            appended += rows
            budget -= 1
        return snap, appended

    def append(self, uow, match_id: str, expected: int, rows: list[dict], snap: Snapshot):
        """Append ``rows`` and the match's new summary; answers the turn clock's new deadline.

        Also schedules the autoplay runner when a computer player is still owed a move:
        at once for a table with a person waiting, after the pace for an all-bot table."""
        if snap.seq > self.limits.max_events_per_match:
            raise errors.EventLimitReached(
                f"a match's log may hold at most {self.limits.max_events_per_match} events",
                limit=self.limits.max_events_per_match,
            )
        now = self.now()
        deadline = clocks.deadline_after(snap.state, now)
        bots_due = None
        if bots_owed(snap.state):
            bots_due = now + timedelta(seconds=self.limits.autoplay_pace) if is_all_bots(snap.state) else now
        try:
            uow.events.append(
                match_id,
                expected,
                [_without_seq(r) for r in rows],
                match_fields={
                    "status": snap.state.status,
                    "summary": public_summary(snap.state),
                    "deadline_at": deadline,
                    "bots_due_at": bots_due,
                },
            )
        except StoreStaleSeq as exc:
            raise errors.StaleSeq(expected, exc.current_seq) from None
        return deadline

    def get_record(self, uow, match_id: str) -> MatchRecord:
        """The match's record in ``uow``, or :class:`~api.services.errors.UnknownMatch`."""
        record = uow.matches.get(match_id) if is_match_id(match_id) else None
        if record is None:
            raise errors.UnknownMatch(f"no match {match_id}")
        return record

    def _lock(self, uow, match_id: str) -> MatchRecord:
        record = uow.matches.get_for_update(match_id) if is_match_id(match_id) else None
        if record is None:
            raise errors.UnknownMatch(f"no match {match_id}")
        return record

    def snapshot(self, uow, record: MatchRecord) -> Snapshot:
        """The match's folded state at ``record``'s seq: from the cache, or folded from the log."""
        snap = self.cache.get(record.id)
        if snap is not None and snap.seq == record.last_seq:
            return snap
        if snap is not None and snap.seq > record.last_seq:
            snap = None  # written by a transaction that did not commit: distrust it
        stored = uow.events.load(record.id, after=snap.seq if snap else 0)
        snap = fold(snap, [{"seq": e.seq, **e.to_dict()} for e in stored])
        self.cache.put(record.id, snap)
        return snap

    def authenticate(self, uow, match_id: str, token: str | None, required: bool = False) -> int | None:
        """The seat ``token`` holds in this match (None: a spectator, unless ``required``)."""
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

    def _view(self, snap: Snapshot, seat: int | None, match_id: str) -> dict[str, Any]:
        out = view(snap.state, seat)
        out["seq"] = snap.seq
        out["match_id"] = match_id
        return out

    def _summary(self, match_id: str, record: MatchRecord, snap: Snapshot) -> dict[str, Any]:
        state = snap.state
        return {
            "id": match_id,
            "preset": record.preset,
            "seq": snap.seq,
            "seed_commitment": record.seed_commitment,
            "rules": state.rules.to_dict(),
            "created_at": record.created_at.isoformat(),
            **clocks.show_deadline(public_summary(state), state, record.deadline_at),
        }


def run_here(fn: Callable[..., Any], *args: Any) -> Any:
    return fn(*args)


def bot_levels(state: MatchState) -> dict[int, str | None]:
    """The computer players' seats and their levels."""
    return {i: s.get("level") for i, s in enumerate(state.seats) if s.get("type") == "bot"}


def is_all_bots(state: MatchState) -> bool:
    return all(s.get("type") == "bot" for s in state.seats)


def bots_owed(state: MatchState) -> bool:
    """A computer player is to act now (to move, or to call muggins out of turn)."""
    return state.status == PLAYING and state.next_to_act(bot_levels(state)) is not None


def creator_hash(address: str) -> str:
    """What the store keeps of a creating client's address (for the all-bot cap): a hash."""
    return hashlib.sha256(f"creator:{address}".encode()).hexdigest()


def _rows(events, after_seq: int) -> list[dict]:
    return [{"seq": after_seq + i, **e.to_dict()} for i, e in enumerate(events, start=1)]


def _without_seq(row: dict) -> dict:
    return {k: v for k, v in row.items() if k != "seq"}
