"""The use cases' commands: what a caller asks, as small frozen values.

Each command names what it answers (``Command[R]``); ``api.services.bus`` hands it to its one
handler with the dependencies ``api.bootstrap`` wired. The HTTP layer builds these from requests,
the CLI, the autoplay runner and the webhook worker from their own inputs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, TypeVar

from api.store.records import PortalRecord

from .idempotency import Keyed
from .waiting import Client

R = TypeVar("R", covariant=True)

#: A use case's answer as the HTTP layer serialises it (shapes: the schemas beside each resource in ``api.http``).
Answer = dict[str, Any]

#: Rows per ``/audit`` page: by default, and at most.
AUDIT_PAGE, MAX_AUDIT_PAGE = 1000, 5000
#: Events per ``/events`` page at most.
MAX_EVENTS_PAGE = 1000


class Command(Generic[R]):
    """A request to the use cases answering an ``R``."""


@dataclass(frozen=True, slots=True)
class Caller:
    """Who asks: a portal (by its id) or a keyless client of the public space (``None``)."""

    portal_id: str | None = None

    def owns(self, portal_id: str | None) -> bool:
        """May this caller see the player ids of a match of ``portal_id``? Only its portal may."""
        return self.portal_id is not None and self.portal_id == portal_id

    def may_see(self, portal_id: str | None) -> bool:
        """Does a match of ``portal_id`` exist for this caller? A portal key sees its own and
        the public space's matches, never another portal's; a keyless caller (a player with a
        seat token, a spectator given the match's id) sees any match by its id."""
        return self.portal_id is None or portal_id is None or portal_id == self.portal_id


PUBLIC = Caller()  # a keyless client


# --- portals (api.services.portals) ------------------------------------------------------
@dataclass(frozen=True)
class IdentifyPortal(Command[PortalRecord]):
    """The portal a key belongs to (an unknown or revoked key is refused)."""

    key: str = field(repr=False)


@dataclass(frozen=True)
class CreatePortal(Command[Answer]):
    name: str
    create_limit: str | None = None


@dataclass(frozen=True)
class AddPortalKey(Command[Answer]):
    portal: str  # its name or id


@dataclass(frozen=True)
class RevokePortalKey(Command[Answer]):
    portal: str
    key_id: str


@dataclass(frozen=True)
class SetPortalLimit(Command[Answer]):
    portal: str
    create_limit: str | None


@dataclass(frozen=True)
class GetPortal(Command[Answer]):
    portal: str  # its name or id


@dataclass(frozen=True)
class ListPortals(Command[list[Answer]]):
    """Every portal with its keys' ids and dates (never a key)."""


#: A seat's name at most, in characters (a name the API is sent, or one matchmaking makes of a
#: ``player_ref``).
SEAT_NAME_MAX = 40


@dataclass(frozen=True)
class SeatSpec:
    """One seat of a match to create: ``type`` is a seat kind (``api.rules.SEAT_TYPES``)."""

    name: str
    type: str
    level: str | None = None
    client_seed: str | None = None
    player_ref: str | None = None  # the portal's id for the player (lobby)
    reserved_for: str | None = None  # open seats of a rematch: the old seat token's hash


# --- changing a match ------------------------------------------------------------------------
@dataclass(frozen=True)
class CreateMatch(Command[Answer]):
    """Create a match; ``creator`` is the client's address (it may run only so many all-bot
    matches at once); ``seed`` is a client-chosen server seed (only where the server allows)."""

    preset: str
    overrides: dict[str, Any] | None
    seats: tuple[SeatSpec, ...]
    seed: str | None = None
    rematch_of: str | None = None
    creator: str | None = None
    caller: Caller = PUBLIC  # the portal that will own it (player_refs need one)
    rated: bool = False  # its end updates its players' ratings (api.services.ratings)
    # False for a tournament's match: the tournament's work, bounded by its entrants, is not
    # counted against its portal's cap on unfinished all-bot matches.
    capped: bool = True
    # The server's own seed chosen by a use case, not a client (a duplicate round's matches share
    # one: api.services.tournaments); None draws a fresh one. Never from a request.
    server_seed: str | None = None


@dataclass(frozen=True)
class ClaimSeat(Command[Answer]):
    """Take an open seat; ``token``: a rematch seat is kept for the old seat's token."""

    match_id: str
    seat: int
    name: str
    client_seed: str | None = None
    player_ref: str | None = None
    token: str | None = None
    caller: Caller = PUBLIC  # a player_ref needs the match's portal


@dataclass(frozen=True)
class Act(Command[Answer]):
    """A seat's action. ``expected_seq`` (body) refuses with StaleSeq, ``if_match_seq`` (header)
    with PreconditionFailed; with ``keyed`` the answer is stored for retries of the same key."""

    match_id: str
    token: str | None
    action: dict[str, Any]
    expected_seq: int | None = None
    if_match_seq: int | None = None
    keyed: Keyed | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Rematch(Command[tuple[Answer, bool]]):
    """The rematch of an ended match, made now or before; answers it and whether it is new."""

    match_id: str
    token: str | None
    caller: Caller = PUBLIC


@dataclass(frozen=True)
class PlayBots(Command[tuple[int, bool]]):
    """One step of the autoplay runner: up to ``max_moves`` owed computer moves at one table;
    answers the events appended and whether the match has ended."""

    match_id: str
    max_moves: int


@dataclass(frozen=True)
class ClaimDueBots(Command[list[str]]):
    """The autoplay runner's claim: up to ``batch`` matches whose computer players are owed a move
    now, leased to this runner for a while (the others skip them); answers their ids."""

    batch: int


@dataclass(frozen=True)
class SweepClocks(Command[int]):
    """Play every turn whose clock ran out, once; answers how many."""


# --- reading ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class GetSummary(Command[Answer]):
    match_id: str
    caller: Caller = PUBLIC  # its portal is shown the seats' player_refs


@dataclass(frozen=True)
class GetView(Command[Answer]):
    """What the token's seat (no token: a spectator) may see."""

    match_id: str
    token: str | None


@dataclass(frozen=True)
class GetRenderedView(Command[Any]):
    """``GetView``'s answer as ``render`` makes it (the HTTP layer: its bytes and ETag), made
    once per match, seq, chain head, deadline and seat in a process and then repeated
    (``api.services.rendered``). What ``render`` answers must never be mutated."""

    match_id: str
    token: str | None
    render: Callable[[Answer], Any]


@dataclass(frozen=True)
class GetEvents(Command[Answer]):
    """The log after ``after`` as the seat sees it; with ``wait``, held up to that many seconds for
    an event. ``client`` says who waits (its address's cap, how to tell it has gone)."""

    match_id: str
    token: str | None
    after: int = 0
    limit: int = 100
    wait: float = 0
    client: Client | None = field(default=None, compare=False)


@dataclass(frozen=True)
class GetAudit(Command[Answer]):
    """One page of an ended match's unredacted log."""

    match_id: str
    after: int = 0
    limit: int = AUDIT_PAGE


@dataclass(frozen=True)
class GetGameRecord(Command[Answer]):
    """The match as a record (docs/records.md): after the end the whole of it; during play the
    token's seat's own, redacted as its view is. ``site`` names the server in the record."""

    match_id: str
    token: str | None
    site: str = "?"
    annotate: bool = False  # with the analysis as annotations: after the end, once it is made


@dataclass(frozen=True)
class GetFairness(Command[Answer]):
    """The fairness check of an ended match (made once, then read)."""

    match_id: str


@dataclass(frozen=True)
class GetAnalysis(Command[Answer]):
    """The analysis after an ended match (issue 38), once the runner has made it. ``annotate``:
    also the match's record with the analysis as annotations (docs/records.md)."""

    match_id: str
    site: str = "?"
    annotate: bool = False


@dataclass(frozen=True)
class GetHint(Command[Answer]):
    """The expert's values of the token's seat's choices now, from what the seat knows: offered in
    an unrated match where every other seat is a computer player."""

    match_id: str
    token: str | None


@dataclass(frozen=True)
class AnalysisJob:
    """An ended match to analyse: its whole log (event dicts in seq order) and revealed seed."""

    match_id: str
    log: list[dict[str, Any]]
    seed: str
    attempt: int = 1  # this claim's number (``analyses.ANALYSIS_ATTEMPTS`` at most)


@dataclass(frozen=True)
class ClaimDueAnalyses(Command[list[AnalysisJob]]):
    """A runner's claim: up to ``limit`` ended matches without an analysis, leased to it (the others
    skip them meanwhile), each with what its analysis is made from."""

    limit: int


@dataclass(frozen=True)
class StoreAnalysis(Command[None]):
    match_id: str
    analysis: dict[str, Any]


@dataclass(frozen=True)
class AnalysisAttemptFailed(Command[None]):
    """A claimed analysis that failed: its claim is given back (the attempt stays counted)."""

    match_id: str


@dataclass(frozen=True)
class ListMatches(Command[Answer]):
    status: str | None = None
    limit: int = 20
    cursor: str | None = None
    preset: str | None = None
    has_open_seat: bool | None = None
    player_ref: str | None = None
    caller: Caller = PUBLIC  # whose space is listed: its portal's, or the public one


@dataclass(frozen=True)
class GetPlayerStats(Command[Answer]):
    player_ref: str
    caller: Caller  # the portal whose player this is


# --- ratings (api.services.leaderboards): each of the calling portal ---------------------------
@dataclass(frozen=True)
class GetLeaderboard(Command[Answer]):
    """The family's rated players, highest ordinal first, in pages (``cursor``: ``next_cursor``)."""

    family: str
    caller: Caller
    limit: int = 20
    cursor: str | None = None


@dataclass(frozen=True)
class GetPlayerRatings(Command[Answer]):
    player_ref: str
    caller: Caller


@dataclass(frozen=True)
class GetRatingHistory(Command[Answer]):
    """The player's rated matches in ``family``, newest first, in pages."""

    player_ref: str
    family: str
    caller: Caller
    limit: int = 20
    cursor: str | None = None


@dataclass(frozen=True)
class GetBotRatings(Command[Answer]):
    """The computer players' fixed public ratings, per family and level."""


@dataclass(frozen=True)
class GetMatchPortal(Command[str | None]):
    """The portal that owns a match (None: the public space); UnknownMatch if there is none."""

    match_id: str


# --- webhooks (api.services.webhooks): each of a portal, by its id -------------------------------
@dataclass(frozen=True)
class AddWebhook(Command[Answer]):
    """A new endpoint; ``events`` None: every event type. Loopback, private and link-local
    destinations only where the server allows them (``allow_private_addresses``)."""

    portal_id: str
    url: str
    events: tuple[str, ...] | None = None
    allow_private_addresses: bool = False
    resolve: Callable[[str, int], list[str]] | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class ListWebhooks(Command[Answer]):
    portal_id: str


@dataclass(frozen=True)
class GetWebhook(Command[Answer]):
    portal_id: str
    webhook_id: str


@dataclass(frozen=True)
class RemoveWebhook(Command[Answer]):
    portal_id: str
    webhook_id: str


@dataclass(frozen=True)
class RotateWebhookSecret(Command[Answer]):
    """A new secret; the replaced one signs too for ``overlap_seconds`` (None: the server's setting)."""

    portal_id: str
    webhook_id: str
    overlap_seconds: float | None = None


@dataclass(frozen=True)
class ListDeliveries(Command[Answer]):
    """The endpoint's delivery log, newest first, in pages (``cursor``: a page's ``next_cursor``)."""

    portal_id: str
    webhook_id: str
    limit: int = 20
    cursor: str | None = None


@dataclass(frozen=True)
class ReplayDelivery(Command[Answer]):
    portal_id: str
    webhook_id: str
    delivery_id: str


@dataclass(frozen=True)
class DeliverWebhooks(Command[int]):
    """One round of the webhook worker: claim the due deliveries and attempt each once
    (``api.services.webhook_delivery``); answers how many were attempted."""


# --- matchmaking (api.services.matchmaking): player tokens, seeks, challenges, player events ----
@dataclass(frozen=True, slots=True)
class Seeker:
    """Who acts on the player endpoints: a portal's player (``player_ref``, by a player token or
    the portal's key), the portal itself (key, no ``player_ref``), or a keyless client of the
    public space (neither); ``secret``: an anonymous seek's own secret, where one is sent."""

    portal_id: str | None = None
    player_ref: str | None = None
    secret: str | None = field(default=None, repr=False)


@dataclass(frozen=True, slots=True)
class TokenPlayer:
    """The portal player a live player token acts as, with its portal: the token spends that
    portal's creation budget, as the portal's key does (docs/portals.md)."""

    portal: PortalRecord
    player_ref: str

    @property
    def seeker(self) -> Seeker:
        return Seeker(self.portal.id, self.player_ref)


@dataclass(frozen=True)
class IdentifyPlayer(Command[TokenPlayer]):
    """The portal player a player token acts as (an unknown or revoked one is refused)."""

    token: str = field(repr=False)


@dataclass(frozen=True)
class IssuePlayerToken(Command[Answer]):
    portal_id: str
    player_ref: str
    label: str | None = None


@dataclass(frozen=True)
class ListPlayerTokens(Command[Answer]):
    portal_id: str
    player_ref: str


@dataclass(frozen=True)
class RevokePlayerToken(Command[None]):
    portal_id: str
    player_ref: str
    token_id: str


@dataclass(frozen=True)
class CreateSeek(Command[Answer]):
    """Join the queue; paired at once when enough compatible seeks wait."""

    seeker: Seeker
    preset: str
    overrides: dict[str, Any] | None
    players: int
    ttl_seconds: int
    rated: bool = False
    rating_min: float | None = None
    rating_max: float | None = None
    fill_after_seconds: int | None = None
    fill_level: str | None = None


@dataclass(frozen=True)
class GetSeek(Command[Answer]):
    """A seek as its owner sees it (with its seat's token once paired); ``wait``: held until it
    leaves ``waiting`` or that many seconds pass."""

    seek_id: str
    seeker: Seeker
    wait: float = 0
    client: Client | None = field(default=None, compare=False)


@dataclass(frozen=True)
class CancelSeek(Command[Answer]):
    seek_id: str
    seeker: Seeker


@dataclass(frozen=True)
class CreateChallenge(Command[Answer]):
    """A portal player challenges others of its portal (``opponents``), with computer players
    (``bots``: their levels) in the remaining seats."""

    challenger: Seeker
    preset: str
    overrides: dict[str, Any] | None
    opponents: tuple[str, ...]
    ttl_seconds: int
    bots: tuple[str, ...] = ()
    rated: bool = False


@dataclass(frozen=True)
class GetChallenge(Command[Answer]):
    challenge_id: str
    player: Seeker


@dataclass(frozen=True)
class AnswerChallenge(Command[Answer]):
    """Accept (``accept``) or decline a challenge one is named in."""

    challenge_id: str
    player: Seeker
    accept: bool


@dataclass(frozen=True)
class CancelChallenge(Command[Answer]):
    challenge_id: str
    player: Seeker


@dataclass(frozen=True)
class GetPlayerEvents(Command[Answer]):
    """A portal player's events after ``after``; with ``wait``, held up to that many seconds for one."""

    player: Seeker
    after: int = 0
    limit: int = 100
    wait: float = 0
    client: Client | None = field(default=None, compare=False)


@dataclass(frozen=True)
class SweepMatchmaking(Command[int]):
    """Expire seeks and challenges whose time is up and fill due seeks with computer players, once;
    answers how many it changed."""


# --- tournaments (api.services.tournaments) ------------------------------------------------
@dataclass(frozen=True)
class MemberSpec:
    """One seat's worth of an entrant: a portal player (``player_ref``) or a computer (``level``)."""

    player_ref: str | None = None
    level: str | None = None


@dataclass(frozen=True)
class CreateTournament(Command[Answer]):
    """A new tournament of the caller's portal (``api.tournaments.Settings`` says what each is)."""

    caller: Caller
    format: str
    preset: str
    rules: dict[str, Any] | None
    turn_seconds: int
    rounds: int | None = None
    teams: bool = False  # partner teams of two (a 4-seat partner game), else players alone
    tiebreaks: tuple[str, ...] = ("buchholz", "sonneborn_berger", "win_margin")
    rated: bool = False
    starts_at: datetime | None = None
    max_entrants: int | None = None
    rating_min: float | None = None
    rating_max: float | None = None
    bot_levels: tuple[str, ...] = ()
    duration_minutes: int | None = None  # an arena's
    duplicate: bool = False  # a Swiss's or round robin's: duplicate deals
    name: str | None = None  # shown to players; None: unnamed


@dataclass(frozen=True)
class GetTournament(Command[Answer]):
    """The tournament and its standings; ``viewer`` a player of its portal or the portal."""

    tournament_id: str
    viewer: Seeker


@dataclass(frozen=True)
class GetTournamentRounds(Command[Answer]):
    """Every round's tables, results and matches; the viewer's own seat tokens shown to it."""

    tournament_id: str
    viewer: Seeker


@dataclass(frozen=True)
class GetStandings(Command[Answer]):
    """One page of the standings: ``limit`` rows from the ``offset``-th (0 first)."""

    tournament_id: str
    viewer: Seeker
    offset: int = 0
    limit: int = 100


@dataclass(frozen=True)
class GetCrosstable(Command[Answer]):
    tournament_id: str
    viewer: Seeker


@dataclass(frozen=True)
class GetTournamentFairness(Command[Answer]):
    """A duplicate tournament's proof that every table of a round got the same deals."""

    tournament_id: str
    viewer: Seeker


@dataclass(frozen=True)
class GetTournamentEvents(Command[Answer]):
    """The tournament's own log, with its hash chain."""

    tournament_id: str
    viewer: Seeker
    after: int = 0
    limit: int = 1000


@dataclass(frozen=True)
class RegisterEntrant(Command[Answer]):
    """Enter: a player itself (``who`` a player, no ``members``), or the portal entering its
    players, bots or partner teams (``members``)."""

    tournament_id: str
    who: Seeker
    name: str | None = None
    members: tuple[MemberSpec, ...] = ()


@dataclass(frozen=True)
class WithdrawEntrant(Command[Answer]):
    """Withdraw: a player its own entry, the portal any (``entrant_id``)."""

    tournament_id: str
    who: Seeker
    entrant_id: str | None = None


@dataclass(frozen=True)
class ChangeTournament(Command[Answer]):
    """The portal's word: ``start``, ``pause``, ``resume``, ``close`` (an arena's pairing, now)
    or ``cancel`` (with ``reason``)."""

    tournament_id: str
    caller: Caller
    change: str
    reason: str = "cancelled by the portal"


@dataclass(frozen=True)
class SweepTournaments(Command[int]):
    """What time alone moves on: tournaments at their start time, arenas at their end of
    pairing, rounds due to be paired."""
