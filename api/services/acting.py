"""A seat's action, and the computer players' moves that no request plays.

Both are decided outside the write transaction, on the state as read (the computer players'
replies included), then appended under the match's lock if nobody appended in between
(else decided again): the write lock is held for the appends only.
"""

from __future__ import annotations

from datetime import timedelta

from api import metrics
from api.rules import BOT_SEAT, ENDED, RulesError, decide, parse_action, redact_event

from . import errors, tokens
from .clocks import run_due
from .commands import Act, Answer, ClaimDueBots, PlayBots
from .flow import MatchFlow
from .idempotency import PURGE_EVERY, RETENTION, Keyed, Replay, StoredAnswer, check_same_request
from .ports import UnitOfWork
from .snapshots import Row, Snapshot, without_seq

#: An action decided on a state another writer moved past is decided again, this many times at most.
ACT_ATTEMPTS = 5
#: How long the autoplay runner's claim on a match lasts: longer than any step, and a dead
#: runner's claims lapse after it.
BOTS_LEASE = timedelta(seconds=30)


def act_handler(command: Act, flow: MatchFlow) -> Answer:
    """The events the action appended (as the seat sees them) and the seat's new view.

    With ``keyed`` the answer is stored in the same transaction; a retry raises ``Replay``."""
    match_id, keyed = command.match_id, command.keyed
    run_due(flow, match_id)  # a turn that ran out is played first, committed on its own
    token_hash = tokens.hash_token(command.token or "")
    answered = act_in_one_transaction(command, flow, token_hash)
    if answered is not None:
        return answered
    for _attempt in range(ACT_ATTEMPTS):
        with flow.store.unit_of_work(readonly=True) as uow:
            record, held = flow.record_and_seat(uow, match_id, command.token, required=True)
            assert held is not None  # required=True raises instead of answering None
            seat = held
            flow.remember_seat(match_id, token_hash, seat, record.seed)
            if keyed is not None and (seen := uow.idempotency.get(token_hash, keyed.key)) is not None:
                raise Replay(check_same_request(seen, keyed, match_id))
            snap = flow.snapshot(uow, record)
        try:
            action = parse_action(seat, command.action)  # a malformed action is refused as such first
            if snap.state.seats[seat].get("type") == BOT_SEAT:
                # its computer moves for it, as the fairness check asks it again (api.bots.turns)
                raise errors.SeatPlayedByComputer(
                    f"seat {seat} is played by a computer since its turns timed out: it moves for the seat"
                )
            if command.expected_seq is not None and command.expected_seq != snap.seq:
                raise errors.StaleSeq(command.expected_seq, snap.seq)
            if command.if_match_seq is not None and command.if_match_seq != snap.seq:
                raise errors.PreconditionFailed(command.if_match_seq, snap.seq)
            decided = decide(snap.state, action, record.seed)
        except (RulesError, errors.ServiceError) as refusal:
            if keyed is not None:
                remember_refusal(flow, token_hash, keyed, match_id, refusal)
            raise
        after, appended = flow.advance(record.seed, snap, decided)
        with flow.store.unit_of_work() as uow:
            locked = flow.lock(uow, match_id)
            if keyed is not None and (seen := uow.idempotency.get(token_hash, keyed.key)) is not None:
                raise Replay(check_same_request(seen, keyed, match_id))  # a duplicate got here first
            if locked.last_seq != snap.seq:
                continue  # another writer moved the match: decide again on its state
            result = append_action(flow, uow, command, token_hash, seat, snap, appended, after)
        return done(flow, command, after, result)
    raise errors.StaleSeq(snap.seq, flow.last_seq(match_id))


def act_in_one_transaction(command: Act, flow: MatchFlow, token_hash: str) -> Answer | None:
    """The action decided on the cached state with the seat this token held at the last action,
    then checked and appended in the write transaction alone (no read transaction before it).

    None, with nothing written, when anything is not as it was: no cached state or seat, a
    refusal (the read path then refuses in its order: the match, the token, a stored key, the
    action), another writer's append, or the token no longer this seat's. The write transaction
    locks and authenticates as the read path's reads do, and checks the stored key before
    appending, as the read path's write transaction does."""
    match_id, keyed = command.match_id, command.keyed
    snap, held = flow.cache.get(match_id), flow.seat_held(match_id, token_hash)
    if snap is None or held is None or command.token is None:
        return None
    seat, seed = held
    try:
        action = parse_action(seat, command.action)
        if snap.state.seats[seat].get("type") == BOT_SEAT:
            return None
        if command.expected_seq not in (None, snap.seq) or command.if_match_seq not in (None, snap.seq):
            return None
        decided = decide(snap.state, action, seed)
    except (RulesError, errors.ServiceError):
        return None
    after, appended = flow.advance(seed, snap, decided)
    with flow.store.unit_of_work() as uow:
        found = uow.matches.get_with_seats(match_id, for_update=True)
        if found is None:
            return None
        locked, seats = found
        if locked.last_seq != snap.seq or locked.seed != seed:
            return None  # another writer moved the match: the read path decides again
        try:
            if flow.authenticate(uow, match_id, command.token, required=True, seats=seats) != seat:
                return None
        except errors.ServiceError:
            return None  # the read path answers the token's refusal
        if keyed is not None and (seen := uow.idempotency.get(token_hash, keyed.key)) is not None:
            raise Replay(check_same_request(seen, keyed, match_id))  # as the read path's first look
        result = append_action(flow, uow, command, token_hash, seat, snap, appended, after)
    return done(flow, command, after, result)


def append_action(
    flow: MatchFlow,
    uow: UnitOfWork,
    command: Act,
    token_hash: str,
    seat: int,
    snap: Snapshot,
    appended: list[Row],
    after: Snapshot,
) -> Answer:
    """Append what was decided on ``snap`` (locked in ``uow`` at its seq), store the key's
    answer with it, commit; the answer."""
    match_id, keyed = command.match_id, command.keyed
    deadline = flow.append(uow, match_id, snap.seq, appended, after)
    result = {
        "match_id": match_id,
        "seat": seat,
        "seq": after.seq,
        "events": [{"seq": row["seq"], **redact_event(without_seq(row), seat)} for row in appended],
        "view": flow.seat_view(after, seat, match_id, deadline, uow.events.head(match_id)),
    }
    if keyed is not None:
        remember(flow, uow, token_hash, keyed, match_id, StoredAnswer(200, keyed.render_result(result)))
    uow.commit()
    return result


def done(flow: MatchFlow, command: Act, after: Snapshot, result: Answer) -> Answer:
    """After the commit: the state cached, the waiters woken, the action counted."""
    flow.committed(command.match_id, after)
    metrics.ACTIONS_APPLIED.labels(after.state.rules.preset, str(command.action["type"])).inc()
    return result


def remember(
    flow: MatchFlow, uow: UnitOfWork, token_hash: str, keyed: Keyed, match_id: str, answer: StoredAnswer
) -> bool:
    """Store the first answer to a key in ``uow`` (False: one was stored first)."""
    flow.keys_stored += 1
    if flow.keys_stored % PURGE_EVERY == 0:
        uow.idempotency.purge(RETENTION)
    return uow.idempotency.remember(token_hash, keyed.key, match_id, keyed.fingerprint, answer.status, answer.to_body())


def remember_refusal(flow: MatchFlow, token_hash: str, keyed: Keyed, match_id: str, refusal: Exception) -> None:
    """A refusal appends nothing, so it is stored on its own (first answer wins).

    If a first answer is there already, that is the answer: a duplicate that looked for the key
    just before the first request committed, then read the state just after, refuses a move
    already made (not your turn); it replays what the first got instead."""
    status, text = keyed.render_refusal(refusal)
    with flow.store.unit_of_work() as uow:
        if remember(flow, uow, token_hash, keyed, match_id, StoredAnswer(status, text, problem=True)):
            uow.commit()
            return
        seen = uow.idempotency.get(token_hash, keyed.key)
    if seen is not None:
        raise Replay(check_same_request(seen, keyed, match_id)) from refusal


def claim_due_bots_handler(command: ClaimDueBots, flow: MatchFlow) -> list[str]:
    """The matches whose computer players are owed a move now, up to ``batch``, claimed for
    ``BOTS_LEASE`` (other runners skip them meanwhile). Nothing due: no write transaction.
    The read that asks also sets the backlog's gauges: how many are due, the oldest since when."""
    now = flow.now()
    with flow.store.unit_of_work(readonly=True) as uow:
        due, oldest = uow.matches.bots_backlog(now)
    metrics.AUTOPLAY_BACKLOG.set(due)
    metrics.AUTOPLAY_LAG.set(0.0 if oldest is None else max(0.0, (now - oldest).total_seconds()))
    if not due:
        return []
    with flow.store.unit_of_work() as uow:
        claimed = uow.matches.claim_due_bots(now, now + BOTS_LEASE, command.batch)
        uow.commit()
    return list(claimed)


def play_bots_handler(command: PlayBots, flow: MatchFlow) -> tuple[int, bool]:
    """Up to ``max_moves`` computer moves owed at this table, decided outside any transaction,
    appended in a short one if the match is still where they were decided (else nothing: whoever
    moved it rescheduled it). Answers how many events were appended, and whether it has ended."""
    match_id = command.match_id
    with flow.store.unit_of_work(readonly=True) as uow:
        record = flow.record(uow, match_id)
        snap = flow.snapshot(uow, record)
    after, appended = flow.advance(record.seed, snap, [], command.max_moves)
    with flow.store.unit_of_work() as uow:
        locked = flow.lock(uow, match_id)
        if locked.last_seq != snap.seq:
            return 0, False
        if not appended:
            uow.matches.set_bots_due(match_id, None)  # nothing owed after all: off the queue
            uow.commit()
            return 0, False
        try:
            flow.append(uow, match_id, snap.seq, appended, after)
        except errors.EventLimitReached:
            uow.rollback()
            uow.matches.set_bots_due(match_id, None)  # stays as it is; a person can see why
            uow.commit()
            raise
        uow.commit()
    flow.committed(match_id, after)
    return len(appended), after.state.status == ENDED
