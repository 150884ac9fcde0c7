"""The web table fits every screen: a whole match at each size, every turn checked.

At 320×568 and 390×844 (phones), 844×390 (a phone held sideways), 1280×800 (desktop) and
1280×800 at 200% zoom (a 640×400 CSS window at two device pixels per CSS pixel), a match
against the random computer is played to its end, by touch, mouse or keyboard alone. On
every turn and every dialog: the page is exactly one window (no horizontal overflow, no
page scroll), and each control the turn needs, and what the player must see, is inside the
window with nothing over it (tests/e2e/playing.py says how that is checked). Screenshots of
each size go to the artifacts folder (tests/e2e/artifacts/), named layout-<size>-<moment>.png.
"""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Page, Route

from .conftest import DESKTOP
from .playing import (
    TABLE_CONTROLS,
    assert_fits,
    assert_opponents_fit,
    play_match,
    start_short_match,
    wait_for_my_turn_or_dialog,
)

# Reduced motion: the moves are put on screen at once rather than played back one by one, so a
# whole match per size stays quick; the layout checked is the same.
QUICK = {"reduced_motion": "reduce"}
TOUCH = {**QUICK, "has_touch": True, "is_mobile": True, "device_scale_factor": 2}
HIDPI = {**QUICK, "device_scale_factor": 2}
SIZES = [
    pytest.param("320x568", {"width": 320, "height": 568}, TOUCH, "touch", "standard-draw", id="phone-320x568-touch"),
    pytest.param("390x844", {"width": 390, "height": 844}, HIDPI, "mouse", "standard-draw", id="phone-390x844-mouse"),
    pytest.param(
        "844x390", {"width": 844, "height": 390}, TOUCH, "touch", "standard-draw", id="landscape-844x390-touch"
    ),
    pytest.param("1280x800", DESKTOP, QUICK, "mouse", "standard-draw", id="desktop-1280x800-mouse"),
    # 200% zoom: the CSS window halves, each CSS pixel is two device pixels
    pytest.param(
        "1280x800-zoom200", {"width": 640, "height": 400}, HIDPI, "keyboard", "standard-draw", id="zoom200-keyboard"
    ),
]


def real_errors(page) -> list[str]:
    # refused actions answer 4xx, which Chromium logs as a failed resource load: not a bug
    return [e for e in page.js_errors if "Failed to load resource" not in e]


def tab_to_the_hand(page) -> None:
    """Keyboard only from the first key: Tab reaches the hand (one tab stop, arrows inside it)."""
    for _ in range(12):
        page.keyboard.press("Tab")
        if page.evaluate("!!document.activeElement.closest('#hand .hand-tile')"):
            return
    raise AssertionError(f"Tab never reached the hand; focus is on {page.evaluate('document.activeElement.outerHTML')}")


@pytest.mark.parametrize(("label", "size", "options", "how", "preset"), SIZES)
def test_a_whole_match_fits_the_window_and_every_control_can_be_hit(
    page_at, artifacts, label, size, options, how, preset
):
    page = page_at(size, **options)
    start_short_match(page, [("You", "you"), ("Rand", "random")], preset=preset)
    if how == "keyboard":
        wait_for_my_turn_or_dialog(page)
        tab_to_the_hand(page)

    counts = play_match(page, how, artifacts, f"layout-{label}")

    assert counts["turns"] >= 1 and counts["hands"] >= 1
    assert page.evaluate("document.querySelector('#status').textContent").startswith("Match over")
    if size["width"] >= 900:
        # the log is a column of its own: it scrolls inside, its newest line in view
        box = page.locator("#log").bounding_box()
        newest = page.locator("#log li").last.bounding_box()
        assert box and newest and page.locator("#log li").count() > 20
        assert box["y"] <= newest["y"] and newest["y"] + newest["height"] <= box["y"] + box["height"] + 1
        assert page.evaluate(
            "document.querySelector('#log').scrollHeight > document.querySelector('#log').clientHeight"
        )
    assert real_errors(page) == []


# The most an opponent's box ever has to show, on purpose rather than by the luck of a deal: names
# as long as the API allows (40 characters, one with no space to break at), scores of four digits
# (a match may be played to 1,000 and overshoot it), two-digit tile counts and draws.
LONGEST_NAMES = ("W" * 40, "Maximiliane Wolfeschlegelsteinhausenberg", "M" * 40)
BIGGEST_SCORES = (1168, 1095, 1088, 1099)
MOST_TILES, MOST_DRAWN = 21, 14


def fill_the_opponents_boxes(page: Page) -> None:
    """Every view the page is sent gives each side the biggest score and each opponent the most
    tiles held and drawn (the names come from the form, as a person would type them)."""

    def widest(route: Route) -> None:
        response = route.fetch()
        body = response.json() if response.status == 200 else None
        view = body.get("view", body) if body else None
        if view and "scores" in view:
            view["scores"] = list(BIGGEST_SCORES[: len(view["scores"])])
            for seat in range(len(view["hand_counts"])):
                if seat != view.get("seat"):
                    view["hand_counts"][seat] = MOST_TILES
                    view["drawn"][seat] = MOST_DRAWN
            route.fulfill(response=response, body=json.dumps(body))
        else:
            route.fulfill(response=response)

    page.route(re.compile(r".*/v1/matches/[^/]+/(view|actions)$"), widest)


def start_the_widest_four_player_match(page: Page) -> None:
    """Three computers with the longest names, their boxes filled, and my first turn on screen."""
    fill_the_opponents_boxes(page)
    bots = ("random", "greedy", "expert")
    start_short_match(page, [("You", "you"), *zip(LONGEST_NAMES, bots, strict=True)])
    wait_for_my_turn_or_dialog(page)
    assert page.locator("#opponents .opp").count() == 3
    shown = page.eval_on_selector_all("#opponents [data-score]", "els => els.map((el) => el.textContent)")
    assert shown == [str(score) for score in BIGGEST_SCORES[1:]]
    assert (
        page.eval_on_selector_all("#opponents [data-hand-count]", "els => els.map((el) => el.textContent)")
        == [str(MOST_TILES)] * 3
    )


def test_four_players_fit_the_smallest_phone_with_the_log_open_and_sideways(page_at, artifacts):
    """Three opponents with the longest names and biggest numbers side by side at 320 px; the open
    log takes part of the height (the play area scrolls inside itself if it must) and the page stays
    one window; then landscape."""
    page = page_at({"width": 320, "height": 568}, **TOUCH)
    start_the_widest_four_player_match(page)
    page.screenshot(path=artifacts / "layout-320x568-four-players.png")
    assert_fits(page, TABLE_CONTROLS, "320x568, four players")
    assert_opponents_fit(page, "320x568, four players")

    page.locator("#log-panel summary").tap()
    assert page.evaluate("document.querySelector('#log-panel').open")
    assert_fits(page, "#log-panel summary", "320x568, log open")
    width = page.evaluate("[document.documentElement.scrollWidth, innerWidth]")
    assert width[0] <= width[1]
    page.screenshot(path=artifacts / "layout-320x568-log-open.png")

    # the same table turned sideways: the opponents give up their backs, the buttons go beside the hand
    page.locator("#log-panel summary").tap()
    page.set_viewport_size({"width": 844, "height": 390})
    page.wait_for_function("innerWidth === 844")
    assert_fits(page, TABLE_CONTROLS, "844x390, four players")
    assert_opponents_fit(page, "844x390, four players")
    page.screenshot(path=artifacts / "layout-844x390-four-players.png")
    assert real_errors(page) == []


@pytest.mark.parametrize(
    ("label", "size", "options"),
    [
        # the narrowest phone in use (a folding phone's cover screen): a score wraps under its word
        pytest.param("280x653", {"width": 280, "height": 653}, TOUCH, id="phone-280x653"),
        pytest.param("360x640", {"width": 360, "height": 640}, TOUCH, id="phone-360x640"),
        pytest.param("390x844", {"width": 390, "height": 844}, TOUCH, id="phone-390x844"),
        pytest.param("1280x800-zoom200", {"width": 640, "height": 400}, HIDPI, id="zoom200"),
        pytest.param("1280x800", DESKTOP, QUICK, id="desktop-1280x800"),
    ],
)
def test_three_opponents_with_the_longest_names_and_biggest_scores_fit(page_at, artifacts, label, size, options):
    """The same widest opponents at the other sizes: each box holds its name, count and score."""
    page = page_at(size, **options)
    start_the_widest_four_player_match(page)
    page.screenshot(path=artifacts / f"layout-{label}-widest-opponents.png")
    assert_fits(page, TABLE_CONTROLS, f"{label}, four players")
    assert_opponents_fit(page, f"{label}, four players")
    assert real_errors(page) == []


@pytest.mark.parametrize(
    ("label", "size", "options"),
    [
        pytest.param("320x568", {"width": 320, "height": 568}, TOUCH, id="phone-320x568"),
        pytest.param("844x390", {"width": 844, "height": 390}, TOUCH, id="landscape-844x390"),
        pytest.param("1280x800-zoom200", {"width": 640, "height": 400}, HIDPI, id="zoom200"),
    ],
)
def test_a_hand_that_drew_the_whole_boneyard_still_fits(page_at, artifacts, label, size, options):
    """A hand as long as a two-player Draw game can hold (7 dealt and 14 drawn; here tiles not on
    the line, the boneyard left as it is so the Draw button stays): every tile and control in
    the window, whatever the deal."""
    page = page_at(size, **options)

    def with_a_long_hand(route) -> None:
        response = route.fetch()
        body = response.json() if response.status == 200 else None
        view = body.get("view", body) if body else None
        if view and view.get("hand") is not None:
            on_line = {tuple(sorted(t)) for t in view["line"]}
            view["hand"] = [[a, b] for a in range(6, -1, -1) for b in range(a, -1, -1) if (b, a) not in on_line][:21]
            view["hand_counts"][view["seat"]] = len(view["hand"])
            route.fulfill(response=response, body=json.dumps(body))
        else:
            route.fulfill(response=response)

    page.route(re.compile(r".*/v1/matches/[^/]+/(view|actions)$"), with_a_long_hand)
    start_short_match(page, [("You", "you"), ("Rand", "random")])
    wait_for_my_turn_or_dialog(page)
    assert page.locator("#hand .hand-tile").count() == 21
    assert_fits(page, f"{TABLE_CONTROLS}, #hand .hand-tile", f"{label}, 21 tiles in hand")
    page.screenshot(path=artifacts / f"layout-{label}-long-hand.png")
