"""The entry to the use cases: each command goes to its one handler, given its dependencies.

>>> bus = bootstrap(store, config)                           # doctest: +SKIP
>>> summary = bus.handle(CreateMatch("standard-draw", None, seats))

Every caller sends commands here: the HTTP views, the operator's CLI, the autoplay runner and
the turn-clock sweep, the webhook worker. (The event streams also subscribe to the flow's
waiters between commands: ``bus.flow``.) A handler is a function ``(command, <dependencies>)
-> answer`` in the module of its use case, its parameters after the command naming what it
needs (``flow``: the match flow; ``courier``: the webhook sender); ``api.bootstrap.bootstrap``
makes the bus and gives each handler what it names. ``HANDLERS`` is where a new use case is
registered (a test checks that every command has one).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar, cast

from . import (
    acting,
    analyses,
    claiming,
    clocks,
    creating,
    fairness,
    feed,
    leaderboards,
    lobby,
    matchmaking,
    portals,
    reading,
    stats,
    tournaments,
    webhook_delivery,
    webhooks,
)
from .commands import (
    Act,
    AddPortalKey,
    AddWebhook,
    AnalysisAttemptFailed,
    AnswerChallenge,
    CancelChallenge,
    CancelSeek,
    ChangeTournament,
    ClaimDueAnalyses,
    ClaimDueBots,
    ClaimSeat,
    Command,
    CreateChallenge,
    CreateMatch,
    CreatePortal,
    CreateSeek,
    CreateTournament,
    DeliverWebhooks,
    GetAnalysis,
    GetAudit,
    GetBotRatings,
    GetChallenge,
    GetCrosstable,
    GetEvents,
    GetFairness,
    GetGameRecord,
    GetHint,
    GetLeaderboard,
    GetMatchPortal,
    GetPlayerEvents,
    GetPlayerRatings,
    GetPlayerStats,
    GetPortal,
    GetRatingHistory,
    GetRenderedView,
    GetSeek,
    GetStandings,
    GetSummary,
    GetTournament,
    GetTournamentEvents,
    GetTournamentFairness,
    GetTournamentRounds,
    GetView,
    GetWebhook,
    IdentifyPlayer,
    IdentifyPortal,
    IssuePlayerToken,
    ListDeliveries,
    ListMatches,
    ListPlayerTokens,
    ListPortals,
    ListWebhooks,
    PlayBots,
    RegisterEntrant,
    Rematch,
    RemoveWebhook,
    ReplayDelivery,
    RevokePlayerToken,
    RevokePortalKey,
    RotateWebhookSecret,
    SetPortalLimit,
    StoreAnalysis,
    SweepClocks,
    SweepMatchmaking,
    SweepTournaments,
    WithdrawEntrant,
)
from .flow import MatchFlow

R = TypeVar("R")

HANDLERS: dict[type[Command[Any]], Callable[..., Any]] = {
    CreateMatch: creating.create_match_handler,
    ClaimSeat: claiming.claim_seat_handler,
    Act: acting.act_handler,
    PlayBots: acting.play_bots_handler,
    ClaimDueBots: acting.claim_due_bots_handler,
    Rematch: lobby.rematch_handler,
    SweepClocks: clocks.sweep_handler,
    GetSummary: reading.summary_handler,
    GetView: reading.view_handler,
    GetRenderedView: reading.rendered_view_handler,
    ListMatches: reading.list_handler,
    GetAudit: reading.audit_handler,
    GetGameRecord: reading.game_record_handler,
    GetEvents: feed.events_handler,
    GetFairness: fairness.fairness_handler,
    GetAnalysis: analyses.analysis_handler,
    GetHint: analyses.hint_handler,
    ClaimDueAnalyses: analyses.claim_due_analyses_handler,
    StoreAnalysis: analyses.store_analysis_handler,
    AnalysisAttemptFailed: analyses.analysis_attempt_failed_handler,
    GetPlayerStats: stats.stats_handler,
    GetLeaderboard: leaderboards.leaderboard_handler,
    GetPlayerRatings: leaderboards.player_ratings_handler,
    GetRatingHistory: leaderboards.history_handler,
    GetBotRatings: leaderboards.bot_ratings_handler,
    GetMatchPortal: reading.match_portal_handler,
    IdentifyPortal: portals.identify_handler,
    CreatePortal: portals.create_portal_handler,
    AddPortalKey: portals.add_key_handler,
    RevokePortalKey: portals.revoke_key_handler,
    SetPortalLimit: portals.set_limit_handler,
    ListPortals: portals.list_handler,
    GetPortal: portals.get_portal_handler,
    AddWebhook: webhooks.add_handler,
    ListWebhooks: webhooks.list_handler,
    GetWebhook: webhooks.get_handler,
    RemoveWebhook: webhooks.remove_handler,
    RotateWebhookSecret: webhooks.rotate_handler,
    ListDeliveries: webhooks.deliveries_handler,
    ReplayDelivery: webhooks.replay_handler,
    DeliverWebhooks: webhook_delivery.deliver_handler,
    IdentifyPlayer: matchmaking.identify_player_handler,
    IssuePlayerToken: matchmaking.issue_token_handler,
    ListPlayerTokens: matchmaking.list_tokens_handler,
    RevokePlayerToken: matchmaking.revoke_token_handler,
    CreateSeek: matchmaking.create_seek_handler,
    GetSeek: matchmaking.get_seek_handler,
    CancelSeek: matchmaking.cancel_seek_handler,
    CreateChallenge: matchmaking.create_challenge_handler,
    GetChallenge: matchmaking.get_challenge_handler,
    AnswerChallenge: matchmaking.answer_challenge_handler,
    CancelChallenge: matchmaking.cancel_challenge_handler,
    GetPlayerEvents: matchmaking.player_events_handler,
    SweepMatchmaking: matchmaking.sweep_handler,
    CreateTournament: tournaments.create_tournament_handler,
    RegisterEntrant: tournaments.register_handler,
    WithdrawEntrant: tournaments.withdraw_handler,
    ChangeTournament: tournaments.change_handler,
    GetTournament: tournaments.get_tournament_handler,
    GetTournamentRounds: tournaments.rounds_handler,
    GetCrosstable: tournaments.crosstable_handler,
    GetTournamentFairness: tournaments.fairness_handler,
    GetStandings: tournaments.standings_handler,
    GetTournamentEvents: tournaments.events_handler,
    SweepTournaments: tournaments.sweep_handler,
}


class MessageBus:
    """Runs each command by its handler, its dependencies given (``api.bootstrap`` makes it)."""

    def __init__(self, handlers: Mapping[type[Command[Any]], Callable[[Any], Any]], flow: MatchFlow):
        """``handlers``: each command's handler as a function of the command alone; ``flow``:
        the process's match flow, which the event streams wait on between commands."""
        self.handlers = dict(handlers)
        self.flow = flow

    def handle(self, command: Command[R]) -> R:
        handler = self.handlers.get(type(command))
        if handler is None:
            raise TypeError(f"no handler for {type(command).__name__}")
        return cast(R, handler(command))
