"""The web table on a network that fails, is slow, or is shared by two tabs, in Chromium.

A move in flight shows as pending and a second tap or key sends nothing; with the server
unreachable a banner says so, retries by itself and clears once the server answers, and the
table resumes; two tabs of one browser each keep their own match across reloads, and a move
made in one tab shows in the other without a touch.
"""

from __future__ import annotations

import requests

from .conftest import DESKTOP
from .test_web_table import api_view, real_errors, start_match, stored, wait_for_move

TAB_KEY = "boneyard.tab.match"


def tab_match(page) -> str | None:
    return page.evaluate(f"sessionStorage.getItem('{TAB_KEY}')")


def until(page, condition, rounds: int = 200) -> None:
    """Until ``condition()`` holds; each round trip to the page lets Playwright deliver its events
    (route handlers among them), so this waits on events, not on a clock."""
    for _ in range(rounds):
        if condition():
            return
        page.evaluate("new Promise((resolve) => requestAnimationFrame(resolve))")
    raise AssertionError("the condition never held")


def make_a_move(page) -> None:
    """One move of the seat on screen: a playable tile (on its first end), else Draw, else Knock."""
    page.wait_for_function("document.body.classList.contains('my-turn')")
    seq = page.evaluate("document.body.dataset.seq")
    playable = page.locator("#hand .hand-tile.playable")
    if playable.count():
        tile = playable.first
        ends = tile.get_attribute("data-ends").split()
        choices = int(tile.get_attribute("data-choices"))
        tile.click()
        if choices > 1:
            page.click(f"#end-choice [data-choose-end='{ends[0]}']")
    elif page.is_enabled("#draw"):
        page.click("#draw")
    else:
        page.click("#knock")
    wait_for_move(page, seq)


def test_a_move_in_flight_is_shown_pending_and_a_second_tap_sends_nothing(page_at, live_server):
    page = page_at(DESKTOP)
    state = start_match(page, [("Ada", "you"), ("Greedy", "greedy")])
    held = []

    def hold(route):  # the answer waits until the test lets it go
        held.append(route)

    page.route("**/v1/matches/*/actions", hold)
    posts = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" and r.url.endswith("/actions") else None)
    page.wait_for_function("document.body.classList.contains('my-turn')")
    seq = page.evaluate("document.body.dataset.seq")
    playable = page.locator("#hand .hand-tile.playable")
    tapped = playable.first.get_attribute("data-tile") if playable.count() else None
    if tapped:
        choices = int(playable.first.get_attribute("data-choices"))
        ends = playable.first.get_attribute("data-ends").split()
        playable.first.click()
        if choices > 1:
            page.click(f"#end-choice [data-choose-end='{ends[0]}']")
    else:
        page.click("#draw" if page.is_enabled("#draw") else "#knock")
    page.wait_for_function("document.body.classList.contains('pending')")
    until(page, lambda: held)
    assert len(held) == 1
    assert page.inner_text("#status") == "Sending your move…"
    assert not page.evaluate("document.body.classList.contains('my-turn')")
    if tapped:
        assert page.locator(f"#hand .hand-tile.pending[data-tile='{tapped}']").count() == 1
    assert page.locator("#hand .hand-tile.playable").count() == 0 and page.is_disabled("#draw")

    # a second tap, Enter, D and K while the first is in flight: nothing more is sent
    page.locator("#hand .hand-tile").last.click()
    for key in ("Enter", "ArrowUp", "d", "k"):
        page.keyboard.press(key)
    assert page.evaluate("document.body.classList.contains('pending')")
    assert len(posts) == 1 and len(held) == 1

    held[0].continue_()
    wait_for_move(page, seq)
    page.wait_for_function("!document.body.classList.contains('pending')")
    assert len(posts) == 1
    final = str(api_view(live_server, state["id"], state["local"]["0"])["seq"])
    page.wait_for_function("seq => document.body.dataset.seq === seq", arg=final)  # the replies shown too
    assert page.locator("#hand .hand-tile.pending").count() == 0
    assert real_errors(page) == []


def test_with_the_server_down_a_banner_retries_and_the_table_resumes_by_itself(page_at, live_server, artifacts):
    page = page_at(DESKTOP)
    # the page's clock is the test's to move on: the retries come after 1 s, then 2 s, at once
    page.clock.install()
    state = start_match(page, [("Ada", "you"), ("Greedy", "greedy")])
    failed = []

    def down(route):
        failed.append(route.request.url)
        route.abort()

    page.route("**/v1/**", down)
    page.wait_for_function("document.body.classList.contains('my-turn')")
    seq = page.evaluate("document.body.dataset.seq")
    playable = page.locator("#hand .hand-tile.playable")
    if playable.count():
        playable.first.click()
        if page.is_visible("#end-choice"):
            page.locator("#end-choice [data-choose-end]").first.click()
    else:
        page.click("#draw" if page.is_enabled("#draw") else "#knock")
    page.wait_for_selector("#offline:not([hidden])")
    assert "The server is not answering" in page.inner_text("#offline")
    assert not page.is_visible("#toast") or "Failed to fetch" not in page.inner_text("#toast")
    # it tries again by itself: another request fails while the banner stays
    tries = len(failed)
    page.clock.fast_forward(1000)
    until(page, lambda: len(failed) > tries)
    assert page.is_visible("#offline")
    page.screenshot(path=artifacts / "desktop-offline-banner.png")

    page.unroute("**/v1/**")
    page.clock.fast_forward(2000)  # the next try, the wait doubled
    page.wait_for_selector("#offline", state="hidden")
    # the move was never sent; the table is the server's again and takes the next move
    view = api_view(live_server, state["id"], state["local"]["0"])
    assert page.evaluate("document.body.dataset.seq") == str(view["seq"]) == seq
    make_a_move(page)
    assert page.evaluate("document.body.dataset.seq") != seq
    assert [e for e in real_errors(page) if "ERR_FAILED" not in e] == []


def test_the_browser_going_offline_shows_the_banner_and_online_clears_it(page_at, live_server):
    page = page_at(DESKTOP)
    start_match(page, [("Ada", "you"), ("Greedy", "greedy")])
    page.context.set_offline(True)
    page.wait_for_selector("#offline:not([hidden])")
    assert "offline" in page.inner_text("#offline")
    page.context.set_offline(False)
    page.wait_for_selector("#offline", state="hidden")


def test_a_tab_looked_at_again_catches_up_with_a_move_made_elsewhere(page_at, live_server):
    page = page_at(DESKTOP)
    state = start_match(page, [("Ada", "you"), ("Greedy", "greedy")])
    match_id, token = state["id"], state["local"]["0"]
    page.wait_for_function("document.body.classList.contains('my-turn')")
    seq = page.evaluate("document.body.dataset.seq")
    # the same seat moves from elsewhere (another device holding its token): this tab does not poll on its own turn
    view = api_view(live_server, match_id, token)
    action = next(a for a in view["legal_actions"] if a["type"] in ("play", "draw", "knock"))
    moved = requests.post(
        f"{live_server}/v1/matches/{match_id}/actions",
        json={**{k: v for k, v in action.items() if k != "scores"}, "expected_seq": view["seq"]},
        headers={"Authorization": f"Bearer {token}"},
        timeout=10,
    )
    assert moved.status_code == 200, moved.text
    assert page.evaluate("document.body.dataset.seq") == seq
    page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    wait_for_move(page, seq)
    page.wait_for_function(
        "seq => document.body.dataset.seq === seq", arg=str(api_view(live_server, match_id, token)["seq"])
    )


def test_two_tabs_keep_their_own_matches_and_one_tabs_move_shows_in_the_other(page_at, live_server):
    first = page_at(DESKTOP)
    state = start_match(first, [("Ada", "you"), ("Greedy", "greedy")])
    match_a = state["id"]
    assert tab_match(first) == match_a

    # a fresh tab resumes the match saved most recently: the same match, both tabs on it
    second = first.context.new_page()
    second.js_errors = []
    second.on("pageerror", lambda exc: second.js_errors.append(str(exc)))
    second.on("console", lambda msg: second.js_errors.append(msg.text) if msg.type == "error" else None)
    second.goto("/play")
    second.wait_for_function("document.body.dataset.seq !== undefined")
    assert tab_match(second) == match_a
    seq = first.evaluate("document.body.dataset.seq")
    make_a_move(second)
    # the first tab was not touched: the other tab's save (the storage event) moved it on
    wait_for_move(first, seq)
    view = api_view(live_server, match_a, state["local"]["0"])
    second.wait_for_function("seq => document.body.dataset.seq === seq", arg=str(view["seq"]))
    first.wait_for_function("seq => document.body.dataset.seq === seq", arg=str(view["seq"]))

    # a new match in the second tab leaves the first tab's alone
    second.keyboard.press("n")
    second.wait_for_selector("#setup:not([hidden])")
    second.select_option("[data-seat-kind='1']", "random")
    second.evaluate("delete document.body.dataset.seq")
    second.click("#start")
    second.wait_for_function("document.body.dataset.seq !== undefined")
    match_b = tab_match(second)
    assert match_b and match_b != match_a and stored(second)["id"] == match_b

    for page, expected in ((first, match_a), (second, match_b)):
        page.reload()
        page.wait_for_function("document.body.dataset.seq !== undefined")
        assert tab_match(page) == expected
    # match A's tokens are still here: the form offers to go back to it
    second.keyboard.press("n")
    assert second.locator(f"#saved-list [data-saved-match='{match_a}']").count() == 1
    second.click(f"#saved-list [data-saved-match='{match_a}']")
    second.wait_for_function("m => sessionStorage.getItem('boneyard.tab.match') === m", arg=match_a)
    second.wait_for_selector("#table:not([hidden])")
    assert real_errors(first) == [] and real_errors(second) == []
