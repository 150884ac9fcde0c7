"""Finding opponents through the server: seeks (the matchmaking queue) and challenges.

A bot acts as one of a portal's players with the player token the portal gave it
(``bypl_…``, sent as ``Authorization: Bearer``), or anonymously in the public space
(unrated; a seek then answers a secret that reads and cancels it). docs/matchmaking.md on the
server says what each call does.

    seeker = Seeker(client, player_token, strategy, preset="standard-block", rated=True)
    for result in seeker.run(games=10):     # seek, get paired, play, again
        print(result)

    acceptor = ChallengeAcceptor(client, player_token, strategy)
    for result in acceptor.run(games=0):    # 0: for ever
        print(result)

    entrant = TournamentPlayer(client, player_token, tournament_id, strategy)
    for result in entrant.run():            # enter, then play each round's match to the end
        print(result)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from .client import BoneyardClient, Bot
from .errors import BoneyardError, ProblemError
from .strategies import Strategy, first_legal

Result = dict[str, Any]
#: Seconds one long-poll for a pairing or an event is held (the server's most is 60).
WAIT = 30


class Seeker:
    """Seeks a match, waits to be paired, plays it, and seeks again (``run``)."""

    def __init__(
        self,
        client: BoneyardClient,
        player_token: str | None,
        strategy: Strategy = first_legal,
        *,
        preset: str | None = None,
        rules: dict | None = None,
        players: int = 2,
        rated: bool = False,
        fill_after_seconds: int | None = None,
        fill_level: str | None = None,
        ttl_seconds: int | None = None,
        verify: bool = True,
        on_seek: Callable[[dict], None] | None = None,
        **bot_options: Any,
    ):
        self.client = client
        self.player_token = player_token
        self.strategy = strategy
        self.body: dict[str, Any] = {"players": players, "rated": rated}
        for name, value in (
            ("preset", preset),
            ("rules", rules),
            ("fill_after_seconds", fill_after_seconds),
            ("fill_level", fill_level),
            ("ttl_seconds", ttl_seconds),
        ):
            if value is not None:
                self.body[name] = value
        self.verify = verify
        self.on_seek = on_seek
        self.bot_options = bot_options
        self.seeks: list[dict] = []  # every seek this seeker made, as last read

    def pair(self) -> dict:
        """One seek, waited on until it is paired: the paired seek (``match_id``, ``seat``, ``token``).
        An expired seek is made again; a cancelled one raises."""
        while True:
            seek = self.client.request("POST", "/v1/seeks", token=self.player_token, json=self.body).json()
            credential = seek.get("secret") or self.player_token
            self.seeks.append(seek)
            if self.on_seek:
                self.on_seek(seek)
            while seek["status"] == "waiting":
                seek = self.client.request(
                    "GET", f"/v1/seeks/{seek['id']}", token=credential, params={"wait": WAIT}
                ).json()
            self.seeks[-1] = seek
            if seek["status"] == "paired":
                return seek
            if seek["status"] != "expired":
                raise BoneyardError(f"seek {seek['id']} ended {seek['status']}")

    def play_one(self) -> Result:
        seek = self.pair()
        return play_seat(
            self.client,
            seek["match_id"],
            seek["token"],
            self.strategy,
            self.verify,
            self.bot_options,
            seek_id=seek["id"],
        )

    def run(self, games: int = 1) -> Iterator[Result]:
        """``games`` matches one after another (0: for ever)."""
        played = 0
        while games == 0 or played < games:
            yield self.play_one()
            played += 1


class ChallengeAcceptor:
    """Follows the player's event stream: accepts the challenges ``accepts`` likes (all by
    default), declines the others, and plays every match that starts (``run``)."""

    def __init__(
        self,
        client: BoneyardClient,
        player_token: str,
        strategy: Strategy = first_legal,
        *,
        accepts: Callable[[dict], bool] = lambda challenge: True,
        verify: bool = True,
        after: int = 0,
        **bot_options: Any,
    ):
        self.client = client
        self.player_token = player_token
        self.strategy = strategy
        self.accepts = accepts
        self.verify = verify
        self.after = after  # the last event seen: a restarted acceptor passes it on, missing nothing
        self.bot_options = bot_options
        self.answered: dict[str, str] = {}  # challenge id -> accepted | declined

    def events(self) -> Iterator[dict]:
        """The player's events, for ever (long-polls resumed from the last seq seen)."""
        while True:
            page = self.client.request(
                "GET", "/v1/me/events", token=self.player_token, params={"after": self.after, "wait": WAIT}
            ).json()
            for event in page["events"]:
                self.after = event["seq"]
                yield event

    def run(self, games: int = 1) -> Iterator[Result]:
        played = 0
        for event in self.events():
            if event["type"] == "challenge":
                self.answer(event["challenge"])
            elif event["type"] == "match_started" and event.get("challenge_id"):
                challenge = self.client.request(
                    "GET", f"/v1/challenges/{event['challenge_id']}", token=self.player_token
                ).json()
                yield play_seat(
                    self.client,
                    event["match_id"],
                    challenge["token"],
                    self.strategy,
                    self.verify,
                    self.bot_options,
                    challenge_id=challenge["id"],
                )
                played += 1
                if games and played >= games:
                    return

    def answer(self, challenge: dict) -> None:
        if challenge.get("status") != "pending" or challenge["id"] in self.answered:
            return
        verb = "accept" if self.accepts(challenge) else "decline"
        try:
            self.client.request("POST", f"/v1/challenges/{challenge['id']}/{verb}", token=self.player_token)
        except BoneyardError as error:  # cancelled or expired meanwhile: nothing to do
            if getattr(error, "code", None) != "challenge_closed":
                raise
        self.answered[challenge["id"]] = f"{verb}ed"


class TournamentPlayer:
    """Enters a tournament of its portal (already entered is fine), then follows the player's
    event stream: plays the match of each round it is paired in (its seat's token read from the
    tournament's rounds), until the tournament ends or is cancelled (``run``)."""

    def __init__(
        self,
        client: BoneyardClient,
        player_token: str,
        tournament_id: str,
        strategy: Strategy = first_legal,
        *,
        verify: bool = True,
        after: int = 0,
        **bot_options: Any,
    ):
        self.client = client
        self.player_token = player_token
        self.tournament_id = tournament_id
        self.strategy = strategy
        self.verify = verify
        self.after = after
        self.bot_options = bot_options
        self.url = f"/v1/tournaments/{tournament_id}"

    def enter(self) -> None:
        try:
            self.client.request("POST", f"{self.url}/entrants", token=self.player_token)
        except BoneyardError as error:
            if getattr(error, "code", None) != "already_registered":
                raise

    def run(self) -> Iterator[Result]:
        self.enter()
        played: set[str] = set()
        held: list[Result] = []  # played, their check sealed until their duplicate round ends
        while True:
            yield from self.play_due(played, held)
            tournament = self.client.request("GET", self.url, token=self.player_token).json()
            yield from self.checked(held)
            if tournament["status"] in ("ended", "cancelled"):
                assert not held, f"still sealed after the tournament's end: {held}"
                return
            page = self.client.request(
                "GET", "/v1/me/events", token=self.player_token, params={"after": self.after, "wait": WAIT}
            ).json()
            if page["events"]:
                self.after = page["events"][-1]["seq"]

    def play_due(self, played: set[str], held: list[Result]) -> Iterator[Result]:
        """Every seat of the player's in this tournament whose match it has not played yet (its
        result held back while its check is sealed)."""
        rounds = self.client.request("GET", f"{self.url}/rounds", token=self.player_token).json()
        for seat in rounds["my_seats"]:
            if seat["match_id"] in played:
                continue
            played.add(seat["match_id"])
            result = play_seat(
                self.client,
                seat["match_id"],
                seat["token"],
                self.strategy,
                False,
                self.bot_options,
                tournament_id=self.tournament_id,
            )
            held.append(result)
            yield from self.checked(held)

    def checked(self, held: list[Result]) -> Iterator[Result]:
        """The held results whose check opens now, checked (with ``verify``): a duplicate round's
        match reveals its seed, which its round's other tables share, only once the round ends."""
        for result in list(held):
            if self.verify:
                try:
                    self.client.audit(result["match_id"])  # through every chain head pinned in play
                except ProblemError as sealed:
                    if sealed.code != "match_not_over":
                        raise
                    continue
                result["fairness_verified"] = self.client.fairness(result["match_id"]).get("verified")
            held.remove(result)
            yield result


def play_seat(
    client: BoneyardClient,
    match_id: str,
    token: str,
    strategy: Strategy,
    verify: bool,
    bot_options: dict[str, Any],
    **origin: str,
) -> Result:
    """Play the seat to the end; with ``verify``, check the revealed log against every chain head
    pinned on the way and read the server's fairness check."""
    bot = Bot(client, match_id, token, strategy, **bot_options)
    final = bot.play()
    result: Result = {
        **origin,
        "match_id": match_id,
        "seat": bot.seat,
        "scores": final["scores"],
        "winner": final["winner"],
        "won": final["winner"] is not None and final["winner"] == side_of(final, bot.seat),
    }
    if verify:
        bot.audit()
        result["fairness_verified"] = bot.fairness().get("verified")
    return result


def side_of(view: dict, seat: int | None) -> int | None:
    """The side a seat plays for, as the view's ``sides`` (the seats of each side) says."""
    if seat is None:
        return None
    return next((side for side, seats in enumerate(view.get("sides") or []) if seat in seats), seat)
