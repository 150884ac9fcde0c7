"""The web table plays issue 33's games to their end: Fives and Threes, and double-nine partners.

One match of each, played by touch on the smallest phone (320×568), seeded and short: on every
turn of the person holding the device the layout is checked as in test_web_layout.py (every
control in the window, nothing over it, the page one window; playing.py), and what the table
shows is compared with the public API's view for the same seat (its token read from the page's
storage, as the page keeps it):

* Fives and Threes (2 players against the random computer, to 11 exactly): the count of the
  open ends, each lifted tile's points (the best of its listed plays' ``scores``), each listed
  play's hint checked against the count it makes (``count_points``, the rules' one home): no
  hint only where the points would take the side past 11, which this deal reaches; "To 11
  exactly" beside the count; at the end the winning side on exactly 11 and a log line for
  every points_scored event.
* double-nine partners (4 players, the person's partner and both opponents computers, to 30):
  ten tiles in the hand, every face in the hand and on the line drawn with as many pips in each
  half as its numbers say (7, 8 and 9 among them), the partners' one score shown for both; and
  the numeral faces of a double-twelve set (10 to 12), drawn at the hand's smallest size, are
  figures tall enough to read, dark on ivory.

On each match's first turn axe-core finds nothing serious (the count and target pills, the
points badges, the faces), and each tile button's accessible name starts with its numbers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import requests

from api.rules.scoring import count_points
from api.rules.vocabulary import EndCountScoring

from .playing import Screens, axe_script, play_match, serious_violations, start_short_match
from .test_web_layout import TOUCH
from .test_web_table import api_view, stored

PHONE_320 = ("320x568", {"width": 320, "height": 568})
# Short deals, found by playing seeds in turn: Fives and Threes to 11 ends in its second hand
# after about a dozen turns; double-nine partners to 30 ends with its first hand (a side going
# out collects every hand's pips, its partner's too). Another deal only makes a test slower.
FIVES_SEED, FIVES_TARGET = "f3-2", 11
NINE_SEED, NINE_TARGET = "d9-4", 30

# each face in the hand and on the line: its numbers (data-face "a-b", a the left or top half)
# and the pips drawn in each half, told apart by which side of the tile's middle they lie
FACES_JS = """() => [...document.querySelectorAll('#hand .tile, #line .tile')].map((tile) => {
  const vertical = tile.classList.contains('tv');
  const halves = [0, 0];
  for (const pip of tile.querySelectorAll('circle.pip')) {
    const along = Number(pip.getAttribute(vertical ? 'cy' : 'cx'));
    halves[along < 100 ? 0 : 1] += 1;
  }
  return [tile.dataset.face, halves, tile.querySelectorAll('text').length];
})"""

# the numeral faces at the hand's size on the smallest phones (22 px a half, 2 px per CSS px):
# each figure's drawn height in CSS px, and its fill and the tile's, as the stylesheet makes them
NUMERALS_JS = """async () => {
  const { tileEl } = await import('./tiles.js');
  const tile = tileEl(12, 10, true);
  tile.style.cssText = 'width: 22px; height: 44px; position: fixed; left: 0; top: 0';
  document.body.append(tile);
  const texts = [...tile.querySelectorAll('text')];
  const shown = texts.map((t) => [t.textContent, t.getBoundingClientRect().height]);
  const colours = [getComputedStyle(texts[0]).fill, getComputedStyle(tile.querySelector('.body')).fill];
  tile.remove();
  return { shown, colours, pips: tile.querySelectorAll('circle').length };
}"""


@pytest.fixture(scope="module")
def axe_js() -> Path:
    return axe_script()


def names_and_faces(page) -> list[list[str]]:
    """Each tile button in the hand: its accessible name, and the numbers its face is drawn with."""
    found: list[list[str]] = page.eval_on_selector_all(
        "#hand .hand-tile",
        "els => els.map((el) => [el.getAttribute('aria-label'), el.querySelector('.tile').dataset.face])",
    )
    return found


def count_after(view: dict[str, Any], tile: list[int], end: str) -> int:
    """The open ends' sum once ``tile`` is played on ``end`` of the view's line (no spinner): a
    double at an end counts both halves, the lead counts its two halves."""
    a, b = tile
    if not view["line"]:
        return a + b
    ends = {e["end"]: e["value"] for e in view["ends"]}
    left_open = b if a == ends[end] else a
    played = left_open * (2 if a == b else 1)
    other_end, other_tile = ("right", view["line"][-1]) if end == "left" else ("left", view["line"][0])
    return played + ends[other_end] * (2 if other_tile[0] == other_tile[1] else 1)


def luminance(rgb: str) -> float:
    """WCAG relative luminance of a computed "rgb(r, g, b)"."""
    channels = [int(part) / 255 for part in rgb[rgb.index("(") + 1 : rgb.index(")")].split(",")[:3]]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def my_view(page, base: str) -> dict[str, Any]:
    saved = stored(page)
    return api_view(base, saved["id"], saved["local"]["0"])


def events(base: str, page) -> list[dict[str, Any]]:
    saved = stored(page)
    headers = {"Authorization": f"Bearer {saved['local']['0']}"}
    found: list[dict[str, Any]] = []
    after = 0
    while True:
        answer = requests.get(
            f"{base}/v1/matches/{saved['id']}/events", params={"after": after}, headers=headers, timeout=10
        ).json()
        found += answer["events"]
        if answer.get("next_after") is None:
            return found
        after = answer["next_after"]


def test_fives_and_threes_shows_the_count_each_plays_points_and_the_exact_target(
    page_at, live_server, artifacts, axe_js
):
    page = page_at(PHONE_320[1], **TOUCH)
    start_short_match(page, [("You", "you"), ("Rand", "random")], "fives-and-threes", FIVES_SEED, FIVES_TARGET)
    turns_with_points: list[str] = []
    past_the_target: list[str] = []  # turns on which a play would have scored, but past the target

    def shows_the_count_and_the_points(where: str) -> None:
        view = my_view(page, live_server)
        assert page.inner_text("#count-pill") == f"Count {view['count']}", where
        assert page.inner_text("#target-pill") == f"To {FIVES_TARGET} exactly", where
        best: dict[str, int] = {}
        for action in view["legal_actions"]:
            if action["type"] != "play":
                continue
            would = count_points(count_after(view, action["tile"], action["end"]), EndCountScoring.FIVES_AND_THREES)
            if would and "scores" not in action:  # no hint: only where it would take the side past 11
                assert view["scores"][0] + would > FIVES_TARGET, (where, action, would)
                past_the_target.append(where)
            else:
                assert action.get("scores", 0) == would, (where, action, would)
            if action.get("scores"):
                key = f"{action['tile'][0]}-{action['tile'][1]}"
                best[key] = max(best.get(key, 0), action["scores"])
        shown = page.eval_on_selector_all(
            "#hand .hand-tile",
            "els => els.map((el) => [el.dataset.tile, el.querySelector('.bonus')?.textContent ?? null])",
        )
        assert {tile: badge for tile, badge in shown if badge} == {t: f"+{n}" for t, n in best.items()}, where
        if best:
            turns_with_points.append(where)
        if where == "turn 0":
            assert serious_violations(page, axe_js) == [], where

    counts = play_match(Screens(page, (PHONE_320,), artifacts), "touch", shows_the_count_and_the_points)

    assert counts["hands"] >= 1 and turns_with_points and past_the_target, (
        f"choose another FIVES_SEED: {counts}, {turns_with_points}, {past_the_target}"
    )
    view = my_view(page, live_server)
    assert view["status"] == "ended" and view["scores"][view["winner"]] == FIVES_TARGET
    assert max(view["scores"]) == FIVES_TARGET  # nobody passed it
    shown_scores = [page.inner_text("#me-score"), page.inner_text("#opponents [data-score='1']")]
    assert shown_scores == [str(score) for score in view["scores"]]
    scored = [e for e in events(live_server, page) if e["type"] == "points_scored"]
    logged = page.eval_on_selector_all("#log li.ev-points", "els => els.map((el) => el.textContent)")
    assert scored and len(logged) == len(scored)
    assert logged[0].endswith(f"scored {scored[0]['points']} (count {scored[0]['count']})")
    assert page.js_errors == []


def test_double_nine_partners_deals_ten_faces_of_up_to_nine_pips_that_fit_the_smallest_phone(
    page_at, live_server, artifacts, axe_js
):
    page = page_at(PHONE_320[1], **TOUCH)
    page.goto("/play")
    page.wait_for_selector("#setup:not([hidden])")
    numerals = page.evaluate(NUMERALS_JS)
    assert [text for text, _ in numerals["shown"]] == ["12", "10"] and numerals["pips"] == 0
    assert all(height >= 10 for _, height in numerals["shown"]), numerals  # px: readable on a phone
    assert contrast(*numerals["colours"]) >= 7, numerals["colours"]

    four = [("You", "you"), ("Rand", "random"), ("Partner", "random"), ("Greedy", "greedy")]
    start_short_match(page, four, "double-nine-partners", NINE_SEED, NINE_TARGET)
    faces_seen: set[int] = set()
    hand_sizes: list[int] = []

    def faces_match_their_numbers(where: str) -> None:
        hand_sizes.append(page.locator("#hand .hand-tile").count())
        for face, halves, numerals in page.evaluate(FACES_JS):
            numbers = [int(n) for n in face.split("-")]
            assert halves == numbers and numerals == 0, f"{where}: {face} drawn with {halves} pips"
            faces_seen.update(numbers)
        for name, face in names_and_faces(page):
            assert name == face or name.startswith(f"{face},"), f"{where}: {face} is named {name!r}"
        if where == "turn 0":
            assert serious_violations(page, axe_js) == [], where

    counts = play_match(Screens(page, (PHONE_320,), artifacts), "touch", faces_match_their_numbers)

    assert hand_sizes[0] == 10, hand_sizes
    assert {7, 8, 9} <= faces_seen, faces_seen
    view = my_view(page, live_server)
    assert view["rules"]["set"] == "double-9" and view["sides"] == [[0, 2], [1, 3]]
    assert view["status"] == "ended" and view["scores"][view["winner"]] >= NINE_TARGET
    # partners share one score: the partner's box shows the person's side's, the others the other's
    shown = [page.inner_text(f"#opponents [data-score='{seat}']") for seat in (1, 2, 3)]
    assert [page.inner_text("#me-score"), *shown] == [str(view["scores"][seat % 2]) for seat in range(4)]
    assert counts["turns"] >= 1 and page.js_errors == []
