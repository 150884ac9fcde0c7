"""Request and response schemas of /v1 (they are also the OpenAPI document)."""

from __future__ import annotations

import re

import marshmallow as ma
from marshmallow import fields, validate

from api.bots import LEVELS
from api.http.input_guard import TEXT_PATTERN
from api.rules import DEFAULT_PRESET, PRESETS
from api.services.matches import AUDIT_PAGE, MAX_AUDIT_PAGE

SEAT_TYPES = ("remote", "bot", "open")
STATUSES = ("waiting", "playing", "ended")
# Text without control characters: PostgreSQL text cannot hold NUL (a string with one used
# to reach the database and fail there, 500), and no name, seed or player_ref has a use for
# the others. The same rule as for paths and query strings (api.http.input_guard), so a
# player_ref that can be stored can be looked up; the OpenAPI pattern says so.
TEXT = validate.Regexp(TEXT_PATTERN, error="must not contain control characters")
NAME = [validate.Length(min=1, max=40), TEXT]
SEED = [validate.Length(min=1, max=128), TEXT]
PLAYER_REF = [validate.Length(min=1, max=128), TEXT]
MAX_SEQ = 2**31 - 1   # the largest seq the store's INTEGER columns hold (PostgreSQL's int4)
# Far above any play's points (the open ends of a double-six line count under 50): every
# integer a client sends has a bound, so none reaches the rules or the store unchecked.
MAX_PLAY_POINTS = 1000


class AsciiInteger(fields.Integer):
    """An integer as a client writes one: a JSON integer (or an integral number), or up to 20
    ASCII digits (a query string). Plain ``int()`` also reads '٣' and '６' as digits, ' 1_0 '
    as 10 and truncates 3.7 to 3; none of those is a number this API was sent."""

    def _validated(self, value):
        if isinstance(value, str) and not _ASCII_INTEGER.fullmatch(value):
            raise self.make_error("invalid", input=value)
        if isinstance(value, float) and not value.is_integer():
            raise self.make_error("invalid", input=value)
        return super()._validated(value)


class AsciiFloat(fields.Float):
    """A number as a client writes one: JSON, or ASCII decimal notation (``float()`` also reads
    '٣' and '1_0')."""

    def _validated(self, value):
        if isinstance(value, str) and not _ASCII_FLOAT.fullmatch(value):
            raise self.make_error("invalid", input=value)
        return super()._validated(value)


_ASCII_INTEGER = re.compile(r"[+-]?[0-9]{1,20}")
_ASCII_FLOAT = re.compile(r"[+-]?(?:[0-9]{1,20}(?:\.[0-9]{0,20})?|\.[0-9]{1,20})(?:[eE][+-]?[0-9]{1,3})?")


def Tile(**kwargs):
    return fields.List(fields.Integer(validate=validate.Range(0, 6)), validate=validate.Length(equal=2),
                       metadata={"description": "A tile, high end first: [6, 3]", "example": [6, 3]},
                       **kwargs)


# --- requests ------------------------------------------------------------------------
class SeatSpecSchema(ma.Schema):
    name = fields.String(required=True, validate=NAME, metadata={"description": "Shown to everyone; stored as given"})
    type = fields.String(required=True, validate=validate.OneOf(SEAT_TYPES),
                         metadata={"description": "remote: a client holding a token; bot: played by the server; "
                                                  "open: claimed later"})
    level = fields.String(load_default=None, allow_none=True, validate=validate.OneOf(LEVELS),
                          metadata={"description": "Computer level, bots only (default greedy)"})
    client_seed = fields.String(validate=SEED, metadata={"description": "Mixed into every deal (provable fairness)"})
    player_ref = fields.String(validate=PLAYER_REF, metadata={
        "description": "The portal's own id for the player (opaque); shown in public seat lists, "
                       "used by player statistics and the player_ref filter"})

    @ma.validates_schema
    def level_only_for_bots(self, data, **kwargs):
        if data.get("level") is not None and data["type"] != "bot":
            raise ma.ValidationError("only bot seats have a level", "level")


class MatchCreateSchema(ma.Schema):
    preset = fields.String(load_default=DEFAULT_PRESET, validate=validate.OneOf(tuple(PRESETS)),
                           metadata={"description": "A named table; see the rules of each in the README"})
    rules = fields.Dict(keys=fields.String(), load_default=dict,
                        metadata={"description": "Option overrides, e.g. {\"target\": 150}"})
    seats = fields.List(fields.Nested(SeatSpecSchema), required=True, validate=validate.Length(min=2, max=4))
    seed = fields.String(validate=SEED, metadata={
        "description": "Choose the server seed (reproducible tests, research): only where the server allows "
                       "it (ALLOW_CLIENT_SEED); such matches show seeded_by_client everywhere"})


class ClaimSchema(ma.Schema):
    name = fields.String(required=True, validate=NAME)
    client_seed = fields.String(validate=SEED, metadata={"description": "Mixed into every deal (provable fairness)"})
    player_ref = fields.String(validate=PLAYER_REF, metadata={
        "description": "The portal's own id for the player (a rematch seat keeps the old seat's by default)"})


class ActionSchema(ma.Schema):
    type = fields.String(required=True, validate=validate.OneOf(("play", "draw", "knock", "muggins")))
    tile = fields.Raw(metadata={"description": "play: the tile, [6, 4] (either order) or \"6-4\"",
                                "example": [6, 4]})
    end = fields.String(validate=validate.OneOf(("left", "right", "up", "down")),
                        metadata={"description": "play: the end to place it on"})
    claim = AsciiInteger(validate=validate.Range(min=0, max=MAX_PLAY_POINTS),
                           metadata={"description": "play under muggins_calls: the points claimed"})
    until = fields.String(validate=validate.OneOf(("playable",)),
                          metadata={"description": "draw: keep drawing until a tile fits"})
    scores = AsciiInteger(validate=validate.Range(min=0, max=MAX_PLAY_POINTS),
                            metadata={"description": "Ignored: the hint a listed legal action carries"})
    expected_seq = AsciiInteger(validate=validate.Range(min=0, max=MAX_SEQ),
                                  metadata={"description": "Refuse with 409 stale_seq unless the match is at this seq"})


class EventsQuerySchema(ma.Schema):
    # Bounded by the database's seq column (a 32-bit integer): a larger ``after`` used to
    # reach the query and fail there (500).
    after = AsciiInteger(load_default=0, validate=validate.Range(min=0, max=MAX_SEQ))
    limit = AsciiInteger(load_default=100, validate=validate.Range(min=1, max=1000))
    wait = AsciiFloat(load_default=0, validate=validate.Range(min=0, max=60), metadata={
        "description": "Long-poll: with no event after `after` yet, hold the request up to this many "
                       "seconds and answer as soon as one is appended (an empty page at the timeout)"})


class AuditQuerySchema(ma.Schema):
    after = AsciiInteger(load_default=0, validate=validate.Range(min=0, max=MAX_SEQ),
                           metadata={"description": "Rows after this seq (`next_after` of the previous page)"})
    limit = AsciiInteger(load_default=AUDIT_PAGE, validate=validate.Range(min=1, max=MAX_AUDIT_PAGE),
                           metadata={"description": "Rows per page"})


class PlayerRefPathSchema(ma.Schema):
    player_ref = fields.String(required=True, validate=PLAYER_REF, metadata={
        "description": "The portal's own id for the player, as given in seats"})


class ListQuerySchema(ma.Schema):
    status = fields.String(validate=validate.OneOf(STATUSES))
    preset = fields.String(validate=validate.OneOf(tuple(PRESETS)))
    has_open_seat = fields.Boolean(metadata={
        "description": "true: only matches with a seat anyone may claim (not one kept for a rematch); "
                       "false: only matches without"})
    player_ref = fields.String(validate=PLAYER_REF, metadata={"description": "Only matches with a seat of this player"})
    limit = AsciiInteger(load_default=20, validate=validate.Range(min=1, max=100))
    cursor = fields.String(validate=TEXT, metadata={
        "description": "next_cursor of the previous page (also in its Link header)"})


# --- responses ----------------------------------------------------------------------
class SeatSchema(ma.Schema):
    seat = fields.Integer()
    name = fields.String()
    type = fields.String()
    level = fields.String(allow_none=True)
    client_seed = fields.String(allow_none=True)
    player_ref = fields.String(allow_none=True, metadata={"description": "The portal's id for the player"})


class CreatedSeatSchema(SeatSchema):
    token = fields.String(metadata={"description": "Remote seats only, shown this once: Authorization: Bearer <token>"})


class EndSchema(ma.Schema):
    end = fields.String()
    value = fields.Integer()


class _SummaryFields(ma.Schema):
    id = fields.String()
    seeded_by_client = fields.Boolean()
    preset = fields.String()
    status = fields.String(validate=validate.OneOf(STATUSES))
    seq = fields.Integer(metadata={"description": "Number of the last event"})
    hand_number = fields.Integer()
    scores = fields.List(fields.Integer(), metadata={"description": "Per seat, or per side with partners"})
    turn = fields.Integer(allow_none=True)
    winner = fields.Integer(allow_none=True)
    players = fields.Integer()
    open_seats = fields.List(fields.Integer())
    created_at = fields.String()
    deadline_at = fields.String(allow_none=True, metadata={
        "description": "With turn_seconds: when the seat to move times out (ISO 8601, UTC); "
                       "null while no clock runs (a bot to move, the match not playing)"})


class FairnessSchema(ma.Schema):
    match_id = fields.String()
    verified = fields.Boolean(metadata={"description": "Everything below checked out"})
    seed = fields.String()
    seed_commitment = fields.String()
    commitment_ok = fields.Boolean(metadata={"description": "SHA-256(seed) equals the published commitment"})
    chain_ok = fields.Boolean(metadata={"description": "Every stored event links to the previous one by hash"})
    deals_checked = fields.Integer()
    moves_checked = fields.Integer()
    events_checked = fields.Integer()
    problems = fields.List(fields.String())


class MatchSummarySchema(_SummaryFields):
    rules = fields.Dict()
    seed_commitment = fields.String(metadata={"description": "SHA-256 of the secret seed, revealed at the end"})
    seats = fields.List(fields.Nested(SeatSchema))


class CreatedMatchSchema(MatchSummarySchema):
    seats = fields.List(fields.Nested(CreatedSeatSchema))


class MatchListItemSchema(_SummaryFields):
    seats = fields.List(fields.Nested(SeatSchema))
    updated_at = fields.String()


class MatchListSchema(ma.Schema):
    items = fields.List(fields.Nested(MatchListItemSchema))
    next_cursor = fields.String(allow_none=True)


class ViewSchema(ma.Schema):
    match_id = fields.String()
    seq = fields.Integer()
    status = fields.String()
    seat = fields.Integer(allow_none=True, metadata={"description": "The viewer's seat; null for a spectator"})
    hand_number = fields.Integer()
    leader = fields.Integer(allow_none=True)
    turn = fields.Integer(allow_none=True)
    rules = fields.Dict()
    seats = fields.List(fields.Nested(SeatSchema))
    sides = fields.List(fields.List(fields.Integer()), metadata={"description": "Partners: the seats of each side"})
    scores = fields.List(fields.Integer())
    hand = fields.List(Tile(), metadata={"description": "The viewer's own tiles"})
    pips = fields.Integer(metadata={"description": "Pips in the viewer's hand"})
    hand_counts = fields.List(fields.Integer())
    drawn = fields.List(fields.Integer(), metadata={"description": "Tiles each seat drew this hand"})
    boneyard = fields.Integer(metadata={"description": "Tiles left in the boneyard"})
    ends = fields.List(fields.Nested(EndSchema))
    line = fields.List(Tile(), metadata={"description": "The line of play, left to right, as the tiles lie"})
    spinner = Tile(allow_none=True)
    arms = fields.Dict(keys=fields.String(), values=fields.List(Tile()))
    count = fields.Integer(metadata={"description": "Fives games: the sum of the open ends"})
    legal_actions = fields.List(fields.Dict(), metadata={"description": "Exactly the actions this seat may send now"})
    last_hand = fields.Dict(allow_none=True)
    winner = fields.Integer(allow_none=True)
    hands = fields.List(fields.List(Tile()), metadata={"description": "Every hand, face up, once the match is over"})
    seeded_by_client = fields.Boolean(metadata={"description": "The server seed was chosen by the creator"})
    deadline_at = fields.String(allow_none=True, metadata={
        "description": "With turn_seconds: when the seat to move times out and the server plays its turn "
                       "(ISO 8601, UTC)"})


class ActionResultSchema(ma.Schema):
    match_id = fields.String()
    seat = fields.Integer()
    seq = fields.Integer()
    events = fields.List(fields.Dict(), metadata={"description": "The events appended, as this seat may see them"})
    view = fields.Nested(ViewSchema)


class ClaimResultSchema(ma.Schema):
    match_id = fields.String()
    seat = fields.Integer()
    token = fields.String()
    seq = fields.Integer()
    view = fields.Nested(ViewSchema)


class EventsPageSchema(ma.Schema):
    match_id = fields.String()
    seat = fields.Integer(allow_none=True)
    seq = fields.Integer()
    events = fields.List(fields.Dict())
    next_after = fields.Integer(allow_none=True, metadata={"description": "Pass as ?after= for the next page"})


class AuditSchema(ma.Schema):
    match_id = fields.String()
    seed = fields.String()
    seed_commitment = fields.String()
    shuffle_algorithm = fields.String()
    seq = fields.Integer(metadata={"description": "The last seq of the whole log"})
    events = fields.List(fields.Dict(), metadata={"description": "This page's rows, in seq order"})
    next_after = fields.Integer(allow_none=True, metadata={
        "description": "Pass as ?after= for the next page; null on the last page"})


class PlayerStatsSchema(ma.Schema):
    player_ref = fields.String()
    matches_played = fields.Integer(metadata={"description": "Ended matches with a seat of this player"})
    matches_won = fields.Integer(metadata={"description": "With partners, a side's win counts for both partners"})
    hands_won = fields.Integer()
    best_margin = fields.Integer(allow_none=True, metadata={
        "description": "The largest lead over the best other side at the end of a won match; null before a win"})
    current_streak = fields.Integer(metadata={"description": "Matches won in a row, up to the latest"})
    longest_streak = fields.Integer(metadata={"description": "The most matches won in a row"})
