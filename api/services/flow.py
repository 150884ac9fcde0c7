"""The match flow every use case shares: load, decide, let the bots move, append, announce.

A use case's handler (in ``api.services.creating``, ``claiming``, ``acting``, ``lobby``,
``clocks``, ``reading``, ``feed``, ``fairness``, ``analyses``, ``stats``, ``leaderboards``, ``portals``,
``webhooks``, ``matchmaking``, ``tournaments``: every module ``api.services.bus`` registers but
``webhook_delivery``, whose rounds need the webhook courier instead) is a function of a command
and this flow. The flow holds what they share in one process — the store, the cache of folded
states, the waiters, the limits, the clock, wired by ``api.bootstrap`` from the configuration —
and the steps they are made of:

* ``record`` / ``lock``: the match's row, read or locked in a unit of work;
* ``snapshot``: its folded state at that row's seq (cached, or folded from the log);
* ``advance``: fold events, then let the computer players move within a budget;
* ``append``: store events by compare-and-set, with the new summary and deadline;
* ``committed``: after the commit, cache the state and wake whoever waits on the match.

Everything a client sees goes through the rules' redaction (``view``, ``redact_event``,
``public_summary``). Nothing here knows SQL or HTTP.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timedelta
from functools import partial
from typing import Any, NamedTuple, TypeVar

from api import metrics
from api.bots.turns import bot_to_act, bot_turn
from api.rules import BOT_SEAT, ENDED, Event, MatchState, view
from api.rules.views import public_summary
from api.store.records import ChainHead, MatchRecord, SeatRecord
from api.store.records import StaleSeq as StoreStaleSeq

from . import errors, tokens, tournament_log
from .deadlines import deadline_after, show_deadline, utcnow
from .effects import record_effects
from .limits import WorkLimits
from .match_ids import is_match_id
from .pacing import NO_FLOOR, ReplyFloor
from .ports import Store, UnitOfWork
from .rendered import DEFAULT_VISIBLE_EVENTS, RenderedCache
from .snapshots import Row, Snapshot, SnapshotCache, fold, fold_decided, without_seq
from .waiting import Waiter

T = TypeVar("T")

#: Matches whose portal one process remembers (a few hundred kB at most).
PORTALS_REMEMBERED = 8192
#: Seats whose token one process remembers for the next action (about 2 MB at most).
SEATS_REMEMBERED = 8192


class Ownership(NamedTuple):
    """What never changes about a match and every append asks: its portal, and whether it is rated."""

    portal_id: str | None
    rated: bool


def run_here(fn: Callable[..., T], *args: Any) -> T:
    return fn(*args)


class MatchFlow:
    """What the use cases share in one process, and the steps of a match they are made of."""

    def __init__(
        self,
        store: Store,
        cache: SnapshotCache,
        *,
        waiter: Waiter,
        limits: WorkLimits,
        allow_client_seed: bool = False,
        now: Callable[[], datetime] = utcnow,
        offload: Callable[..., Any] | None = None,
        reply_floor: ReplyFloor = NO_FLOOR,
        rendered_views: RenderedCache | None = None,
        visible_events: RenderedCache | None = None,
    ):
        """Made by ``api.bootstrap`` alone, from the configuration. ``offload(fn, *args)`` runs
        CPU-heavy pure work (a bot's thinking, a fairness check) and answers its result: by
        default right here; under gevent in a native thread, so the worker's other requests keep
        being served meanwhile (see ``api.serving.cpu_offload``). ``now`` is the turn clocks'
        time (tests inject theirs). ``reply_floor``: the least time each bot level's decision
        takes (:mod:`api.services.pacing`; default none). ``rendered_views``: the renderings of
        seats' views kept, ``visible_events`` the log's events as seats see them
        (:mod:`api.services.rendered`; by default new caches of their own)."""
        self.store = store
        self.cache = cache
        self.allow_client_seed = allow_client_seed
        self.waiter = waiter
        self.now = now
        self.limits = limits
        self.offload: Callable[..., Any] = offload or run_here
        self.reply_floor = reply_floor
        #: Seats' views as the HTTP layer rendered them, per match, seq, head, deadline and seat.
        self.rendered_views = rendered_views if rendered_views is not None else RenderedCache()
        #: Log events as each seat sees them, per match, seq and seat (events pages).
        self.visible_events = visible_events if visible_events is not None else RenderedCache(DEFAULT_VISIBLE_EVENTS)
        #: Idempotency keys stored by this process: every ``PURGE_EVERY``-th store purges old ones.
        self.keys_stored = 0
        #: match id -> its portal and rated flag (``portal_of``), oldest first.
        self.portals: dict[str, Ownership] = {}
        #: (match id, token hash) -> the seat it held and the match's seed (``remember_seat``),
        #: oldest first: a hint only, checked in the transaction that uses it.
        self.seats_held: dict[tuple[str, str], tuple[int, str]] = {}

    # --- reading a match --------------------------------------------------------------------
    def record(self, uow: UnitOfWork, match_id: str) -> MatchRecord:
        """The match's record in ``uow``, or :class:`~api.services.errors.UnknownMatch`."""
        record = uow.matches.get(match_id) if is_match_id(match_id) else None
        if record is None:
            raise errors.UnknownMatch(f"no match {match_id}")
        return record

    def lock(self, uow: UnitOfWork, match_id: str) -> MatchRecord:
        """The match's record, locked until ``uow`` ends (writers of this match queue behind it)."""
        record = uow.matches.get_for_update(match_id) if is_match_id(match_id) else None
        if record is None:
            raise errors.UnknownMatch(f"no match {match_id}")
        return record

    def ended_record(self, uow: UnitOfWork, match_id: str, what: str) -> MatchRecord:
        """The record of a match that has ended (else MatchNotOver: ``what`` opens at the end; for
        a match of a duplicate round, whose seed the round's other tables share, at the round's end)."""
        record = self.record(uow, match_id)
        if record.status != ENDED:
            raise errors.MatchNotOver(f"{what} opens when the match has ended", match_status=record.status)
        if tournament_log.deals_sealed(uow, match_id):
            raise errors.MatchNotOver(
                f"{what} opens when its duplicate round has ended (its tables share its deals)",
                match_status=record.status,
            )
        return record

    def snapshot(self, uow: UnitOfWork, record: MatchRecord) -> Snapshot:
        """The match's folded state at ``record``'s seq: from the cache, or folded from the log."""
        snap = self.cache.get(record.id)
        if snap is not None and snap.seq == record.last_seq:
            return snap
        if snap is not None and snap.seq > record.last_seq:
            snap = None  # written by a transaction that did not commit: distrust it
        after = snap.seq if snap else 0
        # Up to the record's seq and no further (a later commit may be visible to this read on
        # PostgreSQL): the state shown is then exactly the one the record's chain head names.
        stored = uow.events.load(record.id, after=after, limit=record.last_seq - after)
        snap = fold(snap, [{"seq": e.seq, **e.to_dict()} for e in stored])
        self.cache.put(record.id, snap)
        return snap

    def last_seq(self, match_id: str) -> int:
        with self.store.unit_of_work(readonly=True) as uow:
            return uow.events.last_seq(match_id)

    def record_and_seat(
        self, uow: UnitOfWork, match_id: str, token: str | None, required: bool = False
    ) -> tuple[MatchRecord, int | None]:
        """``record`` then ``authenticate``, the match and its seats read by one statement."""
        found = uow.matches.get_with_seats(match_id) if is_match_id(match_id) else None
        if found is None:
            raise errors.UnknownMatch(f"no match {match_id}")
        record, seats = found
        return record, self.authenticate(uow, match_id, token, required, seats=seats)

    def remember_seat(self, match_id: str, token_hash: str, seat: int, seed: str) -> None:
        """The seat a token's hash was found to hold, and the match's seed, for the next action
        (``api.services.acting``: decided before its one transaction checks both again)."""
        self.seats_held[(match_id, token_hash)] = (seat, seed)
        while len(self.seats_held) > SEATS_REMEMBERED:
            del self.seats_held[next(iter(self.seats_held))]

    def seat_held(self, match_id: str, token_hash: str) -> tuple[int, str] | None:
        """What ``remember_seat`` kept for this match and token hash (None: nothing)."""
        return self.seats_held.get((match_id, token_hash))

    def authenticate(
        self,
        uow: UnitOfWork,
        match_id: str,
        token: str | None,
        required: bool = False,
        seats: Sequence[SeatRecord] | None = None,
    ) -> int | None:
        """The seat ``token`` holds in this match (None: a spectator, unless ``required``).

        ``seats``: the match's seats as read in ``uow`` already (else they are read here)."""
        if token is None:
            if required:
                raise errors.InvalidToken("this action needs the seat's token: Authorization: Bearer <token>")
            return None
        candidate = tokens.hash_token(token)
        found = None
        if seats is None:
            seats = uow.seats.list_for_match(match_id)
        for seat in seats:  # every seat compared: no early exit to time
            if tokens.matches(seat.token_hash, candidate):
                found = seat.seat
        if found is not None:
            return found
        if uow.seats.token_hash_exists(candidate):
            raise errors.WrongMatch("this token belongs to a seat of another match")
        raise errors.InvalidToken("unknown seat token")

    def seat(self, uow: UnitOfWork, match_id: str, token: str | None) -> int:
        """The seat that ``token`` holds (a token is required)."""
        seat = self.authenticate(uow, match_id, token, required=True)
        assert seat is not None  # required=True raises instead of answering None
        return seat

    # --- what a client is shown ------------------------------------------------------------------
    def seat_view(
        self, snap: Snapshot, seat: int | None, match_id: str, deadline: datetime | None, head: ChainHead
    ) -> dict[str, Any]:
        """What ``seat`` (None: a spectator) may see of the match at ``snap``, with the chain head
        at that seq (``head``, read in the same transaction), for the client to pin."""
        assert head.seq == snap.seq, f"chain head at {head.seq} shown with the state at {snap.seq}"
        out = view(snap.state, seat)
        if seat is not None and snap.state.seats[seat].get("type") == BOT_SEAT:
            out["legal_actions"] = []  # handed to a computer, which alone moves for it (acting.py)
        out["seq"] = snap.seq
        out["match_id"] = match_id
        out["chain_head"] = head.to_dict()
        return show_deadline(out, snap.state, deadline)

    def summary(self, record: MatchRecord, snap: Snapshot) -> dict[str, Any]:
        """The public summary of the match at ``snap`` (no seat's secrets)."""
        state = snap.state
        return {
            "id": record.id,
            "preset": record.preset,
            "seq": snap.seq,
            "seed_commitment": record.seed_commitment,
            "rated": record.rated,
            "rules": state.rules.to_dict(),
            "created_at": record.created_at.isoformat(),
            **show_deadline(public_summary(state), state, record.deadline_at),
        }

    # --- moving a match on ------------------------------------------------------------------------
    def advance(
        self, seed: str, snap: Snapshot, events: Iterable[Event], budget: int | None = None
    ) -> tuple[Snapshot, list[Row]]:
        """Fold ``events``, then let the computer players move until a remote seat must act or
        ``budget`` moves are played. By default a table with a person at it gets the inline
        budget and an all-bot table none: the autoplay runner plays those, paced."""
        decided = list(events)
        appended: list[Row] = []
        if decided:
            snap, appended = fold_decided(snap, decided)
        if budget is None:
            budget = 0 if is_all_bots(snap.state) else self.limits.inline_bot_moves
        while budget > 0:
            # the question the fairness check asks again (api.bots.audit): one function for both
            turn = bot_turn(snap.state, snap.hand_log, seed, snap.seq)
            if turn is None:
                break
            # at least the level's floor, however easy the choice (timing must not tell the hand)
            action = self.reply_floor.timed(turn.level, partial(self.offload, turn.choose))
            snap, moved = fold_decided(snap, turn.events(snap.state, action, seed))
            appended += moved
            budget -= 1
        return snap, appended

    def append(
        self, uow: UnitOfWork, match_id: str, expected: int, appended: Sequence[Row], snap: Snapshot
    ) -> datetime | None:
        """Append ``appended`` and the match's new summary; answers the turn clock's new deadline.

        Also schedules the autoplay runner when a computer player is still owed a move:
        at once for a table with a person waiting, after the pace for an all-bot table."""
        if snap.seq > self.limits.max_events_per_match:
            raise errors.EventLimitReached(
                f"a match's log may hold at most {self.limits.max_events_per_match} events",
                limit=self.limits.max_events_per_match,
            )
        now = self.now()
        deadline = deadline_after(snap.state, now)
        bots_due = None
        if bots_owed(snap.state):
            bots_due = now + timedelta(seconds=self.limits.autoplay_pace) if is_all_bots(snap.state) else now
        try:
            uow.events.append(
                match_id,
                expected,
                [without_seq(r) for r in appended],
                match_fields={
                    "status": snap.state.status,
                    "summary": public_summary(snap.state),
                    "deadline_at": deadline,
                    "bots_due_at": bots_due,
                },
            )
        except StoreStaleSeq as exc:
            raise errors.StaleSeq(expected, exc.current_seq) from None
        owner = self.portal_of(uow, match_id)
        record_effects(uow, owner.portal_id, match_id, appended, snap, now, rated=owner.rated)
        return deadline

    def portal_of(self, uow: UnitOfWork, match_id: str) -> Ownership:
        """The portal that owns the match (None: the public space) and whether it is rated; they
        never change, so they are remembered per process and an append costs no extra read."""
        if match_id in self.portals:
            return self.portals[match_id]
        record = uow.matches.get(match_id)
        owner = Ownership(None, False) if record is None else Ownership(record.portal_id, record.rated)
        if len(self.portals) >= PORTALS_REMEMBERED:
            self.portals.pop(next(iter(self.portals)))  # the oldest entry
        self.portals[match_id] = owner
        return owner

    def committed(self, match_id: str, snap: Snapshot) -> None:
        """After a commit: remember the new state and wake whoever waits on this match. A match is
        committed as ended once (nothing is appended after its end): that commit counts it."""
        self.cache.put(match_id, snap)
        self.waiter.announce(match_id, snap.seq)
        if snap.state.status == ENDED:
            metrics.MATCHES_ENDED.labels(snap.state.rules.preset).inc()


def is_all_bots(state: MatchState) -> bool:
    return all(s.get("type") == BOT_SEAT for s in state.seats)


def bots_owed(state: MatchState) -> bool:
    """A computer player is to act now (to move, or to call muggins out of turn)."""
    return bot_to_act(state) is not None
