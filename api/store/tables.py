"""The database schema, as SQLAlchemy Core tables.

Only migrations create these tables (``migrations/versions``); this module is
what the store queries with and what the migration test compares against.

Timestamps are UTC, written by the store (not by database defaults), and come
back as timezone-aware ``datetime`` objects on every backend.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
    TypeDecorator,
    false,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.engine import Dialect

from api.rules import SEAT_TYPES, STATUSES

NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

metadata = MetaData(naming_convention=NAMING_CONVENTION)

#: JSON on SQLite, JSONB on PostgreSQL.
JSONDocument = JSON().with_variant(JSONB(), "postgresql")

GENESIS_HASH = "0" * 64

# What the CHECK constraints below allow (``api.store.memory`` enforces the same).
IDEMPOTENCY_STATES = ("in_flight", "done")
DELIVERY_STATUSES = ("pending", "delivered", "failed")
SEEK_STATUSES = ("waiting", "paired", "expired", "canceled")
CHALLENGE_STATUSES = ("pending", "started", "declined", "canceled", "expired")


class UTCDateTime(TypeDecorator[datetime]):
    """An aware UTC ``datetime`` in, an aware UTC ``datetime`` out.

    PostgreSQL stores ``timestamptz``; SQLite stores naive UTC text (which
    sorts correctly, so cursor paging works on both).
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to the store; use UTC-aware values")
        value = value.astimezone(UTC)
        if dialect.name == "sqlite":
            return value.replace(tzinfo=None)
        return value

    def process_result_value(self, value: datetime | str | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if isinstance(value, str):  # pragma: no cover - defensive
            value = datetime.fromisoformat(value)
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


def _in(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


matches = Table(
    "matches",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("created_at", UTCDateTime(), nullable=False),
    Column("updated_at", UTCDateTime(), nullable=False),
    Column("status", String(16), nullable=False),
    Column("preset", String(64), nullable=False),
    Column("players", Integer, nullable=False),
    Column("seed", String(128), nullable=False),
    Column("seed_commitment", String(128), nullable=False),
    Column("last_seq", Integer, nullable=False, server_default="0"),
    Column("summary", JSONDocument, nullable=False),
    Column("last_hash", String(64), nullable=False, server_default=GENESIS_HASH),
    # Turn clocks: when the seat to move times out (NULL: no clock running). The sweep
    # finds overdue tables through the index.
    Column("deadline_at", UTCDateTime(), nullable=True),
    # The match this one is the rematch of; unique, so a second rematch of the same
    # match collides here instead of making two.
    Column("rematch_of", String(32), nullable=True),
    # The autoplay queue (api.services.autoplay): when a computer player is owed a move
    # that no request played (NULL: none), and the runner's claim on the match.
    Column("bots_due_at", UTCDateTime(), nullable=True),
    Column("autoplay_lease_until", UTCDateTime(), nullable=True),
    # Who created it (a keyed hash of the client address) and whether every seat is a
    # computer player: the per-address cap on running all-bot matches counts these.
    Column("creator_key", String(64), nullable=True),
    Column("all_bots", Boolean, nullable=False, server_default=false()),
    # The portal whose key created it (NULL: the public space of keyless clients). Lists,
    # player ids and statistics are scoped to it (api.services.portals).
    Column("portal_id", String(32), ForeignKey("portals.id"), nullable=True),
    # A rated match updates its players' ratings when it ends (api.services.ratings).
    Column("rated", Boolean, nullable=False, server_default=false()),
    CheckConstraint(_in("status", STATUSES), name="status"),  # the rules' statuses: a new one needs a migration
    CheckConstraint("players >= 1", name="players"),
    CheckConstraint("last_seq >= 0", name="last_seq"),
    Index(None, "status", "created_at", "id"),
    Index(None, "created_at", "id"),
    Index(None, "deadline_at"),
    Index(None, "rematch_of", unique=True),
    Index(None, "bots_due_at"),
    Index(None, "creator_key", "status"),
    Index(None, "status", "updated_at", "id"),
    Index(None, "portal_id", "created_at", "id"),
)

seats = Table(
    "seats",
    metadata,
    Column(
        "match_id",
        String(32),
        ForeignKey("matches.id", ondelete="CASCADE"),
        nullable=False,
    ),
    Column("seat", Integer, nullable=False),
    Column("name", String(64), nullable=False),
    Column("type", String(16), nullable=False),
    Column("level", String(32), nullable=True),
    Column("token_hash", String(64), nullable=True),
    Column("player_ref", String(128), nullable=True),
    # A rematch's open seat kept for the old seat's token (its SHA-256): only it may claim.
    Column("reserved_for", String(64), nullable=True),
    PrimaryKeyConstraint("match_id", "seat"),
    CheckConstraint(_in("type", SEAT_TYPES), name="type"),  # the rules' seat kinds: a new one needs a migration
    CheckConstraint("seat >= 0", name="seat"),
    # Tells a token of another match (403) from an unknown one (401) without a scan.
    Index(None, "token_hash"),
    Index(None, "player_ref"),
)

events = Table(
    "events",
    metadata,
    Column(
        "match_id",
        String(32),
        ForeignKey("matches.id", ondelete="CASCADE"),
        nullable=False,
    ),
    Column("seq", Integer, nullable=False),
    Column("type", String(64), nullable=False),
    Column("schema_version", Integer, nullable=False),
    Column("data", JSONDocument, nullable=False),
    Column("recorded_at", UTCDateTime(), nullable=False),
    # The hash chain (api.store.chain): an edited row breaks every later hash.
    Column("prev_hash", String(64), nullable=False, server_default=GENESIS_HASH),
    Column("hash", String(64), nullable=False, server_default=GENESIS_HASH),
    # The concurrency guard: a second writer with the same seq collides here.
    PrimaryKeyConstraint("match_id", "seq"),
    CheckConstraint("seq >= 1", name="seq"),
)

idempotency_keys = Table(
    "idempotency_keys",
    metadata,
    # Keys are scoped to the seat token that sent them (stored as its hash).
    Column("token_hash", String(64), nullable=False),
    Column("key", String(255), nullable=False),
    Column("match_id", String(32), nullable=False),
    Column("request_hash", String(64), nullable=False),
    Column("state", String(16), nullable=False),
    Column("response_status", Integer, nullable=True),
    Column("response_body", JSONDocument, nullable=True),
    Column("created_at", UTCDateTime(), nullable=False),
    PrimaryKeyConstraint("token_hash", "key"),
    CheckConstraint(_in("state", IDEMPOTENCY_STATES), name="state"),
    Index(None, "created_at"),
)

#: The fairness check of an ended match, computed once and kept (it never changes).
fairness_reports = Table(
    "fairness_reports",
    metadata,
    Column("match_id", String(32), ForeignKey("matches.id", ondelete="CASCADE"), nullable=False),
    Column("report", JSONDocument, nullable=False),
    Column("computed_at", UTCDateTime(), nullable=False),
    PrimaryKeyConstraint("match_id"),
)

#: The analysis after an ended match (issue 38, ``api.bots.analysis``): a row is a runner's claim
#: (``lease_until``) until the analysis is stored in it; then it never changes. ``attempts``: the
#: claims so far; past the runner's cap none is made again (``analysis_failed``).
match_analyses = Table(
    "match_analyses",
    metadata,
    Column("match_id", String(32), ForeignKey("matches.id", ondelete="CASCADE"), nullable=False),
    Column("analysis", JSONDocument, nullable=True),
    Column("lease_until", UTCDateTime(), nullable=True),
    Column("computed_at", UTCDateTime(), nullable=True),
    Column("attempts", Integer, nullable=False, server_default="0"),
    PrimaryKeyConstraint("match_id"),
)

#: One row per open long-poll or stream, shared by every app server: the per-address cap
#: counts live rows. ``expires_at`` bounds a row left behind by a killed process.
waiter_slots = Table(
    "waiter_slots",
    metadata,
    Column("id", String(32), nullable=False),
    Column("address_key", String(64), nullable=False),
    Column("expires_at", UTCDateTime(), nullable=False),
    PrimaryKeyConstraint("id"),
    Index(None, "address_key", "expires_at"),
    Index(None, "expires_at"),
)

#: Rate-limit counters shared by every app server (fixed windows; ``expires_at`` is
#: seconds since the epoch, as the ``limits`` library counts).
rate_limit_counters = Table(
    "rate_limit_counters",
    metadata,
    Column("key", String(255), nullable=False),
    Column("count", Integer, nullable=False),
    Column("expires_at", Float, nullable=False),
    PrimaryKeyConstraint("key"),
    Index(None, "expires_at"),
)

#: Readiness: each process writes its row now and then, proving the database takes writes.
health_probes = Table(
    "health_probes",
    metadata,
    Column("id", String(64), nullable=False),
    Column("checked_at", UTCDateTime(), nullable=False),
    PrimaryKeyConstraint("id"),
)

#: A portal: a tenant with its own keys, matches, players and rate limit.
portals = Table(
    "portals",
    metadata,
    Column("id", String(32), nullable=False),
    Column("name", String(64), nullable=False),
    Column("created_at", UTCDateTime(), nullable=False),
    # Its own budget for creating matches (a flask-limiter string; NULL: the server's default).
    Column("create_limit", String(64), nullable=True),
    PrimaryKeyConstraint("id"),
    Index(None, "name", unique=True),
)

#: A portal's keys: only the SHA-256 of each is kept (a key is 256 random bits, so a plain
#: hash is as good as a slow one); ``id`` is the key's public part, named in lists and logs.
portal_keys = Table(
    "portal_keys",
    metadata,
    Column("id", String(16), nullable=False),
    Column("portal_id", String(32), ForeignKey("portals.id", ondelete="CASCADE"), nullable=False),
    Column("key_hash", String(64), nullable=False),
    Column("created_at", UTCDateTime(), nullable=False),
    Column("revoked_at", UTCDateTime(), nullable=True),
    PrimaryKeyConstraint("id"),
    Index(None, "key_hash", unique=True),
    Index(None, "portal_id"),
)

#: A portal player's statistics, updated by the transaction that ends a match of theirs (or
#: hands their seat to a bot on timeouts), so a read is one row.
player_stats = Table(
    "player_stats",
    metadata,
    Column("portal_id", String(32), ForeignKey("portals.id", ondelete="CASCADE"), nullable=False),
    Column("player_ref", String(128), nullable=False),
    Column("played", Integer, nullable=False),
    Column("won", Integer, nullable=False),
    Column("forfeited", Integer, nullable=False),  # lost by timing out (counted in played, not won)
    Column("hands_won", Integer, nullable=False),
    Column("best_margin", Integer, nullable=True),
    Column("current_streak", Integer, nullable=False),
    Column("longest_streak", Integer, nullable=False),
    Column("updated_at", UTCDateTime(), nullable=False),
    PrimaryKeyConstraint("portal_id", "player_ref"),
)

#: A portal's webhook endpoint (api.services.webhooks): where to POST the match events it
#: chose (``events``: a list of event type names), signed with ``secret`` (kept in clear: the
#: server signs with it; shown to the portal once, when made or rotated).
webhooks = Table(
    "webhooks",
    metadata,
    Column("id", String(32), nullable=False),
    Column("portal_id", String(32), ForeignKey("portals.id", ondelete="CASCADE"), nullable=False),
    Column("url", String(2048), nullable=False),
    Column("events", JSONDocument, nullable=False),
    Column("secret", String(64), nullable=False),
    Column("created_at", UTCDateTime(), nullable=False),
    # A rotation's overlap: the secret the current one replaced signs too until then.
    Column("previous_secret", String(64), nullable=True),
    Column("previous_secret_until", UTCDateTime(), nullable=True),
    PrimaryKeyConstraint("id"),
    Index(None, "portal_id"),
)

#: The outbox: one row per endpoint and event, written in the transaction that appends the
#: event, so a committed event is never lost and a rolled-back one is never sent. The delivery
#: worker claims due rows (``next_attempt_at``, ``lease_until``: as the autoplay queue does).
webhook_deliveries = Table(
    "webhook_deliveries",
    metadata,
    Column("id", String(32), nullable=False),
    Column("webhook_id", String(32), ForeignKey("webhooks.id", ondelete="CASCADE"), nullable=False),
    Column("event_type", String(32), nullable=False),
    Column("match_id", String(32), nullable=False),
    Column("seq", Integer, nullable=False),
    # The JSON body, serialised once: every attempt sends the same bytes.
    Column("body", Text, nullable=False),
    Column("status", String(16), nullable=False),
    Column("attempts", Integer, nullable=False),  # every attempt made
    Column("round_attempts", Integer, nullable=False),  # since last queued (a replay starts a round)
    Column("next_attempt_at", UTCDateTime(), nullable=True),  # NULL: delivered or failed
    Column("lease_until", UTCDateTime(), nullable=True),
    Column("created_at", UTCDateTime(), nullable=False),
    Column("delivered_at", UTCDateTime(), nullable=True),
    PrimaryKeyConstraint("id"),
    CheckConstraint(_in("status", DELIVERY_STATUSES), name="status"),
    Index(None, "status", "next_attempt_at"),
    Index(None, "webhook_id", "created_at", "id"),
)

#: The delivery log: one row per attempt (its answer's status, or the error, and how long it took).
webhook_attempts = Table(
    "webhook_attempts",
    metadata,
    Column("delivery_id", String(32), ForeignKey("webhook_deliveries.id", ondelete="CASCADE"), nullable=False),
    Column("number", Integer, nullable=False),
    Column("attempted_at", UTCDateTime(), nullable=False),
    Column("duration_ms", Integer, nullable=False),
    Column("status_code", Integer, nullable=True),
    Column("error", String(512), nullable=True),
    PrimaryKeyConstraint("delivery_id", "number"),
)

#: What a portal gives one of its players (a person's bot, say) to act as that player on
#: the player endpoints (seeks, challenges, its event stream) without the portal's key. Only
#: the SHA-256 is kept, as for portal keys; ``id`` is the token's public part.
player_tokens = Table(
    "player_tokens",
    metadata,
    Column("id", String(16), nullable=False),
    Column("portal_id", String(32), ForeignKey("portals.id", ondelete="CASCADE"), nullable=False),
    Column("player_ref", String(128), nullable=False),
    Column("token_hash", String(64), nullable=False),
    Column("label", String(64), nullable=True),
    Column("created_at", UTCDateTime(), nullable=False),
    Column("revoked_at", UTCDateTime(), nullable=True),
    PrimaryKeyConstraint("id"),
    Index(None, "token_hash", unique=True),
    Index(None, "portal_id", "player_ref"),
)

#: A portal player's rating in one rules family (draw, block, fives): the rating model's
#: ``mu`` and ``sigma`` and the conservative ``ordinal`` the leaderboard orders by.
ratings = Table(
    "ratings",
    metadata,
    Column("portal_id", String(32), ForeignKey("portals.id", ondelete="CASCADE"), nullable=False),
    Column("player_ref", String(128), nullable=False),
    Column("family", String(16), nullable=False),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("ordinal", Float, nullable=False),
    Column("matches", Integer, nullable=False),
    Column("updated_at", UTCDateTime(), nullable=False),
    PrimaryKeyConstraint("portal_id", "player_ref", "family"),
    Index(None, "portal_id", "family", "ordinal", "player_ref"),
)

#: One row per rated match of a player: the rating before and after, and how it ended for them.
rating_history = Table(
    "rating_history",
    metadata,
    Column("portal_id", String(32), ForeignKey("portals.id", ondelete="CASCADE"), nullable=False),
    Column("player_ref", String(128), nullable=False),
    Column("family", String(16), nullable=False),
    Column("match_id", String(32), nullable=False),
    Column("at", UTCDateTime(), nullable=False),
    Column("outcome", String(16), nullable=False),
    Column("mu_before", Float, nullable=False),
    Column("sigma_before", Float, nullable=False),
    Column("mu_after", Float, nullable=False),
    Column("sigma_after", Float, nullable=False),
    PrimaryKeyConstraint("portal_id", "player_ref", "family", "match_id"),
    Index(None, "portal_id", "player_ref", "family", "at"),
)

#: A seek (api.services.matchmaking): one seeker waiting in a pool (``pool``: the hash of every
#: thing two seeks must share to meet: space, preset, resolved rules, players, rated). Pairing
#: writes ``match_id``, ``seat`` and the seat's token (kept in clear for the seek's owner, as a
#: webhook's secret is, until the match ends: a lost answer must not leave a seeker without it).
seeks = Table(
    "seeks",
    metadata,
    Column("id", String(32), nullable=False),
    Column("portal_id", String(32), ForeignKey("portals.id", ondelete="CASCADE"), nullable=True),
    Column("player_ref", String(128), nullable=True),
    Column("secret_hash", String(64), nullable=True),  # an anonymous seek's own secret (SHA-256)
    Column("pool", String(64), nullable=False),
    Column("preset", String(64), nullable=False),
    Column("rules", JSONDocument, nullable=False),  # the overrides asked for
    Column("players", Integer, nullable=False),
    Column("rated", Boolean, nullable=False),
    Column("rating_min", Float, nullable=True),
    Column("rating_max", Float, nullable=True),
    Column("fill_at", UTCDateTime(), nullable=True),
    Column("fill_level", String(32), nullable=True),
    Column("status", String(16), nullable=False),
    Column("created_at", UTCDateTime(), nullable=False),
    Column("expires_at", UTCDateTime(), nullable=False),
    Column("match_id", String(32), nullable=True),
    Column("seat", Integer, nullable=True),
    Column("seat_token", String(64), nullable=True),
    PrimaryKeyConstraint("id"),
    CheckConstraint(_in("status", SEEK_STATUSES), name="status"),
    Index(None, "pool", "status", "created_at"),
    Index(None, "status", "expires_at"),
    Index(None, "status", "fill_at"),
    Index(None, "portal_id", "player_ref", "status"),
)

#: A challenge within a portal: its seats (a JSON list of ``{player_ref, type, level, answer,
#: token}``, the challenger first), answered one by one; the match is made when all accepted.
challenges = Table(
    "challenges",
    metadata,
    Column("id", String(32), nullable=False),
    Column("portal_id", String(32), ForeignKey("portals.id", ondelete="CASCADE"), nullable=False),
    Column("challenger_ref", String(128), nullable=False),
    Column("preset", String(64), nullable=False),
    Column("rules", JSONDocument, nullable=False),
    Column("rated", Boolean, nullable=False),
    Column("seats", JSONDocument, nullable=False),
    Column("status", String(16), nullable=False),
    Column("created_at", UTCDateTime(), nullable=False),
    Column("expires_at", UTCDateTime(), nullable=False),
    Column("match_id", String(32), nullable=True),
    PrimaryKeyConstraint("id"),
    CheckConstraint(_in("status", CHALLENGE_STATUSES), name="status"),
    Index(None, "status", "expires_at"),
    Index(None, "portal_id", "challenger_ref"),
)

#: A portal player's event stream (``GET /v1/me/events``): numbered per player, kept, so a bot
#: that reconnects with ``after`` misses nothing. ``player_event_heads`` holds each player's last
#: seq: the row a writer locks to number the next event, and what a waiter's wake-up reads.
player_event_heads = Table(
    "player_event_heads",
    metadata,
    Column("portal_id", String(32), ForeignKey("portals.id", ondelete="CASCADE"), nullable=False),
    Column("player_ref", String(128), nullable=False),
    Column("key", String(64), nullable=False),  # the waiters' name for this stream (a hash)
    Column("last_seq", Integer, nullable=False),
    PrimaryKeyConstraint("portal_id", "player_ref"),
    Index(None, "key", unique=True),
)

player_events = Table(
    "player_events",
    metadata,
    Column("portal_id", String(32), ForeignKey("portals.id", ondelete="CASCADE"), nullable=False),
    Column("player_ref", String(128), nullable=False),
    Column("seq", Integer, nullable=False),
    Column("type", String(32), nullable=False),
    Column("data", JSONDocument, nullable=False),
    Column("created_at", UTCDateTime(), nullable=False),
    PrimaryKeyConstraint("portal_id", "player_ref", "seq"),
    Index(None, "created_at"),
)

#: Tournaments (issue 37): each is its own hash-chained log (``tournament_events``, chained as a
#: match's ``events`` are), the row holding its head (the compare-and-set of an append), its
#: status and when the sweep next has work for it (``due_at``: the start time, a round to pair).
TOURNAMENT_STATUSES = ("registering", "running", "ended", "cancelled")
tournaments = Table(
    "tournaments",
    metadata,
    Column("id", String(32), nullable=False),
    Column("portal_id", String(32), ForeignKey("portals.id", ondelete="CASCADE"), nullable=False),
    Column("status", String(16), nullable=False),
    Column("last_seq", Integer, nullable=False),
    Column("last_hash", String(64), nullable=False),
    Column("due_at", UTCDateTime(), nullable=True),
    Column("created_at", UTCDateTime(), nullable=False),
    Column("updated_at", UTCDateTime(), nullable=False),
    PrimaryKeyConstraint("id"),
    CheckConstraint(_in("status", TOURNAMENT_STATUSES), name="status"),
    Index(None, "due_at"),
    Index(None, "portal_id", "created_at"),
)

tournament_events = Table(
    "tournament_events",
    metadata,
    Column("tournament_id", String(32), ForeignKey("tournaments.id", ondelete="CASCADE"), nullable=False),
    Column("seq", Integer, nullable=False),
    Column("type", String(64), nullable=False),
    Column("schema_version", Integer, nullable=False),
    Column("data", JSONDocument, nullable=False),
    Column("recorded_at", UTCDateTime(), nullable=False),
    Column("prev_hash", String(64), nullable=False),
    Column("hash", String(64), nullable=False),
    PrimaryKeyConstraint("tournament_id", "seq"),
    CheckConstraint("seq >= 1", name="seq"),
)

#: Each match a tournament's round is played in: where its result goes (``round``, ``table_number``)
#: and each person's seat and token, which the player reads from the round (as a challenge keeps them).
tournament_matches = Table(
    "tournament_matches",
    metadata,
    Column("match_id", String(32), ForeignKey("matches.id", ondelete="CASCADE"), nullable=False),
    Column("tournament_id", String(32), ForeignKey("tournaments.id", ondelete="CASCADE"), nullable=False),
    Column("round", Integer, nullable=False),
    Column("table_number", Integer, nullable=False),
    Column("seats", JSONDocument, nullable=False),
    PrimaryKeyConstraint("match_id"),
    Index(None, "tournament_id", "round", "table_number", unique=True),
)
