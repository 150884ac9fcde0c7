"""The web table at /play, driven in headless Chromium against the real server.

Each test starts its own match through the page, plays by clicks or keys exactly as a
person would, and checks what the page shows against the public API's view for the
same seat token (read from the page's storage, as the page itself keeps it).
"""

from __future__ import annotations

import json

import requests

from .conftest import DESKTOP, PHONE

STATE_KEY = "boneyard.table.v1"
# a dialog waits for the person; otherwise the page is done updating (see match.js settle())
SETTLED_OR_DIALOG = "!document.querySelector('#overlay').hidden || document.body.hasAttribute('data-settled')"
MAX_TURNS = 120


# --- helpers ---------------------------------------------------------------------------------
def start_match(page, seats: list[tuple[str, str]], preset: str = "standard-draw", target: int = 150) -> dict:
    """Fill the start page: ``seats`` as (name, kind) with kind you|friend|random|greedy|expert."""
    page.goto("/play")
    page.wait_for_selector("#setup:not([hidden])")
    page.check(f"input[name=players][value='{len(seats)}']", force=True)
    for i, (name, kind) in enumerate(seats):
        page.select_option(f"[data-seat-kind='{i}']", kind)
        page.fill(f"[data-seat-name='{i}']", name)
    page.select_option("#preset", preset)
    page.select_option("#target", str(target))  # a length other than the rules' default
    page.click("#start")
    page.wait_for_selector("#table:not([hidden]), #toast:not([hidden])")
    assert page.is_visible("#table"), f"the match did not start: {page.inner_text('#toast')}"
    page.wait_for_function("document.body.dataset.seq !== undefined")
    return stored(page)


def offered_presets(base: str) -> dict:
    response = requests.get(f"{base}/v1/presets", timeout=10)
    assert response.status_code == 200, response.text
    return response.json()


def stored(page) -> dict:
    return page.evaluate(f"JSON.parse(localStorage.getItem({json.dumps(STATE_KEY)}))")


def api_view(base: str, match_id: str, token: str | None) -> dict:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    response = requests.get(f"{base}/v1/matches/{match_id}/view", headers=headers, timeout=10)
    assert response.status_code == 200, response.text
    return response.json()


def overlay_open(page) -> bool:
    return page.is_visible("#overlay")


def wait_for_move(page, seq: str) -> None:
    """Until a dialog opened, or the page settled (body[data-settled]) on a newer seq than ``seq``."""
    page.wait_for_function(
        """seq => !document.querySelector('#overlay').hidden
          || (document.body.hasAttribute('data-settled') && document.body.dataset.seq !== seq)""",
        arg=seq,
    )


def my_move_possible(page) -> bool:
    return page.evaluate("document.body.classList.contains('my-turn')")


def play_hand_by_clicks(page) -> int:
    """Tap playable tiles (and an end when asked), else Draw, else Knock, until the hand ends."""
    moves = 0
    for _ in range(MAX_TURNS):
        if overlay_open(page):
            return moves
        page.wait_for_function(
            "document.body.classList.contains('my-turn') || !document.querySelector('#overlay').hidden"
        )
        if overlay_open(page):
            return moves
        seq = page.evaluate("document.body.dataset.seq")
        playable = page.locator("#hand .hand-tile.playable")
        if playable.count():
            tile = playable.first
            ends = tile.get_attribute("data-ends").split()
            choices = int(tile.get_attribute("data-choices"))
            tile.click()
            if choices > 1:
                # it fits both ends: the tap selected it, lit the ends it fits on the line and
                # offered one button per end; use both ways in turn
                assert page.locator(".end-target.fits").count() == len(ends)
                assert page.locator("#end-choice [data-choose-end]").count() == choices
                if moves % 2:
                    page.click(f".end-target.fits[data-end='{ends[-1]}']")
                else:
                    page.click(f"#end-choice [data-choose-end='{ends[0]}']")
        elif page.is_enabled("#draw"):
            assert page.locator("#hand .hand-tile.playable").count() == 0
            page.click("#draw")
        else:
            assert page.is_enabled("#knock"), "my turn, nothing to play or draw, yet no knock"
            page.click("#knock")
        moves += 1  # noqa: SIM113  (counted per move made, not per loop pass)
        wait_for_move(page, seq)
    raise AssertionError("the hand did not end")


def play_hand_by_keyboard(page) -> int:
    """←/→ to a lifted tile, `.` when it fits both ends, then Enter or ↑; D draws, K knocks."""
    moves = 0
    for _ in range(MAX_TURNS):
        page.wait_for_function(
            "document.body.classList.contains('my-turn') || !document.querySelector('#overlay').hidden"
        )
        if overlay_open(page):
            return moves
        seq = page.evaluate("document.body.dataset.seq")
        tiles = page.locator("#hand .hand-tile")
        playable = [i for i in range(tiles.count()) if "playable" in tiles.nth(i).get_attribute("class")]
        if playable:
            selected = int(page.get_attribute("#hand .hand-tile.selected", "data-index"))
            for _step in range((playable[0] - selected) % tiles.count()):
                page.keyboard.press("ArrowRight")
            chosen = page.locator("#hand .hand-tile.selected")
            assert "playable" in chosen.get_attribute("class")
            if int(chosen.get_attribute("data-choices")) > 1:
                page.keyboard.press(".")
                assert page.locator(".end-target.chosen").count() == 1
            page.keyboard.press("Enter" if moves % 2 == 0 else "ArrowUp")
        elif page.is_enabled("#draw"):
            page.keyboard.press("d")
        else:
            assert page.is_enabled("#knock")
            page.keyboard.press("k")
        moves += 1  # noqa: SIM113  (counted per move made, not per loop pass)
        wait_for_move(page, seq)
    raise AssertionError("the hand did not end")


def assert_table_matches_api(page, base: str, match_id: str, token: str) -> dict:
    view = api_view(base, match_id, token)
    assert page.evaluate("document.body.dataset.seq") == str(view["seq"])
    shown = page.eval_on_selector_all("#hand .hand-tile", "els => els.map(e => e.dataset.tile)")
    assert shown == [f"{a}-{b}" for a, b in view["hand"]]
    assert page.inner_text("#boneyard-count") == str(view["boneyard"])
    for seat in view["seats"]:
        number = seat["seat"]
        assert page.inner_text(f"[data-score='{number}']") == str(view["scores"][number])
        if number != view["seat"]:
            assert page.inner_text(f"[data-hand-count='{number}']") == str(view["hand_counts"][number])
            assert page.locator(f".opp[data-seat='{number}'] .back").count() == min(view["hand_counts"][number], 14)
    playable = sorted(page.eval_on_selector_all("#hand .hand-tile.playable", "els => els.map(e => e.dataset.tile)"))
    listed = sorted({f"{a['tile'][0]}-{a['tile'][1]}" for a in view["legal_actions"] if a["type"] == "play"})
    assert playable == listed
    assert page.locator("#line .tile").count() == len(view["line"]) + sum(
        len(arm) for arm in (view.get("arms") or {}).values()
    )
    return view


def assert_hand_result_matches_api(page, base: str, match_id: str, token: str) -> dict:
    view = api_view(base, match_id, token)
    result = view["last_hand"]
    assert result is not None and page.inner_text("#overlay-title") == f"Hand {result['hand_number']}"
    for seat, pips in enumerate(result["pips"]):
        assert page.inner_text(f"[data-reveal-pips='{seat}']") == str(pips)
        assert page.locator(f"[data-reveal-seat='{seat}'] .tile").count() == len(result["hands"][seat])
    for side, score in enumerate(result["scores"]):
        assert page.inner_text(f"[data-final-score='{side}']") == str(score)
    return view


def real_errors(page) -> list[str]:
    # refused actions answer 4xx, which Chromium logs as a failed resource load: not a bug
    return [e for e in page.js_errors if "Failed to load resource" not in e]


# --- tests -------------------------------------------------------------------------------------
def test_a_whole_hand_against_the_computer_is_played_by_clicks_on_a_desktop(page_at, live_server, artifacts):
    page = page_at(DESKTOP)
    state = start_match(page, [("Ada", "you"), ("Greedy", "greedy")])
    match_id, token = state["id"], state["local"]["0"]
    page.screenshot(path=artifacts / "desktop-table-start.png")
    assert_table_matches_api(page, live_server, match_id, token)
    titles = {p["name"]: p["title"] for p in offered_presets(live_server)["presets"]}
    assert page.inner_text("#match-meta").startswith(titles["standard-draw"])  # the heading names the preset
    assert page.is_disabled("#knock")

    moves = play_hand_by_clicks(page)
    page.screenshot(path=artifacts / "desktop-hand-result.png")
    assert moves >= 1
    result_view = assert_hand_result_matches_api(page, live_server, match_id, token)

    page.click("#continue")
    if result_view["status"] == "playing":
        assert not overlay_open(page)
        page.wait_for_function("document.body.dataset.seq !== undefined")
        assert_table_matches_api(page, live_server, match_id, token)
        log = page.inner_text("#log")
        assert "Hand 1:" in log and "Hand 2:" in log
        page.screenshot(path=artifacts / "desktop-table-hand2.png")
    assert real_errors(page) == []


def test_a_whole_hand_is_played_by_keyboard_on_a_phone(page_at, live_server, artifacts):
    page = page_at(PHONE, has_touch=True, is_mobile=True, device_scale_factor=2)
    state = start_match(page, [("Kim", "you"), ("Rand", "random"), ("Max", "greedy")])
    match_id, token = state["id"], state["local"]["0"]
    page.screenshot(path=artifacts / "phone-table-start.png")
    assert_table_matches_api(page, live_server, match_id, token)

    moves = play_hand_by_keyboard(page)
    assert moves >= 1
    page.screenshot(path=artifacts / "phone-hand-result.png")
    assert_hand_result_matches_api(page, live_server, match_id, token)
    page.keyboard.press("Enter")  # the dialog's focused button continues
    assert not overlay_open(page) or page.is_visible("#rematch")
    if not overlay_open(page):
        assert_table_matches_api(page, live_server, match_id, token)
        page.screenshot(path=artifacts / "phone-table-hand2.png")
        page.keyboard.press("n")
        assert page.is_visible("#setup") and page.is_visible("#resume")
    assert real_errors(page) == []


def test_log_reports_draws_and_knocks_as_counts_from_the_redacted_events(page_at, live_server):
    page = page_at(DESKTOP)
    state = start_match(page, [("Ada", "you"), ("Bot", "random")])
    match_id, token = state["id"], state["local"]["0"]
    play_hand_by_clicks(page)
    # beside the result the table (and its log) stops at the hand's end; the next hand's first
    # moves, already played by the server, follow once it is dismissed
    page.click("#continue")
    page.wait_for_function("document.querySelector('#overlay').hidden || document.querySelector('#rematch')")
    events = requests.get(
        f"{live_server}/v1/matches/{match_id}/events?limit=1000",
        headers={"Authorization": f"Bearer {token}"},
        timeout=10,
    ).json()["events"]
    # consecutive draws by one seat are one line: "<name> drew N from the boneyard"
    expected, run = [], None
    for event in events:
        if event["type"] == "tile_drawn":
            if run and run[0] == event["seat"]:
                run[1] += 1
            else:
                run = [event["seat"], 1]
                expected.append(run)
        else:
            run = None
    names = {0: "Ada", 1: "Bot"}
    shown = page.eval_on_selector_all("#log li[data-event='draw']", "els => els.map(e => e.textContent)")
    assert shown == [f"{names[seat]} drew {n} from the boneyard" for seat, n in expected]
    knocks = [e for e in events if e["type"] == "knocked"]
    assert page.locator("#log li[data-event='knocked']").count() == len(knocks)
    # the log never prints a drawn tile's face, even the viewer's own
    assert all("tile" not in e or e["type"] != "tile_drawn" or e["seat"] == 0 for e in events)
    assert "drew 1 from the boneyard (" not in page.inner_text("#log")


def test_friends_on_one_device_pass_the_screen_and_see_only_their_own_hand(page_at, live_server, artifacts):
    page = page_at(PHONE, has_touch=True, is_mobile=True)
    state = start_match(page, [("Ana", "you"), ("Leo", "friend")], preset="standard-block")
    match_id, tokens = state["id"], state["local"]
    assert set(tokens) == {"0", "1"}
    for _ in range(6):
        if overlay_open(page):
            if page.is_visible("#ready"):
                break
            page.click("#overlay button.primary")  # a hand result, then the pass screen
            page.wait_for_function(SETTLED_OR_DIALOG)
            continue
        seat = api_view(live_server, match_id, tokens["0"])["turn"]
        assert_table_matches_api(page, live_server, match_id, tokens[str(seat)])
        seq = page.evaluate("document.body.dataset.seq")
        if page.locator("#hand .hand-tile.playable").count():
            page.locator("#hand .hand-tile.playable").first.click()
            if page.locator(".end-target.fits").count():
                page.locator(".end-target.fits").first.click()
        else:
            page.click("#knock")
        wait_for_move(page, seq)
    assert page.is_visible("#ready"), "the turn passed to the other person without a pass screen"
    page.screenshot(path=artifacts / "phone-pass-screen.png")
    # behind the pass screen no face is shown: the hand is backs only
    assert page.locator("#hand .hand-tile").count() == 0
    next_seat = api_view(live_server, match_id, tokens["0"])["turn"]
    page.click("#ready")
    page.wait_for_function("document.querySelector('#overlay').hidden && document.body.hasAttribute('data-settled')")
    assert_table_matches_api(page, live_server, match_id, tokens[str(next_seat)])
    assert page.inner_text("#me-name") == ("Ana", "Leo")[next_seat]


def test_a_spinner_game_shows_its_arms_and_a_reload_resumes_the_match(page_at, live_server, artifacts):
    page = page_at(DESKTOP)
    state = start_match(page, [("Ada", "you"), ("Bea", "greedy")], preset="all-fives", target=50)
    match_id, token = state["id"], state["local"]["0"]
    for _ in range(3):
        view = api_view(live_server, match_id, token)
        if view["status"] != "playing" or overlay_open(page):
            break
        seq = page.evaluate("document.body.dataset.seq")
        playable = page.locator("#hand .hand-tile.playable")
        if playable.count():
            ends = playable.first.get_attribute("data-ends").split()
            playable.first.drag_to(page.locator(f".end-target[data-end='{ends[0]}']"))
        elif page.is_enabled("#draw"):
            page.click("#draw")
        else:
            page.click("#knock")
        wait_for_move(page, seq)
    if not overlay_open(page):
        view = assert_table_matches_api(page, live_server, match_id, token)
        if view.get("spinner"):
            assert page.locator("#line .tile.spinner").count() == 1
        assert page.is_visible("#count-pill") and page.inner_text("#ends-count") == str(view["count"])
    page.screenshot(path=artifacts / "desktop-all-fives.png")
    page.set_viewport_size(PHONE)
    page.reload()
    page.wait_for_function("document.body.dataset.seq !== undefined")
    assert stored(page)["id"] == match_id
    page.screenshot(path=artifacts / "phone-all-fives-reloaded.png")
    if not overlay_open(page):
        assert_table_matches_api(page, live_server, match_id, token)


def test_the_start_page_and_assets_are_served_but_stay_out_of_the_openapi_document(live_server, page_at, artifacts):
    page = requests.get(f"{live_server}/play", timeout=10)
    assert page.status_code == 200 and page.headers["Content-Type"].startswith("text/html")
    assert '<base href="/play/">' in page.text
    script = requests.get(f"{live_server}/play/app.js", timeout=10)
    assert script.status_code == 200 and script.headers["Content-Type"].startswith("text/javascript")
    again = requests.get(f"{live_server}/play/app.js", headers={"If-None-Match": script.headers["ETag"]}, timeout=10)
    assert again.status_code == 304
    assert requests.get(f"{live_server}/play/../api/app.py", timeout=10).status_code == 404
    spec = requests.get(f"{live_server}/v1/openapi.json", timeout=10).json()
    assert not [path for path in spec["paths"] if path.startswith("/play")]

    phone = page_at(PHONE, has_touch=True, is_mobile=True, device_scale_factor=2)
    phone.goto("/play")
    phone.wait_for_selector("#setup:not([hidden])")
    phone.screenshot(path=artifacts / "phone-start.png")
    desktop = page_at(DESKTOP)
    desktop.goto("/play/")
    desktop.wait_for_selector("#setup:not([hidden])")
    desktop.check("input[name=players][value='4']", force=True)
    assert desktop.locator("#seat-list li").count() == 4
    desktop.screenshot(path=artifacts / "desktop-start.png")


def test_the_form_offers_exactly_the_apis_presets_and_levels(page_at, live_server):
    offered = offered_presets(live_server)
    page = page_at(DESKTOP)
    page.goto("/play")
    page.wait_for_selector("#setup:not([hidden])")
    menu = page.eval_on_selector_all("#preset option", "els => els.map((o) => [o.value, o.textContent])")
    assert menu == [[p["name"], p["title"]] for p in offered["presets"]]
    assert page.eval_on_selector("#preset", "el => el.value") == offered["default_preset"]
    kinds = page.eval_on_selector_all("[data-seat-kind='1'] option", "els => els.map((o) => o.value)")
    assert kinds == ["you", "friend", *[level["name"] for level in offered["bot_levels"]]]
    assert page.eval_on_selector("[data-seat-kind='1']", "el => el.value") == offered["default_bot_level"]

    # a preset names the player counts it allows: the others cannot be chosen with it
    page.check("input[name=players][value='3']", force=True)
    two_only = next(p for p in offered["presets"] if p["players"] == [2])
    page.select_option("#preset", two_only["name"])
    assert page.inner_text("#preset-about") == two_only["description"]
    assert page.is_checked("input[name=players][value='2']") and page.locator("#seat-list li").count() == 2
    assert page.is_disabled("input[name=players][value='3']") and page.is_disabled("input[name=players][value='4']")
    page.select_option("#preset", offered["default_preset"])
    assert page.is_enabled("input[name=players][value='4']")
    assert page.js_errors == []


def test_when_the_presets_cannot_be_loaded_the_form_says_so_and_tries_again(page_at, live_server):
    page = page_at(DESKTOP)
    problem = {"type": "about:blank", "title": "Service Unavailable", "status": 503, "detail": "Down for a moment."}
    page.route("**/v1/presets", lambda route: route.fulfill(status=503, json=problem))
    page.goto("/play")
    page.wait_for_selector("#setup:not([hidden])")
    assert page.is_visible("#setup-error") and "Down for a moment." in page.inner_text("#setup-error")
    assert not page.is_visible("#preset") and not page.is_visible("#seat-list") and page.is_disabled("#start")

    page.unroute("**/v1/presets")
    page.click("#setup-retry")
    page.wait_for_selector("#setup-error", state="hidden")
    assert page.locator("#preset option").count() == len(offered_presets(live_server)["presets"])
    assert page.locator("#seat-list li").count() == 2 and page.is_enabled("#start")
