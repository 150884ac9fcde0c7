// Drawing a trains game's board (Mexican Train, Chicken Foot): the engine, then one row per
// train or arm, each a strip of tiles that scrolls within its own row and ends in the target a
// tile is played on.
//
// A 13-round game builds trains longer than any screen: each strip is scrolled to its end (the
// open number, where play goes on) and the earlier tiles are a swipe away. The rows come from
// trains.js in the table's order (the viewer's own train first); which targets are lit comes
// from the caller (board.js), which reads the view's legal actions.

import { h } from "./dom.js";
import { tileEl } from "./tiles.js";
import { doubleToCover, placeInSentence, placeName, trainRows } from "./trains.js";

const isDouble = (t) => t[0] === t[1];
const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** The double owed its cover (or toes) while play goes on; none once the match is over. */
const owedNow = (view) => (view.status === "playing" ? doubleToCover(view) : null);

/** What must happen before anything else on this board, in words (null: nothing is owed). */
export function owedText(view, seatName) {
  const owed = owedNow(view);
  if (!owed) return null;
  if (view.board.trains) return `The ${owed.tile[0]}-${owed.tile[1]} on ${placeInSentence(view, owed.key, seatName)} must be covered first.`;
  if (owed.engine) return `The engine takes ${plural(owed.toes, "more tile")} against its sides first.`;
  return `The ${owed.tile[0]}-${owed.tile[1]} needs ${plural(owed.toes, "more toe")} first.`;
}

/**
 * Draw `view`'s trains into `line` (inside `board`, whose size picks the tiles' size).
 * `target(key, label)` makes the button a tile is played on (lit as the caller decides);
 * `mark(el, tile)` marks the tile placed last; `seatName(seat)` names a seat.
 */
export function renderTrains(view, board, line, { target, mark, seatName }) {
  const rows = trainRows(view);
  const owed = owedNow(view);
  line.classList.add("trains");
  const [engine] = view.board.engine;
  const said = owedText(view, seatName);
  line.append(h("div", { class: "trains-head" },
    h("span", { class: "engine-label" }, "Engine"),
    h("span", { class: "engine", dataset: { engine: String(engine) } }, tileEl(engine, engine, false, "double engine-tile")),
    said ? h("span", { class: "owed", role: "note" }, said) : null));
  for (const row of rows) {
    const name = placeName(view, row.key, seatName);
    const cover = owed && owed.key === row.key;
    const classes = ["train-row", row.owner !== null && row.owner === view.seat ? "mine" : "",
                     row.key === "mexican" ? "mexican" : "", row.marker ? "marked" : "", cover ? "awaits" : ""];
    const tiles = row.tiles.map((t, i) => {
      const last = i === row.tiles.length - 1;
      // a double stands across its train, as on a table; where the rows must be low it lies
      // flat like the others (the stylesheet shows one of its two faces)
      const el = mark(tileEl(t[0], t[1], false, isDouble(t) ? "double" : ""), t);
      if (isDouble(t)) {
        el.firstChild.classList.add("lying");
        const standing = tileEl(t[0], t[1], true).firstChild;
        standing.classList.add("standing");
        el.append(standing);
      }
      if (cover && last && isDouble(t)) el.classList.add("uncovered");
      return el;
    });
    const open = row.open ?? null;
    line.append(h("div", { class: classes.filter(Boolean).join(" "), dataset: { train: row.key },
                           role: "group", "aria-label": `${name}${row.marker ? ", marker: open to everyone" : ""}` },
      h("div", { class: "train-name" },
        h("span", { class: "who" }, name),
        row.marker ? h("span", { class: "marker", title: "A marker: this train is open to everyone" }, "open") : null,
        cover ? h("span", { class: "cover", title: said ?? "" }, owed.toes > 1 ? `${owed.toes} toes` : "cover") : null),
      h("div", { class: "train-strip" }, tiles, open !== null ? target(row.key, String(open)) : null)));
  }
  fitRows(board, line);
  // choosing among trains on a board too low for every row: only the rows the tile may go on
  // stay (the others are back once it is played or another tile is picked), all in view at once
  const fitting = [...line.querySelectorAll(".end-target.fits")].map((t) => t.closest(".train-row"));
  fitting.forEach((row) => row.classList.add("fits-row"));
  if (fitting.length > 1 && line.scrollHeight > board.clientHeight - 16) line.classList.add("choosing");
  // the open end of each strip in view: long trains keep their earlier tiles a swipe away, the
  // strip's left edge fading while there are some
  for (const strip of line.querySelectorAll(".train-strip")) {
    const fade = () => strip.classList.toggle("more-before", strip.scrollLeft > 1);
    strip.scrollLeft = strip.scrollWidth;
    fade();
    strip.addEventListener("scroll", fade, { passive: true });
  }
  // the rows that matter now scrolled into the board's view (a low board may show only some at
  // once): those the selected tile fits, else the train chosen, else the first any tile fits
  const live = line.querySelector(".end-target.chosen, .end-target.live")?.closest(".train-row");
  const wanted = fitting.length ? fitting : live ? [live] : [];
  if (wanted.length) {
    const b = board.getBoundingClientRect();
    const top = wanted[0].getBoundingClientRect().top, bottom = wanted[wanted.length - 1].getBoundingClientRect().bottom;
    if (bottom > b.bottom) board.scrollTop += Math.min(bottom - b.bottom + 4, top - b.top - 4);
    else if (top < b.top) board.scrollTop -= b.top - top + 4;
  }
}

/**
 * The largest tiles with which every row fits the board's height: one column with doubles
 * across their trains; on a wide, low board (a phone held sideways) two columns; then doubles
 * laid flat, rows one tile high. Where nothing fits (eight seats on a small phone) the smallest
 * flat rows, and the board scrolls.
 */
function fitRows(board, line) {
  const H = board.clientHeight - 16;
  const wide = board.clientWidth >= 720;
  const largest = window.innerWidth < 640 ? 20 : 24;
  const layouts = [{ cols: 1, flat: false }, ...(wide ? [{ cols: 2, flat: false }, { cols: 2, flat: true }] : []),
                   { cols: 1, flat: true }];
  const apply = ({ cols, flat }, u) => {
    line.classList.toggle("two-columns", cols === 2);
    line.classList.toggle("flat", flat);
    line.style.setProperty("--u", `${u}px`);
  };
  for (const layout of layouts) {
    apply(layout, SMALLEST_UNIT);
    if (line.scrollHeight > H) continue;
    for (let u = largest; u > SMALLEST_UNIT; u -= 1) {
      apply(layout, u);
      if (line.scrollHeight <= H) return;
    }
    apply(layout, SMALLEST_UNIT);
    return;
  }
  apply({ cols: wide ? 2 : 1, flat: true }, SMALLEST_UNIT);
}

/** Half a tile in px, at the least: pips still easy to count. */
const SMALLEST_UNIT = 15;
