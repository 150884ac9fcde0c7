"""The web table plays the trains games to their end (issue 34): Mexican Train and Chicken Foot.

Each match is made from the form (the preset and two seats: the person and the random
computer) and shortened to one round (``rules.rounds``, added to the form's request on its way
to the server, with a seed for a known deal); then played to its end through the real server,
as test_web_layout.py plays the line games: on every turn and every dialog the page is one
window and each control the turn needs can be hit (tests/e2e/playing.py), at 320×568 and
844×390 by touch (one page, resized between turns) and at 1280×800 by mouse and by keyboard.

On every turn of the person holding the device the table is compared with the public API's
view for the same seat: each tile is lifted exactly when the view lists a play of it, and the
trains it is offered on are exactly the trains those plays name; Draw and Pass are enabled
exactly when listed; Mexican Train's rows start with the person's own train, then the Mexican;
every marker the view shows is on its row. At the end the totals shown are the view's.

Eight seats (the most a trains game seats) fit a phone upright and sideways: the seven others as
small chips, every control and every train a tile may go on in view. The form offers 2 to 8
players for both games, and no target.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.sync_api import Page, Route

from .conftest import DESKTOP
from .playing import TABLE_CONTROLS, Screens, play_match, start_short_match, wait_for_my_turn_or_dialog
from .test_web_layout import HIDPI, QUICK, TOUCH
from .test_web_table import api_view, stored

PHONE_320 = ("320x568", {"width": 320, "height": 568})
SIDEWAYS = ("844x390", {"width": 844, "height": 390})
WIDE = ("1280x800", DESKTOP)
ROUNDS = 1
# Short deals, found by playing seeds in turn: about twenty turns of the person's, among them
# tiles that fit two trains (a train to choose) and draws. Another deal only makes a test slower.
SEEDS = {"mexican-train": "mexican-train-5", "chicken-foot": "chicken-foot-1"}
MATCHES = [
    pytest.param("mexican-train", "touch", TOUCH, (PHONE_320, SIDEWAYS), id="mexican-train-touch-320x568-and-844x390"),
    pytest.param("chicken-foot", "touch", TOUCH, (PHONE_320, SIDEWAYS), id="chicken-foot-touch-320x568-and-844x390"),
    pytest.param("mexican-train", "keyboard", HIDPI, (WIDE,), id="mexican-train-keyboard-1280x800"),
    pytest.param("chicken-foot", "mouse", QUICK, (WIDE,), id="chicken-foot-mouse-1280x800"),
]


def in_rounds(route: Route, seed: str) -> None:
    """The page's request to create a match, sent on with one round and a seed."""
    if route.request.method != "POST":
        route.continue_()
        return
    body = json.loads(route.request.post_data or "{}")
    body["seed"] = seed
    body["rules"] = {**body.get("rules", {}), "rounds": ROUNDS}
    route.continue_(post_data=json.dumps(body))


def my_view(page: Page, base: str) -> dict[str, Any]:
    saved = stored(page)
    return api_view(base, saved["id"], saved["local"]["0"])


def real_errors(page: Page) -> list[str]:
    # refused actions answer 4xx, which Chromium logs as a failed resource load: not a bug
    return [e for e in page.js_errors if "Failed to load resource" not in e]


HAND_JS = """() => [...document.querySelectorAll('#hand .hand-tile')].map((el) => [
  el.dataset.tile, el.classList.contains('playable'), el.dataset.ends.split(' ').filter(Boolean).sort()])"""


def offered_as_listed(page: Page, base: str, where: str) -> None:
    """The table offers exactly what the API's view for the same seat lists."""
    view = my_view(page, base)
    listed: dict[str, set[str]] = {}
    for action in view["legal_actions"]:
        if action["type"] == "play":
            listed.setdefault(f"{action['tile'][0]}-{action['tile'][1]}", set()).add(str(action["train"]))
    shown = {tile: (playable, ends) for tile, playable, ends in page.evaluate(HAND_JS)}
    assert set(shown) == {f"{a}-{b}" for a, b in view["hand"]}, where
    for tile, (playable, ends) in shown.items():
        assert playable == (tile in listed), (where, tile)
        assert ends == sorted(listed.get(tile, ())), (where, tile, ends)
    types = {action["type"] for action in view["legal_actions"]}
    assert page.is_enabled("#draw") == ("draw" in types), where
    assert page.is_enabled("#pass") == ("pass" in types), where
    rows = page.eval_on_selector_all(".train-row", "els => els.map((el) => el.dataset.train)")
    board = view["board"]
    if "trains" in board:
        assert rows[:2] == ["0", "mexican"], (where, rows)
        marked = sorted(str(t["train"]) for t in board["trains"] if t["marker"])
        shown_marked = page.eval_on_selector_all(".train-row.marked", "els => els.map((el) => el.dataset.train)")
        assert sorted(shown_marked) == marked, where
    else:
        arms = [str(arm["train"]) for arm in board["arms"]]
        assert rows[: len(arms)] == arms, (where, rows)


@pytest.mark.parametrize(("preset", "how", "options", "sizes"), MATCHES)
def test_a_whole_trains_match_is_played_to_its_end_at_each_size(
    page_at, live_server, artifacts, preset, how, options, sizes
):
    page = page_at(sizes[0][1], **options)
    page.route(re.compile(r".*/v1/matches$"), lambda route: in_rounds(route, SEEDS[preset]))
    start_short_match(page, [("You", "you"), ("Rand", "random")], preset=preset)
    if how == "keyboard":
        wait_for_my_turn_or_dialog(page)
        page.keyboard.press("ArrowRight")  # keys from the start: the hand takes them

    counts = play_match(Screens(page, sizes, artifacts), how, lambda where: offered_as_listed(page, live_server, where))

    assert counts["hands"] == ROUNDS and counts["play"] and counts["end"] and counts["draw"], (
        f"choose another seed for {preset}: {counts}"
    )
    view = my_view(page, live_server)
    assert view["status"] == "ended" and view["rounds"] == ROUNDS and view["rules"]["preset"] == preset
    assert view["winners"] and min(view["totals"]) == view["totals"][view["winners"][0]]
    shown = [page.inner_text("#me-score"), page.inner_text("#opponents [data-score='1']")]
    assert shown == [str(total) for total in view["totals"]]
    assert page.inner_text("#status").startswith("Match over:")
    assert real_errors(page) == []


def test_the_form_offers_two_to_eight_players_for_the_trains_games_and_no_target(page_at):
    page = page_at(PHONE_320[1], **TOUCH)
    page.goto("/play")
    page.wait_for_selector("#setup:not([hidden])")
    for preset in ("mexican-train", "chicken-foot"):
        page.select_option("#preset", preset)
        enabled = page.eval_on_selector_all(
            "input[name=players]", "els => els.filter((el) => !el.disabled).map((el) => Number(el.value))"
        )
        assert enabled == [2, 3, 4, 5, 6, 7, 8], preset
        assert page.is_hidden("#target-field"), preset
        page.check("input[name=players][value='8']", force=True)
        assert page.locator("#seat-list li").count() == 8
    page.select_option("#preset", "standard-draw")
    assert page.is_visible("#target-field")


def test_eight_seats_fit_a_phone_upright_and_sideways_at_the_first_turn(page_at, artifacts):
    page = page_at(PHONE_320[1], **TOUCH)
    page.route(re.compile(r".*/v1/matches$"), lambda route: in_rounds(route, "eight-1"))
    seats = [("You", "you")] + [(f"Computer {seat}", "random") for seat in range(1, 8)]
    start_short_match(page, seats, preset="mexican-train")
    wait_for_my_turn_or_dialog(page)
    assert page.locator("#opponents .opp").count() == 7 and page.locator(".train-row").count() == 9
    # the seven others as small chips, every train a tile may go on in view: at both sizes
    Screens(page, (PHONE_320, SIDEWAYS), artifacts).check(
        f"{TABLE_CONTROLS}, .end-target.live", "eight seats", opponents=True, shot="eight-seats"
    )
    assert real_errors(page) == []
