"""The Boneyard rules engine: pure, deterministic, standard library only.

Build a match with ``create_match``; fold events with ``replay``/``apply``; decide
commands with ``decide`` (events out, or a ``RulesError``); show a seat what it may see
with ``view``/``redact_event``/``public_summary``; simulate fast with ``simulate``.
"""

from .engine import (
    ACTION_FIELDS,
    CallMuggins,
    Draw,
    Knock,
    Play,
    ReplayError,
    apply,
    claim_seat,
    create_match,
    decide,
    legal_actions,
    parse_action,
    ready_to_start,
    replay,
    start_match,
)
from .errors import (
    BoneyardEmpty,
    BoneyardReserved,
    ClaimNotAllowed,
    DrawingNotAllowed,
    IllegalAction,
    IllegalPlay,
    InvalidAction,
    InvalidRules,
    InvalidTile,
    MatchNotStarted,
    MatchOver,
    MustDraw,
    MustPlay,
    NothingToMuggins,
    NotYourTurn,
    RulesError,
    SeatTaken,
    TileNotInHand,
    WrongClaim,
)
from .events import EVENT_TYPES, SCHEMA_VERSION, Event, event_from_dict
from .ruleset import DEFAULT_PRESET, PRESETS, RuleSet, resolve_rules
from .shuffle import ALGORITHM as SHUFFLE_ALGORITHM
from .shuffle import seed_commitment, shuffled_tiles
from .state import (
    BOT_SEAT,
    ENDED,
    OPEN_SEAT,
    PLAYING,
    REMOTE_SEAT,
    SEAT_TYPES,
    STATUSES,
    WAITING,
    HandResult,
    MatchState,
)
from .tiles import ALL_TILES, Tile
from .views import REDACTORS, UnredactableEvent, public_summary, redact_event, view

__all__ = [name for name in dir() if not name.startswith("_")]
