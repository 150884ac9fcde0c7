"""Moves you can follow, and sound, at the web table (/play), in headless Chromium.

After the viewer's move the server answers with every computer reply already played; the
page shows the new events one by one (animate.js), marks the tile placed last, shows a
hand's result beside its final board, and plays a Web Audio cue per event (sound.js), which
it counts on <body> (``data-sounds-play`` …) so the tests can read what was played.

These tests open their pages with ``reduced_motion="no-preference"`` where they follow the
steps (the other browser tests default to "reduce", which shows new moves at once). There the
page's clock is the test's (Playwright's ``page.clock``): each step is still drawn, in order,
but the test moves the clock past the 600 ms between steps instead of waiting them out.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import requests
from playwright.sync_api import Page

from .conftest import DESKTOP, PHONE
from .test_web_table import api_view, overlay_open, play_hand_by_clicks, real_errors, start_match, stored

OpenPage = Callable[..., Page]  # the page_at fixture
MOTION = {"reduced_motion": "no-preference"}
FOUR = [("Ada", "you"), ("Gus", "greedy"), ("Rita", "random"), ("Gil", "greedy")]

# every value body[data-seq] takes, and whether body[data-animating] ever appeared, from now on
WATCH_JS = """() => {
  window.seqsSeen = [];
  window.animatingSeen = false;
  new MutationObserver(() => {
    const seq = document.body.dataset.seq;
    if (window.seqsSeen[window.seqsSeen.length - 1] !== seq) window.seqsSeen.push(seq);
    if (document.body.hasAttribute('data-animating')) window.animatingSeen = true;
  }).observe(document.body, { attributes: true, attributeFilter: ['data-seq', 'data-animating'] });
}"""
# what is wrong with the table on screen as a picture of a double-six set: the line (and a
# cross's arms) must chain number to number, and every tile must be somewhere: on the table,
# in a hand (as counted) or in the boneyard. Each intermediate picture is rebuilt by the page
# from the events, so this catches a tile put on the wrong end, the wrong way round, or lost.
PICTURE_JS = """() => {
  const keys = (sel) => [...document.querySelectorAll(sel)].map((e) => e.dataset.tile.split('-').map(Number));
  const problems = [];
  const cross = document.querySelector('#line.cross');
  const main = keys(cross ? '#line .seg.left .tile, #line .seg.spin .tile, #line .seg.right .tile' : '#line .tile');
  for (let i = 1; i < main.length; i++) if (main[i - 1][1] !== main[i][0]) problems.push(`the line breaks at ${i}`);
  if (cross) {
    const root = keys('#line .seg.spin .tile')[0][0];
    // the up arm is drawn outer half first
    const arms = { up: keys('#line .seg.up .tile').map(([a, b]) => [b, a]), down: keys('#line .seg.down .tile') };
    for (const [arm, tiles] of Object.entries(arms)) {
      tiles.forEach((t, i) => {
        if (t[0] !== (i ? tiles[i - 1][1] : root)) problems.push(`the ${arm} arm breaks at ${i}`);
      });
    }
  }
  const onTable = document.querySelectorAll('#line .tile').length;
  const counts = [...document.querySelectorAll('#opponents [data-hand-count]')].map((e) => Number(e.textContent));
  const held = counts.reduce((n, c) => n + c, 0) + Number(document.querySelector('#hand').dataset.handCount);
  const boneyard = Number(document.querySelector('#boneyard-count').textContent);
  if (onTable + held + boneyard !== 28) {
    const seq = document.body.dataset.seq;
    problems.push(`seq ${seq}: ${onTable} on the table + ${held} held + ${boneyard} in the boneyard`);
  }
  return problems;
}"""
# check every picture the page shows from now on (each new body[data-seq])
WATCH_PICTURES_JS = """(check) => {
  window.pictureProblems = [];
  window.picturesSeen = 0;
  const run = eval(check);
  new MutationObserver(() => {
    window.picturesSeen += 1;
    window.pictureProblems.push(...run());
  }).observe(document.body, { attributes: true, attributeFilter: ['data-seq'] });
}"""
LOG_LINES = "document.querySelectorAll('#log li').length"
LINE_TILES = "document.querySelectorAll('#line .tile').length"
READY = "document.body.classList.contains('my-turn') || !document.querySelector('#overlay').hidden"
STEP_MS = 600  # api/web/static/animate.js's STEP_MS: the time between two steps shown
ANIMATING = "document.body.hasAttribute('data-animating')"


def events(base: str, match_id: str, token: str, after: int = 0) -> list[dict[str, Any]]:
    response = requests.get(
        f"{base}/v1/matches/{match_id}/events?after={after}&limit=1000",
        headers={"Authorization": f"Bearer {token}"},
        timeout=10,
    )
    assert response.status_code == 200, response.text
    return list(response.json()["events"])


def last_tile_played(evs: list[dict[str, Any]]) -> list[int] | None:
    """The tile the last tile_played placed, if no hand started after it."""
    for e in reversed(evs):
        if e["type"] == "tile_played":
            return list(e["tile"])
        if e["type"] == "hand_started":
            return None
    return None


def same_tile(key: str | None, tile: list[int] | None) -> bool:
    if key is None or tile is None:
        return key is None and tile is None
    a, b = (int(x) for x in key.split("-"))
    return sorted((a, b)) == sorted(tile)


def marked(page: Page) -> list[str]:
    return page.eval_on_selector_all("#line .tile.last", "els => els.map((e) => e.dataset.tile)")


def sounds(page: Page) -> dict[str, int]:
    counts = page.evaluate("({...document.body.dataset})")
    return {k: int(counts.get(f"sounds{k.capitalize()}", 0)) for k in ("play", "draw", "knock", "score", "hand")}


def expected_cues(evs: list[dict[str, Any]]) -> dict[str, int]:
    """One cue per shown step: each play, knock, scoring and hand end; a run of draws by one seat is one."""
    out = {"play": 0, "draw": 0, "knock": 0, "score": 0, "hand": 0}
    previous = None
    for e in evs:
        kind = e["type"]
        if kind == "tile_played":
            out["play"] += 1
        elif kind == "knocked":
            out["knock"] += 1
        elif kind == "hand_ended":
            out["hand"] += 1
        elif kind == "points_scored":
            out["score"] += 1
        elif kind == "tile_drawn" and not (
            previous and previous["type"] == "tile_drawn" and previous["seat"] == e["seat"]
        ):
            out["draw"] += 1
        previous = e
    return out


def final_step_cues(evs: list[dict[str, Any]]) -> dict[str, int]:
    """The cues of the last step alone (what reduced motion plays: only the table it shows)."""
    starts = ("tile_played", "tile_drawn", "knocked", "hand_started", "hand_ended")
    i = max(k for k, e in enumerate(evs) if e["type"] in starts)
    while (
        i > 0
        and evs[i]["type"] == "tile_drawn"
        and evs[i - 1]["type"] == "tile_drawn"
        and (evs[i - 1]["seat"] == evs[i]["seat"])
    ):
        i -= 1
    kinds = {e["type"] for e in evs[i:]}
    names = {"tile_played": "play", "tile_drawn": "draw", "knocked": "knock", "points_scored": "score"}
    out = {name: int(kind in kinds) for kind, name in names.items()}
    out["hand"] = int("hand_ended" in kinds)
    return out


def make_a_move(page: Page) -> str:
    """A playable tile (on its first end), else Draw, else Knock; returns what it did."""
    playable = page.locator("#hand .hand-tile.playable")
    if playable.count():
        tile = playable.first
        ends = (tile.get_attribute("data-ends") or "").split()
        tile.click()
        if page.locator("#end-choice [data-choose-end]").count():
            page.click(f"#end-choice [data-choose-end='{ends[0]}']")
        return "play"
    if page.is_enabled("#draw"):
        page.click("#draw")
        return "draw"
    page.click("#knock")
    return "knock"


def open_following(page_at: OpenPage) -> Page:
    """A desktop page that follows the steps, on a clock the test moves (it flows as usual
    until moved on)."""
    page = page_at(DESKTOP, **MOTION)
    page.clock.install()
    return page


def steps_shown_to_the_end(page: Page) -> None:
    """The steps under way shown through, one clock step at a time: each is drawn (and watched)
    as with real time, only the wait between them is skipped; then the page takes input again."""
    for _ in range(200):
        if not page.evaluate(ANIMATING):
            break
        page.clock.run_for(STEP_MS)
    page.wait_for_function(f"!({ANIMATING}) && ({READY})")


def move_with_replies(
    page: Page, base: str, match_id: str, token: str
) -> tuple[int, int, int, list[dict[str, Any]], dict[str, int]]:
    """Make moves until one is followed by computer replies shown one by one; returns the log
    lines and line tiles before it, the seq it started from, its new events and the sound cues
    counted before it (earlier moves of the loop, a draw say, make cues of their own)."""
    for _ in range(30):
        page.wait_for_function(READY)
        assert not overlay_open(page), "the hand ended before a move with replies"
        seq = int(page.evaluate("document.body.dataset.seq"))
        before = (page.evaluate(LOG_LINES), page.evaluate(LINE_TILES))
        cues_before = sounds(page)
        page.evaluate(WATCH_JS)
        did = make_a_move(page)
        page.wait_for_function(
            "seq => document.body.dataset.seq !== String(seq) || document.body.hasAttribute('data-animating')",
            arg=seq,
        )
        new = events(base, match_id, token, after=seq)
        replies = [e for e in new if e["type"] in ("tile_played", "knocked") and e["seat"] != 0]
        if did == "play" and len(replies) >= 2:
            return before[0], before[1], seq, new, cues_before
        steps_shown_to_the_end(page)
    raise AssertionError("no move was followed by two computer replies")


# --- tests -------------------------------------------------------------------------------------
def test_your_move_and_each_reply_are_shown_one_by_one_with_the_last_tile_marked(
    page_at: OpenPage, live_server: str, artifacts: Path
) -> None:
    page = open_following(page_at)
    state = start_match(page, FOUR, preset="all-fives")
    match_id, token = state["id"], state["local"]["0"]
    page.evaluate(WATCH_PICTURES_JS, PICTURE_JS)
    page.click("#board")  # a first gesture: the page may make sound from now on

    lines_before, tiles_before, seq, new, start = move_with_replies(page, live_server, match_id, token)
    # part-way: some of the new moves are on the table and in the log, not all of them
    page.wait_for_function("document.body.hasAttribute('data-animating')")
    mid_lines, mid_tiles = page.evaluate(LOG_LINES), page.evaluate(LINE_TILES)
    mid_status = page.inner_text("#status")
    page.screenshot(path=artifacts / "desktop-moves-midway.png")
    assert page.is_visible("#skip")
    assert not page.evaluate("document.body.classList.contains('my-turn')"), "a move is offered mid-sequence"
    assert page.locator("#hand .hand-tile.playable").count() == 0

    steps_shown_to_the_end(page)
    view = api_view(live_server, match_id, token)
    final_lines, final_tiles = page.evaluate(LOG_LINES), page.evaluate(LINE_TILES)
    assert lines_before < mid_lines < final_lines
    assert tiles_before < mid_tiles <= final_tiles
    assert not page.is_visible("#skip")
    # the page went through the events' seqs in order, ending at the view's
    seen = [int(s) for s in page.evaluate("window.seqsSeen")]
    assert seen[-1] == view["seq"] and len([s for s in seen if seq < s < view["seq"]]) >= 2
    assert seen == sorted(seen)
    # the status line said what happened at that step (a computer's move, by name)
    assert any(name in mid_status for name in ("Ada", "Gus", "Rita", "Gil")), mid_status
    assert page.evaluate("window.picturesSeen") >= 3 and page.evaluate("window.pictureProblems") == []

    # the marked tile is the one the last tile_played event placed
    if not overlay_open(page):
        assert len(marked(page)) == 1
        assert same_tile(marked(page)[0], last_tile_played(events(live_server, match_id, token)))
        # and one cue per shown step
        got = sounds(page)
        cues = expected_cues(new)
        assert {k: got[k] - start[k] for k in ("play", "draw", "knock")} == {
            k: cues[k] for k in ("play", "draw", "knock")
        }
    assert real_errors(page) == []


def test_a_tap_or_a_key_skips_to_the_end_and_makes_no_move(page_at: OpenPage, live_server: str) -> None:
    page = open_following(page_at)
    state = start_match(page, FOUR)
    match_id, token = state["id"], state["local"]["0"]
    page.evaluate(WATCH_PICTURES_JS, PICTURE_JS)
    for how in ("tap", "key"):
        if overlay_open(page):
            break
        move_with_replies(page, live_server, match_id, token)
        page.wait_for_function("document.body.hasAttribute('data-animating')")
        view = api_view(live_server, match_id, token)
        selected = page.get_attribute("#hand .hand-tile.selected", "data-index")
        if how == "tap":
            # a tap on the hand: it skips, and is not taken as a move on the table it reveals
            page.click("#hand .hand-tile >> nth=0")
        else:
            page.keyboard.press("ArrowRight")  # would select another tile: here it only skips
        # at once: no step is left to wait for
        assert not page.evaluate("document.body.hasAttribute('data-animating')")
        assert page.evaluate("document.body.dataset.seq") == str(view["seq"])
        assert api_view(live_server, match_id, token)["seq"] == view["seq"], "the skipping input made a move"
        if how == "key":
            assert page.get_attribute("#hand .hand-tile.selected", "data-index") == selected
        if not overlay_open(page):
            assert page.evaluate(LINE_TILES) == len(view["line"]) + sum(
                len(arm) for arm in (view.get("arms") or {}).values()
            )
    assert page.evaluate("window.pictureProblems") == []
    assert real_errors(page) == []


def test_reduced_motion_shows_the_final_table_at_once(page_at: OpenPage, live_server: str) -> None:
    page = page_at(DESKTOP, reduced_motion="reduce")
    state = start_match(page, FOUR)
    match_id, token = state["id"], state["local"]["0"]
    for _ in range(3):
        page.wait_for_function(READY)
        if overlay_open(page):
            break
        seq = page.evaluate("document.body.dataset.seq")
        page.evaluate(WATCH_JS)
        make_a_move(page)
        page.wait_for_function(f"document.body.dataset.seq !== '{seq}' && ({READY})")
        view = api_view(live_server, match_id, token)
        # no step between the table before the move and the one after all replies
        assert not page.evaluate("window.animatingSeen")
        if overlay_open(page):
            # a hand ended among the replies: its result is shown beside that hand's final board
            # (seq at the hand's end), by design, and the next hand's table comes after it
            break
        # the table drawn last is the one after every reply; an earlier one may have been drawn
        # too when the answer came before the computers' replies (a busy server sends them on the
        # next poll), but never a step between, which animatingSeen above rules out
        seen = [s for s in page.evaluate("window.seqsSeen") if s != seq]
        assert seen and seen[-1] == str(view["seq"]), seen
        if not overlay_open(page):
            assert same_tile(marked(page)[0], last_tile_played(events(live_server, match_id, token)))
    assert real_errors(page) == []


def test_sound_cues_are_counted_and_m_mutes_them_remembered_after_a_reload(page_at: OpenPage, live_server: str) -> None:
    page = page_at(DESKTOP, reduced_motion="reduce")
    state = start_match(page, [("Ada", "you"), ("Gus", "greedy")])
    match_id, token = state["id"], state["local"]["0"]
    assert page.get_attribute("#mute", "aria-pressed") == "false"
    page.wait_for_function(READY)
    seq = page.evaluate("document.body.dataset.seq")
    make_a_move(page)  # the tap is the gesture that lets the page make sound
    page.wait_for_function(f"document.body.dataset.seq !== '{seq}'")
    # reduced motion shows the last table only, and plays only its cues
    expected = final_step_cues(events(live_server, match_id, token, after=int(seq)))
    assert sum(expected.values()) >= 1 and sounds(page) == expected

    page.keyboard.press("m")
    assert page.get_attribute("#mute", "aria-pressed") == "true"
    muted_at = sounds(page)
    for _ in range(2):
        page.wait_for_function(READY)
        if overlay_open(page):
            break
        seq = page.evaluate("document.body.dataset.seq")
        make_a_move(page)
        page.wait_for_function(f"document.body.dataset.seq !== '{seq}'")
    assert sounds(page) == muted_at, "a muted page played a cue"

    page.reload()
    page.wait_for_function("document.body.dataset.seq !== undefined")
    assert stored(page)["id"] == match_id
    assert page.get_attribute("#mute", "aria-pressed") == "true"
    page.click("#mute")
    assert page.get_attribute("#mute", "aria-pressed") == "false"
    assert "M" in page.inner_text(".keys-hint")
    assert api_view(live_server, match_id, token)["status"] in ("playing", "ended")
    assert real_errors(page) == []


def test_the_hand_result_shows_beside_the_final_board_with_its_last_tile_marked(
    page_at: OpenPage, live_server: str, artifacts: Path
) -> None:
    page = page_at(DESKTOP)
    state = start_match(page, [("Ada", "you"), ("Gus", "greedy")])
    match_id, token = state["id"], state["local"]["0"]
    play_hand_by_clicks(page)
    assert page.is_visible("#continue")
    page.screenshot(path=artifacts / "desktop-hand-result-beside-board.png")
    evs = events(live_server, match_id, token)
    ended = max(i for i, e in enumerate(evs) if e["type"] == "hand_ended")
    played = [e for e in evs[:ended] if e["type"] == "tile_played"]
    started = max(i for i, e in enumerate(evs[:ended]) if e["type"] == "hand_started")
    in_hand = [e for e in evs[started:ended] if e["type"] == "tile_played"]
    # the board is the ended hand's, whole, with its last tile marked (not the next hand's deal)
    assert page.evaluate(LINE_TILES) == len(in_hand)
    assert len(marked(page)) == 1 and same_tile(marked(page)[0], played[-1]["tile"])
    assert page.evaluate(PICTURE_JS) == []
    # …and nothing of the result covers it: the sheet (the <dialog> box, its backdrop hidden)
    # lies clear of the tile, and hit-testing at the tile's centre does not land in it (the
    # modal dialog makes the page behind inert, so the hit is the root, not the tile itself)
    box = page.locator("#line .tile.last").bounding_box()
    assert box and page.locator("#line .tile.last").is_visible()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    for sheet in ("#overlay", "#overlay-card"):
        r = page.locator(sheet).bounding_box()
        assert r and not (r["x"] <= x <= r["x"] + r["width"] and r["y"] <= y <= r["y"] + r["height"]), sheet
    hit = page.evaluate(
        "([x, y]) => document.elementFromPoint(x, y)?.closest('#overlay') ? 'covered' : 'clear'", [x, y]
    )
    assert hit == "clear", "the hand's result covers the last tile"

    page.click("#continue")
    if not overlay_open(page):
        view = api_view(live_server, match_id, token)
        assert page.evaluate(LINE_TILES) == len(view["line"]) + sum(
            len(arm) for arm in (view.get("arms") or {}).values()
        )
    assert real_errors(page) == []


def test_on_a_phone_the_result_folds_away_to_show_the_board(
    page_at: OpenPage, live_server: str, artifacts: Path
) -> None:
    page = page_at(PHONE, has_touch=True, is_mobile=True)
    start_match(page, FOUR, preset="all-fives")
    page.evaluate(WATCH_PICTURES_JS, PICTURE_JS)
    play_hand_by_clicks(page)
    assert page.is_visible(".reveal")
    # the ended hand's board, rebuilt from the view before its last moves, is a whole table
    assert page.evaluate(PICTURE_JS) == [] and page.evaluate("window.pictureProblems") == []
    page.click(".hand-result .fold")
    assert not page.is_visible(".reveal") and page.is_visible("#continue")
    assert page.get_attribute(".hand-result .fold", "aria-expanded") == "false"
    box = page.locator("#line .tile.last").bounding_box()
    card = page.locator("#overlay-card").bounding_box()
    assert box and card and box["y"] + box["height"] <= card["y"], "the folded result still covers the last tile"
    page.screenshot(path=artifacts / "phone-hand-result-folded.png")
    page.click("#continue")
    assert real_errors(page) == []
