"""Every problem ``code`` this API answers, in one catalogue: its status, title and meaning.

The codes of the engine's and the use cases' refusals are attributes of their exception
classes (:mod:`api.rules.errors`, :mod:`api.services.errors`, :mod:`api.services.idempotency`)
and are read from there, never spelled again; so are the readiness probe's outcomes
(:mod:`api.services.health`) and what gunicorn refuses before the app runs
(:data:`api.serving.PROTOCOL_ERRORS`). What the HTTP layer refuses itself (the input guard,
preconditions, media types, the framework's own statuses) is entered here, and its raise
sites build their errors from these entries (``INVALID_IF_MATCH.error(detail)``).

Everything else reads the catalogue: the error handlers (a code's status and title), each
operation's documented problem responses (:func:`problem_responses`: the codes it may
answer, per status, as a description and as ``x-problem-codes``), the document's default
response (:data:`ANY_REQUEST`: what any request may get, whatever the operation),
``docs/problems.md`` (:func:`markdown_table`, written by ``scripts/problem-codes``) and the
tests that prove each operation's list complete (``tests/api/test_problem_codes.py`` and
the recorder every API test runs under, ``tests/problem_guard.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from api.http import rate_limit_policies
from api.http.problem_document import (
    PROBLEM_CONTENT_TYPE,
    STATUS_CODES,
    ProblemError,
    ProblemSchema,
)
from api.rules import errors as rules
from api.rules.ruleset import MAX_PLAYERS, MIN_PLAYERS
from api.services import errors as services
from api.services import health, idempotency
from api.serving import PROTOCOL_ERRORS
from api.tournaments import errors as tournaments

if TYPE_CHECKING:
    from flask_smorest import Blueprint

#: The vendor extension on each documented problem response: the codes it may carry.
CODES_EXTENSION = "x-problem-codes"
#: What a 401 tells the client to send (RFC 9110: every 401 carries a challenge).
BEARER_CHALLENGE = {"WWW-Authenticate": 'Bearer realm="boneyard"'}


@dataclass(frozen=True)
class ProblemCode:
    """A stable ``code``, the one status it is answered with, its title and what it means."""

    code: str
    status: int
    title: str
    meaning: str

    def error(
        self, detail: str | None = None, *, headers: Mapping[str, str] | None = None, **extra: Any
    ) -> ProblemError:
        """This problem, to raise (``detail`` says what happened this time)."""
        return ProblemError(self.status, self.code, self.title, detail, headers=headers, **extra)


CATALOGUE: dict[str, ProblemCode] = {}
ViewFunction = TypeVar("ViewFunction", bound=Callable[..., Any])  # decorated and given back


class _Coded(Protocol):
    """An error class that names its problem code (``rules.NotYourTurn.code``)."""

    code: str


def _entry(code: str | type[_Coded], status: int, title: str, meaning: str) -> ProblemCode:
    """Enter a code (a string, or a class whose ``code`` it is) once, with one status."""
    code = code if isinstance(code, str) else code.code
    if code in CATALOGUE:
        raise ValueError(f"problem code {code!r} entered twice")
    entry = CATALOGUE[code] = ProblemCode(code, status, title, meaning)
    return entry


# --- malformed requests: invalid whatever the state of anything -------------------------------
MALFORMED_JSON = _entry(
    "malformed_json",
    400,
    "Malformed JSON",
    "The JSON body cannot be read; `reason`: `encoding` (not UTF-8), `syntax`, `depth` (nested too deep).",
)
INVALID_TEXT = _entry(
    "invalid_text",
    400,
    "Invalid text",
    "A path or query string that is not UTF-8 or holds control characters, or a header the "
    "API reads that is not printable ASCII; `location` and `name` say where.",
)
INVALID_IF_MATCH = _entry(
    "invalid_if_match",
    400,
    "Invalid If-Match",
    '`If-Match` is not an ETag of this server (`"<seq>"`, `"<seq>:<seat>:<head hash>"`, or `*`).',
)
INVALID_LAST_EVENT_ID = _entry(
    "invalid_last_event_id",
    400,
    "Invalid Last-Event-ID",
    "`Last-Event-ID` is not the id of an event a stream sent (a seq, up to 10 digits).",
)
UNSUPPORTED_MEDIA_TYPE = _entry(
    STATUS_CODES[415],
    415,
    "Unsupported media type",
    "A body sent without `Content-Type: application/json`: send the JSON with that header.",
)
INVALID_REQUEST = _entry(
    STATUS_CODES[422],
    422,
    "Invalid request",
    "A field or parameter is not what the document says (`errors` by location, then "
    "field), or the JSON body holds what no field takes (an integer beyond ±(2^53 − 1), "
    "a number that is not finite, NUL or a lone surrogate).",
)
INVALID_ACTION = _entry(
    rules.InvalidAction,
    422,
    "Invalid action",
    "The body is no action: an unknown `type`, a field its type does not take, a value of "
    "the wrong kind (`errors` by field).",
)
INVALID_TILE = _entry(
    rules.InvalidTile,
    422,
    "Invalid tile",
    'Not a tile of the match\'s set (its `rules.set`), or not written as one (`[6, 3]` or `"6-3"`).',
)
INVALID_RULES = _entry(
    rules.InvalidRules,
    422,
    "Invalid rules",
    "A rule set that cannot work (an unknown option, a value out of range, options that "
    "contradict each other, a preset for other player counts); `field` names the option.",
)
INVALID_CURSOR = _entry(
    services.InvalidCursor,
    422,
    "Invalid cursor",
    "`cursor` is not written as this server writes one (`<microseconds>-<match id>`; a leaderboard's: "
    "its `next_cursor`, as given).",
)
INVALID_IDEMPOTENCY_KEY = _entry(
    idempotency.InvalidIdempotencyKey,
    422,
    "Invalid idempotency key",
    "`Idempotency-Key` is not 1 to 255 printable ASCII characters.",
)
IDEMPOTENCY_KEY_REUSED = _entry(
    idempotency.IdempotencyKeyReused,
    422,
    "Idempotency key reused",
    "This `Idempotency-Key` was sent before with another request (a key names one request; the IETF draft's 422).",
)
URI_TOO_LONG = _entry(
    "uri_too_long", 414, "URI too long", "The path and query string are longer than this server reads."
)
HEADER_TOO_LARGE = _entry(
    "header_too_large",
    431,
    "Header too large",
    "A header the API reads is longer than it reads (`name`), or gunicorn's limits on headers are exceeded.",
)
PAYLOAD_TOO_LARGE = _entry(STATUS_CODES[413], 413, "Payload too large", "The body is larger than `MAX_CONTENT_LENGTH`.")
REQUEST_TIMEOUT = _entry(
    "request_timeout",
    408,
    "Request timeout",
    "The body did not arrive within `REQUEST_BODY_TIMEOUT_SECONDS`; the connection is closed.",
)
NOT_FOUND = _entry(STATUS_CODES[404], 404, "Not found", "No operation at this path.")
METHOD_NOT_ALLOWED = _entry(
    STATUS_CODES[405],
    405,
    "Method not allowed",
    "The path has no operation for this method (`Allow` lists those it has).",
)

# --- credentials -----------------------------------------------------------------------------
INVALID_TOKEN = _entry(
    services.InvalidToken,
    401,
    "Invalid token",
    "The seat token is missing where the operation needs one, not sent as "
    "`Authorization: Bearer <token>` (in printable ASCII), or no seat's.",
)
INVALID_API_KEY = _entry(
    services.InvalidPortalKey,
    401,
    "Invalid API key",
    "`X-API-Key` is sent but is no live key of a portal on this server (malformed, unknown or "
    "revoked), or not printable ASCII. A wrong key is never taken for no key.",
)
PORTAL_KEY_REQUIRED = _entry(
    services.PortalKeyRequired,
    401,
    "Portal key required",
    "This server has no public space (`PUBLIC_MATCHES=off`): creating and listing matches need "
    "a portal key in `X-API-Key`.",
)
PLAYER_REF_NEEDS_PORTAL = _entry(
    services.PlayerRefNeedsPortal,
    403,
    "Player ids need the portal's key",
    "A `player_ref`, or a player's statistics, ratings or a leaderboard, without the `X-API-Key` of the "
    "portal the match belongs to: player ids are the portal's, and only it may set or read them.",
)
RATED_NEEDS_PLAYER = _entry(
    services.RatedNeedsPlayer,
    403,
    "Rated seeks need a portal player",
    "`rated: true` on a seek from a caller who is no portal player (anonymous, or the portal's `X-API-Key` "
    "without `player_ref`): ratings are kept for the players a portal names; seek as one (a player token, "
    "or the key with `player_ref`) or unrated.",
)
RATED_NEEDS_PORTAL = _entry(
    services.RatedNeedsPortal,
    403,
    "Rated matches need the portal's key",
    "`rated: true` without a portal's `X-API-Key`: ratings are kept per portal, for the players it names.",
)
INVALID_RATED_SEATS = _entry(
    services.InvalidRatedSeats,
    422,
    "Seats that cannot be rated",
    "`rated: true` but the seats cannot be rated; `reason`: `missing_player_ref` (a remote or open seat "
    "without a `player_ref`), `duplicate_player_ref` (one player at two seats), `no_players` (only "
    "computer players).",
)
UNKNOWN_PORTAL_KEY = _entry(
    services.UnknownPortalKey, 404, "Unknown portal key", "The portal has no live key with this id."
)
LAST_PORTAL_KEY = _entry(
    services.LastPortalKey,
    409,
    "Last portal key",
    "Revoking the portal's last live key would lock it out: add a new key first.",
)
INVALID_WEBHOOK_URL = _entry(
    services.InvalidWebhookUrl,
    422,
    "Invalid webhook URL",
    "The webhook URL cannot be used; `reason`: `scheme` (not http or https), `malformed`, "
    "`credentials` (a user or password in it), `unresolvable`, `private_address` (loopback, "
    "private or link-local, refused unless `WEBHOOK_ALLOW_PRIVATE_ADDRESSES`).",
)
INVALID_WEBHOOK_EVENTS = _entry(
    services.InvalidWebhookEvents,
    422,
    "Invalid webhook events",
    "`events` is empty or names event types that do not exist (`unknown`); docs/webhooks.md lists them.",
)
TOO_MANY_WEBHOOKS = _entry(
    services.TooManyWebhooks,
    409,
    "Too many webhooks",
    "The portal has as many webhooks as one may (`limit`): remove one first.",
)
WRONG_MATCH = _entry(services.WrongMatch, 403, "Token of another match", "A seat token, but of another match.")
SEAT_RESERVED = _entry(
    services.SeatReserved,
    403,
    "Seat reserved",
    "A rematch seat kept for the previous match's player: claimed only with that seat's token.",
)
CLIENT_SEED_NOT_ALLOWED = _entry(
    services.ClientSeedNotAllowed,
    403,
    "Client seeds not allowed",
    "`seed` at creation on a server that does not let creators choose the seed (`ALLOW_CLIENT_SEED`).",
)

# --- what does not exist -------------------------------------------------------------------------
UNKNOWN_MATCH = _entry(services.UnknownMatch, 404, "Unknown match", "No match with this id.")
UNKNOWN_SEAT = _entry(services.UnknownSeat, 404, "Unknown seat", "The match has no seat with this number.")
UNKNOWN_WEBHOOK = _entry(
    services.UnknownWebhook, 404, "Unknown webhook", "The calling portal has no webhook with this id."
)
UNKNOWN_DELIVERY = _entry(
    services.UnknownDelivery, 404, "Unknown delivery", "The webhook has no delivery with this id."
)

# --- refusals that depend on the state of the match (or of the server) ---------------------------
NOT_YOUR_TURN = _entry(rules.NotYourTurn, 409, "Not your turn", "Another seat is to move.")
TILE_NOT_IN_HAND = _entry(rules.TileNotInHand, 409, "Tile not in hand", "The seat does not hold this tile.")
ILLEGAL_PLAY = _entry(
    rules.IllegalPlay,
    409,
    "Illegal play",
    "The tile does not match that end, the end is not open, or the tile matches no end.",
)
END_REQUIRED = _entry(
    rules.EndRequired,
    409,
    "End required",
    "A play without `end` whose tile fits more than one open end: name the `end`.",
)
MUST_PLAY = _entry(rules.MustPlay, 409, "Must play", "Drawing or knocking while holding a playable tile.")
MUST_DRAW = _entry(rules.MustDraw, 409, "Must draw", "Knocking while the boneyard can still be drawn from.")
BONEYARD_RESERVED = _entry(
    rules.BoneyardReserved,
    409,
    "Boneyard reserved",
    "Only the tiles `boneyard_reserve` keeps are left in the boneyard.",
)
BONEYARD_EMPTY = _entry(rules.BoneyardEmpty, 409, "Boneyard empty", "Nothing is left to draw: knock.")
DRAWING_NOT_ALLOWED = _entry(
    rules.DrawingNotAllowed, 409, "Drawing not allowed", "The Block game has no drawing: play or knock."
)
WRONG_CLAIM = _entry(
    rules.WrongClaim, 409, "Wrong claim", "Under `muggins_calls` a play's `claim` must be the points it scores."
)
CLAIM_NOT_ALLOWED = _entry(
    rules.ClaimNotAllowed, 409, "Claim not allowed", "A `claim` in a match whose rules take none (no `muggins_calls`)."
)
NOTHING_TO_MUGGINS = _entry(
    rules.NothingToMuggins,
    409,
    "Nothing to muggins",
    "No points were left unclaimed, or they were the caller's own side's.",
)
MATCH_NOT_STARTED = _entry(rules.MatchNotStarted, 409, "Match not started", "Seats are still open.")
MATCH_OVER = _entry(rules.MatchOver, 409, "Match over", "The match has ended.")
SEAT_TAKEN = _entry(rules.SeatTaken, 409, "Seat taken", "The seat is not open (any more).")
STALE_SEQ = _entry(
    services.StaleSeq,
    409,
    "Stale seq",
    "`expected_seq` is not the match's last seq, or others kept moving the match while this "
    "request was decided; `current_seq` says where it is.",
)
MATCH_NOT_OVER = _entry(
    services.MatchNotOver,
    409,
    "Match not over",
    "Opens once the match has ended (the audit, the fairness check, a rematch, the record without a "
    "seat's token); `match_status`.",
)
ANALYSIS_NOT_READY = _entry(
    services.AnalysisNotReady,
    409,
    "Analysis not ready",
    "The match has ended, but the runner has not stored its analysis yet (it makes one after each end, "
    "in the background): ask again in a few seconds.",
)
ANALYSIS_FAILED = _entry(
    services.AnalysisFailed,
    500,
    "Analysis failed",
    "The match has ended, but making its analysis failed each of the times the runner tried (3): none will be "
    "made again, and asking again will not help. The server's log names the match; `attempts`, `match_status`.",
)
HINT_NOT_OFFERED = _entry(
    services.HintNotOffered,
    409,
    "Hint not offered",
    "Hints are offered only in unrated matches where every other seat is a computer player.",
)
SEAT_PLAYED_BY_COMPUTER = _entry(
    services.SeatPlayedByComputer,
    409,
    "Seat played by a computer",
    "The seat was handed to a computer player (`seat_replaced`, after `timeout_limit` turns timed out in a row): "
    "it moves for the seat from then on; the token still reads the seat's view.",
)
EVENT_LIMIT_REACHED = _entry(
    services.EventLimitReached,
    409,
    "Event limit reached",
    "The match's log would grow past `MAX_EVENTS_PER_MATCH` events (`limit`).",
)
TOO_MANY_BOT_MATCHES = _entry(
    services.TooManyBotMatches,
    409,
    "Too many all-bot matches",
    "This address already runs `BOT_MATCHES_PER_ADDRESS` unfinished all-bot matches (`limit`); one must end first.",
)
PRECONDITION_FAILED = _entry(
    services.PreconditionFailed,
    412,
    "Precondition failed",
    "`If-Match` names another seq than the match's (`current_seq`).",
)

# --- matchmaking (api.services.matchmaking) ---------------------------------------------------
PLAYER_REQUIRED = _entry(
    services.PlayerRequired,
    401,
    "Player required",
    "The operation acts as a portal's player: send a player token (`Authorization: Bearer bypl_…`), "
    "or the portal's key with `player_ref`.",
)
UNKNOWN_PLAYER_TOKEN = _entry(
    services.UnknownPlayerToken, 404, "Unknown player token", "The player has no live token with this id."
)
UNKNOWN_SEEK = _entry(
    services.UnknownSeek, 404, "Unknown seek", "No seek with this id is yours (another's is unknown too)."
)
UNKNOWN_CHALLENGE = _entry(services.UnknownChallenge, 404, "Unknown challenge", "No challenge with this id names you.")
NOT_YOUR_CHALLENGE = _entry(
    services.NotYourChallenge,
    403,
    "Not your challenge",
    "Only the challenger cancels a challenge, and only the challenged players answer it.",
)
ALREADY_SEEKING = _entry(
    services.AlreadySeeking,
    409,
    "Already seeking",
    "The player already waits in this pool (`seek_id`): one seek per player and pool.",
)
SEEK_PAIRED = _entry(
    services.SeekPaired, 409, "Seek paired", "The seek is paired already (`match_id`): it cannot be cancelled."
)
CHALLENGE_CLOSED = _entry(
    services.ChallengeClosed,
    409,
    "Challenge closed",
    "The challenge is no longer pending (`challenge_status`: started, declined, canceled or expired).",
)
INVALID_SEEK = _entry(
    services.InvalidSeek,
    422,
    "Invalid seek",
    "A seek that cannot be; `reason`: `rating_range` (min above max), `fill` (`fill_after_seconds` and "
    "`fill_level` go together).",
)
INVALID_CHALLENGE = _entry(
    services.InvalidChallenge,
    422,
    "Invalid challenge",
    f"A challenge that cannot be; `reason`: `opponents` (1 to {MAX_PLAYERS - 1} distinct players, not the "
    f"challenger), `seats` ({MIN_PLAYERS} to {MAX_PLAYERS} seats in all).",
)

# --- tournaments (api.tournaments, api.services.tournaments) -----------------------------------------
UNKNOWN_TOURNAMENT = _entry(
    services.UnknownTournament, 404, "Unknown tournament", "No tournament with this id is your portal's."
)
UNKNOWN_ENTRANT = _entry(
    tournaments.UnknownEntrant, 404, "Unknown entrant", "No entrant of this tournament with this id is still in."
)
NOT_YOUR_ENTRANT = _entry(
    services.NotYourEntrant, 403, "Not your entrant", "A player withdraws its own entry only (its portal any)."
)
INVALID_TOURNAMENT = _entry(
    tournaments.InvalidTournament,
    422,
    "Invalid tournament",
    "Settings or an entrant that cannot work, whatever the state (`field` names which): a Swiss without "
    "`rounds` or a round robin with them, a tiebreak named twice, `teams` on a game that is no 4-seat partner "
    "game (or none on one), an entrant of another number of members than its side has seats.",
)
ENTRY_REFUSED = _entry(
    services.EntryRefused,
    409,
    "Entry refused",
    "The tournament's entry rules refuse the entrant; `reason`: `bot_level` (a level it does not admit), "
    "`rating` (a player outside its rating range), `members` (only the portal enters others and teams).",
)
ALREADY_REGISTERED = _entry(
    tournaments.AlreadyRegistered, 409, "Already registered", "A player is entered once: alone or in one team."
)
REGISTRATION_CLOSED = _entry(
    tournaments.RegistrationClosed, 409, "Registration closed", "The tournament has started: no one enters now."
)
TOURNAMENT_FULL = _entry(
    tournaments.TournamentFull, 409, "Tournament full", "The tournament has its `max_entrants` entrants."
)
TOO_FEW_ENTRANTS = _entry(
    tournaments.TooFewEntrants,
    409,
    "Too few entrants",
    "Starting needs two entrants, and a Swiss more entrants than rounds.",
)
TOURNAMENT_ALREADY_STARTED = _entry(
    tournaments.TournamentAlreadyStarted, 409, "Tournament already started", "It started already."
)
TOURNAMENT_NOT_RUNNING = _entry(
    tournaments.TournamentNotRunning, 409, "Tournament not running", "It has not started yet."
)
TOURNAMENT_PAUSED = _entry(tournaments.TournamentIsPaused, 409, "Tournament paused", "It is paused already.")
TOURNAMENT_NOT_PAUSED = _entry(tournaments.TournamentIsNotPaused, 409, "Tournament not paused", "It is not paused.")
TOURNAMENT_OVER = _entry(
    tournaments.TournamentOver, 409, "Tournament over", "It has ended or was cancelled: its log takes nothing more."
)

# --- slow down ---------------------------------------------------------------------------
TOO_MANY_REQUESTS = _entry(
    STATUS_CODES[429],
    429,
    "Too many requests",
    "A rate limit is spent; `Retry-After` says when to try again. " + rate_limit_policies.FIELDS_SUMMARY,
)
TOO_MANY_WAITERS = _entry(
    services.TooManyWaiters,
    429,
    "Too many waiters",
    "This address already holds `WAITERS_PER_ADDRESS` open long-polls and streams (or "
    "request bodies on their way); see `Retry-After`.",
)

# --- the server -------------------------------------------------------------------------
DATABASE_BUSY = _entry(
    health.BUSY, 503, "Database busy", "The database's write lock was not had in time; retry after `Retry-After`."
)
DATABASE_UNAVAILABLE = _entry(health.UNAVAILABLE, 503, "Database unavailable", "The database is unreachable.")
DATABASE_READ_ONLY = _entry(health.READ_ONLY, 503, "Database read-only", "The database answers but refuses writes.")
DRAINING = _entry(
    health.DRAINING, 503, "Draining", "This server got SIGTERM: it finishes what it holds, and takes nothing new."
)
MIGRATIONS_PENDING = _entry(
    health.MIGRATIONS_PENDING,
    503,
    "Migrations pending",
    "The database is not yet at this release's schema (its migrations have not run): still starting.",
)
INTERNAL_ERROR = _entry(
    STATUS_CODES[500], 500, "Internal server error", "An unexpected failure (logged with its traceback; none is sent)."
)


def _protocol_entries() -> list[ProblemCode]:
    """What gunicorn answers itself when a request cannot even be parsed: the codes of
    :data:`api.serving.PROTOCOL_ERRORS`, each with one status (an entry made above must agree)."""
    answers: dict[str, list[tuple[int, str, str]]] = {}
    for _kind, status, code, title, detail in PROTOCOL_ERRORS:
        answers.setdefault(code, []).append((status, title, detail))
    entries = []
    for code, found in answers.items():
        statuses = {status for status, _title, _detail in found}
        entry = CATALOGUE.get(code)
        if len(statuses) > 1 or (entry is not None and {entry.status} != statuses):
            raise ValueError(f"gunicorn answers {code!r} with {sorted(statuses)}, not one status of its own")
        if entry is None:
            status, title, _detail = found[0]
            details = dict.fromkeys(detail for _status, _title, detail in found)
            entry = _entry(code, status, title, "Refused by gunicorn, before the app: " + " ".join(details))
        entries.append(entry)
    return entries


#: What any request may be answered, whatever the operation (every operation's default response):
#: the input guard's refusals, the framework's, the body deadline's, the database's and gunicorn's.
ANY_REQUEST: tuple[ProblemCode, ...] = tuple(
    dict.fromkeys(
        (
            MALFORMED_JSON,
            INVALID_TEXT,
            INVALID_TOKEN,
            INVALID_API_KEY,
            NOT_FOUND,
            METHOD_NOT_ALLOWED,
            REQUEST_TIMEOUT,
            PAYLOAD_TOO_LARGE,
            URI_TOO_LONG,
            INVALID_REQUEST,
            TOO_MANY_WAITERS,
            HEADER_TOO_LARGE,
            INTERNAL_ERROR,
            DATABASE_BUSY,
            *_protocol_entries(),
        )
    )
)

#: The rules' refusals of an action, which depend on the match's state (409).
RULE_REFUSALS: tuple[ProblemCode, ...] = (
    NOT_YOUR_TURN,
    TILE_NOT_IN_HAND,
    ILLEGAL_PLAY,
    END_REQUIRED,
    MUST_PLAY,
    MUST_DRAW,
    BONEYARD_RESERVED,
    BONEYARD_EMPTY,
    DRAWING_NOT_ALLOWED,
    WRONG_CLAIM,
    CLAIM_NOT_ALLOWED,
    NOTHING_TO_MUGGINS,
    MATCH_NOT_STARTED,
    MATCH_OVER,
)


def entry_of(code: str) -> ProblemCode | None:
    """The catalogue's entry for ``code`` (None for a code it does not know)."""
    return CATALOGUE.get(code)


# --- the OpenAPI document ------------------------------------------------------------------
def _listing(entries: Iterable[ProblemCode]) -> str:
    return "\n".join(f"- `{e.code}`: {e.meaning}" for e in entries)


#: The statuses that tell a client to wait, and always say how long (api.http.limits.settle_retry_after).
WAIT_STATUSES = (429, 503)
RETRY_AFTER_HEADER = {
    "description": "Seconds to wait before trying again (at least 1)",
    "required": True,
    "schema": {"type": "integer", "minimum": 1},
}


def response_doc(status: int, own: Iterable[ProblemCode]) -> dict[str, Any]:
    """The documented response of one status of an operation: its own codes (described), and
    what any request may get with that status (named; described in the default response).
    An explicit status replaces the default response for that status, so both are listed."""
    own = sorted(set(own), key=lambda e: e.code)
    shared = sorted((e for e in ANY_REQUEST if e.status == status and e not in own), key=lambda e: e.code)
    text = _listing(own)
    if shared:
        text += ("\n" if text else "") + "As any request may be: " + ", ".join(f"`{e.code}`" for e in shared) + "."
    doc = {
        "description": text,
        "schema": ProblemSchema,
        "content_type": PROBLEM_CONTENT_TYPE,
        CODES_EXTENSION: [e.code for e in own + shared],
    }
    if status in WAIT_STATUSES:
        doc["headers"] = {"Retry-After": RETRY_AFTER_HEADER}
    return doc


def default_response_doc() -> dict[str, Any]:
    """The description and codes of every operation's default response (:data:`ANY_REQUEST`)."""
    lines = [f"- {e.status} `{e.code}`: {e.meaning}" for e in sorted(ANY_REQUEST, key=lambda e: (e.status, e.code))]
    return {
        "description": "What any request may be answered, whatever the operation (refused before it runs, "
        "or by the server):\n" + "\n".join(lines),
        CODES_EXTENSION: [e.code for e in sorted(ANY_REQUEST, key=lambda e: (e.status, e.code))],
    }


def problem_responses(blueprint: Blueprint, *declared: ProblemCode) -> Callable[[ViewFunction], ViewFunction]:
    """Document the problems an operation may answer besides :data:`ANY_REQUEST`, one response
    per status (flask-smorest ``alt_response``), each listing its codes."""
    by_status: dict[int, list[ProblemCode]] = {}
    for entry in declared:
        if CATALOGUE.get(entry.code) is not entry:
            raise ValueError(f"{entry.code!r} is not in the problem catalogue")
        by_status.setdefault(entry.status, []).append(entry)

    def decorate(func: ViewFunction) -> ViewFunction:
        for status in sorted(by_status):
            func = blueprint.alt_response(status, response=response_doc(status, by_status[status]))(func)
        return func

    return decorate


# --- docs/problems.md --------------------------------------------------------------------------
_PAGE_HEAD = """# Problem codes

Every error of the API is an RFC 9457 problem document (`application/problem+json`) with a
stable `code`; its `type` is `https://boneyard.dev/problems/<code>` and its `title` the one
below. A code is always answered with the same status. Which codes each operation may answer
is in the OpenAPI document (`openapi/openapi.json`): each of its problem responses lists them,
in its description and as `x-problem-codes`, and every operation's `default` response lists
what any request may be answered. What the transport refuses before an operation runs is
declared on each operation it can reach (`api/http/transport_refusals.py`): 414 `uri_too_long`
and 431 `header_too_large` on every operation; 408 `request_timeout`, 413 `payload_too_large`
and 415 `unsupported_media_type` on every operation that takes a body. Some problems carry
more members: `errors` (by location, then field), `field`, `reason`, `location`, `name`,
`current_seq`, `match_status`, `limit`.

Written from `api/http/problem_codes.py` by `scripts/problem-codes`; do not edit by hand
(`tests/api/test_problem_codes.py` fails when it is stale).

"""


def docs_page() -> str:
    """``docs/problems.md``, whole."""
    return _PAGE_HEAD + markdown_table()


def markdown_table() -> str:
    """The catalogue as the Markdown table ``docs/problems.md`` holds (``scripts/problem-codes``)."""
    rows = ["| status | code | title | meaning |", "|---|---|---|---|"]
    for e in sorted(CATALOGUE.values(), key=lambda e: (e.status, e.code)):
        meaning = e.meaning.replace("|", "\\|")
        rows.append(f"| {e.status} | `{e.code}` | {e.title} | {meaning} |")
    return "\n".join(rows) + "\n"
