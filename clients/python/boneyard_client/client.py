"""The HTTP client and the seat loop.

:class:`BoneyardClient` is one method per endpoint of the public API, with retries for
the network's failures. :class:`Bot` plays one seat to the end of its match::

    client = BoneyardClient("http://127.0.0.1:8000")
    created = client.create_match([{"name": "me", "type": "remote"},
                                   {"name": "cpu", "type": "bot", "level": "expert"}])
    bot = Bot(client, created["id"], created["seats"][0]["token"], strategy=heaviest)
    final = bot.play()          # the last view: status "ended", scores, winner

The loop inside :meth:`Bot.play` is the whole protocol: poll the view (``If-None-Match``
makes an unchanged poll a bodiless 304), pick one of its ``legal_actions``, post it with
``If-Match`` (act only on what you saw) and an ``Idempotency-Key`` (a retried post is
never applied twice), and stop when the status is ``ended``.

Every view and events page the client is shown carries the hash chain's head; the client pins
each one (``client.pinned_heads``, :mod:`.pins`) and :meth:`BoneyardClient.audit` checks the
revealed log against them: a log rewritten after the server showed it raises
:class:`~.errors.PinnedHeadMismatch`.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import Any

import requests

from .errors import ActionRefused, BoneyardError, ProblemError, ServerUnavailable, WaitTimeout, problem_error
from .pins import PinnedHeads, verify_pinned
from .strategies import Strategy, first_legal

Action = dict[str, Any]
View = dict[str, Any]

#: Statuses worth the same request again after a pause: overload, restarts, proxies.
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})

#: Server errors whose code says the same request will fail again: not retried.
FINAL_CODES = frozenset({"analysis_failed"})

#: Refusals that mean "the match moved on since your view": refetch, choose again.
REFETCH_CODES = frozenset(
    {
        "stale_seq",
        "precondition_failed",
        "not_your_turn",
        "match_not_started",
        # Rule refusals of an action taken from a current view's legal_actions can only come
        # from a race (a muggins call landing first) or a strategy bug; a fresh view settles
        # the first, and ``max_refusals`` stops the second.
        "illegal_play",
        "tile_not_in_hand",
        "must_play",
        "must_draw",
        "boneyard_reserved",
        "boneyard_empty",
        "drawing_not_allowed",
        "wrong_claim",
        "nothing_to_muggins",
        "illegal_action",
    }
)


class BoneyardClient:
    """The public HTTP API, one method per call; every error becomes a :class:`ProblemError`.

    Connection errors, timeouts, 5xx and 429 are retried ``retries`` times with
    exponential backoff (honouring ``Retry-After``). That is safe for reads, and for
    actions because :meth:`act` sends the same ``Idempotency-Key`` on every attempt.
    """

    def __init__(
        self,
        server: str,
        *,
        api_key: str | None = None,
        session: requests.Session | None = None,
        timeout: float = 30.0,
        retries: int = 5,
        backoff: float = 0.2,
        max_backoff: float = 5.0,
        user_agent: str = "boneyard-client/0.1",
    ):
        self.server = server.rstrip("/")
        self.session = session or requests.Session()
        self.session.headers.setdefault("User-Agent", user_agent)
        if api_key:
            self.session.headers["X-API-Key"] = api_key
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        #: Every chain head this client was shown, per match: checked by :meth:`audit`.
        self.pinned_heads = PinnedHeads()

    # --- the endpoints ------------------------------------------------------------------
    def create_match(
        self, seats: list[dict], *, preset: str | None = None, rules: dict | None = None, seed: str | None = None
    ) -> dict:
        """``POST /v1/matches``: the summary, with each remote seat's token (shown only here)."""
        body: dict[str, Any] = {"seats": seats}
        if preset is not None:
            body["preset"] = preset
        if rules:
            body["rules"] = rules
        if seed is not None:
            body["seed"] = seed
        return self.request("POST", "/v1/matches", json=body).json()

    def claim_seat(self, match_id: str, seat: int, name: str, client_seed: str | None = None) -> dict:
        """``POST /v1/matches/{id}/seats/{seat}/claim``: ``{match_id, seat, token, seq, view}``."""
        body = {"name": name, **({"client_seed": client_seed} if client_seed else {})}
        claimed = self.request("POST", f"/v1/matches/{match_id}/seats/{seat}/claim", json=body).json()
        self.pinned_heads.pin(match_id, claimed["view"].get("chain_head"))
        return claimed

    def summary(self, match_id: str) -> dict:
        """``GET /v1/matches/{id}``: the public summary."""
        return self.request("GET", f"/v1/matches/{match_id}").json()

    def view(self, match_id: str, token: str | None = None, *, etag: str | None = None) -> requests.Response:
        """``GET /v1/matches/{id}/view``; with ``etag``, a 304 response means: unchanged."""
        headers = {"If-None-Match": etag} if etag else {}
        response = self.request("GET", f"/v1/matches/{match_id}/view", token=token, headers=headers)
        if response.status_code == 200:
            self.pinned_heads.pin(match_id, response.json().get("chain_head"))
        return response

    def act(
        self,
        match_id: str,
        token: str,
        action: Action,
        *,
        if_match: str | None = None,
        idempotency_key: str | None = None,
    ) -> requests.Response:
        """``POST /v1/matches/{id}/actions`` with an ``Idempotency-Key`` (a fresh one unless given).

        The response carries ``Idempotent-Replayed: true`` when the server had already
        answered this key: the action was applied once, by the first attempt.
        """
        headers = {"Idempotency-Key": idempotency_key or uuid.uuid4().hex}
        if if_match:
            headers["If-Match"] = if_match
        response = self.request("POST", f"/v1/matches/{match_id}/actions", token=token, json=action, headers=headers)
        self.pinned_heads.pin(match_id, response.json()["view"].get("chain_head"))
        return response

    def events(self, match_id: str, token: str | None = None, after: int = 0, limit: int = 100) -> dict:
        """``GET /v1/matches/{id}/events``: the log as this seat (or a spectator) may see it."""
        page = self.request(
            "GET", f"/v1/matches/{match_id}/events", token=token, params={"after": after, "limit": limit}
        ).json()
        self.pinned_heads.pin(match_id, page.get("chain_head"))
        return page

    def audit(self, match_id: str, *, page_size: int | None = None, verify_pins: bool = True) -> dict:
        """``GET /v1/matches/{id}/audit``: once ended, the whole log and the seed.

        The server answers in pages (``after``, ``limit`` up to 5,000 rows, ``next_after``
        until null); this follows them and answers one document, the header fields and
        every row (without ``next_after``): what ``replay.mjs`` and ``openapi/examples`` hold.
        With ``verify_pins`` (the default) the log must pass through every chain head this
        client was shown for the match, else :class:`~.errors.PinnedHeadMismatch`.
        """
        path = f"/v1/matches/{match_id}/audit"
        params = {"limit": page_size} if page_size else {}
        audit = self.request("GET", path, params=params).json()
        while audit.get("next_after") is not None:
            page = self.request("GET", path, params={**params, "after": audit["next_after"]}).json()
            audit["events"] += page["events"]
            audit["next_after"] = page["next_after"]
        audit.pop("next_after", None)
        if verify_pins:
            verify_pinned(audit, self.pinned_heads.heads(match_id))
        return audit

    def fairness(self, match_id: str) -> dict:
        """``GET /v1/matches/{id}/fairness``: once ended, the server's re-check of deals and moves."""
        return self.request("GET", f"/v1/matches/{match_id}/fairness").json()

    def analysis(self, match_id: str) -> dict:
        """``GET /v1/matches/{id}/analysis``: once ended and made by the server (in the background,
        after each end), every decision of every seat, each choice valued from what the seat knew
        and with every hand shown, and the points given away (the server's docs/analysis.md).

        Raises :class:`~.errors.AnalysisNotReady` until it is made (ask again in a few seconds),
        :class:`~.errors.AnalysisFailed` when it never will be, ``match_not_over`` before the end.
        """
        return self.request("GET", f"/v1/matches/{match_id}/analysis").json()

    def hint(self, match_id: str, token: str) -> dict:
        """``GET /v1/matches/{id}/hint``: the token's seat's choices now, best first, each with the
        expert's value from what the seat knows and the action to send as it is (``choices`` is
        empty with one choice or none). Only on the seat's turn (``not_your_turn``) in an unrated
        match against the computer (:class:`~.errors.HintNotOffered`)."""
        return self.request("GET", f"/v1/matches/{match_id}/hint", token=token).json()

    # --- transport ----------------------------------------------------------------------
    def request(
        self,
        method: str,
        path: str,
        *,
        token: str | None = None,
        json: Any = None,
        headers: dict | None = None,
        params: dict | None = None,
    ) -> requests.Response:
        """Send one request, retrying what is worth retrying; raise on any other error status."""
        headers = dict(headers or {})
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        url = self.server + path
        delay = self.backoff
        for attempt in range(self.retries + 1):
            last_try = attempt == self.retries
            try:
                response = self.session.request(
                    method, url, json=json, headers=headers, params=params, timeout=self.timeout
                )
            except (requests.ConnectionError, requests.Timeout) as exc:
                if last_try:
                    raise ServerUnavailable(f"{method} {url}: {exc}") from exc
                time.sleep(delay)
                delay = min(delay * 2, self.max_backoff)
                continue
            if response.status_code < 400:
                return response
            error = problem_error(response.status_code, _json_or_none(response))
            retry = (
                response.status_code in RETRY_STATUSES and error.code not in FINAL_CODES
            ) or error.code == "idempotency_in_flight"
            if not retry:
                raise error
            if last_try:
                raise ServerUnavailable(f"{method} {url}: still {error} after {self.retries} retries") from error
            time.sleep(min(_retry_after(response) or delay, self.max_backoff * 4))
            delay = min(delay * 2, self.max_backoff)
        raise AssertionError("unreachable")


class Bot:
    """One seat of one match, played to the end by ``strategy`` (a callable ``view -> action``).

    ``poll_interval`` is the first pause between unchanged polls; it grows by half each
    304 up to ``max_poll_interval`` and drops back whenever something happens.
    ``max_wait`` bounds how long (seconds) to wait for the match to come back to this
    seat (None: for ever). ``max_refusals`` refused actions in a row raise
    :class:`ActionRefused`. ``on_view(view)`` is called with every new view (for logs).
    """

    def __init__(
        self,
        client: BoneyardClient,
        match_id: str,
        token: str,
        strategy: Strategy = first_legal,
        *,
        poll_interval: float = 0.02,
        max_poll_interval: float = 1.0,
        max_wait: float | None = None,
        max_refusals: int = 5,
        on_view: Callable[[View], None] | None = None,
    ):
        self.client = client
        self.match_id = match_id
        self.token = token
        self.strategy = strategy
        self.poll_interval = poll_interval
        self.max_poll_interval = max_poll_interval
        self.max_wait = max_wait
        self.max_refusals = max_refusals
        self.on_view = on_view
        self.seat: int | None = None
        self.last_view: View | None = None
        self.etag: str | None = None
        self.actions_sent = 0
        self.refetches = 0
        self.polls = 0
        self.not_modified = 0

    # --- constructors ---------------------------------------------------------------------
    @classmethod
    def claim(
        cls,
        client: BoneyardClient,
        match_id: str,
        seat: int,
        name: str,
        strategy: Strategy = first_legal,
        *,
        client_seed: str | None = None,
        **options,
    ) -> Bot:
        """Claim an open seat and return its bot (the claim's view is its first view)."""
        claimed = client.claim_seat(match_id, seat, name, client_seed)
        bot = cls(client, match_id, claimed["token"], strategy, **options)
        bot._remember(claimed["view"], None)
        return bot

    @classmethod
    def create(
        cls,
        client: BoneyardClient,
        seats: list[dict],
        strategy: Strategy = first_legal,
        *,
        play_seat: int = 0,
        preset: str | None = None,
        rules: dict | None = None,
        **options,
    ) -> tuple[Bot, dict]:
        """Create a match and return the bot for ``play_seat`` (a remote seat) and the summary.

        The summary holds the other remote seats' tokens: hand them to other players.
        """
        created = client.create_match(seats, preset=preset, rules=rules)
        mine = next((s for s in created["seats"] if s["seat"] == play_seat), None)
        if mine is None or "token" not in mine:
            raise BoneyardError(f"seat {play_seat} is not a remote seat of the new match")
        return cls(client, created["id"], mine["token"], strategy, **options), created

    # --- the loop ---------------------------------------------------------------------------
    def play(self) -> View:
        """Play until the match ends; answers the final view (scores, winner, every hand)."""
        refusals = 0
        while True:
            view = self.wait_for_turn()
            if view["status"] == "ended":
                return view
            action = self.strategy(view)
            try:
                self.act(action)
            except ProblemError as error:
                if error.code == "match_over":
                    return self.refresh(force=True)
                if error.code not in REFETCH_CODES:
                    if error.status in (409, 422):  # the action itself is wrong: say so
                        raise _refused(error, action) from error
                    raise  # invalid_token, wrong_match, unknown_match…
                refusals += 1
                self.refetches += 1
                if refusals >= self.max_refusals:
                    raise _refused(error, action) from error
                self.refresh(force=True)
                continue
            refusals = 0

    def wait_for_turn(self) -> View:
        """Poll until this seat has something to do (``legal_actions``) or the match ended.

        Acting is driven by ``legal_actions``, not by ``turn``: a muggins call belongs to
        a seat whose turn it is not.
        """
        deadline = None if self.max_wait is None else time.monotonic() + self.max_wait
        pause = self.poll_interval
        view = self.last_view if self.last_view is not None else self.refresh()
        while True:
            if view["status"] == "ended" or (view["status"] == "playing" and view.get("legal_actions")):
                return view
            if deadline is not None and time.monotonic() > deadline:
                raise WaitTimeout(
                    f"match {self.match_id} did not come back to seat {self.seat} "
                    f"within {self.max_wait} s (status {view['status']}, turn {view.get('turn')})"
                )
            time.sleep(pause)
            before = self.etag
            view = self.refresh()
            pause = self.poll_interval if self.etag != before else min(pause * 1.5, self.max_poll_interval)

    def refresh(self, force: bool = False) -> View:
        """The current view: a conditional GET that costs a 304 when nothing changed."""
        response = self.client.view(self.match_id, self.token, etag=None if force else self.etag)
        self.polls += 1
        if response.status_code == 304 and self.last_view is not None:
            self.not_modified += 1
            return self.last_view
        return self._remember(response.json(), response.headers.get("ETag"))

    def act(self, action: Action) -> dict:
        """Send one action made from the last view: ``If-Match`` its ETag, under a fresh key.

        The key is fixed before the first attempt, so the client's own retries of a post
        whose answer was lost replay the stored answer instead of acting twice.
        """
        response = self.client.act(
            self.match_id, self.token, action, if_match=self.etag, idempotency_key=uuid.uuid4().hex
        )
        self.actions_sent += 1
        result = response.json()
        self._remember(result["view"], response.headers.get("ETag"))
        return result

    # --- after the end --------------------------------------------------------------------
    @property
    def pinned_heads(self) -> dict[int, str]:
        """The chain heads this bot's client was shown for its match: seq -> hash."""
        return self.client.pinned_heads.heads(self.match_id)

    def audit(self) -> dict:
        """The whole audit log, checked against every pinned head (else ``PinnedHeadMismatch``)."""
        return self.client.audit(self.match_id)

    def fairness(self) -> dict:
        return self.client.fairness(self.match_id)

    # --- internals ----------------------------------------------------------------------------
    def _remember(self, view: View, etag: str | None) -> View:
        self.seat = view.get("seat", self.seat)
        # A claim's answer has no ETag: the next poll is then unconditional, and sets one.
        self.etag = etag
        changed = self.last_view is None or view.get("seq") != self.last_view.get("seq")
        self.last_view = view
        if changed and self.on_view is not None:
            self.on_view(view)
        return view


def _refused(error: ProblemError, action: Action) -> ActionRefused:
    refused = ActionRefused(error.status, error.code, error.problem)
    refused.action = action
    refused.args = (f"{refused.args[0]} (action {action!r})",)
    return refused


def _json_or_none(response: requests.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return None


def _retry_after(response: requests.Response) -> float | None:
    value = response.headers.get("Retry-After", "")
    try:
        return max(0.0, float(value))
    except ValueError:
        return None
