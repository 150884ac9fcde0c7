"""The web table is accessible: axe-core finds nothing serious, dialogs keep focus, names say it all.

axe-core is the pinned npm package in tests/e2e/axe (installed by the tests when missing or
stale, tests/npm_packages.py) injected into the page; every check asserts no violation of
impact serious or critical, on: the setup form, the table mid-hand on a desktop and on a
phone, the hand-result dialog and the pass screen. The dialogs are native modal dialogs:
Tab and Shift+Tab go round inside them, Escape does what their safe way out does (and
nothing on the pass screen, which hides a hand from the wrong person).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import requests

from .conftest import DESKTOP, PHONE
from .playing import (
    DIALOG_CONTROLS,
    TABLE_CONTROLS,
    assert_fits,
    axe_script,
    overlay_open,
    play_turn_by_pointer,
    serious_violations,
    start_short_match,
    wait_for_move,
    wait_for_my_turn_or_dialog,
)

QUICK = {"reduced_motion": "reduce"}  # moves shown at once: the checks are about what stays on screen


@pytest.fixture(scope="module")
def axe_js() -> Path:
    return axe_script()


def focused(page) -> str:
    return page.evaluate("document.activeElement.id || document.activeElement.className")


def focus_is_in_the_dialog(page) -> bool:
    return bool(page.evaluate("document.querySelector('#overlay-card').contains(document.activeElement)"))


def play_until_a_dialog(page) -> None:
    for turn in range(200):
        wait_for_my_turn_or_dialog(page)
        if overlay_open(page):
            return
        seq = page.evaluate("document.body.dataset.seq")
        play_turn_by_pointer(page, "mouse", f"turn {turn}")
        wait_for_move(page, seq)
    raise AssertionError("no dialog opened")


def test_the_form_the_table_and_the_hand_result_have_no_serious_axe_violations(page_at, axe_js, artifacts):
    page = page_at(DESKTOP, **QUICK)
    page.goto("/play")
    page.wait_for_selector("#setup:not([hidden])")
    assert serious_violations(page, axe_js) == []

    start_short_match(page, [("You", "you"), ("Rand", "random")])
    wait_for_my_turn_or_dialog(page)
    # landmarks and headings: one main, the table's h1; no aria-label on an element without a role
    assert page.locator("main").count() == 1 and page.locator("main #table").count() == 1
    assert page.locator("#table h1").is_visible() and "Boneyard" in page.inner_text("#table h1")
    unnamed = page.evaluate(
        """[...document.querySelectorAll('div[aria-label], span[aria-label], p[aria-label]')]
          .filter((el) => !el.getAttribute('role')).map((el) => el.outerHTML.slice(0, 80))"""
    )
    assert unnamed == []
    assert serious_violations(page, axe_js) == [], "desktop table"

    page.set_viewport_size(PHONE)
    page.wait_for_function("innerWidth === 390")
    assert_fits(page, TABLE_CONTROLS, "the same table on a phone")
    assert serious_violations(page, axe_js) == [], "phone table"

    play_until_a_dialog(page)
    assert page.is_visible("#continue")
    page.screenshot(path=artifacts / "a11y-phone-hand-result.png")
    assert serious_violations(page, axe_js) == [], "hand result, phone"
    # the main button has focus; Tab and Shift+Tab go round the dialog's buttons, never behind it
    assert focused(page) == "continue"
    buttons = page.eval_on_selector_all(
        DIALOG_CONTROLS, "els => els.filter((e) => e.getClientRects().length).map((e) => e.id || e.className)"
    )
    assert "continue" in buttons, buttons  # (on a phone the sheet also has a button to fold it)
    seen = []
    for _ in range(len(buttons) + 1):
        page.keyboard.press("Tab")
        assert focus_is_in_the_dialog(page), f"Tab left the dialog for {focused(page)}"
        seen.append(focused(page))
    assert seen[-1] == seen[0] and set(seen) == set(buttons)  # it went round
    for _ in range(len(buttons) + 1):
        page.keyboard.press("Shift+Tab")
        assert focus_is_in_the_dialog(page), f"Shift+Tab left the dialog for {focused(page)}"
    page.set_viewport_size(DESKTOP)
    page.wait_for_function("innerWidth === 1280")
    assert serious_violations(page, axe_js) == [], "hand result, desktop"

    # Escape does what "Next hand" does: the dialog goes, the next hand (or the match's end) comes
    hand = page.inner_text("#overlay-title")
    page.keyboard.press("Escape")
    page.wait_for_function("document.querySelector('#overlay').hidden || !!document.querySelector('#rematch')")
    assert not overlay_open(page) or page.inner_text("#overlay-title") != hand
    if not overlay_open(page):
        wait_for_my_turn_or_dialog(page)
        assert page.evaluate("document.querySelector('#overlay').hidden") or page.is_visible("#overlay-title")
    assert page.js_errors == [] or all("Failed to load resource" in e for e in page.js_errors)


def test_the_pass_screen_keeps_focus_and_escape_does_not_reveal_the_hand(page_at, axe_js, artifacts):
    page = page_at(PHONE, has_touch=True, is_mobile=True, **QUICK)
    start_short_match(page, [("Ana", "you"), ("Leo", "friend")])
    for turn in range(20):
        wait_for_my_turn_or_dialog(page)
        if page.is_visible("#ready"):
            break
        if overlay_open(page):  # a hand over in one move: on to the next
            page.click("#overlay-card .overlay-actions button.primary")
            continue
        seq = page.evaluate("document.body.dataset.seq")
        play_turn_by_pointer(page, "touch", f"turn {turn}")
        wait_for_move(page, seq)
    assert page.is_visible("#ready"), "the turn never passed to the other person"
    page.screenshot(path=artifacts / "a11y-phone-pass-screen.png")
    assert serious_violations(page, axe_js) == [], "pass screen"
    assert focused(page) == "ready"
    for key in ("Tab", "Shift+Tab", "Tab"):
        page.keyboard.press(key)
        assert focused(page) == "ready", f"{key} left the pass screen"
    # Escape, twice (a browser may force a second close request through): the screen stays
    page.keyboard.press("Escape")
    page.keyboard.press("Escape")
    assert page.is_visible("#ready") and page.evaluate("document.querySelector('#overlay').open")
    assert page.locator("#hand .hand-tile").count() == 0  # behind it, backs only
    holder = page.inner_text("#overlay-title").removeprefix("Pass the device to ")
    assert holder in ("Ana", "Leo")
    page.locator("#ready").tap()
    page.wait_for_function("document.querySelector('#overlay').hidden")
    # the hand shown next is the one of the person the screen named
    page.wait_for_function("name => document.querySelector('#me-name').textContent === name", arg=holder)
    assert page.locator("#hand .hand-tile").count() > 0


def test_a_tile_that_scores_says_so_in_its_accessible_name(page_at):
    """The "+N" badge is part of the tile's name ("5-0, plays on left, scores 10"): the view's
    scoring hint is forced onto the first play listed, so the check does not wait on the deal."""
    page = page_at(DESKTOP, **QUICK)

    def with_a_scoring_play(route) -> None:
        response = route.fetch()
        if response.status != 200:
            route.fulfill(response=response)
            return
        body = response.json()
        view = body.get("view", body)
        plays = [a for a in view.get("legal_actions") or [] if a["type"] == "play"]
        if plays:
            plays[0]["scores"] = 10
        route.fulfill(response=response, body=json.dumps(body))

    page.route(re.compile(r".*/v1/matches/[^/]+/(view|actions)$"), with_a_scoring_play)
    start_short_match(page, [("You", "you"), ("Rand", "random")])
    for turn in range(30):
        wait_for_my_turn_or_dialog(page)
        assert not overlay_open(page), "the hand ended before a tile could be played"
        if page.locator("#hand .hand-tile.playable").count():
            break
        seq = page.evaluate("document.body.dataset.seq")
        play_turn_by_pointer(page, "mouse", f"turn {turn}")  # draws or knocks
        wait_for_move(page, seq)
    scoring = page.get_by_role("button", name=re.compile(r"^\d-\d, plays on [a-z ]+, scores 10$"))
    assert scoring.count() == 1
    assert scoring.locator(".bonus").inner_text() == "+10"
    # the others say nothing of scoring
    assert page.get_by_role("button", name=re.compile("scores")).count() == 1


def test_announce_speaks_through_a_polite_live_region_in_order(page_at):
    """dom.js ``announce(text)``: what the table says to screen readers as moves happen."""
    page = page_at(DESKTOP)
    page.goto("/play")
    page.wait_for_selector("#setup:not([hidden])")
    region = page.locator("#announcer")
    assert region.get_attribute("aria-live") == "polite" and region.get_attribute("role") == "status"
    assert not region.is_visible() or region.bounding_box()["width"] <= 1  # heard, not seen
    lines = [f"Rand played {n}-{n} on the left." for n in range(6)]
    page.evaluate("lines => import('/play/dom.js').then((m) => lines.forEach((l) => m.announce(l)))", lines)
    assert page.eval_on_selector_all("#announcer p", "els => els.map((e) => e.textContent)") == lines[-4:]


def test_every_computer_move_is_announced_even_when_the_moves_are_shown_at_once(page_at, live_server):
    """Reduced motion shows only the final table, but a screen reader still hears each reply."""
    page = page_at(DESKTOP, **QUICK)
    seats = [("You", "you"), ("Ann", "random"), ("Bob", "random"), ("Cy", "random")]
    start_short_match(page, seats)
    page.evaluate(
        """() => {
        window.heard = [];
        const hear = (changes) => changes.forEach((c) => c.addedNodes.forEach((n) => window.heard.push(n.textContent)));
        new MutationObserver(hear).observe(document.querySelector('#announcer'), { childList: true });
      }"""
    )
    wait_for_my_turn_or_dialog(page)
    assert not overlay_open(page)
    match = page.evaluate("JSON.parse(localStorage.getItem('boneyard.table.v1'))")
    seq = page.evaluate("document.body.dataset.seq")
    play_turn_by_pointer(page, "mouse", "one move")
    wait_for_move(page, seq)
    answer = requests.get(
        f"{live_server}/v1/matches/{match['id']}/events?after={seq}",
        headers={"Authorization": f"Bearer {match['local']['0']}"},
        timeout=10,
    )
    names = dict(enumerate(name for name, _ in seats))
    replies = [
        f"{names[e['seat']]} played {e['tile'][0]}-{e['tile'][1]}"
        for e in answer.json()["events"]
        if e["type"] == "tile_played" and e["seat"] != 0
    ]
    heard = " ".join(page.evaluate("window.heard"))
    assert [reply for reply in replies if reply not in heard] == []
    # the computers' moves came in one answer, yet the table shows the final state only
    assert page.evaluate("document.body.hasAttribute('data-animating')") is False
