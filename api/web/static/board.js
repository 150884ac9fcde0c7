// Drawing the table from the state: heading, opponents, the line (or cross) of play, the
// status bar, the viewer's hand and its buttons.
//
// Rendering only reads the state and never decides a rule: what is playable, and where,
// comes from the view's `legal_actions`. It attaches no handlers either; input.js listens on
// the containers (#hand, #line, #end-choice), so a re-render never loses one.

import { lastPlayed } from "./animate.js";
import { $, h } from "./dom.js";
import { renderLog } from "./log.js";
import { levelTitle, presetTitle } from "./presets.js";
import {
  COUNT_RULES, countScoring, dealNumber, distinctPlays, exactTargetRule, isLocal, legal, localSeats, myTurn, passName, plays,
  seatName, seatScore, selectedTileKey, shownView, state, subjectVerb, targetText, winnerName,
} from "./state.js";
import { sameTile, tileEl, tileKey } from "./tiles.js";
import { owedText, renderTrains } from "./trains-board.js";
import { isTrains, placeKey, placeName, trainRows, winnersOf } from "./trains.js";

let enteredKey = null;   // the last tile that already animated in (a re-render does not replay it)

/** The ends in screen order, left to right: the end-choice buttons and `,`/`.` follow it. */
export const END_ORDER = ["left", "up", "down", "right"];

const clamp = (x, lo, hi) => Math.max(lo, Math.min(hi, x));
// the line starts big and shrinks as it grows (the layout picks the largest unit that fits)
const maxUnit = () => (window.innerWidth < 640 ? 34 : 44);

export function render() {
  const v = shownView();
  if (!v) return;
  const hidden = state.overlay === "pass" || state.passTo !== null;
  document.body.dataset.seq = String(v.seq);     // lets tests (and curious people) see what is shown
  document.body.classList.toggle("my-turn", myTurn());
  renderMeta(v);
  renderOpponents(v);
  renderLine();
  renderStatus(v, hidden);
  renderHand(v, hidden);
  renderLog();
}

function renderMeta(v) {
  if (isTrains(v)) {
    $("#match-meta").replaceChildren(h("span", {}, presetTitle(v.rules.preset)), h("span", { class: "dot" }, "·"),
      h("span", {}, `round ${v.round} of ${v.rounds}`));
    return;
  }
  $("#match-meta").replaceChildren(
    h("span", {}, presetTitle(v.rules.preset)), h("span", { class: "dot" }, "·"),
    h("span", {}, `to ${targetText(v.rules)}`), h("span", { class: "dot" }, "·"),
    h("span", {}, `hand ${v.hand_number}`));
}

function seatBadge(seat) {
  const s = state.view.seats[seat];
  if (s.type === "bot") return h("span", { class: "badge" }, `computer · ${levelTitle(s.level)}`);
  if (isLocal(seat) && state.match.humans > 1) return h("span", { class: "badge" }, "this device");
  if (!isLocal(seat)) return h("span", { class: "badge" }, "online");
  return null;
}

function renderOpponents(v) {
  const others = v.seats.filter((s) => s.seat !== state.viewer);
  $("#opponents").classList.toggle("trains", isTrains(v));
  $("#opponents").replaceChildren(...others.map((s) => {
    const n = v.hand_counts[s.seat];
    // a line view counts each seat's draws this hand; a trains view's `drawn` is the tile just drawn
    const drawn = isTrains(v) ? 0 : v.drawn?.[s.seat] || 0;
    const backs = h("div", { class: "backs", "aria-hidden": "true" },
      Array.from({ length: Math.min(n, 14) }, () => h("span", { class: "back" })));
    return h("div", { class: `opp ${v.turn === s.seat && v.status === "playing" ? "turn" : ""}`, dataset: { seat: String(s.seat) } },
      h("div", { class: "opp-head" }, h("span", { class: "name" }, s.name), seatBadge(s.seat)),
      backs,
      h("div", { class: "opp-foot" },
        h("span", {}, h("b", { dataset: { handCount: String(s.seat) } }, String(n)), n === 1 ? " tile" : " tiles"),
        drawn ? h("span", { class: "muted" }, `drew ${drawn}`) : null,
        h("span", { class: "score" }, isTrains(v) ? "Total " : "Score ",
          h("b", { dataset: { score: String(s.seat) } }, String(seatScore(v, s.seat))))));
  }));
}

function renderStatus(v, hidden) {
  $("#boneyard-count").textContent = String(v.boneyard);
  // a trains game: the round, which opens the totals of every round so far
  $("#totals-open").hidden = !isTrains(v);
  if (isTrains(v)) {
    $("#round-number").textContent = String(v.round);
    $("#round-count").textContent = String(v.rounds);
  }
  // a block game has no boneyard to draw from: no pill counting it
  $("#boneyard-pill").hidden = v.rules.game === "block";
  const countPill = $("#count-pill");
  countPill.hidden = v.count === undefined || v.count === null;
  if (!countPill.hidden) $("#ends-count").textContent = String(v.count);
  countPill.title = COUNT_RULES[countScoring(v.rules)] ?? "Sum of the open ends";
  // an exact target says so beside the count: a play that would pass it shows no points
  const targetPill = $("#target-pill");
  targetPill.hidden = !v.rules.exact_target;
  $("#target-exactly").textContent = String(v.rules.target);
  targetPill.title = v.rules.exact_target ? exactTargetRule(v.rules) : "";
  let text;
  if (state.playback) text = state.playback.said;   // new events playing out: what just happened
  else if (v.status === "ended" && winnersOf(v).length > 1) {
    text = `Match over: ${winnersOf(v).map(seatName).join(" and ")} share the win. Press N for a new match.`;
  } else if (v.status === "ended") text = `Match over: ${subjectVerb(winnerName(v.winner), "wins", "win")}. Press N for a new match.`;
  else if (v.status === "waiting") text = "Waiting for players to join…";
  else if (hidden) text = `Pass the device to ${passName(state.passTo)}.`;
  else if (state.pending && v.turn === state.viewer) text = "Sending your move…";
  else if (v.turn === state.viewer) {
    const who = state.match.humans > 1 ? `${seatName(state.viewer)}, your turn` : "Your turn";
    // a trains game may owe a double its cover (or its toes) before anything else
    const owed = isTrains(v) ? owedText(v, seatName) : null;
    if (isTrains(v) && v.drawn && plays().size) text = `${who}: the tile you drew fits, play it.`;
    else if (plays().size) text = `${who}: ${owed ? `${owed} Play` : "play"} a lifted tile.`;
    else if (legal("draw").length) text = `${who}: nothing fits, draw from the boneyard.`;
    else if (legal("knock").length) text = `${who}: nothing fits and nothing to draw, knock.`;
    else if (legal("pass").length) text = `${who}: nothing fits and nothing to draw, pass.`;
    else text = `${who}.`;
  } else text = `${seatName(v.turn)} to play…`;
  $("#status").textContent = text;
}

function renderHand(v, hidden) {
  const me = state.viewer;
  $("#me").classList.toggle("spectator", me === null);
  $("#me-name").textContent = me === null ? "Spectating" : seatName(me);
  $("#me-score-label").textContent = isTrains(v) ? "Total" : "Score";
  $("#me-score").textContent = me === null ? "–" : String(seatScore(v, me));
  $("#me-score").dataset.score = me === null ? "" : String(me);
  $("#me-pips").textContent = hidden ? "?" : String(v.pips ?? 0);
  const hand = $("#hand");
  const options = plays();
  const turn = myTurn();
  const tiles = v.hand || [];
  const hadFocus = hand.contains(document.activeElement);
  hand.classList.toggle("hidden-hand", hidden);
  hand.dataset.handCount = String(tiles.length);
  if (hidden) {
    hand.replaceChildren(...tiles.map(() => h("span", { class: "back big" })));
  } else {
    hand.replaceChildren(...tiles.map((t, i) => {
      const k = tileKey(t);
      const ends = (options.get(k) || []).map(placeKey);
      const playable = turn && ends.length > 0;
      const where = isTrains(v) ? ends.map((e) => placeName(v, e, seatName)) : ends;
      // fives games: the view marks plays that score; show (and say) the best of this tile's
      const bonus = playable ? Math.max(0, ...(options.get(k) || []).map((a) => a.scores || 0)) : 0;
      const btn = h("button", {
        type: "button", class: `hand-tile${playable ? " playable" : ""}${i === state.selected ? " selected" : ""}`,
        tabindex: i === state.selected ? "0" : "-1", "aria-pressed": i === state.selected ? "true" : "false",
        "aria-label": `${t[0]}-${t[1]}${playable ? `, plays on ${where.join(" or ")}` : ""}${bonus ? `, scores ${bonus}` : ""}`,
        // choices: how many different outcomes its ends give (1: a tap plays it, no end asked)
        dataset: { tile: k, index: String(i), ends: ends.join(" "), choices: String(distinctPlays(k).length) },
      }, tileEl(t[0], t[1], true));
      // the move in flight: its tile stays marked until the server answered
      if (state.pending?.tile && tileKey(state.pending.tile) === k) btn.classList.add("pending");
      if (bonus) btn.append(h("span", { class: "bonus", title: `scores ${bonus}`, "aria-hidden": "true" }, `+${bonus}`));
      if (turn && !playable) btn.classList.add("dim");
      return btn;
    }));
    // re-rendering replaces the buttons: keep keyboard focus on the selection
    const lost = document.activeElement === document.body && state.keyboard && !state.overlay;
    if (hadFocus || lost) $(`.hand-tile[data-index="${state.selected}"]`, hand)?.focus();
  }
  const draw = legal("draw");
  const canDraw = turn && draw.length > 0 && !hidden;
  $("#draw").disabled = !canDraw;
  // nothing to draw: a block game, or a boneyard down to the tiles never drawn (all of it when
  // four are dealt seven each): no control that can never be used, Knock says what is left
  $("#draw").hidden = v.rules.game === "block" || v.boneyard <= (v.rules.boneyard_reserve || 0);
  $("#draw").title = canDraw ? `Draw from the boneyard (${v.boneyard} left)` : "Drawing is allowed only when nothing fits";
  $("#knock").disabled = !(turn && legal("knock").length && !hidden);
  // a trains game passes (with a marker in Mexican Train) where a line game knocks
  $("#knock").hidden = isTrains(v);
  $("#pass").hidden = !isTrains(v);
  $("#pass").disabled = !(turn && legal("pass").length && !hidden);
  const muggins = legal("muggins");
  $("#muggins").hidden = !(muggins.length && !hidden);
  // a hint: one person on this device, every other seat a computer (the server also refuses it
  // in a rated match: hint_not_offered)
  $("#hint").hidden = !hintOffered(v);
  $("#hint").disabled = !(turn && !hidden && !state.pending);
  renderEndChoice(turn && !hidden);
}

/** Whether the Hint button belongs at this table: one seat played here, every other a computer. */
export function hintOffered(v) {
  return localSeats().length === 1 && v.status === "playing"
    && v.seats.every((s) => s.seat === localSeats()[0] || s.type === "bot");
}

// A tile that fits several ends also gets big buttons, one per end: on a crowded line the
// ends themselves can be small targets for a finger. Each button names its tile and end
// (data-tile, data-choose-end), so the click plays what the button showed.
export function renderEndChoice(active) {
  const box = $("#end-choice");
  const key = selectedTileKey();
  // one button per different outcome: ends showing the same number play the same
  const options = active && key ? distinctPlays(key) : [];
  box.hidden = options.length < 2;
  if (box.hidden) { box.replaceChildren(); return; }
  const v = state.view;
  if (isTrains(v)) {
    // one button per train the tile may go on, in the rows' order, named as the rows are
    const keys = placeOrder(v).filter((k) => options.some((a) => placeKey(a) === k));
    box.replaceChildren(h("span", { class: "label" }, `${key} on`), ...keys.map((k) =>
      h("button", { type: "button", class: `btn small${state.chosenEnd === k ? " primary" : ""}`, dataset: { chooseEnd: k, tile: key } },
        placeName(v, k, seatName))));
    return;
  }
  const values = Object.fromEntries((v.ends || []).map((e) => [e.end, e.value]));
  const ordered = END_ORDER.filter((end) => options.some((a) => a.end === end));
  box.replaceChildren(h("span", { class: "label" }, `${key} on`), ...ordered.map((end) =>
    h("button", { type: "button", class: `btn small${state.chosenEnd === end ? " primary" : ""}`, dataset: { chooseEnd: end, tile: key } },
      `${end} · ${values[end] ?? ""}`,
      options.find((a) => a.end === end)?.scores ? ` (+${options.find((a) => a.end === end).scores})` : "")));
}

/** The places in screen order (the end-choice buttons and `,`/`.` follow it): a line's ends,
 *  or a trains game's rows, top to bottom. */
export const placeOrder = (v) => (isTrains(v) ? trainRows(v).map((r) => r.key) : END_ORDER);

// The line is laid out as a snake (rows alternate direction, like a line turning at the
// table's edge); spinner games show a cross: the line through the spinner, its arms above
// and below. Each open end is a drop target showing the number it needs.
export function renderLine() {
  const v = shownView();
  const board = $("#board");
  const line = $("#line");
  if (!v) return;
  const selectedKey = selectedTileKey();
  const fits = new Set(myTurn() && selectedKey ? (plays().get(selectedKey) || []).map(placeKey) : []);
  const dragFits = new Set(state.drag?.ends || []);
  const live = new Set(myTurn() ? [...plays().values()].flat().map(placeKey) : []);
  const values = Object.fromEntries((v.ends || []).map((e) => [e.end, e.value]));
  const trains = isTrains(v);
  const target = (end, label) => {
    const named = trains ? `${placeName(v, end, seatName)}, needs ${label}`
      : `${end} end${values[end] !== undefined ? `, needs ${values[end]}` : ""}`;
    const el = h("button", { type: "button", class: "end-target", dataset: { end },
      "aria-label": named, tabindex: fits.has(end) ? "0" : "-1" },
      h("span", { class: "need" }, label ?? String(values[end] ?? "")));
    if (fits.has(end) || dragFits.has(end)) el.classList.add("fits");
    else if (live.has(end)) el.classList.add("live");
    if (state.chosenEnd === end && fits.has(end)) el.classList.add("chosen");
    return el;
  };
  // the tile placed last is marked (wherever the layout puts it); it animates in once, when new
  const lastTile = state.playback ? state.playback.last : lastPlayed(state.events);
  const lastKey = lastTile ? `${dealNumber(v)}:${tileKey(lastTile)}` : null;
  const entering = lastKey !== enteredKey;
  enteredKey = lastKey;
  const mark = (el, t) => {
    el.dataset.tile = tileKey(t);
    if (lastTile && sameTile(t, lastTile)) el.classList.add("last", ...(entering ? ["enter"] : []));
    return el;
  };
  line.replaceChildren();
  line.className = "line";
  board.classList.toggle("trains-board", trains);
  board.setAttribute("aria-label", trains ? "Trains" : "Line of play");
  if (trains && !v.board) {   // no round dealt yet
    line.append(h("p", { class: "empty-note" }, v.status === "playing" ? "Dealing…" : "Waiting for players to join…"));
    return;
  }
  if (trains) { renderTrains(v, board, line, { target, mark, seatName }); return; }
  const W = board.clientWidth - 16, H = board.clientHeight - 16;
  const isDouble = (t) => t[0] === t[1];

  if (!v.line.length) {
    const lead = (v.legal_actions || []).find((a) => a.type === "play");
    if (lead) {
      line.classList.add("empty");
      line.append(target(lead.end, "lead"));
    } else {
      line.append(h("p", { class: "empty-note" }, v.status === "playing" ? "Waiting for the lead…" : ""));
    }
    return;
  }

  if (v.spinner && v.arms) {
    // a cross: column 2 holds the spinner with its arms above and below; the line runs
    // through it in row 2 (CSS grid areas keep the arms centred on the spinner)
    const k = v.line.findIndex((t) => sameTile(t, v.spinner));
    const span = (tiles) => tiles.reduce((n, t) => n + (isDouble(t) ? 1 : 2), 0);
    const across = span(v.line.slice(0, k)) + span(v.line.slice(k + 1)) + 2 + 4.5;
    const tall = span(v.arms.up) + span(v.arms.down) + 2 + (values.up !== undefined ? 1.5 : 0) + (values.down !== undefined ? 1.5 : 0);
    const u = clamp(Math.floor(Math.min(W / across, H / (tall + 0.5))), 12, maxUnit());
    line.style.setProperty("--u", `${u}px`);
    line.classList.add("cross");
    const laid = (t, vertical) => mark(tileEl(t[0], t[1], vertical, isDouble(t) ? "double" : ""), t);
    line.append(
      h("div", { class: "seg left" }, values.left !== undefined ? target("left") : null,
        v.line.slice(0, k).map((t) => laid(t, isDouble(t)))),
      h("div", { class: "seg spin" }, mark(tileEl(v.line[k][0], v.line[k][1], true, "double spinner"), v.line[k])),
      h("div", { class: "seg right" }, v.line.slice(k + 1).map((t) => laid(t, isDouble(t))),
        values.right !== undefined ? target("right") : null),
      // arms: [number touching the spinner's side, other]; the up arm grows upwards
      h("div", { class: "seg up" }, v.arms.up.map((t) => laid([t[1], t[0]], !isDouble(t))),
        values.up !== undefined ? target("up") : null),
      h("div", { class: "seg down" }, v.arms.down.map((t) => laid(t, !isDouble(t))),
        values.down !== undefined ? target("down") : null));
    return;
  }

  // the snake: items are targets and tiles, each with a width in units
  const items = [{ kind: "target", end: "left", w: 2 }];
  for (const t of v.line) items.push({ kind: "tile", t, w: isDouble(t) ? 1 : 2 });
  items.push({ kind: "target", end: "right", w: 2 });
  const gap = 0.12;
  let u = maxUnit(), rows;
  for (; u >= 12; u -= 1) {
    rows = snakeRows(items, Math.floor(W / u), gap);
    if (rows.length * (2 + 0.5) * u <= H || u === 12) break;
  }
  line.style.setProperty("--u", `${u}px`);
  line.classList.add("snake");
  rows.forEach((rowItems, r) => {
    const reverse = r % 2 === 1;
    const row = h("div", { class: `snake-row${reverse ? " rev" : ""}` });
    for (const it of rowItems) {
      if (it.kind === "target") row.append(target(it.end));
      else {
        const [a, b] = reverse ? [it.t[1], it.t[0]] : it.t;
        row.append(mark(tileEl(a, b, isDouble(it.t), isDouble(it.t) ? "double" : ""), it.t));
      }
    }
    line.append(row);
  });
}

/** Items packed into rows of `capacity` units, a new row when the next item would overflow. */
function snakeRows(items, capacity, gap) {
  const rows = [[]];
  let used = 0;
  for (const it of items) {
    const w = it.w + gap;
    if (used + w > capacity && rows[rows.length - 1].length) { rows.push([]); used = 0; }
    rows[rows.length - 1].push(it);
    used += w;
  }
  return rows;
}
