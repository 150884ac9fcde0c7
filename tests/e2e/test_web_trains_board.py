"""The web table draws a trains game's board (issue 34) from the view the contract gives.

The page is served by the real server; the match's own requests (its view, its events, its
actions) are answered by a stand-in in this file with views in the contract's JSON form (as
api/rules/trains_views.py makes them): each test sets the table it wants to look at, exactly,
which a dealt match would reach only by chance. Whole matches through the real server are in
test_web_trains.py.

* A 4-seat Mexican Train at 320×568, 844×390 and 1280×800: the page one window, every control
  and the target of every train a tile may go on hit-testable (the others a scroll away); the
  person's own train first, then the Mexican train, then the others in turn order; a marker on
  a train; a long train scrolled to its open end inside its own row; tapping a tile that fits
  two trains lights exactly those two (and offers them as buttons), and tapping a row sends the
  play on that train. Fifteen tiles in the hand fit the two small screens.
* An uncovered double: marked on its train and said in the status. Stuck with an empty
  boneyard: no Draw, Pass enabled, and a tap sends the pass. After a draw that fits, only the
  drawn tile is lifted and the status says so. The keyboard's `,`/`.` walk
  the trains a tile may go on, Enter plays; a drag onto a row plays there.
* Chicken Foot: the arms and a double's toes as rows, the toe still owed a tile lit.
* The round pill opens the rounds × seats totals; a shared win: the end's title names both
  winners over the same table.
* Your move and each reply are drawn one at a time (the page's clock moved past the pauses):
  each tile on its train, markers put down and taken up, the status saying who did what.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.sync_api import Page, Route

from .playing import TABLE_CONTROLS, Screens, assert_fits, axe_script, resize, serious_violations

MATCH_ID = "trainsfixture"
TOKEN = "token-of-seat-0"
PHONE_320 = ("320x568", {"width": 320, "height": 568})
SIDEWAYS = ("844x390", {"width": 844, "height": 390})
WIDE = ("1280x800", {"width": 1280, "height": 800})
SIZES = [PHONE_320, SIDEWAYS, WIDE]
NAMES = ["You", "Ana", "Bo", "Cy"]
# trains and a hand of a 4-seat Mexican Train's third round (engine 10-10): seat 1's train is long
# and carries a marker; the hand's 5-3 fits the person's own train (open 5) and seat 1's (open 3)
LONG_TRAIN = [[10, 1], [1, 7], [7, 2], [2, 9], [9, 6], [6, 6], [6, 11], [11, 12], [12, 0], [0, 8], [8, 3]]


def seats(players: int) -> list[dict[str, Any]]:
    return [
        {"seat": s, "name": NAMES[s], "type": "remote" if s == 0 else "bot", "level": None if s == 0 else "random"}
        for s in range(players)
    ]


def mexican_view(**changes: Any) -> dict[str, Any]:
    """A seat-0 view of a Mexican Train match, as the contract shapes it; ``changes`` replace fields."""
    trains = [
        {"train": 0, "owner": 0, "open": 5, "marker": False, "awaits_cover": False, "tiles": [[10, 4], [4, 4], [4, 5]]},
        {"train": 1, "owner": 1, "open": 3, "marker": True, "awaits_cover": False, "tiles": LONG_TRAIN},
        {"train": 2, "owner": 2, "open": 10, "marker": False, "awaits_cover": False, "tiles": []},
        {"train": 3, "owner": 3, "open": 7, "marker": False, "awaits_cover": False, "tiles": [[10, 7]]},
        {
            "train": "mexican",
            "owner": None,
            "open": 2,
            "marker": False,
            "awaits_cover": False,
            "tiles": [[10, 5], [5, 2]],
        },
    ]
    view: dict[str, Any] = {
        "status": "playing",
        "seq": 40,
        "seat": 0,
        "round": 3,
        "rounds": 13,
        "leader": 2,
        "turn": 0,
        "rules": {
            "preset": "mexican-train",
            "players": 4,
            "set": "double-12",
            "rounds": 13,
            "hand_size": 15,
            "double_blank_points": 0,
            "double_must_be_covered": True,
            "turn_seconds": None,
            "timeout_limit": None,
        },
        "seats": seats(4),
        "totals": [14, 31, 9, 22],
        "round_pips": [[0, 19, 4, 12], [14, 12, 5, 10]],
        "hand_counts": [5, 9, 11, 7],
        "drawn": None,
        "boneyard": 20,
        "board": {"engine": [10, 10], "trains": trains, "uncovered": None},
        "legal_actions": [
            {"type": "play", "tile": [5, 3], "train": 0},
            {"type": "play", "tile": [5, 3], "train": 1},
            {"type": "play", "tile": [2, 2], "train": "mexican"},
        ],
        "last_round": None,
        "winner": None,
        "winners": None,
        "seeded_by_client": False,
        "hand": [[11, 0], [5, 3], [2, 2], [12, 9], [6, 1]],
        "pips": 54,
    }
    view.update(changes)
    return view


def chicken_foot_view() -> dict[str, Any]:
    """Chicken Foot, engine 9-9: four arms, one ended by a 4-4 that has one toe of three."""
    arms = [
        {"train": "toe:9:0", "open": None, "tiles": [[9, 4], [4, 4]]},
        {"train": "toe:9:1", "open": 3, "tiles": [[9, 3]]},
        {"train": "toe:9:2", "open": 8, "tiles": [[9, 8]]},
        {"train": "toe:9:3", "open": 0, "tiles": [[9, 0]]},
        {"train": "toe:4:0", "open": 1, "tiles": [[4, 1]]},
    ]
    view = mexican_view(
        rules={
            **mexican_view()["rules"],
            "preset": "chicken-foot",
            "players": 2,
            "set": "double-9",
            "rounds": 10,
            "double_blank_points": 50,
        },
        seats=seats(2),
        round=1,
        rounds=10,
        leader=0,
        totals=[0, 0],
        round_pips=[],
        hand_counts=[3, 8],
        boneyard=30,
        board={"engine": [9, 9], "arms": arms, "toes_needed": {"number": 4, "next": "toe:4:1", "left": 2}},
        legal_actions=[{"type": "play", "tile": [4, 2], "train": "toe:4:1"}],
        hand=[[6, 5], [4, 2], [7, 3]],
        pips=27,
    )
    return view


class StandIn:
    """The match's requests answered from ``views`` (seat 0's view now; the next after an action)."""

    def __init__(self, page: Page, view: dict[str, Any], seen: int = 0) -> None:
        self.view = view
        self.after_action: dict[str, Any] | None = None
        self.actions: list[dict[str, Any]] = []
        self.events: list[dict[str, Any]] = []  # the log after seq 40, the stand-in's view before any move
        saved = {"id": MATCH_ID, "local": {"0": TOKEN}, "seen": seen, "humans": 1, "viewer": 0, "savedAt": 1}
        page.add_init_script(
            f"localStorage.setItem('boneyard.matches.v1', {json.dumps(json.dumps({MATCH_ID: saved}))});"
            f"sessionStorage.setItem('boneyard.tab.match', {json.dumps(MATCH_ID)});"
        )
        page.route(re.compile(rf".*/v1/matches/{MATCH_ID}/.*"), self.answer)

    def answer(self, route: Route) -> None:
        url = route.request.url
        if url.split("?")[0].endswith("/view"):
            route.fulfill(json=self.view, headers={"ETag": f'"{self.view["seq"]}"'})
        elif "/events" in url:
            after = int(re.search(r"after=(\d+)", url).group(1)) if "after=" in url else 0
            new = [e for e in self.events if e["seq"] > after]
            route.fulfill(json={"events": new, "next_after": None, "seq": self.view["seq"]})
        elif url.endswith("/actions"):
            self.actions.append(json.loads(route.request.post_data or "{}"))
            if self.after_action is not None:
                self.view = self.after_action
            route.fulfill(json={"view": self.view}, headers={"ETag": f'"{self.view["seq"]}"'})
        else:
            route.fulfill(status=404, json={"code": "not_found"})


def open_table(page: Page) -> None:
    page.goto("/play")
    page.wait_for_selector("#table:not([hidden])")
    page.wait_for_function("document.body.hasAttribute('data-settled') && document.body.dataset.seq === '40'")


def rows(page: Page) -> list[str]:
    found: list[str] = page.eval_on_selector_all(".train-row", "els => els.map((el) => el.dataset.train)")
    return found


def lit(page: Page) -> list[str]:
    found: list[str] = page.eval_on_selector_all(".end-target.fits", "els => els.map((el) => el.dataset.end)")
    return sorted(found)


STRIP_AT_END_JS = """(key) => {
  const strip = document.querySelector(`.train-row[data-train="${key}"] .train-strip`);
  const gap = Math.abs(strip.scrollLeft + strip.clientWidth - strip.scrollWidth);
  return [strip.scrollWidth > strip.clientWidth, gap <= 1];
}"""


@pytest.mark.parametrize(("label", "size"), SIZES, ids=[label for label, _ in SIZES])
def test_four_seat_mexican_train_fits_the_window_own_train_first_long_trains_scroll(page_at, artifacts, label, size):
    page = page_at(size)
    stand_in = StandIn(page, mexican_view())
    open_table(page)

    assert rows(page) == ["0", "mexican", "1", "2", "3"]
    assert page.inner_text(".train-row[data-train='0'] .who") == "Your train"
    assert page.inner_text(".train-row[data-train='1'] .who") == "Ana's train"
    assert page.locator(".train-row.marked").count() == 1 and page.is_visible(".train-row[data-train='1'] .marker")
    assert page.get_attribute(".engine .tile", "data-face") == "10-10"
    assert page.inner_text("#match-meta").endswith("round 3 of 13")
    assert page.inner_text("#me-score-label") == "Total" and page.inner_text("#me-score") == "14"
    assert [page.inner_text(f"#opponents [data-score='{s}']") for s in (1, 2, 3)] == ["31", "9", "22"]
    # the long train scrolls inside its row, shown at its open end; its target, and every other, can be hit
    overflows, at_end = page.evaluate(STRIP_AT_END_JS, "1")
    assert at_end and (overflows or size["width"] > 640), (overflows, at_end)
    assert page.is_hidden("#knock") and page.is_visible("#pass") and page.is_disabled("#pass")
    screens = Screens(page, ((label, size),), artifacts)
    # every train a tile of the hand may go on can be hit; the others are a scroll of the board away
    screens.check(f"{TABLE_CONTROLS}, .end-target.live", "4-seat Mexican Train", opponents=True, shot="mexican-train-4")

    # the 5-3 fits two trains: exactly those are lit and offered; a tap on Ana's row plays it there
    page.click("#hand .hand-tile[data-tile='5-3']")
    page.wait_for_selector(".end-target.fits")
    assert lit(page) == ["0", "1"]
    offered = page.eval_on_selector_all("#end-choice button", "els => els.map((el) => el.textContent)")
    assert offered == ["Your train", "Ana's train"]
    screens.check(TABLE_CONTROLS, "choosing a train for 5-3")
    stand_in.after_action = mexican_view(seq=41, turn=1, legal_actions=[])
    page.click(".train-row[data-train='1'] .train-name")
    page.wait_for_function("document.body.dataset.seq === '41'")
    assert stand_in.actions == [{"type": "play", "tile": [5, 3], "train": 1, "expected_seq": 40}]
    assert page.js_errors == []


def test_an_uncovered_double_is_marked_on_its_train_and_said_in_the_status(page_at):
    page = page_at(PHONE_320[1])
    view = mexican_view()
    mexican = view["board"]["trains"][4]
    mexican.update({"open": 2, "awaits_cover": True, "tiles": [[10, 5], [5, 2], [2, 2]]})
    view["board"]["uncovered"] = "mexican"
    view["legal_actions"] = [{"type": "play", "tile": [12, 2], "train": "mexican"}]
    view["hand"] = [[11, 0], [12, 2], [6, 1]]
    StandIn(page, view)
    open_table(page)

    assert page.locator(".train-row.awaits").count() == 1
    assert page.get_attribute(".train-row.awaits", "data-train") == "mexican"
    assert page.get_attribute(".train-row.awaits .tile.uncovered", "data-face") == "2-2"
    assert "The 2-2 on the Mexican train must be covered first." in page.inner_text("#status")
    assert page.inner_text(".trains-head .owed") == "The 2-2 on the Mexican train must be covered first."
    assert_fits(page, f"{TABLE_CONTROLS}, .train-row.awaits .tile.uncovered", "an uncovered double at 320x568")
    assert page.js_errors == []


def test_the_keyboard_chooses_between_trains_with_comma_and_full_stop(page_at):
    page = page_at(WIDE[1])
    stand_in = StandIn(page, mexican_view())
    open_table(page)
    page.keyboard.press("ArrowRight")  # the hand's second tile: the 5-3
    assert page.get_attribute("#hand .hand-tile.selected", "data-tile") == "5-3"
    page.keyboard.press(".")  # the last of its trains in the rows' order: Ana's
    assert page.get_attribute(".end-target.chosen", "data-end") == "1"
    page.keyboard.press(",")  # one back: the person's own
    assert page.get_attribute(".end-target.chosen", "data-end") == "0"
    stand_in.after_action = mexican_view(seq=41, turn=1, legal_actions=[])
    page.keyboard.press("Enter")
    page.wait_for_function("document.body.dataset.seq === '41'")
    assert stand_in.actions == [{"type": "play", "tile": [5, 3], "train": 0, "expected_seq": 40}]


@pytest.mark.parametrize(("label", "size"), [PHONE_320, SIDEWAYS], ids=["320x568", "844x390"])
def test_chicken_foot_shows_arms_and_toes_and_lights_the_toe_owed(page_at, artifacts, label, size):
    page = page_at(size)
    StandIn(page, chicken_foot_view())
    open_table(page)

    assert rows(page) == ["toe:9:0", "toe:9:1", "toe:9:2", "toe:9:3", "toe:4:0", "toe:4:1"]
    names = page.eval_on_selector_all(".train-row .who", "els => els.map((el) => el.textContent)")
    assert names == ["Arm 1", "Arm 2", "Arm 3", "Arm 4", "4-4 toe 1", "4-4 toe 2"]
    # the arm ended by the double has no target; the toe owed one is marked and shows the 4 it needs
    assert page.locator(".train-row[data-train='toe:9:0'] .end-target").count() == 0
    assert page.get_attribute(".train-row.awaits", "data-train") == "toe:4:1"
    assert page.inner_text(".train-row.awaits .end-target") == "4"
    assert page.inner_text(".trains-head .owed") == "The 4-4 needs 2 more toes first."
    page.click("#hand .hand-tile[data-tile='6-5']")
    page.wait_for_selector("#toast:not([hidden])")
    assert lit(page) == []
    screens = Screens(page, ((label, size),), artifacts)
    screens.check(f"{TABLE_CONTROLS}, .end-target", "Chicken Foot", opponents=True, shot="chicken-foot")
    assert page.js_errors == []


def test_a_shared_win_names_both_winners_over_the_totals_of_every_round(page_at, artifacts):
    page = page_at(PHONE_320[1])
    rounds = [[0, 19, 4, 12], [14, 12, 5, 10], [0, 8, 5, 11]]
    view = mexican_view(
        status="ended",
        round=3,
        rounds=3,
        turn=None,
        totals=[14, 39, 14, 33],
        round_pips=rounds,
        legal_actions=[],
        last_round={"round": 3, "winner": 0, "pips": rounds[2], "totals": [14, 39, 14, 33], "hands": [[], [], [], []]},
        winner=0,
        winners=[0, 2],
    )
    # the last round ended with a double uncovered: nothing is owed once the match is over
    view["board"]["trains"][4].update({"awaits_cover": True, "tiles": [[10, 5], [5, 2], [2, 2]]})
    StandIn(page, view, seen=3)
    page.goto("/play")
    page.wait_for_selector("#rematch")

    assert page.inner_text("#overlay-title") == "You share the win with Bo!"
    table = page.eval_on_selector_all(".totals tr", "rows => rows.map((r) => [...r.cells].map((c) => c.textContent))")
    assert table == [
        ["Round", *NAMES],
        ["1", "0", "19", "4", "12"],
        ["2", "14", "12", "5", "10"],
        ["3", "0", "8", "5", "11"],
        ["Total", "14", "39", "14", "33"],
    ]
    assert page.eval_on_selector_all(".totals td.best", "els => els.map((el) => el.dataset.finalScore)") == ["0", "2"]
    ended = Screens(page, (PHONE_320,), artifacts)
    ended.check("#overlay-card .overlay-actions button, .totals", "the end", shot="shared-win")
    page.keyboard.press("Escape")
    assert page.inner_text("#status") == "Match over: You and Bo share the win. Press N for a new match."
    assert page.locator(".trains-head .owed, .train-row.awaits").count() == 0
    resize(page, SIDEWAYS[1])
    assert_fits(page, "#board, #opponents [data-score], #me-score", "the ended table at 844x390")
    assert page.js_errors == []


def centre(page: Page, selector: str) -> tuple[float, float]:
    box = page.locator(selector).bounding_box()
    assert box is not None, selector
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def test_a_tile_dragged_onto_a_train_it_fits_is_played_there(page_at):
    page = page_at(SIDEWAYS[1])
    stand_in = StandIn(page, mexican_view())
    open_table(page)
    page.mouse.move(*centre(page, "#hand .hand-tile[data-tile='5-3']"))
    page.mouse.down()
    x, y = centre(page, ".train-row[data-train='0'] .train-name")
    page.mouse.move(x, y, steps=8)
    # while dragging, the trains the tile fits are lit and the one under the pointer taken
    assert lit(page) == ["0", "1"]
    assert page.get_attribute(".end-target.over", "data-end") == "0"
    stand_in.after_action = mexican_view(seq=41, turn=1, legal_actions=[])
    page.mouse.up()
    page.wait_for_function("document.body.dataset.seq === '41'")
    assert stand_in.actions == [{"type": "play", "tile": [5, 3], "train": 0, "expected_seq": 40}]


def test_the_round_opens_the_totals_of_every_round_so_far(page_at):
    page = page_at(PHONE_320[1], **{"has_touch": True, "is_mobile": True})
    StandIn(page, mexican_view())
    open_table(page)
    assert page.inner_text("#totals-open") == "Round 3/13"
    assert_fits(page, "#totals-open", "the round at 320x568")
    page.tap("#totals-open")
    page.wait_for_selector("#totals-close")
    table = page.eval_on_selector_all(".totals tr", "rows => rows.map((r) => [...r.cells].map((c) => c.textContent))")
    assert table == [
        ["Round", *NAMES],
        ["1", "0", "19", "4", "12"],
        ["2", "14", "12", "5", "10"],
        ["Total", "14", "31", "9", "22"],
    ]
    assert page.eval_on_selector_all(".totals td.best", "els => els.map((el) => el.dataset.finalScore)") == ["2"]
    assert_fits(page, "#totals-close", "the totals at 320x568")
    page.keyboard.press("Escape")
    page.wait_for_function("document.querySelector('#overlay').hidden")
    page.keyboard.press("t")
    page.wait_for_selector("#totals-close")
    assert page.js_errors == []


FULL_HAND = [
    [12, 12],
    [11, 0],
    [5, 3],
    [2, 2],
    [12, 9],
    [6, 1],
    [11, 11],
    [9, 9],
    [8, 7],
    [12, 4],
    [3, 0],
    [9, 1],
    [7, 7],
]
FULL_HAND += [[11, 5], [12, 1]]


@pytest.mark.parametrize(("label", "size"), [PHONE_320, SIDEWAYS], ids=["320x568", "844x390"])
def test_a_hand_of_fifteen_at_the_first_turn_fits_the_smallest_screens(page_at, label, size):
    page = page_at(size)
    StandIn(page, mexican_view(hand=FULL_HAND, hand_counts=[15, 15, 15, 15]))
    open_table(page)
    assert page.locator("#hand .hand-tile").count() == len(FULL_HAND) == 15
    assert_fits(page, f"{TABLE_CONTROLS}, #hand .hand-tile, .end-target.live", f"{label}, fifteen tiles")
    page.click("#hand .hand-tile[data-tile='5-3']")
    page.wait_for_selector(".end-target.fits")
    assert_fits(page, f"{TABLE_CONTROLS}, .end-target.fits", f"{label}, fifteen tiles, choosing a train")


def test_axe_finds_nothing_serious_on_a_trains_table_or_its_totals(page_at):
    page = page_at(PHONE_320[1])
    StandIn(page, mexican_view())
    open_table(page)
    axe = axe_script()
    assert serious_violations(page, axe) == []
    page.click("#totals-open")
    page.wait_for_selector("#totals-close")
    assert serious_violations(page, axe) == []


# every picture drawn, as body[data-seq] changes: each row's tiles and whether it carries a marker
PICTURES_JS = """() => {
  window.pictures = [];
  new MutationObserver(() => {
    const rows = Object.fromEntries([...document.querySelectorAll('.train-row')].map((row) => [row.dataset.train,
      [[...row.querySelectorAll('.tile')].map((t) => t.dataset.face), row.classList.contains('marked')]]));
    window.pictures.push({ seq: document.body.dataset.seq, rows, status: document.querySelector('#status').textContent,
                           last: document.querySelector('.train-row .tile.last')?.dataset.face ?? null });
  }).observe(document.body, { attributes: true, attributeFilter: ['data-seq'] });
}"""


def test_your_move_and_each_reply_are_shown_one_by_one(page_at):
    page = page_at(WIDE[1], reduced_motion="no-preference")
    page.clock.install()
    stand_in = StandIn(page, mexican_view())
    open_table(page)
    # the person plays 5-3 on Ana's marked train; Ana plays on her own (her marker goes), Bo draws
    # and passes (a marker on his), Cy plays on his own: the person's turn again
    stand_in.events = [
        {"seq": 41, "type": "tile_placed", "seat": 0, "tile": [5, 3], "train": 1, "auto": False},
        {"seq": 42, "type": "tile_placed", "seat": 1, "tile": [6, 5], "train": 1, "auto": False},
        {"seq": 43, "type": "tile_drawn", "seat": 2, "auto": False},
        {"seq": 44, "type": "passed", "seat": 2, "marker": True, "auto": False},
        {"seq": 45, "type": "tile_placed", "seat": 3, "tile": [9, 7], "train": 3, "auto": False},
    ]
    final = mexican_view(
        seq=45,
        hand=[[11, 0], [2, 2], [12, 9], [6, 1]],
        hand_counts=[4, 8, 12, 6],
        boneyard=19,
        legal_actions=[{"type": "play", "tile": [2, 2], "train": "mexican"}],
    )
    trains = final["board"]["trains"]
    trains[1].update({"open": 6, "marker": False, "tiles": [*LONG_TRAIN, [3, 5], [5, 6]]})
    trains[2]["marker"] = True
    trains[3].update({"open": 9, "tiles": [[10, 7], [7, 9]]})
    stand_in.after_action = final
    page.evaluate(PICTURES_JS)
    page.click("#hand .hand-tile[data-tile='5-3']")
    page.click(".train-row[data-train='1'] .end-target")
    page.wait_for_function("document.body.hasAttribute('data-animating')")
    for _ in range(20):
        if not page.evaluate("document.body.hasAttribute('data-animating')"):
            break
        page.clock.run_for(600)
    page.wait_for_function("document.body.hasAttribute('data-settled') && document.body.dataset.seq === '45'")

    pictures = {p["seq"]: p for p in page.evaluate("window.pictures")}
    assert [seq for seq in pictures if seq != "40"] == ["41", "42", "43", "44", "45"]
    ana = [*[f"{a}-{b}" for a, b in LONG_TRAIN], "3-5"]
    assert pictures["41"]["rows"]["1"] == [ana, True] and pictures["41"]["last"] == "3-5"
    assert pictures["41"]["status"] == "You played 5-3 on Ana's train."
    assert pictures["42"]["rows"]["1"] == [[*ana, "5-6"], False] and pictures["42"]["last"] == "5-6"
    assert pictures["43"]["rows"]["2"] == [[], False] and pictures["43"]["status"] == "Bo drew 1 from the boneyard."
    assert pictures["44"]["rows"]["2"] == [[], True]
    assert pictures["44"]["status"] == "Bo passed: a marker goes on their train."
    assert pictures["45"]["rows"]["3"] == [["10-7", "7-9"], False]
    # nothing offered until the last picture is the view: then the person's turn
    assert page.evaluate("document.body.classList.contains('my-turn')")
    assert page.locator("#hand .hand-tile.playable").count() == 1
    assert page.js_errors == []


def test_stuck_with_an_empty_boneyard_pass_is_offered_and_sent(page_at):
    page = page_at(PHONE_320[1], **{"has_touch": True, "is_mobile": True})
    stand_in = StandIn(page, mexican_view(boneyard=0, legal_actions=[{"type": "pass"}]))
    open_table(page)
    assert page.locator("#hand .hand-tile.playable").count() == 0
    assert page.is_hidden("#draw") and page.is_enabled("#pass")
    assert page.inner_text("#status") == "Your turn: nothing fits and nothing to draw, pass."
    assert_fits(page, TABLE_CONTROLS, "stuck at 320x568")
    stand_in.after_action = mexican_view(seq=41, turn=1, boneyard=0, legal_actions=[])
    page.tap("#pass")
    page.wait_for_function("document.body.dataset.seq === '41'")
    assert stand_in.actions == [{"type": "pass", "expected_seq": 40}]
    assert page.js_errors == []


def test_after_a_draw_that_fits_only_the_drawn_tile_is_lifted(page_at):
    page = page_at(WIDE[1])
    view = mexican_view(hand=[[11, 0], [12, 9], [6, 1], [6, 2]], drawn=[6, 2], boneyard=19)
    view["legal_actions"] = [{"type": "play", "tile": [6, 2], "train": "mexican"}]
    StandIn(page, view)
    open_table(page)
    lifted = page.eval_on_selector_all("#hand .hand-tile.playable", "els => els.map((el) => el.dataset.tile)")
    assert lifted == ["6-2"]
    assert page.inner_text("#status") == "Your turn: the tile you drew fits, play it."
    assert page.is_disabled("#draw") and page.is_disabled("#pass")
