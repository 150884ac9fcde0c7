// The review after a match: each analysed decision in turn, with the table and every hand as
// they were, the choice made, the best one and the points it gave away (docs/analysis.md).
//
// `reviewSteps(log, analysis)` is pure: it folds the whole audit log (every hand shown, as the
// server reveals it after the end) and stops at each decision the analysis lists. `reviewCard`
// draws one step. dialogs.js opens them in the overlay; nothing here decides a rule: the values
// and the best choice are the server's.

import { h } from "./dom.js";
import { tileEl } from "./tiles.js";

const same = (x, y) => (x[0] === y[0] && x[1] === y[1]) || (x[0] === y[1] && x[1] === y[0]);

/** A line game's table as rows of tiles, each oriented as it lies: the line left to right, and
 *  a spinner's up and down arms. A trains game's: one row per train or arm, in play order. */
function emptyTable() {
  return { rows: new Map(), ends: {} };
}

function place(table, event) {
  const tile = event.tile;
  if ("train" in event) {                       // a trains game: a row per train, as placed
    const key = String(event.train);
    if (!table.rows.has(key)) table.rows.set(key, []);
    table.rows.get(key).push(tile);
    return;
  }
  const end = event.end || "left";
  if (!table.rows.size) {                       // the first tile: the line's both ends, a double's arms
    table.rows.set("line", [tile]);
    table.ends = { left: tile[0], right: tile[1] };
    if (tile[0] === tile[1]) table.ends.up = table.ends.down = tile[0];
    return;
  }
  const open = table.ends[end];
  const far = tile[0] === open ? tile[1] : tile[0];
  if (end === "left" || end === "right") {
    const line = table.rows.get("line");
    if (end === "left") line.unshift([far, open]); else line.push([open, far]);
  } else {
    if (!table.rows.has(end)) table.rows.set(end, []);
    table.rows.get(end).push([open, far]);
  }
  table.ends[end] = far;
  if (tile[0] === tile[1] && table.ends.up === undefined) table.ends.up = table.ends.down = tile[0];
}

/** One step per analysed decision: `{decision, hand, rows, hands, seats}` as the table stood
 *  just before the move (`rows`: [name, tiles] of the table; `hands`: every seat's tiles). */
export function reviewSteps(log, analysis) {
  const wanted = new Map(analysis.decisions.map((d) => [d.seq, d]));
  const seats = log[0]?.seats?.map((s) => s.name) ?? [];
  const steps = [];
  let hands = [], table = emptyTable(), hand = 0;
  log.forEach((event, index) => {
    const seq = event.seq ?? index + 1;
    const decision = wanted.get(seq);
    if (decision) {
      steps.push({
        decision, hand, seats,
        rows: [...table.rows].map(([name, tiles]) => [name, tiles.map((t) => [...t])]),
        hands: hands.map((tiles) => tiles.map((t) => [...t])),
      });
    }
    if ((event.type === "hand_started" || event.type === "round_started") && event.hands) {
      hands = event.hands.map((tiles) => tiles.map((t) => [...t]));
      table = emptyTable();
      hand = event.hand_number ?? event.round;
    } else if ((event.type === "tile_played" || event.type === "tile_placed") && hands[event.seat]) {
      const mine = hands[event.seat];
      const at = mine.findIndex((t) => same(t, event.tile));
      if (at >= 0) mine.splice(at, 1);
      place(table, event);
    } else if (event.type === "tile_drawn" && event.tile && hands[event.seat]) {
      hands[event.seat].push(event.tile);
    }
  });
  return steps;
}

const number = (x) => (Math.round(x * 100) / 100).toString();
// "6-4R" -> [6, 4]; "12-5/0" -> [12, 5]; "D", "K", "P" -> null
const tileOf = (choice) => {
  const found = /^(\d+)-(\d+)/.exec(choice);
  return found ? [Number(found[1]), Number(found[2])] : null;
};

function handRow(name, tiles, decision, mine) {
  const chosen = mine ? tileOf(decision.chosen) : null;
  const best = mine ? tileOf(decision.best) : null;
  return h("li", { class: mine ? "review-hand mover" : "review-hand", dataset: { reviewSeat: name } },
    h("span", { class: "review-name" }, name),
    h("span", { class: "review-tiles" }, tiles.map((t) => {
      // the best tile is marked apart only where it was not the one played
      const marks = [chosen && same(t, chosen) ? "chosen" : "", best && decision.lost > 0 && same(t, best) ? "best" : ""];
      return tileEl(t[0], t[1], false, marks.join(" ").trim());
    })));
}

/** One step drawn: what was played, the best choice and the points lost, the table, every hand
 *  (the mover's chosen tile and best tile marked) and each choice's values. */
export function reviewCard(step, at, count) {
  const d = step.decision;
  const mover = step.seats[d.seat] ?? `Seat ${d.seat + 1}`;
  const lost = d.lost > 0
    ? `${number(d.lost)} ${d.lost === 1 ? "point" : "points"} given away: ${d.best} was best.`
    : "The best choice (nothing given away).";
  return h("div", { class: "review", dataset: { reviewSeq: String(d.seq) } },
    h("p", { class: "review-where" }, `Hand ${step.hand} · decision ${at + 1} of ${count}`),
    h("p", { class: "headline", id: "review-move" }, `${mover} played ${d.chosen}. `,
      h("b", { id: "review-lost", dataset: { lost: String(d.lost) } }, lost)),
    h("div", { class: "review-table", "aria-label": "The table before the move" },
      step.rows.length
        ? step.rows.map(([name, tiles]) => h("div", { class: "review-row" },
          h("span", { class: "review-name" }, name === "line" ? "Table" : name),
          h("span", { class: "review-tiles" }, tiles.map((t) => tileEl(t[0], t[1], false)))))
        : h("p", {}, "The table is empty: this is the lead.")),
    h("ul", { class: "review-hands", "aria-label": "Every hand before the move" },
      step.hands.map((tiles, seat) => handRow(step.seats[seat] ?? `Seat ${seat + 1}`, tiles, d, seat === d.seat))),
    h("table", { class: "review-choices" },
      h("thead", {}, h("tr", {}, h("th", {}, "Choice"), h("th", {}, "Known"), h("th", {}, "Hands shown"))),
      h("tbody", {}, d.choices.map((c) => h("tr", {
        class: [c.choice === d.chosen ? "chosen" : "", c.choice === d.best ? "best" : ""].join(" ").trim(),
      }, h("td", {}, c.choice), h("td", {}, number(c.known)), h("td", {}, c.shown === null ? "–" : number(c.shown)))))));
}
