// Choosing and playing: taps, drags and keys on the table, turned into the view's actions.
//
// Handlers listen on containers (#hand, #line, #end-choice), not on the buttons rendering
// replaces, and find what was hit from its data attributes. A tile that fits one end plays
// on a tap; one that fits several waits for an end (tapped on the line, chosen with `,`/`.`,
// or picked from the end-choice buttons).

import { placeOrder, render, renderEndChoice, renderLine } from "./board.js";
import { showTotals, toast } from "./dialogs.js";
import { $, $$ } from "./dom.js";
import { act, askHint, newMatch, playTile, refresh } from "./match.js";
import {
  distinctPlays, legal, myTurn, plays, selectTile, selectedTileKey, setChosenEnd, setDrag, setKeyboard, setSelected,
  state,
} from "./state.js";
import { isTrains, placeKey } from "./trains.js";

/** The target under a point: an end's, or (a trains game) the target of the row tapped anywhere,
 *  so a finger need not find the small box at the end of a long train. */
function targetFrom(el) {
  return el?.closest?.(".end-target") ?? el?.closest?.(".train-row")?.querySelector(".end-target") ?? null;
}

// a drag ends in pointerup and then a click on the tile it started from: that click is not a tap
let suppressClick = false;

function select(index, focus = true) {
  if (!selectTile(index)) return;
  render();
  if (focus) $(`#hand .hand-tile[data-index="${state.selected}"]`)?.focus();
}

function onHandClick(ev) {
  if (suppressClick) { suppressClick = false; return; }
  const btn = ev.target.closest(".hand-tile");
  if (!btn) return;
  const index = Number(btn.dataset.index);
  const tileKey = btn.dataset.tile;
  // ends showing the same number (and scoring the same) are one choice: no end is asked for
  const options = distinctPlays(tileKey);
  if (!myTurn()) { select(index); return; }
  if (options.length === 1) { setSelected(index); playTile(tileKey); return; }
  select(index);
  if (options.length > 1) toast(isTrains(state.view) ? "Tap the train to play it on." : "Tap the end to play it on.");
  else if (plays().size === 0) toast(legal("draw").length ? "Nothing fits: draw." : "Nothing fits.");
  else toast(`${tileKey} does not fit ${isTrains(state.view) ? "a train open to you" : "an open end"}.`);
}

function onTargetClick(ev) {
  const el = targetFrom(ev.target);
  if (!el || !myTurn()) return;
  const tileKey = selectedTileKey();
  const options = plays().get(tileKey) || [];
  if (options.some((a) => placeKey(a) === el.dataset.end)) return playTile(tileKey, el.dataset.end);
  // a row tapped that the selected tile does not go on: nothing to guess on a trains board
  if (!ev.target.closest(".end-target") && !(plays().size && el.classList.contains("live"))) return;
  // no tile picked for this end: if exactly one tile fits it, that is the obvious move
  const candidates = [...plays().entries()].filter(([, acts]) => acts.some((a) => placeKey(a) === el.dataset.end));
  if (candidates.length === 1) return playTile(candidates[0][0], el.dataset.end);
  toast(candidates.length ? "Pick a tile first, then the end." : "No tile of yours fits that end.");
}

function onEndChoiceClick(ev) {
  const btn = ev.target.closest("[data-choose-end]");
  if (btn) playTile(btn.dataset.tile, btn.dataset.chooseEnd);
}

// --- dragging a tile onto an end ------------------------------------------------------------
function onPointerDown(ev) {
  setKeyboard(false);
  const btn = ev.target.closest(".hand-tile.playable");
  if (!btn || ev.button !== 0 || !myTurn()) return;
  setDrag({ btn, x: ev.clientX, y: ev.clientY, id: ev.pointerId, started: false, ghost: null,
            tile: btn.dataset.tile, ends: btn.dataset.ends.split(" ").filter(Boolean) });
}

function onPointerMove(ev) {
  const d = state.drag;
  if (!d || ev.pointerId !== d.id) return;
  if (!d.started) {
    if (Math.hypot(ev.clientX - d.x, ev.clientY - d.y) < 8) return;   // a few pixels of wobble is still a tap
    d.started = true;
    d.ghost = d.btn.querySelector(".tile").cloneNode(true);
    d.ghost.classList.add("drag-ghost");
    document.body.append(d.ghost);
    d.btn.classList.add("dragging");
    setSelected(Number(d.btn.dataset.index));
    renderLine();
  }
  d.ghost.style.setProperty("left", `${ev.clientX}px`);
  d.ghost.style.setProperty("top", `${ev.clientY}px`);
  const over = targetFrom(document.elementFromPoint(ev.clientX, ev.clientY));
  $$(".end-target").forEach((t) => t.classList.toggle("over", t === over && d.ends.includes(t.dataset.end)));
  ev.preventDefault();
}

function onPointerUp(ev) {
  const d = state.drag;
  if (!d || ev.pointerId !== d.id) return;
  setDrag(null);
  if (!d.started) return;           // a tap: the click handler plays or selects
  suppressClick = true;
  setTimeout(() => { suppressClick = false; }, 0);
  d.ghost.remove();
  d.btn.classList.remove("dragging");
  const over = targetFrom(document.elementFromPoint(ev.clientX, ev.clientY));
  if (over && d.ends.includes(over.dataset.end)) playTile(d.tile, over.dataset.end);
  else if (d.ends.length === 1 && over) playTile(d.tile);
  else renderLine();
}

function onPointerCancel() {
  if (state.drag?.ghost) state.drag.ghost.remove();
  setDrag(null);
  renderLine();
}

// --- keyboard -------------------------------------------------------------------------------
/** `,` (step -1) and `.` (step +1) walk the ends (or trains) the selected tile fits, in screen order. */
function chooseEnd(step) {
  const options = distinctPlays(selectedTileKey()).map(placeKey);
  if (options.length < 2) return;
  const ordered = placeOrder(state.view).filter((e) => options.includes(e));
  const at = ordered.indexOf(state.chosenEnd);
  setChosenEnd(at < 0 ? (step < 0 ? ordered[0] : ordered[ordered.length - 1])
                      : ordered[Math.max(0, Math.min(ordered.length - 1, at + step))]);
  renderLine();
  renderEndChoice(myTurn());
}

function playSelected() {
  const tileKey = selectedTileKey();
  const options = distinctPlays(tileKey);
  if (!options.length) {
    const stuck = isTrains(state.view) ? "Nothing fits: D draws, P passes." : "Nothing fits: D draws, K knocks.";
    toast(plays().size ? `${tileKey} does not fit; pick a lifted tile.` : stuck);
    return;
  }
  if (options.length === 1) return playTile(tileKey);
  if (state.chosenEnd && options.some((a) => placeKey(a) === state.chosenEnd)) return playTile(tileKey, state.chosenEnd);
  toast(`It fits more than one ${isTrains(state.view) ? "train" : "end"}: press , or . to choose, then Enter.`);
}

function onKey(ev) {
  if ($("#table").hidden || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  if (ev.target.closest("input, select, textarea")) return;
  if (state.overlay) return;               // buttons in the dialog take Enter/Space themselves
  const k = ev.key;
  setKeyboard(true);
  if (k === "n" || k === "N") { ev.preventDefault(); newMatch(); return; }
  if (!state.view || state.viewer === null) return;
  if (k === "ArrowLeft") { ev.preventDefault(); select(state.selected - 1); }
  else if (k === "ArrowRight") { ev.preventDefault(); select(state.selected + 1); }
  else if (k === "ArrowUp" || (k === "Enter" && (ev.target === document.body || ev.target.closest("#hand")))) {
    ev.preventDefault();
    if (myTurn()) playSelected();
  } else if (k === ",") { ev.preventDefault(); chooseEnd(-1); }
  else if (k === ".") { ev.preventDefault(); chooseEnd(1); }
  else if (k === "d" || k === "D") { ev.preventDefault(); if (!$("#draw").disabled) drawAction(); }
  else if (k === "h" || k === "H") { ev.preventDefault(); if (!$("#hint").disabled && !$("#hint").hidden) askHint(); }
  else if (k === "k" || k === "K") { ev.preventDefault(); if (!$("#knock").disabled && !$("#knock").hidden) act(legal("knock")[0]); }
  else if ((k === "t" || k === "T") && !$("#totals-open").hidden) { ev.preventDefault(); showTotals(refresh); }
  else if (k === "p" || k === "P") { ev.preventDefault(); if (!$("#pass").disabled && !$("#pass").hidden) act(legal("pass")[0]); }
}

function drawAction() {
  const options = legal("draw");
  // one press draws until a tile fits when the server offers it; otherwise one tile
  const action = options.find((a) => a.until === "playable") || options[0];
  if (action) act(action);
}

/** Listen to the table's controls, once, at start-up. */
export function bindInput() {
  $("#new-match").addEventListener("click", newMatch);
  $("#hand").addEventListener("click", onHandClick);
  $("#hand").addEventListener("pointerdown", onPointerDown);
  window.addEventListener("pointermove", onPointerMove, { passive: false });
  window.addEventListener("pointerup", onPointerUp);
  window.addEventListener("pointercancel", onPointerCancel);
  $("#line").addEventListener("click", onTargetClick);
  $("#end-choice").addEventListener("click", onEndChoiceClick);
  $("#draw").addEventListener("click", drawAction);
  $("#knock").addEventListener("click", () => act(legal("knock")[0]));
  $("#pass").addEventListener("click", () => act(legal("pass")[0]));
  $("#totals-open").addEventListener("click", () => showTotals(refresh));
  $("#muggins").addEventListener("click", () => act(legal("muggins")[0]));
  $("#hint").addEventListener("click", askHint);
  document.addEventListener("keydown", onKey);
}
