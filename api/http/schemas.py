"""Request and response schemas of /v1 (they are also the OpenAPI document)."""

from __future__ import annotations

import re
from typing import Any, ClassVar, Literal, TypedDict

import marshmallow as ma
from marshmallow import fields, validate

from api.bots import DEFAULT_LEVEL, LEVELS
from api.http.input_guard import TEXT_PATTERN
from api.http.openapi_shapes import COMPONENTS, Union, component, shaped
from api.rules import BOT_SEAT, DEFAULT_PRESET, OPEN_SEAT, PRESETS, REMOTE_SEAT, SEAT_TYPES, STATUSES
from api.rules.vocabulary import Family, values
from api.services.commands import AUDIT_PAGE, MAX_AUDIT_PAGE, SEAT_NAME_MAX
from api.services.leaderboards import BOARD_CURSOR_PATTERN, MAX_RATING_PAGE
from api.services.reading import CURSOR_PATTERN

# Text without control characters: PostgreSQL text cannot hold NUL (a string with one used
# to reach the database and fail there, 500), and no name, seed or player_ref has a use for
# the others. The same rule as for paths and query strings (api.http.input_guard), so a
# player_ref that can be stored can be looked up; the OpenAPI pattern says so.
TEXT = validate.Regexp(TEXT_PATTERN, error="must not contain control characters")
NAME = [validate.Length(min=1, max=SEAT_NAME_MAX), TEXT]
SEED = [validate.Length(min=1, max=128), TEXT]
PLAYER_REF = [validate.Length(min=1, max=128), TEXT]
MAX_SEQ = 2**31 - 1  # the largest seq the store's INTEGER columns hold (PostgreSQL's int4)
# Far above any play's points (the open ends of a double-six line count under 50): every
# integer a client sends has a bound, so none reaches the rules or the store unchecked.
MAX_PLAY_POINTS = 1000


class AsciiInteger(fields.Integer):
    """An integer as a client writes one: a JSON integer (or an integral number), or up to 20
    ASCII digits (a query string). Plain ``int()`` also reads '٣' and '６' as digits, ' 1_0 '
    as 10 and truncates 3.7 to 3; none of those is a number this API was sent."""

    def deserialize(self, value: Any, attr: str | None = None, data: Any = None, **kwargs: Any) -> Any:
        if isinstance(value, str) and not _ASCII_INTEGER.fullmatch(value):
            raise self.make_error("invalid", input=value)
        if isinstance(value, float) and not value.is_integer():
            raise self.make_error("invalid", input=value)
        return super().deserialize(value, attr, data, **kwargs)


class AsciiFloat(fields.Float):
    """A number as a client writes one: JSON, or ASCII decimal notation (``float()`` also reads
    '٣' and '1_0')."""

    def deserialize(self, value: Any, attr: str | None = None, data: Any = None, **kwargs: Any) -> Any:
        if isinstance(value, str) and not _ASCII_FLOAT.fullmatch(value):
            raise self.make_error("invalid", input=value)
        return super().deserialize(value, attr, data, **kwargs)


_ASCII_INTEGER = re.compile(r"[+-]?[0-9]{1,20}")
_ASCII_FLOAT = re.compile(r"[+-]?(?:[0-9]{1,20}(?:\.[0-9]{0,20})?|\.[0-9]{1,20})(?:[eE][+-]?[0-9]{1,3})?")


def Tile(**kwargs: Any) -> fields.Raw:
    """A tile, [high, low]: the ``Tile`` component of openapi/events.schema.json."""
    return component("Tile", **kwargs)


# --- requests ------------------------------------------------------------------------
class _SeatSpecFields(ma.Schema):
    name = fields.String(required=True, validate=NAME, metadata={"description": "Shown to everyone; stored as given"})
    client_seed = fields.String(validate=SEED, metadata={"description": "Mixed into every deal (provable fairness)"})
    player_ref = fields.String(
        validate=PLAYER_REF,
        metadata={
            "description": "The portal's own id for the player (opaque); shown in public seat lists, "
            "used by player statistics and the player_ref filter"
        },
    )


class RemoteSeatSpecSchema(_SeatSpecFields):
    type = fields.String(
        required=True,
        validate=validate.OneOf((REMOTE_SEAT,)),
        metadata={"description": "A client holding the seat's token (answered once, at creation)"},
    )


class BotSeatSpecSchema(_SeatSpecFields):
    type = fields.String(
        required=True,
        validate=validate.OneOf((BOT_SEAT,)),
        metadata={"description": "A computer player: the server plays the seat"},
    )
    level = shaped(
        fields.String(
            load_default=None,
            allow_none=True,
            validate=validate.OneOf(LEVELS),
            metadata={"description": f"Computer level (null or absent: {DEFAULT_LEVEL})"},
        ),
        {"$ref": COMPONENTS + "BotLevel"},
    )


class OpenSeatSpecSchema(_SeatSpecFields):
    type = fields.String(
        required=True,
        validate=validate.OneOf((OPEN_SEAT,)),
        metadata={"description": "Kept free for anyone to claim later (POST .../claim)"},
    )


class SeatSpecSchema(Union):
    """A seat of a new match, by `type`: remote (a client with a token), bot (a computer
    player; only these have a `level`) or open (claimed later)."""

    SHAPES: ClassVar[dict[str, type[ma.Schema]]] = {
        REMOTE_SEAT: RemoteSeatSpecSchema,
        BOT_SEAT: BotSeatSpecSchema,
        OPEN_SEAT: OpenSeatSpecSchema,
    }


class MatchCreateSchema(ma.Schema):
    preset = fields.String(
        load_default=DEFAULT_PRESET,
        validate=validate.OneOf(tuple(PRESETS)),
        metadata={"description": "A named table; docs/rules.md lists what each sets"},
    )
    rules = component(
        "RuleOverrides",
        load_default=dict,
        metadata={"description": 'Option overrides on top of the preset, e.g. {"target": 150}'},
    )
    seats = fields.List(fields.Nested(SeatSpecSchema), required=True, validate=validate.Length(min=2, max=4))
    seed = fields.String(
        validate=SEED,
        metadata={
            "description": "Choose the server seed (reproducible tests, research): only where the server allows "
            "it (ALLOW_CLIENT_SEED), else 403 `client_seed_not_allowed`; such matches show "
            "seeded_by_client everywhere"
        },
    )
    rated = fields.Boolean(
        load_default=False,
        metadata={
            "description": "Its end updates its players' ratings (docs/ratings.md): only with a portal's key "
            "(else 403 `rated_needs_portal`) and when every remote or open seat names a distinct `player_ref` "
            "(else 422 `invalid_rated_seats`); its rematch is rated too"
        },
    )


class ClaimSchema(ma.Schema):
    name = fields.String(required=True, validate=NAME)
    client_seed = fields.String(validate=SEED, metadata={"description": "Mixed into every deal (provable fairness)"})
    player_ref = fields.String(
        validate=PLAYER_REF,
        metadata={"description": "The portal's own id for the player (a rematch seat keeps the old seat's by default)"},
    )


TILE_TEXT = r"^[0-6]-[0-6]$"


class _ActionFields(ma.Schema):
    expected_seq = AsciiInteger(
        validate=validate.Range(min=0, max=MAX_SEQ),
        metadata={"description": "Refuse with 409 stale_seq unless the match is at this seq"},
    )


class PlayActionSchema(_ActionFields):
    type = fields.String(required=True, validate=validate.OneOf(("play",)))
    tile = shaped(
        fields.Raw(required=True, metadata={"description": 'The tile, [6, 4] (either order) or "6-4"'}),
        {"oneOf": [{"$ref": COMPONENTS + "Tile"}, {"type": "string", "pattern": TILE_TEXT}]},
    )
    end = fields.String(
        validate=validate.OneOf(("left", "right", "up", "down")),
        metadata={"description": "The end to place it on; may be left out when the tile fits one end only"},
    )
    claim = AsciiInteger(
        validate=validate.Range(min=0, max=MAX_PLAY_POINTS),
        metadata={
            "description": "muggins_calls only: the points this play scores (leave it out to score nothing and "
            "leave the points to a muggins call); elsewhere 409 `claim_not_allowed`"
        },
    )
    scores = AsciiInteger(
        validate=validate.Range(min=0, max=MAX_PLAY_POINTS),
        metadata={"description": "Ignored: the hint a listed legal action carries"},
    )


class DrawActionSchema(_ActionFields):
    type = fields.String(required=True, validate=validate.OneOf(("draw",)))
    until = fields.String(
        validate=validate.OneOf(("playable",)),
        metadata={"description": "Keep drawing until a tile fits (or the boneyard is spent)"},
    )


class KnockActionSchema(_ActionFields):
    type = fields.String(required=True, validate=validate.OneOf(("knock",)))


class MugginsActionSchema(_ActionFields):
    type = fields.String(required=True, validate=validate.OneOf(("muggins",)))
    scores = AsciiInteger(
        validate=validate.Range(min=0, max=MAX_PLAY_POINTS),
        metadata={"description": "Ignored: the hint a listed legal action carries"},
    )


class ActionSchema(Union):
    """An action, by `type`: play a tile, draw, knock, or call muggins. Every item of a
    view's `legal_actions` is one, to be sent as it is."""

    PROBLEM_CODE = "invalid_action"  # a body that is no action: 422 invalid_action, errors by field
    SHAPES: ClassVar[dict[str, type[ma.Schema]]] = {
        "play": PlayActionSchema,
        "draw": DrawActionSchema,
        "knock": KnockActionSchema,
        "muggins": MugginsActionSchema,
    }


UNIONS = {"SeatSpec": SeatSpecSchema, "Action": ActionSchema}


class EventsQuerySchema(ma.Schema):
    # Bounded by the database's seq column (a 32-bit integer): a larger ``after`` used to
    # reach the query and fail there (500).
    after = AsciiInteger(load_default=0, validate=validate.Range(min=0, max=MAX_SEQ))
    limit = AsciiInteger(load_default=100, validate=validate.Range(min=1, max=1000))
    wait = AsciiFloat(
        load_default=0,
        validate=validate.Range(min=0, max=60),
        metadata={
            "description": "Long-poll: with no event after `after` yet, hold the request up to this many "
            "seconds and answer as soon as one is appended (an empty page at the timeout)"
        },
    )


class AuditQuerySchema(ma.Schema):
    after = AsciiInteger(
        load_default=0,
        validate=validate.Range(min=0, max=MAX_SEQ),
        metadata={"description": "Rows after this seq (`next_after` of the previous page)"},
    )
    limit = AsciiInteger(
        load_default=AUDIT_PAGE,
        validate=validate.Range(min=1, max=MAX_AUDIT_PAGE),
        metadata={"description": "Rows per page"},
    )


class PlayerRefPathSchema(ma.Schema):
    player_ref = fields.String(
        required=True,
        validate=PLAYER_REF,
        metadata={"description": "The portal's own id for the player, as given in seats"},
    )


class ListQuerySchema(ma.Schema):
    status = fields.String(validate=validate.OneOf(STATUSES))
    preset = fields.String(validate=validate.OneOf(tuple(PRESETS)))
    has_open_seat = fields.Boolean(
        metadata={
            "description": "true: only matches with a seat anyone may claim (not one kept for a rematch); "
            "false: only matches without"
        }
    )
    player_ref = fields.String(
        validate=PLAYER_REF,
        metadata={
            "description": "Only matches with a seat of this player (with the portal's key): the player's recent "
            "matches, newest first; its rated ones with their rating changes: GET /v1/players/{player_ref}/history"
        },
    )
    limit = AsciiInteger(load_default=20, validate=validate.Range(min=1, max=100))
    cursor = fields.String(
        metadata={
            "pattern": CURSOR_PATTERN,
            "description": (
                "next_cursor of the previous page (also in its Link header): "
                "`<microseconds since 1970, UTC>-<match id>`, "
                "the page after that match; any such string is a position (else 422 `invalid_cursor`)"
            ),
        }
    )


# --- responses ----------------------------------------------------------------------
# Fields declared required=True are in every answer (a generated client need not test for
# them); the others are present only where their description says.
class Always(TypedDict):
    """``**ALWAYS`` spreads into a field's keywords: a TypedDict, so the type checker knows it is
    ``required=True`` and not any keyword of any type."""

    required: Literal[True]


ALWAYS: Always = {"required": True}


class ViewSeatSchema(ma.Schema):
    seat = fields.Integer(**ALWAYS)
    name = fields.String(allow_none=True, **ALWAYS, metadata={"description": "null for an open seat"})
    type = fields.String(validate=validate.OneOf(SEAT_TYPES), **ALWAYS)
    level = component(
        "BotLevel", allow_none=True, **ALWAYS, metadata={"description": "Computer seats only; null otherwise"}
    )
    client_seed = fields.String(
        allow_none=True, **ALWAYS, metadata={"description": "The seat's client seed; null when it gave none"}
    )


class SeatSchema(ViewSeatSchema):
    player_ref = fields.String(
        allow_none=True, **ALWAYS, metadata={"description": "The portal's id for the player; null when none was given"}
    )


class CreatedSeatSchema(SeatSchema):
    token = fields.String(
        metadata={"description": "Remote seats only, shown this once: send it as `Authorization: Bearer <token>`"}
    )


class EndSchema(ma.Schema):
    end = fields.String(validate=validate.OneOf(("left", "right", "up", "down")), **ALWAYS)
    value = fields.Integer(
        validate=validate.Range(0, 6), **ALWAYS, metadata={"description": "The number showing on that end"}
    )


class ChainHeadSchema(ma.Schema):
    class Meta:
        description = (
            "Where the match's hash chain ends as this answer shows it: the last event's seq and hash (seq 0 and "
            "64 zeros before the first event). Pin it: once the match has ended, the row at that seq of "
            "`GET /audit` must have that hash, which proves the log up to that seq was not rewritten since "
            "(every hash covers every earlier row). The hash is over the unredacted rows, so it cannot be "
            "checked before /audit reveals them. What a pinned head proves and what it does not: "
            "openapi/events.md"
        )

    seq = fields.Integer(**ALWAYS, metadata={"description": "The last event's seq (0: none yet)"})
    hash = fields.String(
        validate=validate.Regexp("^[0-9a-f]{64}$"),
        **ALWAYS,
        metadata={"description": "That event's `hash` in the audit log (lowercase hex SHA-256)"},
    )


def ChainHeadField(description: str) -> fields.Nested:
    """A ``chain_head`` field: the one ``ChainHead`` component, described for where it is shown."""
    return fields.Nested(ChainHeadSchema, **ALWAYS, metadata={"description": description})


DEADLINE = fields.String(
    allow_none=True,
    metadata={
        "description": "Only with turn_seconds: when the seat to move times out and the server plays its turn "
        "(ISO 8601, UTC); null while no clock runs (a computer player to move, the match not playing)"
    },
)


class _SummaryFields(ma.Schema):
    id = fields.String(**ALWAYS)
    seeded_by_client = fields.Boolean(**ALWAYS, metadata={"description": "The server seed was chosen by the creator"})
    preset = fields.String(validate=validate.OneOf(tuple(PRESETS)), **ALWAYS)
    rated = fields.Boolean(**ALWAYS, metadata={"description": "Its end updates its players' ratings (docs/ratings.md)"})
    status = fields.String(validate=validate.OneOf(STATUSES), **ALWAYS)
    seq = fields.Integer(**ALWAYS, metadata={"description": "Number of the last event"})
    hand_number = fields.Integer(
        **ALWAYS, metadata={"description": "The hand being (or last) played; 0 before the first deal"}
    )
    scores = fields.List(fields.Integer(), **ALWAYS, metadata={"description": "Per seat, or per side with partners"})
    turn = fields.Integer(
        allow_none=True, **ALWAYS, metadata={"description": "The seat to move; null when nobody is to move"}
    )
    winner = fields.Integer(
        allow_none=True,
        **ALWAYS,
        metadata={"description": "Once ended: the winning seat, or side with partners; null before"},
    )
    players = fields.Integer(**ALWAYS)
    open_seats = fields.List(fields.Integer(), **ALWAYS, metadata={"description": "Seats still to be claimed"})
    created_at = fields.String(**ALWAYS, metadata={"description": "ISO 8601"})


class FairnessSchema(ma.Schema):
    match_id = fields.String(**ALWAYS)
    verified = fields.Boolean(**ALWAYS, metadata={"description": "Everything below checked out"})
    seed = fields.String(**ALWAYS)
    seed_commitment = fields.String(**ALWAYS)
    commitment_ok = fields.Boolean(**ALWAYS, metadata={"description": "SHA-256(seed) equals the published commitment"})
    chain_ok = fields.Boolean(
        **ALWAYS, metadata={"description": "Every stored event links to the previous one by hash"}
    )
    deals_checked = fields.Integer(**ALWAYS)
    moves_checked = fields.Integer(**ALWAYS)
    events_checked = fields.Integer(**ALWAYS)
    problems = fields.List(fields.String(), **ALWAYS, metadata={"description": "What did not check out, if anything"})


class MatchSummarySchema(_SummaryFields):
    rules = component("RuleSet", **ALWAYS)
    seed_commitment = fields.String(
        **ALWAYS, metadata={"description": "SHA-256 of the secret seed, revealed at the end"}
    )
    seats = fields.List(fields.Nested(SeatSchema), **ALWAYS)
    deadline_at = DEADLINE


class CreatedMatchSchema(MatchSummarySchema):
    seats = fields.List(fields.Nested(CreatedSeatSchema), **ALWAYS)


class MatchListItemSchema(_SummaryFields):
    seats = fields.List(fields.Nested(SeatSchema), **ALWAYS)
    updated_at = fields.String(**ALWAYS, metadata={"description": "ISO 8601: the last event's time"})


class MatchListSchema(ma.Schema):
    items = fields.List(fields.Nested(MatchListItemSchema), **ALWAYS)
    next_cursor = fields.String(
        allow_none=True, **ALWAYS, metadata={"description": "Pass as ?cursor= for the next page; null on the last"}
    )


class ViewSchema(ma.Schema):
    match_id = fields.String(**ALWAYS)
    seq = fields.Integer(**ALWAYS, metadata={"description": "Number of the last event this view includes"})
    status = fields.String(validate=validate.OneOf(STATUSES), **ALWAYS)
    seat = fields.Integer(
        allow_none=True, **ALWAYS, metadata={"description": "The viewer's seat; null for a spectator"}
    )
    hand_number = fields.Integer(**ALWAYS)
    leader = fields.Integer(allow_none=True, **ALWAYS, metadata={"description": "The seat that led this hand"})
    turn = fields.Integer(
        allow_none=True, **ALWAYS, metadata={"description": "The seat to move; null when nobody is to move"}
    )
    rules = component("RuleSet", **ALWAYS)
    seats = fields.List(fields.Nested(ViewSeatSchema), **ALWAYS)
    sides = fields.List(
        fields.List(fields.Integer()), metadata={"description": "Partners only: the seats of each side"}
    )
    scores = fields.List(fields.Integer(), **ALWAYS, metadata={"description": "Per seat, or per side with partners"})
    hand = fields.List(Tile(), metadata={"description": "A seat's view only: the viewer's own tiles"})
    pips = fields.Integer(metadata={"description": "A seat's view only: the pips in the viewer's hand"})
    hand_counts = fields.List(fields.Integer(), **ALWAYS, metadata={"description": "Tiles held, per seat"})
    drawn = fields.List(fields.Integer(), **ALWAYS, metadata={"description": "Tiles each seat drew this hand"})
    boneyard = fields.Integer(**ALWAYS, metadata={"description": "Tiles left in the boneyard"})
    ends = fields.List(fields.Nested(EndSchema), **ALWAYS, metadata={"description": "Every open end"})
    line = fields.List(
        component("LaidTile"),
        **ALWAYS,
        metadata={
            "description": "The line of play from its left end to its right end, each tile as it lies there: "
            "[its left number, its right number] (not high end first)"
        },
    )
    spinner = Tile(
        allow_none=True,
        metadata={"description": "Rule sets with a spinner only: the spinner, null until a double is played"},
    )
    arms = component("Arms", metadata={"description": "Rule sets with a spinner only"})
    count = fields.Integer(metadata={"description": "Fives games only: the sum of the open ends (the count)"})
    legal_actions = fields.List(
        component("LegalAction"),
        **ALWAYS,
        metadata={
            "description": "Exactly the actions this seat may send now, each to be sent as it is (empty for a "
            "spectator, or when it is another seat's turn and there is nothing to call)"
        },
    )
    last_hand = component(
        "HandResult",
        allow_none=True,
        **ALWAYS,
        metadata={"description": "How the previous hand ended; null before the first hand ends"},
    )
    winner = fields.Integer(
        allow_none=True,
        **ALWAYS,
        metadata={"description": "Once ended: the winning seat, or side with partners; null before"},
    )
    hands = fields.List(
        fields.List(Tile()),
        metadata={
            "description": "Once the match has ended: every hand as it was at the end, face up (absent when no "
            "tile was left in any hand)"
        },
    )
    seeded_by_client = fields.Boolean(**ALWAYS, metadata={"description": "The server seed was chosen by the creator"})
    deadline_at = DEADLINE
    chain_head = ChainHeadField("The hash chain's head at this view's seq, to pin")


class ActionResultSchema(ma.Schema):
    match_id = fields.String(**ALWAYS)
    seat = fields.Integer(**ALWAYS)
    seq = fields.Integer(**ALWAYS)
    events = fields.List(
        component("VisibleEvent"),
        **ALWAYS,
        metadata={
            "description": "The events appended (this action's and the computer players' replies), as this seat "
            "may see them"
        },
    )
    view = fields.Nested(ViewSchema, **ALWAYS)


class ClaimResultSchema(ma.Schema):
    match_id = fields.String(**ALWAYS)
    seat = fields.Integer(**ALWAYS)
    token = fields.String(**ALWAYS, metadata={"description": "The seat's secret token, shown this once"})
    seq = fields.Integer(**ALWAYS)
    view = fields.Nested(ViewSchema, **ALWAYS)


class EventsPageSchema(ma.Schema):
    match_id = fields.String(**ALWAYS)
    seat = fields.Integer(
        allow_none=True, **ALWAYS, metadata={"description": "The viewer's seat; null for a spectator"}
    )
    seq = fields.Integer(**ALWAYS, metadata={"description": "The last seq of the whole log"})
    chain_head = ChainHeadField("The hash chain's head at `seq` (this page's events are at or before it), to pin")
    events = fields.List(
        component("VisibleEvent"),
        **ALWAYS,
        metadata={"description": "This page's events, in seq order, as the viewer may see them"},
    )
    next_after = fields.Integer(
        allow_none=True, **ALWAYS, metadata={"description": "Pass as ?after= for the next page; null on the last"}
    )


class AuditSchema(ma.Schema):
    match_id = fields.String(**ALWAYS)
    seed = fields.String(**ALWAYS, metadata={"description": "The server seed, revealed"})
    seed_commitment = fields.String(**ALWAYS)
    shuffle_algorithm = fields.String(**ALWAYS, metadata={"description": "openapi/shuffle.md"})
    seq = fields.Integer(**ALWAYS, metadata={"description": "The last seq of the whole log"})
    chain_head = ChainHeadField("The hash chain's head: the last row's seq and hash (check pins against the rows)")
    events = fields.List(component("AuditEvent"), **ALWAYS, metadata={"description": "This page's rows, in seq order"})
    next_after = fields.Integer(
        allow_none=True, **ALWAYS, metadata={"description": "Pass as ?after= for the next page; null on the last page"}
    )


class PlayerStatsSchema(ma.Schema):
    player_ref = fields.String(**ALWAYS)
    matches_played = fields.Integer(
        **ALWAYS,
        metadata={
            "description": "The portal's matches with a seat of this player that ended, or that the player "
            "forfeited (matches_forfeited)"
        },
    )
    matches_won = fields.Integer(
        **ALWAYS, metadata={"description": "With partners, a side's win counts for both partners"}
    )
    matches_forfeited = fields.Integer(
        **ALWAYS,
        metadata={
            "description": "Counted as played and lost: the player's seat was handed to a bot after timing out "
            "(timeout_limit), or the match waits on the player's move for longer than the server's "
            "STATS_ABANDONED_AFTER_HOURS"
        },
    )
    hands_won = fields.Integer(**ALWAYS)
    best_margin = fields.Integer(
        allow_none=True,
        **ALWAYS,
        metadata={
            "description": "The largest lead over the best other side at the end of a won match; null before a win"
        },
    )
    current_streak = fields.Integer(**ALWAYS, metadata={"description": "Matches won in a row, up to the latest"})
    longest_streak = fields.Integer(**ALWAYS, metadata={"description": "The most matches won in a row"})


# --- ratings (api/http/ratings.py) ----------------------------------------------------------
FAMILY = fields.String(
    required=True,
    validate=validate.OneOf(values(Family)),
    metadata={
        "description": "A rules family: `draw`, `block` or `fives` (the scoring games, All Fives and Muggins); "
        "docs/rules.md, section 14"
    },
)


class FamilyPathSchema(ma.Schema):
    family = FAMILY


class LeaderboardQuerySchema(ma.Schema):
    limit = AsciiInteger(load_default=20, validate=validate.Range(min=1, max=MAX_RATING_PAGE))
    cursor = fields.String(
        metadata={
            "pattern": BOARD_CURSOR_PATTERN,
            "description": "next_cursor of the previous page (also in its Link header), as given "
            "(else 422 `invalid_cursor`)",
        }
    )


class HistoryQuerySchema(ma.Schema):
    family = FAMILY
    limit = AsciiInteger(load_default=20, validate=validate.Range(min=1, max=MAX_RATING_PAGE))
    cursor = fields.String(
        metadata={
            "pattern": CURSOR_PATTERN,
            "description": "next_cursor of the previous page (also in its Link header): "
            "`<microseconds since 1970, UTC>-<match id>`, the page after that match (else 422 `invalid_cursor`)",
        }
    )


_MU = {"description": "The rating model's mean skill (openskill Plackett-Luce; a newcomer has 25)"}
_SIGMA = {"description": "The model's uncertainty about mu (a newcomer has 25/3); it shrinks as matches are rated"}
_ORDINAL = {"description": "The conservative rating, mu - 3 sigma: what leaderboards order by"}


class RatingSchema(ma.Schema):
    player_ref = fields.String(**ALWAYS)
    family = fields.String(validate=validate.OneOf(values(Family)), **ALWAYS)
    mu = fields.Float(**ALWAYS, metadata=_MU)
    sigma = fields.Float(**ALWAYS, metadata=_SIGMA)
    ordinal = fields.Float(**ALWAYS, metadata=_ORDINAL)
    matches = fields.Integer(**ALWAYS, metadata={"description": "Rated matches counted (forfeits included)"})


class LeaderboardSchema(ma.Schema):
    family = fields.String(validate=validate.OneOf(values(Family)), **ALWAYS)
    items = fields.List(
        fields.Nested(RatingSchema), **ALWAYS, metadata={"description": "Highest ordinal first, then by player_ref"}
    )
    next_cursor = fields.String(
        allow_none=True, **ALWAYS, metadata={"description": "Pass as ?cursor= for the next page; null on the last"}
    )


class PlayerRatingsSchema(ma.Schema):
    player_ref = fields.String(**ALWAYS)
    ratings = fields.List(
        fields.Nested(RatingSchema),
        **ALWAYS,
        metadata={"description": "One per family the player has rated matches in (none yet: empty)"},
    )


class RatingChangeSchema(ma.Schema):
    match_id = fields.String(**ALWAYS)
    at = fields.String(**ALWAYS, metadata={"description": "ISO 8601: when the match (or the forfeit) was rated"})
    outcome = fields.String(
        validate=validate.OneOf(("won", "lost", "forfeited")),
        **ALWAYS,
        metadata={
            "description": "`won` (the player's side won), `lost`, `forfeited` (the seat was handed to a bot "
            "after timing out: a loss at once)"
        },
    )
    mu_before = fields.Float(**ALWAYS)
    sigma_before = fields.Float(**ALWAYS)
    ordinal_before = fields.Float(**ALWAYS)
    mu_after = fields.Float(**ALWAYS)
    sigma_after = fields.Float(**ALWAYS)
    ordinal_after = fields.Float(**ALWAYS)


class RatingHistorySchema(ma.Schema):
    player_ref = fields.String(**ALWAYS)
    family = fields.String(validate=validate.OneOf(values(Family)), **ALWAYS)
    items = fields.List(fields.Nested(RatingChangeSchema), **ALWAYS, metadata={"description": "Newest first"})
    next_cursor = fields.String(
        allow_none=True, **ALWAYS, metadata={"description": "Pass as ?cursor= for the next page; null on the last"}
    )


class BotRatingSchema(ma.Schema):
    family = fields.String(validate=validate.OneOf(values(Family)), **ALWAYS)
    level = fields.String(validate=validate.OneOf(LEVELS), **ALWAYS)
    mu = fields.Float(**ALWAYS, metadata=_MU)
    sigma = fields.Float(**ALWAYS, metadata=_SIGMA)
    ordinal = fields.Float(**ALWAYS, metadata=_ORDINAL)


class BotRatingsSchema(ma.Schema):
    items = fields.List(
        fields.Nested(BotRatingSchema),
        **ALWAYS,
        metadata={
            "description": "Each level's fixed rating in each family: computer players in rated matches play at "
            "these and are never updated (fitted by bench/calibrate_ratings.py)"
        },
    )
