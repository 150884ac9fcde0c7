"""Command line: play one seat of a Boneyard match to the end, or find opponents and play on.

    python -m boneyard_client --server http://127.0.0.1:8000 --create --vs expert
    python -m boneyard_client --create --vs open            # prints the claim command
    python -m boneyard_client --match ID --seat 1 --claim NAME
    python -m boneyard_client --match ID --token TOKEN
    python -m boneyard_client --seek --player-token bypl_… --rated --games 0      # all comers, for ever
    python -m boneyard_client --accept-challenges --player-token bypl_… --games 0
    python -m boneyard_client --tournament ID --player-token bypl_…   # enter it, play every round

Progress goes to stderr; the result, one JSON object per match, to stdout. Exit status 0 when
the matches ended, 1 on an error the server named (with its code), 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from .client import BoneyardClient, Bot
from .errors import BoneyardError
from .lobby import ChallengeAcceptor, Seeker, TournamentPlayer
from .strategies import STRATEGIES, seeded_random

BOT_LEVELS = ("random", "greedy", "intermediate", "expert")  # the server's levels, weakest first


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m boneyard_client",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--server",
        default=os.environ.get("BONEYARD_SERVER", "http://127.0.0.1:8000"),
        help="base URL (default $BONEYARD_SERVER or http://127.0.0.1:8000)",
    )
    parser.add_argument(
        "--api-key",
        default=os.environ.get("BONEYARD_API_KEY"),
        help="portal key for servers that want one to create matches ($BONEYARD_API_KEY)",
    )
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--create", action="store_true", help="create a match and play its seat 0")
    mode.add_argument("--match", metavar="ID", help="play a seat of this existing match")
    mode.add_argument("--seek", action="store_true", help="join the matchmaking queue, play, and seek again")
    mode.add_argument(
        "--tournament", metavar="ID", help="enter this tournament of your portal and play each round's match"
    )
    mode.add_argument(
        "--accept-challenges", action="store_true", help="follow the player's event stream: accept and play"
    )

    new = parser.add_argument_group("--create")
    new.add_argument(
        "--vs",
        default="expert",
        choices=(*BOT_LEVELS, "open", "remote"),
        help="the other seats: server bots of a level, open seats for others to claim, "
        "or remote seats whose tokens are printed (default expert)",
    )
    new.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    new.add_argument("--preset", help="rule preset, e.g. standard-draw, all-fives, muggins")
    new.add_argument("--target", type=int, help="points that win the match")
    new.add_argument("--partners", action="store_true", help="4 players in two sides")

    lobby = parser.add_argument_group("--seek, --accept-challenges")
    lobby.add_argument(
        "--player-token",
        default=os.environ.get("BONEYARD_PLAYER_TOKEN"),
        help="the token a portal gave its player (bypl_…; $BONEYARD_PLAYER_TOKEN); --seek without one "
        "seeks anonymously in the public space",
    )
    lobby.add_argument("--games", type=int, default=1, help="matches to play before stopping (0: for ever)")
    lobby.add_argument("--rated", action="store_true", help="--seek: rated matches (a portal's player only)")
    lobby.add_argument("--fill-after", type=int, help="--seek: after this many seconds, fill with computers")
    lobby.add_argument("--fill-level", choices=BOT_LEVELS, help="--seek: the computers' level (with --fill-after)")

    join = parser.add_argument_group("--match")
    join.add_argument("--seat", type=int, help="with --claim: the open seat to take")
    join.add_argument("--claim", metavar="NAME", help="claim --seat under this name")
    join.add_argument("--token", help="the seat token you already hold")

    play = parser.add_argument_group("playing")
    play.add_argument("--name", default="python-bot", help="this seat's name when creating (default python-bot)")
    play.add_argument("--strategy", default="heaviest", choices=sorted(STRATEGIES))
    play.add_argument("--seed", help="seed for --strategy random (repeatable choices)")
    play.add_argument("--client-seed", help="your contribution to the shuffle (see /fairness)")
    play.add_argument("--max-wait", type=float, help="give up after waiting this many seconds for a turn")
    play.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")

    args = parser.parse_args(argv)
    if args.match and not (args.token or (args.claim and args.seat is not None)):
        parser.error("--match needs --token T, or --seat N --claim NAME")
    if args.match and args.token and args.claim:
        parser.error("--token and --claim exclude each other")
    if args.partners and args.players != 4:
        parser.error("--partners needs --players 4")
    if args.tournament and not args.player_token:
        parser.error("--tournament needs --player-token (or $BONEYARD_PLAYER_TOKEN)")
    if args.accept_challenges and not args.player_token:
        parser.error("--accept-challenges needs --player-token (or $BONEYARD_PLAYER_TOKEN)")
    if (args.fill_after is None) != (args.fill_level is None):
        parser.error("--fill-after and --fill-level go together")
    if args.games < 0:
        parser.error("--games is 0 (for ever) or more")
    return args


def find_opponents(args: argparse.Namespace, client: BoneyardClient, strategy: Any, options: dict) -> int:
    """--seek / --accept-challenges: one JSON line per match played, until --games are played."""
    rules = {k: v for k, v in (("target", args.target), ("partners", args.partners or None)) if v}
    if args.seek:
        finder: Any = Seeker(
            client,
            args.player_token,
            strategy,
            preset=args.preset,
            rules=rules or None,
            players=args.players,
            rated=args.rated,
            fill_after_seconds=args.fill_after,
            fill_level=args.fill_level,
            on_seek=lambda seek: options["on_view"].enabled and Progress.say(f"seek {seek['id']}: {seek['status']}"),
            **options,
        )
    elif args.tournament:
        for result in TournamentPlayer(client, args.player_token, args.tournament, strategy, **options).run():
            print(json.dumps(result), flush=True)
        return 0
    else:
        finder = ChallengeAcceptor(client, args.player_token, strategy, **options)
    for result in finder.run(args.games):
        print(json.dumps(result), flush=True)
    return 0


def opponents(args: argparse.Namespace) -> list[dict[str, Any]]:
    seats: list[dict[str, Any]] = [{"name": args.name[:40], "type": "remote"}]
    if args.client_seed:
        seats[0]["client_seed"] = args.client_seed
    for number in range(1, args.players):
        if args.vs in BOT_LEVELS:
            seats.append({"name": f"{args.vs}-{number}", "type": "bot", "level": args.vs})
        else:
            seats.append({"name": f"seat-{number}", "type": args.vs})
    return seats


class Progress:
    """Says on stderr what happened between two views: hands dealt and ended, the match's end."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.hand_number: int | None = None
        self.hands_told: int = 0

    def __call__(self, view: dict[str, Any]) -> None:
        if not self.enabled:
            return
        last = view.get("last_hand")
        finished = view["hand_number"] - (0 if view["status"] == "ended" else 1)
        if last and finished > self.hands_told:
            self.hands_told = finished
            self.say(
                f"hand {finished} ended ({last.get('reason')}): winner {last.get('winner')}, scores {view['scores']}"
            )
        if view["status"] == "playing" and view["hand_number"] != self.hand_number:
            self.hand_number = view["hand_number"]
            self.say(f"hand {self.hand_number}: holding {view.get('hand')}")
        if view["status"] == "ended":
            self.say(f"match over: scores {view['scores']}, winner {view['winner']}")

    @staticmethod
    def say(message: str) -> None:
        print(message, file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    client = BoneyardClient(args.server, api_key=args.api_key)
    strategy = seeded_random(args.seed) if args.strategy == "random" and args.seed else STRATEGIES[args.strategy]
    progress = Progress(not args.quiet)
    options = {"max_wait": args.max_wait, "on_view": progress}
    try:
        if args.seek or args.accept_challenges or args.tournament:
            return find_opponents(args, client, strategy, options)
        if args.create:
            rules = {k: v for k, v in (("target", args.target), ("partners", args.partners or None)) if v}
            bot, created = Bot.create(client, opponents(args), strategy, preset=args.preset, rules=rules, **options)
            progress.say(
                f"match {created['id']}: seat 0 is mine (token {bot.token}; resume with "
                f"--match {created['id']} --token {bot.token})"
            )
            for seat in created["seats"][1:]:
                if seat["type"] == "open":
                    progress.say(
                        f"waiting for seat {seat['seat']}: python -m boneyard_client --server {args.server}"
                        f" --match {created['id']} --seat {seat['seat']} --claim NAME"
                    )
                elif "token" in seat:
                    progress.say(
                        f"seat {seat['seat']}: python -m boneyard_client --server {args.server}"
                        f" --match {created['id']} --token {seat['token']}"
                    )
        elif args.claim:
            bot = Bot.claim(
                client, args.match, args.seat, args.claim[:40], strategy, client_seed=args.client_seed, **options
            )
            progress.say(f"match {args.match}: claimed seat {bot.seat} (token {bot.token})")
        else:
            bot = Bot(client, args.match, args.token, strategy, **options)
        final = bot.play()
        fairness = bot.fairness()
        bot.audit()  # the revealed log must pass through every chain head we were shown
    except BoneyardError as error:
        print(f"boneyard_client: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    result = {
        "match_id": bot.match_id,
        "seat": bot.seat,
        "status": final["status"],
        "scores": final["scores"],
        "winner": final["winner"],
        "sides": final.get("sides"),
        "actions_sent": bot.actions_sent,
        "fairness_verified": fairness.get("verified"),
        "heads_pinned": len(bot.pinned_heads),  # each checked against the audit log
    }
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
