"""Shared by the web table's layout and accessibility tests: starting a short match from the
form, playing it by mouse, touch or keyboard, checking that every control a turn needs can
be seen and hit, and running axe-core.

What a turn needs is read from the page the way a player reads it: the lifted tiles, the lit
ends, Draw/Knock when enabled, the dialog's buttons; plus what a player must be able to see
(the others' scores, the boneyard, the board's edges, the pips). "Can be hit" is
``document.elementFromPoint`` at the control's centre landing on the control itself: nothing
drawn over it, nothing clipped by a scrolling box, no page scroll needed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from playwright.sync_api import Page, Route

from tests.npm_packages import npm_ci

AXE_FOLDER = Path(__file__).resolve().parent / "axe"
MAX_STEPS = 400
How = Literal["mouse", "touch", "keyboard"]
Size = dict[str, int]  # a window's {"width": ..., "height": ...} in CSS pixels
# api/web/static/app.js folds the log panel at start in a narrower window (a column of its own from there)
LOG_FOLDS_BELOW = 900
# what a turn of the person on screen was: a tile that fitted one way, a tile for which an end
# (or a train) had to be chosen, a draw, a knock, a pass (a trains game's knock)
Move = Literal["play", "end", "draw", "knock", "pass"]

# what must be visible and unobstructed on every turn of the person holding the device
TABLE_CONTROLS = ", ".join(
    (
        "#hand .hand-tile.playable",
        "#draw:not(:disabled)",
        "#knock:not(:disabled)",
        "#pass:not(:disabled)",
        "#me .actions",  # the row of buttons itself is on screen, not cut off
        "#muggins:not([hidden])",
        ".end-target.fits",
        "#end-choice:not([hidden]) button",
        "#opponents [data-score]",
        "#opponents [data-hand-count]",
        "#boneyard-count",
        "#count-pill:not([hidden])",
        "#me-pips",
        "#me-score",
        "#board",
    )
)
# the dialog's own way on (a long dialog may scroll its other content inside its card)
DIALOG_CONTROLS = "#overlay-card .overlay-actions button"

# problems with the page as drawn now: overflow, and each of `selector`'s elements that is
# outside the viewport, covered by another element, or under the (click-through) toast
CHECK_JS = """([selector, skipUndrawn]) => {
  const problems = [];
  const name = (el) => el ? (el.id ? `#${el.id}` : `${el.tagName.toLowerCase()}.${[...el.classList].join('.')}`)
    + (el.dataset && el.dataset.tile ? `[${el.dataset.tile}]` : '') : 'nothing';
  const de = document.documentElement;
  if (de.scrollWidth > innerWidth) problems.push(`the page is ${de.scrollWidth} px wide in a ${innerWidth} px window`);
  if (de.scrollHeight > innerHeight) {
    problems.push(`the page is ${de.scrollHeight} px tall in a ${innerHeight} px window`);
  }
  const toast = document.querySelector('#toast');
  const t = toast && !toast.hidden ? toast.getBoundingClientRect() : null;
  const els = [...document.querySelectorAll(selector)].filter((el) => !el.closest('[hidden]')
    && !(skipUndrawn && el.getClientRects().length === 0));
  for (const el of els) {
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) { problems.push(`${name(el)} is not drawn`); continue; }
    if (r.left < -0.5 || r.top < -0.5 || r.right > innerWidth + 0.5 || r.bottom > innerHeight + 0.5) {
      problems.push(`${name(el)} is outside the window: ${Math.round(r.left)},${Math.round(r.top)} to `
        + `${Math.round(r.right)},${Math.round(r.bottom)} in ${innerWidth}x${innerHeight}`);
      continue;
    }
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (!hit || !(hit === el || el.contains(hit))) problems.push(`${name(el)} is covered by ${name(hit)}`);
    if (t && r.left < t.right && t.left < r.right && r.top < t.bottom && t.top < r.bottom) {
      problems.push(`${name(el)} is under the toast "${toast.textContent}"`);
    }
  }
  return { problems, count: els.length };
}"""

# each opponent's box holds all it shows: no text drawn past the box's edges (over a neighbour,
# out of the window), and a name cut short by its ellipsis still shows its first letters
OPPONENT_SPILLS_JS = """() => {
  const problems = [];
  const at = (r) => `${Math.round(r.left)},${Math.round(r.top)} to ${Math.round(r.right)},${Math.round(r.bottom)}`;
  for (const opp of document.querySelectorAll('#opponents .opp')) {
    const box = opp.getBoundingClientRect();
    const who = `seat ${opp.dataset.seat}`;
    const walker = document.createTreeWalker(opp, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!node.textContent.trim()) continue;
      // text in a box that clips it (the name's ellipsis) is drawn only as far as that box
      let clip = null;
      for (let el = node.parentElement; el && el !== opp; el = el.parentElement) {
        if (getComputedStyle(el).overflowX !== 'visible') { clip = el; break; }
      }
      let r;
      if (clip) r = clip.getBoundingClientRect();
      else { const range = document.createRange(); range.selectNodeContents(node); r = range.getBoundingClientRect(); }
      if (r.width < 1 || r.height < 1) continue;
      if (r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5
        || r.bottom > box.bottom + 0.5) {
        problems.push(`${who}: "${node.textContent.trim()}" is drawn at ${at(r)}, outside its box at ${at(box)}`);
      }
    }
    const name = opp.querySelector('.name');
    if (name && name.clientWidth < Math.min(name.scrollWidth, 40)) {
      problems.push(`${who}: the name shows ${name.clientWidth} px of ${name.scrollWidth}`);
    }
  }
  return problems;
}"""


def start_short_match(
    page: Page,
    seats: list[tuple[str, str]],
    preset: str | None = None,
    seed: str | None = None,
    target: int | None = None,
) -> None:
    """Fill the form without pointer or keys (the test's own input starts at the table):
    ``seats`` as (name, kind) with kind you|friend|<bot level>; the lowest target offered.
    ``seed``: the server seed the match is created with, for a deal and computer moves known in
    advance; ``target``: a length shorter than the form offers. The form has neither, so they
    are added to its request on the way to the server. A page already showing the form (a
    test that checked it first) fills that one instead of loading the page again."""
    if seed is not None or target is not None:
        page.route(re.compile(r".*/v1/matches$"), lambda route: creating_with(route, seed, target))
    if not page.is_visible("#setup"):
        page.goto("/play")
        page.wait_for_selector("#setup:not([hidden])")
    # the preset first: it enables the player counts it allows (a trains game's eight among them)
    if preset is not None:
        page.select_option("#preset", preset)
    page.check(f"input[name=players][value='{len(seats)}']", force=True)
    for i, (name, kind) in enumerate(seats):
        page.select_option(f"[data-seat-kind='{i}']", kind)
        page.fill(f"[data-seat-name='{i}']", name)
    # the shortest match the form offers (the first option is the rules' default, sent as none);
    # a game without a target (the trains games, played in rounds) offers none
    if page.is_visible("#target"):
        lengths = page.eval_on_selector_all("#target option", "els => els.map((o) => o.value).filter(Boolean)")
        page.select_option("#target", min(lengths, key=int))
    page.evaluate("document.querySelector('#setup-form').requestSubmit()")
    page.wait_for_selector("#table:not([hidden]), #toast:not([hidden])")
    assert page.is_visible("#table"), f"the match did not start: {page.inner_text('#toast')}"
    page.wait_for_function(
        "document.body.dataset.seq !== undefined && (document.body.hasAttribute('data-settled')"
        " || !document.querySelector('#overlay').hidden)"
    )


def creating_with(route: Route, seed: str | None, target: int | None) -> None:
    """The page's request to create a match, sent on with the server seed and target given."""
    if route.request.method != "POST":
        route.continue_()
        return
    body = json.loads(route.request.post_data or "{}")
    if seed is not None:
        body["seed"] = seed
    if target is not None:
        body["rules"] = {**body.get("rules", {}), "target": target}
    route.continue_(post_data=json.dumps(body))


def overlay_open(page: Page) -> bool:
    return bool(page.evaluate("!document.querySelector('#overlay').hidden"))


def problems(page: Page, selector: str, skip_undrawn: bool = False) -> list[str]:
    result: dict[str, Any] = page.evaluate(CHECK_JS, [selector, skip_undrawn])
    return list(result["problems"])


def assert_fits(page: Page, selector: str, where: str, skip_undrawn: bool = False) -> None:
    """Every element of ``selector`` in the window, unobstructed, and the page one window;
    ``skip_undrawn``: elements the stylesheet does not draw at this size (display: none) are
    not asked for (a dialog's button meant for small screens only)."""
    found = problems(page, selector, skip_undrawn)
    assert found == [], f"{where}: {found}"


def assert_opponents_fit(page: Page, where: str) -> None:
    """Each opponent's name, tile count and score drawn inside that opponent's own box."""
    found: list[str] = page.evaluate(OPPONENT_SPILLS_JS)
    assert found == [], f"{where}: {found}"


def laid_out(page: Page) -> None:
    """Two frames drawn: the line is laid out again by a ResizeObserver, whose callbacks run
    before the next frame is drawn, and after the animation-frame callbacks in which Playwright
    checks what it waits for (so what it found may not be where it will be drawn yet)."""
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")


def resize(page: Page, size: Size) -> None:
    """The window made ``size``, and the table laid out for it."""
    page.set_viewport_size({"width": size["width"], "height": size["height"]})
    laid_out(page)


@dataclass
class Screens:
    """One page checked at one or more window sizes of one kind of device, as turning a phone
    does: each check starts at the size the page has and resizes it to each other size in turn,
    leaving it at the last, so a match is played at each size in turn. The table lays itself
    out from the window alone (the stylesheet's width and height queries, the line's
    ResizeObserver), save the log panel, folded at start in a window under 900 px wide: the
    sizes of one Screens are all under 900 px, or all not. The page starts at the first size."""

    page: Page
    sizes: tuple[tuple[str, Size], ...] = ()
    shots: Path | None = None  # where screenshots go, named layout-<size>-<moment>.png
    at: int = field(default=0, init=False)  # the index of the size the page has now

    def __post_init__(self) -> None:
        if not self.sizes:  # the page's own size, however it was opened
            size = self.page.viewport_size
            assert size is not None
            self.sizes = ((f"{size['width']}x{size['height']}", dict(size)),)
        assert len({size["width"] < LOG_FOLDS_BELOW for _, size in self.sizes}) == 1, self.sizes
        assert self.page.viewport_size == self.sizes[0][1], (self.page.viewport_size, self.sizes[0])

    def check(
        self, selector: str, where: str, skip_undrawn: bool = False, opponents: bool = False, shot: str | None = None
    ) -> None:
        """``assert_fits`` (and ``assert_opponents_fit`` with ``opponents``) at every size, and a
        screenshot named ``shot`` at each (at CSS pixels, which is what the layout is made of)."""
        for step in range(len(self.sizes)):
            if step:
                self.at = (self.at + 1) % len(self.sizes)
                resize(self.page, self.sizes[self.at][1])
            label = self.sizes[self.at][0]
            assert_fits(self.page, selector, f"{label}, {where}", skip_undrawn)
            if opponents:
                assert_opponents_fit(self.page, f"{label}, {where}")
            if shot and self.shots:
                self.page.screenshot(path=self.shots / f"layout-{label}-{shot}.png", scale="css")


def wait_for_my_turn_or_dialog(page: Page) -> None:
    page.wait_for_function("document.body.classList.contains('my-turn') || !document.querySelector('#overlay').hidden")


def wait_for_move(page: Page, seq: str) -> None:
    page.wait_for_function(
        """seq => !document.querySelector('#overlay').hidden
          || (document.body.hasAttribute('data-settled') && document.body.dataset.seq !== seq)""",
        arg=seq,
    )


def press_control(page: Page, selector: str, how: How) -> None:
    """A tap or a click at the centre of ``selector``'s first element as drawn now, without
    Playwright's wait for it to hold still over two frames and its own hit test (``force``):
    the layout checks test what is at that point (``assert_fits``), and a press that lands on
    something else makes no move, so the test fails waiting for one."""
    locator = page.locator(selector).first
    if how == "touch":
        locator.tap(force=True)
    else:
        locator.click(force=True)


def play_turn_by_pointer(page: Page, how: How, where: str, screens: Screens | None = None) -> Move:
    """One move by mouse or touch: a lifted tile (and an end when it fits two), else Draw, else Knock;
    an end to choose is checked at each of ``screens``' sizes (by default the page's own)."""
    playable = page.locator("#hand .hand-tile.playable")
    if playable.count():
        seq = page.evaluate("document.body.dataset.seq")
        press_control(page, "#hand .hand-tile.playable", how)
        # a tile that fits ends needing different numbers asks which: the lit ends (and the
        # end buttons) must be there to tap, clear of the toast that asks
        page.wait_for_function(
            """seq => document.body.dataset.seq !== seq || !document.querySelector('#overlay').hidden
              || !!document.querySelector('.end-target.fits')""",
            arg=seq,
        )
        if page.evaluate("document.body.dataset.seq") == seq and page.locator(".end-target.fits").count():
            laid_out(page)  # the ends just lit, where the line's new layout puts them
            (screens or Screens(page)).check(TABLE_CONTROLS, f"{where}, choosing an end")
            press_control(page, ".end-target.fits >> nth=-1", how)
            return "end"
        return "play"
    if page.is_enabled("#draw"):
        press_control(page, "#draw", how)
        return "draw"
    if page.is_visible("#pass") and page.is_enabled("#pass"):
        press_control(page, "#pass", how)
        return "pass"
    assert page.is_enabled("#knock"), f"{where}: my turn, nothing to play or draw, and no knock"
    press_control(page, "#knock", how)
    return "knock"


def play_turn_by_keyboard(page: Page, where: str, screens: Screens | None = None) -> Move:
    """One move by keys: ←/→ to a lifted tile, `.` when it fits two ends, Enter; D draws, K knocks;
    an end to choose is checked at each of ``screens``' sizes (by default the page's own)."""
    tiles = page.locator("#hand .hand-tile")
    classes = [tiles.nth(i).get_attribute("class") or "" for i in range(tiles.count())]
    playable = [i for i, c in enumerate(classes) if "playable" in c]
    if playable:
        selected = int(page.get_attribute("#hand .hand-tile.selected", "data-index") or 0)
        for _ in range((playable[0] - selected) % len(classes)):
            page.keyboard.press("ArrowRight")
        chosen = page.locator("#hand .hand-tile.selected")
        assert "playable" in (chosen.get_attribute("class") or ""), where
        page.keyboard.press(".")  # picks an end when the tile fits ends needing different numbers
        choosing = page.locator(".end-target.chosen").count() > 0
        if choosing:
            (screens or Screens(page)).check(TABLE_CONTROLS, f"{where}, choosing an end")
        page.keyboard.press("Enter")
        return "end" if choosing else "play"
    if page.is_enabled("#draw"):
        page.keyboard.press("d")
        return "draw"
    if page.is_visible("#pass") and page.is_enabled("#pass"):
        page.keyboard.press("p")
        return "pass"
    assert page.is_enabled("#knock"), f"{where}: my turn, nothing to play or draw, and no knock"
    page.keyboard.press("k")
    return "knock"


def play_match(screens: Screens, how: How, on_turn: Callable[[str], None] | None = None) -> dict[str, int]:
    """Play the match to its end with one kind of input, checking the layout on every turn and
    every dialog at each of ``screens``' sizes (and playing at each in turn); screenshots of the
    first turn, the first hand's result and the end at each size. ``on_turn(where)`` runs on each
    turn of the person on screen before their move (a test's own checks of the table). Answers
    how many turns and hands were played, and how many turns were each kind of Move."""
    page = screens.page
    counts = {"turns": 0, "hands": 0, "play": 0, "end": 0, "draw": 0, "knock": 0, "pass": 0}
    for _ in range(MAX_STEPS):
        wait_for_my_turn_or_dialog(page)
        where = f"turn {counts['turns']}"
        if overlay_open(page):
            title = page.inner_text("#overlay-title")
            over = page.is_visible("#rematch")
            shot = "match-end" if over else "hand-result" if counts["hands"] == 0 else None
            screens.check(DIALOG_CONTROLS, f"{where}, dialog {title!r}", skip_undrawn=True, shot=shot)
            if over:
                if how == "keyboard":
                    page.keyboard.press("Escape")  # "Look at the table"
                else:
                    press_control(page, "#overlay-card .overlay-actions button.ghost", how)
                page.wait_for_function("document.querySelector('#overlay').hidden")
                screens.check("#board, #opponents [data-score], #me-score", "the ended table", shot="ended")
                return counts
            counts["hands"] += 1
            if how == "keyboard":
                page.keyboard.press("Escape")  # the same as "Next hand"
            else:
                press_control(page, "#continue", how)
            page.wait_for_function("document.querySelector('#overlay').hidden || !!document.querySelector('#rematch')")
            continue
        screens.check(TABLE_CONTROLS, where, opponents=True, shot="table" if counts["turns"] == 0 else None)
        if on_turn is not None:
            on_turn(where)
        seq = page.evaluate("document.body.dataset.seq")
        if how == "keyboard":
            move = play_turn_by_keyboard(page, where, screens)
        else:
            move = play_turn_by_pointer(page, how, where, screens)
        counts[move] += 1
        counts["turns"] += 1
        wait_for_move(page, seq)
    raise AssertionError(f"{screens.sizes[0][0]}: the match did not end in {MAX_STEPS} steps")


# --- axe-core ------------------------------------------------------------------------------------
def axe_script() -> Path:
    """axe.min.js as tests/e2e/axe/package-lock.json pins it (installed when missing or stale)."""
    npm_ci(AXE_FOLDER)
    return AXE_FOLDER / "node_modules" / "axe-core" / "axe.min.js"


def serious_violations(page: Page, axe_js: Path) -> list[dict[str, Any]]:
    """axe-core's violations of impact serious or critical on the page as it is now."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(axe_js))
    found: list[dict[str, Any]] = page.evaluate(
        """async () => (await axe.run(document, { resultTypes: ['violations'] })).violations.map((v) => ({
          id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) }))"""
    )
    return [v for v in found if v["impact"] in ("serious", "critical")]
