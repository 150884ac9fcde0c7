"""Tournaments over HTTP (issue 37): create and run them with the portal's key; its players read
them and enter or withdraw with their player tokens. docs/tournaments.md tells it all.

Every read answers an ``ETag`` naming the tournament's seq (and, for a player's rounds, who
asks: its own seat tokens are in them), and 304 to an ``If-None-Match`` still current.
"""

from __future__ import annotations

from typing import Any, ClassVar

import marshmallow as ma
from flask import Response
from flask.views import MethodView
from flask_smorest import Blueprint
from marshmallow import fields, validate

from api import bots
from api import tournaments as core
from api.http import problem_codes as codes
from api.http.arguments import JSON_BODY_PARSER
from api.http.callers import bus, caller_portal
from api.http.conditional import ETAG_HEADER, IF_NONE_MATCH_PARAMETER, NOT_MODIFIED_RESPONSE, etag, not_modified
from api.http.matches import ChainHeadField
from api.http.matchmaking import ID, PLAYER, PORTAL_KEY, acting
from api.http.openapi_shapes import Union, component
from api.http.problem_codes import problem_responses
from api.http.schema_fields import ALWAYS, MAX_SEQ, NAME, PLAYER_REF, AsciiFloat, AsciiInteger, RuleOverrides
from api.rules import DEFAULT_PRESET, PRESETS
from api.rules.ruleset import TURN_SECONDS_RANGE
from api.services import commands
from api.services.errors import PortalKeyRequired
from api.services.tournaments import MAX_EVENTS_PAGE, MAX_STANDINGS_PAGE
from api.tournaments.commands import CLOSED_BY, MAX_ARENA_MINUTES, MAX_ENTRANTS, MAX_ROUNDS, WITHDRAWN_BY
from api.tournaments.events import MEMBER_KINDS

blp = Blueprint(
    "tournaments", __name__, url_prefix="/v1/tournaments", description="Tournaments: Swiss, round robin and arena"
)
blp.ARGUMENTS_PARSER = JSON_BODY_PARSER  # a body sent as anything but JSON: 415, not "Missing data"

Headed = tuple[dict[str, Any], int, dict[str, str]]
CONDITIONAL = [IF_NONE_MATCH_PARAMETER]
RATING = validate.Range(min=-100000, max=100000)
OUTCOMES = ("win", "draw", "loss", "bye")


def the_portal() -> commands.Caller:
    portal = caller_portal()
    if portal is None:
        raise PortalKeyRequired("a tournament is created and run by its portal: send its key (X-API-Key)")
    return commands.Caller(portal.id)


# --- what a tournament is -------------------------------------------------------------------------------
class TournamentCreateSchema(ma.Schema):
    name = fields.String(
        validate=NAME, metadata={"description": "Shown to players (e.g. on the web page); stored as given"}
    )
    format = fields.String(required=True, validate=validate.OneOf(core.FORMATS))
    preset = fields.String(load_default=DEFAULT_PRESET, validate=validate.OneOf(tuple(PRESETS)))
    rules = RuleOverrides()
    teams = fields.Boolean(
        load_default=False, metadata={"description": "Partner teams of two (a 4-seat partner game), else players alone"}
    )
    rounds = AsciiInteger(
        validate=validate.Range(min=1, max=MAX_ROUNDS),
        metadata={"description": "A Swiss's rounds (fewer than its entrants); a round robin's follow from its field"},
    )
    duplicate = fields.Boolean(
        load_default=False,
        metadata={
            "description": "Duplicate deals (a Swiss or round robin): every table of a round is dealt from one seed, "
            "and each pairing plays two tables, seats swapped"
        },
    )
    duration_minutes = AsciiInteger(
        validate=validate.Range(min=1, max=MAX_ARENA_MINUTES),
        metadata={"description": "An arena's (required there, refused elsewhere): it pairs this long after its start"},
    )
    turn_seconds = AsciiInteger(
        required=True,
        validate=validate.Range(*TURN_SECONDS_RANGE),
        metadata={
            "description": "Every match's turn clock (mandatory): a seat that times out 3 turns in a row forfeits"
        },
    )
    tiebreaks = fields.List(
        fields.String(validate=validate.OneOf(core.TIEBREAKS)),
        load_default=lambda: list(core.TIEBREAKS),
        validate=validate.Length(min=1, max=len(core.TIEBREAKS)),
        metadata={"description": "After match points, in this order"},
    )
    rated = fields.Boolean(load_default=False)
    starts_at = fields.AwareDateTime(
        metadata={"description": "Starts at this time (ISO 8601 with its offset); absent: when the portal says"}
    )
    max_entrants = AsciiInteger(validate=validate.Range(min=2, max=MAX_ENTRANTS))
    rating_min = AsciiFloat(validate=RATING, metadata={"description": "Entry: players rated at least this"})
    rating_max = AsciiFloat(validate=RATING, metadata={"description": "Entry: players rated at most this"})
    bot_levels = fields.List(
        fields.String(validate=validate.OneOf(bots.LEVELS)),
        load_default=list,
        validate=validate.Length(max=len(bots.LEVELS)),
        metadata={"description": "Entry: the computer players' levels the portal may enter"},
    )


class TournamentSettingsSchema(ma.Schema):
    format = fields.String(validate=validate.OneOf(core.FORMATS), **ALWAYS)
    preset = fields.String(**ALWAYS)
    side_size = fields.Integer(**ALWAYS, metadata={"description": "Seats per side: 1, or 2 for partner teams"})
    rounds = fields.Integer(
        allow_none=True, **ALWAYS, metadata={"description": "A Swiss's; null for a round robin or an arena"}
    )
    tiebreaks = fields.List(fields.String(validate=validate.OneOf(core.TIEBREAKS)), **ALWAYS)
    turn_seconds = fields.Integer(**ALWAYS)
    rules = component("RuleOverrides", **ALWAYS, metadata={"description": "The overrides asked for"})
    rated = fields.Boolean(**ALWAYS)
    starts_at = fields.String(allow_none=True, **ALWAYS)
    max_entrants = fields.Integer(allow_none=True, **ALWAYS)
    rating_min = fields.Float(allow_none=True, **ALWAYS)
    rating_max = fields.Float(allow_none=True, **ALWAYS)
    bot_levels = fields.List(fields.String(), **ALWAYS)
    duration_minutes = fields.Integer(allow_none=True, **ALWAYS, metadata={"description": "An arena's; else null"})
    duplicate = fields.Boolean(**ALWAYS)
    name = fields.String(allow_none=True, **ALWAYS, metadata={"description": "null: unnamed"})


class EntrantMemberSchema(ma.Schema):
    kind = fields.String(validate=validate.OneOf(MEMBER_KINDS), **ALWAYS)
    player_ref = fields.String(allow_none=True, **ALWAYS)
    level = fields.String(allow_none=True, **ALWAYS)


class EntrantFieldsSchema(ma.Schema):
    id = fields.String(**ALWAYS, metadata={"description": "e1, e2, … in registration order"})
    name = fields.String(**ALWAYS)
    members = fields.List(
        fields.Nested(EntrantMemberSchema), **ALWAYS, metadata={"description": "One per seat of its side"}
    )
    rating = fields.Float(allow_none=True, **ALWAYS, metadata={"description": "Its seeding rating (null: unrated)"})


class EntrantSchema(EntrantFieldsSchema):
    withdrawn = fields.Boolean(**ALWAYS)


class TiebreakSchema(ma.Schema):
    name = fields.String(validate=validate.OneOf(core.TIEBREAKS), **ALWAYS)
    value = fields.Integer(**ALWAYS)


class StandingSchema(ma.Schema):
    rank = fields.Integer(**ALWAYS, metadata={"description": "1 first; equal in everything shares a rank"})
    entrant_id = fields.String(**ALWAYS)
    name = fields.String(**ALWAYS)
    match_points = fields.Integer(
        **ALWAYS,
        metadata={"description": "A win 2, a draw 1; a Swiss bye 2; an arena's wins after two in a row 4"},
    )
    played = fields.Integer(**ALWAYS)
    wins = fields.Integer(**ALWAYS)
    draws = fields.Integer(**ALWAYS)
    losses = fields.Integer(**ALWAYS)
    byes = fields.Integer(**ALWAYS)
    points_for = fields.Integer(**ALWAYS)
    points_against = fields.Integer(**ALWAYS)
    tiebreaks = fields.List(fields.Nested(TiebreakSchema), **ALWAYS, metadata={"description": "In the named order"})
    withdrawn = fields.Boolean(**ALWAYS)
    streak = fields.Integer(**ALWAYS, metadata={"description": "Wins in a row up to its last decided game"})


class TournamentSchema(ma.Schema):
    id = fields.String(**ALWAYS)
    status = fields.String(validate=validate.OneOf(core.STATUSES), **ALWAYS)
    paused = fields.Boolean(**ALWAYS)
    cancel_reason = fields.String(allow_none=True, **ALWAYS)
    settings = fields.Nested(TournamentSettingsSchema, **ALWAYS)
    planned_rounds = fields.Integer(
        allow_none=True, **ALWAYS, metadata={"description": "Fixed at the start (0 for an arena)"}
    )
    ends_at = fields.String(
        allow_none=True, **ALWAYS, metadata={"description": "An arena's end of pairing (ISO 8601), fixed at the start"}
    )
    closed = fields.Boolean(**ALWAYS, metadata={"description": "An arena that pairs no more"})
    current_round = fields.Integer(allow_none=True, **ALWAYS)
    rounds_ended = fields.Integer(**ALWAYS)
    entrants = fields.List(fields.Nested(EntrantSchema), **ALWAYS)
    standings = fields.List(fields.Nested(StandingSchema), **ALWAYS, metadata={"description": "Best first"})
    seq = fields.Integer(**ALWAYS, metadata={"description": "The tournament's log's last seq"})
    chain_head = ChainHeadField("The head of the tournament's own hash chain")
    created_at = fields.String(**ALWAYS)


class StandingsPageSchema(ma.Schema):
    tournament_id = fields.String(**ALWAYS)
    seq = fields.Integer(**ALWAYS)
    standings = fields.List(
        fields.Nested(StandingSchema), **ALWAYS, metadata={"description": "This page's, best first"}
    )
    next_offset = fields.Integer(allow_none=True, **ALWAYS, metadata={"description": "The next page's; null: none"})


class StandingsQuerySchema(ma.Schema):
    offset = AsciiInteger(load_default=0, validate=validate.Range(min=0, max=MAX_ENTRANTS))
    limit = AsciiInteger(load_default=100, validate=validate.Range(min=1, max=MAX_STANDINGS_PAGE))


class TableResultSchema(ma.Schema):
    winner = fields.Integer(allow_none=True, **ALWAYS, metadata={"description": "The winning side; null: a draw"})
    scores = fields.List(fields.Integer(), **ALWAYS, metadata={"description": "Each side's, in side order"})
    forfeit = fields.Boolean(**ALWAYS)


class PairedTableSchema(ma.Schema):
    number = fields.Integer(**ALWAYS)
    sides = fields.List(fields.String(), **ALWAYS, metadata={"description": "Side 0 sits first (and third)"})
    match_id = fields.String(allow_none=True, **ALWAYS, metadata={"description": "null: decided by a forfeit"})


class TournamentTableSchema(PairedTableSchema):
    result = component("TableResult", allow_none=True, **ALWAYS, metadata={"description": "null while in play"})


class TournamentRoundSchema(ma.Schema):
    number = fields.Integer(**ALWAYS)
    ended = fields.Boolean(**ALWAYS)
    bye = fields.String(allow_none=True, **ALWAYS)
    seed_commitment = fields.String(
        allow_none=True, **ALWAYS, metadata={"description": "A duplicate round's commitment to its one seed"}
    )
    tables = fields.List(fields.Nested(TournamentTableSchema), **ALWAYS)


class MySeatSchema(ma.Schema):
    round = fields.Integer(**ALWAYS)
    table = fields.Integer(**ALWAYS)
    match_id = fields.String(**ALWAYS)
    seat = fields.Integer(**ALWAYS)
    token = fields.String(allow_none=True, **ALWAYS, metadata={"description": "Your seat's token"})


class TournamentRoundsSchema(ma.Schema):
    tournament_id = fields.String(**ALWAYS)
    seq = fields.Integer(**ALWAYS)
    rounds = fields.List(fields.Nested(TournamentRoundSchema), **ALWAYS)
    my_seats = fields.List(
        fields.Nested(MySeatSchema), **ALWAYS, metadata={"description": "A player's own seats (empty for the portal)"}
    )


class CrosstableGameSchema(ma.Schema):
    round = fields.Integer(**ALWAYS)
    table = fields.Integer(allow_none=True, **ALWAYS)
    opponent = fields.String(allow_none=True, **ALWAYS)
    side = fields.Integer(allow_none=True, **ALWAYS)
    outcome = fields.String(allow_none=True, validate=validate.OneOf(OUTCOMES), **ALWAYS)
    scores = fields.List(fields.Integer(), **ALWAYS, metadata={"description": "Its own, the opponent's"})
    match_points = fields.Integer(**ALWAYS)
    forfeit = fields.Boolean(**ALWAYS)


class CrosstableRowSchema(ma.Schema):
    entrant_id = fields.String(**ALWAYS)
    rank = fields.Integer(**ALWAYS)
    games = fields.List(fields.Nested(CrosstableGameSchema), **ALWAYS)


class CrosstableSchema(ma.Schema):
    tournament_id = fields.String(**ALWAYS)
    seq = fields.Integer(**ALWAYS)
    rows = fields.List(fields.Nested(CrosstableRowSchema), **ALWAYS, metadata={"description": "In standings order"})


class DuplicateMatchSchema(ma.Schema):
    match_id = fields.String(**ALWAYS)
    seed_commitment = fields.String(**ALWAYS, metadata={"description": "As the match's match_created publishes it"})


class DuplicateRoundSchema(ma.Schema):
    round = fields.Integer(**ALWAYS)
    seed_commitment = fields.String(**ALWAYS, metadata={"description": "As the round's round_paired commits to it"})
    seed = fields.String(
        allow_none=True, **ALWAYS, metadata={"description": "Revealed once the round has ended (null before)"}
    )
    matches = fields.List(fields.Nested(DuplicateMatchSchema), **ALWAYS)
    same_deals = fields.Boolean(
        allow_none=True,
        **ALWAYS,
        metadata={"description": "Every match committed to the round's seed and the seed hashes to it (null: not yet)"},
    )
    problems = fields.List(fields.String(), **ALWAYS)


class TournamentFairnessSchema(ma.Schema):
    tournament_id = fields.String(**ALWAYS)
    seq = fields.Integer(**ALWAYS)
    duplicate = fields.Boolean(**ALWAYS)
    rounds = fields.List(fields.Nested(DuplicateRoundSchema), **ALWAYS, metadata={"description": "Duplicate rounds"})


# --- the log: each event's shape, by type ------------------------------------------------------------------
def _event_type(name: str) -> fields.String:
    return fields.String(validate=validate.OneOf((name,)), **ALWAYS)


class TournamentCreatedEventSchema(ma.Schema):
    type = _event_type(core.TournamentCreated.type)
    tournament_id = fields.String(**ALWAYS)
    settings = fields.Nested(TournamentSettingsSchema, **ALWAYS)


class EntrantRegisteredEventSchema(ma.Schema):
    type = _event_type(core.EntrantRegistered.type)
    entrant = fields.Nested(EntrantFieldsSchema, **ALWAYS)


class EntrantWithdrawnEventSchema(ma.Schema):
    type = _event_type(core.EntrantWithdrawn.type)
    entrant_id = fields.String(**ALWAYS)
    by = fields.String(validate=validate.OneOf(WITHDRAWN_BY), **ALWAYS)


class TournamentStartedEventSchema(ma.Schema):
    type = _event_type(core.TournamentStarted.type)
    rounds = fields.Integer(**ALWAYS)
    order = fields.List(fields.String(), **ALWAYS)
    ends_at = fields.String(allow_none=True, **ALWAYS)


class RoundPairedEventSchema(ma.Schema):
    type = _event_type(core.RoundPaired.type)
    round = fields.Integer(**ALWAYS)
    tables = fields.List(fields.Nested(PairedTableSchema), **ALWAYS)
    bye = fields.String(allow_none=True, **ALWAYS)
    waiting = fields.List(
        fields.String(), **ALWAYS, metadata={"description": "An arena's: the free entrants this pairing left waiting"}
    )
    seed_commitment = fields.String(
        allow_none=True,
        **ALWAYS,
        metadata={"description": "A duplicate round's: SHA-256 of the one seed all its matches are dealt from"},
    )


class TableResultEventSchema(TableResultSchema):
    type = _event_type(core.MatchResult.type)
    round = fields.Integer(**ALWAYS)
    table = fields.Integer(**ALWAYS)


class TournamentRoundEndedEventSchema(ma.Schema):
    type = _event_type(core.RoundEnded.type)
    round = fields.Integer(**ALWAYS)


class ArenaClosedEventSchema(ma.Schema):
    type = _event_type(core.ArenaClosed.type)
    by = fields.String(validate=validate.OneOf(CLOSED_BY), **ALWAYS)


class TournamentPausedEventSchema(ma.Schema):
    type = _event_type(core.TournamentPaused.type)


class TournamentResumedEventSchema(ma.Schema):
    type = _event_type(core.TournamentResumed.type)


class TournamentCancelledEventSchema(ma.Schema):
    type = _event_type(core.TournamentCancelled.type)
    reason = fields.String(**ALWAYS)


class TournamentEndedEventSchema(ma.Schema):
    type = _event_type(core.TournamentEnded.type)
    rounds_played = fields.Integer(**ALWAYS)


class TournamentEventSchema(Union):
    """A tournament's event, by `type` (api/tournaments/events.py; docs/tournaments.md)."""

    SHAPES: ClassVar[dict[str, type[ma.Schema]]] = {
        core.TournamentCreated.type: TournamentCreatedEventSchema,
        core.EntrantRegistered.type: EntrantRegisteredEventSchema,
        core.EntrantWithdrawn.type: EntrantWithdrawnEventSchema,
        core.TournamentStarted.type: TournamentStartedEventSchema,
        core.RoundPaired.type: RoundPairedEventSchema,
        core.MatchResult.type: TableResultEventSchema,
        core.RoundEnded.type: TournamentRoundEndedEventSchema,
        core.ArenaClosed.type: ArenaClosedEventSchema,
        core.TournamentPaused.type: TournamentPausedEventSchema,
        core.TournamentResumed.type: TournamentResumedEventSchema,
        core.TournamentCancelled.type: TournamentCancelledEventSchema,
        core.TournamentEnded.type: TournamentEndedEventSchema,
    }


UNIONS = {"TournamentEvent": TournamentEventSchema}
#: Components the answers name by reference (:func:`~api.http.openapi_shapes.component`), registered whole.
COMPONENTS = {"TableResult": TableResultSchema}


class LoggedEventSchema(ma.Schema):
    seq = fields.Integer(**ALWAYS)
    schema_version = fields.Integer(**ALWAYS)
    recorded_at = fields.String(**ALWAYS)
    prev_hash = fields.String(**ALWAYS)
    hash = fields.String(
        **ALWAYS,
        metadata={
            "description": "SHA-256 of prev_hash, a newline and the canonical JSON of {seq, type, schema_version, "
            "data} (the event less its type), as a match's log (openapi/events.md)"
        },
    )
    event = component("TournamentEvent", **ALWAYS)


class TournamentEventsSchema(ma.Schema):
    tournament_id = fields.String(**ALWAYS)
    seq = fields.Integer(**ALWAYS)
    chain_head = ChainHeadField("The head of the tournament's own hash chain")
    events = fields.List(fields.Nested(LoggedEventSchema), **ALWAYS)
    next_after = fields.Integer(allow_none=True, **ALWAYS, metadata={"description": "More after this; null: none"})


class TournamentEventsQuerySchema(ma.Schema):
    after = AsciiInteger(load_default=0, validate=validate.Range(min=0, max=MAX_SEQ))
    limit = AsciiInteger(load_default=MAX_EVENTS_PAGE, validate=validate.Range(min=1, max=MAX_EVENTS_PAGE))


class MemberSpecSchema(ma.Schema):
    player_ref = fields.String(validate=PLAYER_REF)
    level = fields.String(validate=validate.OneOf(bots.LEVELS))


class EntrantCreateSchema(ma.Schema):
    name = fields.String(validate=NAME, metadata={"description": "Shown in the standings (default: its members)"})
    members = fields.List(
        fields.Nested(MemberSpecSchema),
        validate=validate.Length(min=1, max=2),
        metadata={
            "description": "The portal's key only: the entrant's players (player_ref) and bots (level), one "
            "per seat of its side. A player token enters its own player and sends none"
        },
    )


class TournamentPathSchema(ma.Schema):
    tournament_id = fields.String(required=True, validate=ID)


class EntrantPathSchema(TournamentPathSchema):
    entrant_id = fields.String(required=True, validate=validate.Regexp(r"^e[0-9]{1,5}$"))


READ_CODES = (codes.PORTAL_KEY_REQUIRED, codes.UNKNOWN_TOURNAMENT, codes.INVALID_REQUEST)
PORTAL_CODES = (codes.PORTAL_KEY_REQUIRED, codes.UNKNOWN_TOURNAMENT, codes.TOURNAMENT_OVER, codes.INVALID_REQUEST)


def conditional_read(view: codes.ViewFunction) -> codes.ViewFunction:
    return blp.alt_response(304, **NOT_MODIFIED_RESPONSE)(view)


def answered(answer: dict[str, Any], *parts: object) -> Response | Headed:
    tag = etag(answer["seq"], *parts)
    return not_modified(tag) or (answer, 200, {"ETag": tag})


# --- the resources -------------------------------------------------------------------------------------------
@blp.route("")
class Tournaments(MethodView):
    @blp.doc(security=PORTAL_KEY)
    @blp.arguments(TournamentCreateSchema)
    @blp.response(201, TournamentSchema, headers={"ETag": ETAG_HEADER})
    @problem_responses(
        blp, codes.PORTAL_KEY_REQUIRED, codes.INVALID_REQUEST, codes.INVALID_TOURNAMENT, codes.INVALID_RULES
    )
    def post(self, body: dict[str, Any]) -> Headed:
        """Create a tournament of your portal: Swiss, round robin or arena, of players or partner teams."""
        created = bus().handle(
            commands.CreateTournament(
                the_portal(),
                body["format"],
                body["preset"],
                body["rules"],
                body["turn_seconds"],
                rounds=body.get("rounds"),
                teams=body["teams"],
                tiebreaks=tuple(body["tiebreaks"]),
                rated=body["rated"],
                starts_at=body.get("starts_at"),
                max_entrants=body.get("max_entrants"),
                rating_min=body.get("rating_min"),
                rating_max=body.get("rating_max"),
                bot_levels=tuple(body["bot_levels"]),
                duration_minutes=body.get("duration_minutes"),
                duplicate=body["duplicate"],
                name=body.get("name"),
            )
        )
        return created, 201, {"ETag": etag(created["seq"])}


@blp.route("/<string:tournament_id>", parameters=CONDITIONAL)
class Tournament(MethodView):
    @conditional_read
    @blp.doc(security=PLAYER)
    @blp.arguments(TournamentPathSchema, location="path", as_kwargs=True)
    @blp.response(200, TournamentSchema, headers={"ETag": ETAG_HEADER})
    @problem_responses(blp, *READ_CODES)
    def get(self, tournament_id: str) -> Response | Headed:
        """The tournament: its settings, entrants and standings (tiebreaks in its order)."""
        return answered(bus().handle(commands.GetTournament(tournament_id, acting(None))))


@blp.route("/<string:tournament_id>/standings", parameters=CONDITIONAL)
class Standings(MethodView):
    @conditional_read
    @blp.doc(security=PLAYER)
    @blp.arguments(TournamentPathSchema, location="path", as_kwargs=True)
    @blp.arguments(StandingsQuerySchema, location="query")
    @blp.response(200, StandingsPageSchema, headers={"ETag": ETAG_HEADER})
    @problem_responses(blp, *READ_CODES)
    def get(self, query: dict[str, Any], tournament_id: str) -> Response | Headed:
        """The standings in pages (`offset`, `limit` ≤ 500; `next_offset`), best first."""
        command = commands.GetStandings(tournament_id, acting(None), query["offset"], query["limit"])
        return answered(bus().handle(command), "standings", query["offset"], query["limit"])


@blp.route("/<string:tournament_id>/rounds", parameters=CONDITIONAL)
class Rounds(MethodView):
    @conditional_read
    @blp.doc(security=PLAYER)
    @blp.arguments(TournamentPathSchema, location="path", as_kwargs=True)
    @blp.response(200, TournamentRoundsSchema, headers={"ETag": ETAG_HEADER})
    @problem_responses(blp, *READ_CODES)
    def get(self, tournament_id: str) -> Response | Headed:
        """Every round's tables, matches and results; a player's own seats with their tokens."""
        viewer = acting(None)
        return answered(bus().handle(commands.GetTournamentRounds(tournament_id, viewer)), viewer.player_ref or "")


@blp.route("/<string:tournament_id>/crosstable", parameters=CONDITIONAL)
class Crosstable(MethodView):
    @conditional_read
    @blp.doc(security=PLAYER)
    @blp.arguments(TournamentPathSchema, location="path", as_kwargs=True)
    @blp.response(200, CrosstableSchema, headers={"ETag": ETAG_HEADER})
    @problem_responses(blp, *READ_CODES)
    def get(self, tournament_id: str) -> Response | Headed:
        """Each entrant's games, round by round, in standings order."""
        return answered(bus().handle(commands.GetCrosstable(tournament_id, acting(None))), "crosstable")


@blp.route("/<string:tournament_id>/fairness", parameters=CONDITIONAL)
class Fairness(MethodView):
    @conditional_read
    @blp.doc(security=PLAYER)
    @blp.arguments(TournamentPathSchema, location="path", as_kwargs=True)
    @blp.response(200, TournamentFairnessSchema, headers={"ETag": ETAG_HEADER})
    @problem_responses(blp, *READ_CODES)
    def get(self, tournament_id: str) -> Response | Headed:
        """Duplicate deals proved: each round's seed commitment, its matches' own, and the seed once revealed."""
        return answered(bus().handle(commands.GetTournamentFairness(tournament_id, acting(None))), "fairness")


@blp.route("/<string:tournament_id>/events", parameters=CONDITIONAL)
class Events(MethodView):
    @conditional_read
    @blp.doc(security=PLAYER)
    @blp.arguments(TournamentPathSchema, location="path", as_kwargs=True)
    @blp.arguments(TournamentEventsQuerySchema, location="query")
    @blp.response(200, TournamentEventsSchema, headers={"ETag": ETAG_HEADER})
    @problem_responses(blp, *READ_CODES)
    def get(self, query: dict[str, Any], tournament_id: str) -> Response | Headed:
        """The tournament's own hash-chained log, in pages (`after`, `limit`; `next_after`)."""
        page = bus().handle(commands.GetTournamentEvents(tournament_id, acting(None), query["after"], query["limit"]))
        return answered(page, "events", query["after"], query["limit"])


@blp.route("/<string:tournament_id>/entrants")
class Entrants(MethodView):
    @blp.doc(security=PLAYER)
    @blp.arguments(TournamentPathSchema, location="path", as_kwargs=True)
    @blp.arguments(EntrantCreateSchema, required=False)
    @blp.response(201, EntrantSchema)
    @problem_responses(
        blp,
        *PORTAL_CODES,
        codes.ENTRY_REFUSED,
        codes.ALREADY_REGISTERED,
        codes.REGISTRATION_CLOSED,
        codes.TOURNAMENT_FULL,
        codes.INVALID_TOURNAMENT,
    )
    def post(self, body: dict[str, Any], tournament_id: str) -> tuple[dict[str, Any], int]:
        """Enter: a player token enters its player; the portal's key enters `members` (players,
        bots, partner teams)."""
        members = tuple(commands.MemberSpec(m.get("player_ref"), m.get("level")) for m in body.get("members", ()))
        entered = bus().handle(commands.RegisterEntrant(tournament_id, acting(None), body.get("name"), members))
        return entered, 201


@blp.route("/<string:tournament_id>/entrants/<string:entrant_id>")
class Entrant(MethodView):
    @blp.doc(security=PLAYER)
    @blp.arguments(EntrantPathSchema, location="path", as_kwargs=True)
    @blp.response(200, EntrantSchema)
    @problem_responses(blp, *PORTAL_CODES, codes.UNKNOWN_ENTRANT, codes.NOT_YOUR_ENTRANT)
    def delete(self, tournament_id: str, entrant_id: str) -> dict[str, Any]:
        """Withdraw: a player its own entry, the portal any; after the start its table in play is
        forfeited and it is paired no more."""
        return bus().handle(commands.WithdrawEntrant(tournament_id, acting(None), entrant_id))


def change_route(change: str, summary: str, *refusals: codes.ProblemCode) -> None:
    class Change(MethodView):
        @blp.doc(security=PORTAL_KEY, summary=summary)
        @blp.arguments(TournamentPathSchema, location="path", as_kwargs=True)
        @blp.response(200, TournamentSchema)
        @problem_responses(blp, *PORTAL_CODES, *refusals)
        def post(self, tournament_id: str) -> dict[str, Any]:
            return bus().handle(commands.ChangeTournament(tournament_id, the_portal(), change))

    Change.__name__ = f"Tournament{change.capitalize()}"
    blp.route(f"/<string:tournament_id>/{change}")(Change)


change_route(
    "start",
    "Start now: registration closes, round 1 is paired",
    codes.TOO_FEW_ENTRANTS,
    codes.TOURNAMENT_ALREADY_STARTED,
)
change_route(
    "pause",
    "Pause: no round is paired until resumed (the round in play plays on)",
    codes.TOURNAMENT_NOT_RUNNING,
    codes.TOURNAMENT_PAUSED,
)
change_route(
    "resume",
    "Resume a paused tournament (the next round is paired if due)",
    codes.TOURNAMENT_NOT_RUNNING,
    codes.TOURNAMENT_NOT_PAUSED,
)
change_route(
    "close",
    "Close an arena now: nothing more is paired; the matches in play finish and count",
    codes.INVALID_TOURNAMENT,
    codes.TOURNAMENT_NOT_RUNNING,
    codes.TOURNAMENT_OVER,
)
change_route("cancel", "Cancel: the log takes nothing more (matches in play play on, not counted)")
