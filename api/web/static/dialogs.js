// Dialogs over the table (a hand's result, the match's end, the pass screen) and the toast.
//
// Each dialog only draws itself and calls back: what its main button does next (show the
// next dialog, refresh, open the new-match form) is the match flow's decision (match.js),
// passed in by the caller, so this module never reaches up into the flow.

import { render } from "./board.js";
import { $, h } from "./dom.js";
import { localSeats, seatName, setOverlay, sideOf, state, winnerName } from "./state.js";
import { tileEl } from "./tiles.js";

// --- the toast: one short line, gone after a few seconds ------------------------------------
let toastTimer = null;
export function toast(message) {
  const el = $("#toast");
  el.textContent = message;
  el.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { el.hidden = true; }, 3500);
}

/** A hint about the last attempt is stale once a move went through. */
export function hideToast() {
  $("#toast").hidden = true;
}

// --- the overlay frame ----------------------------------------------------------------------
function openOverlay(kind, build) {
  setOverlay(kind);
  const card = $("#overlay-card");
  card.replaceChildren();
  build(card);
  $("#overlay").hidden = false;
  document.body.classList.add("has-overlay");
  render();
  requestAnimationFrame(() => ($("[data-autofocus]", card) || $("button", card))?.focus());
}

export function closeOverlay() {
  setOverlay(null);
  $("#overlay").hidden = true;
  document.body.classList.remove("has-overlay");
}

// --- the dialogs ----------------------------------------------------------------------------
function handHeadline(result) {
  const pts = result.points === 1 ? "1 point" : `${result.points} points`;
  if (result.winner === null || result.winner === undefined) return "Blocked, and a tie for the lowest count: nobody scores.";
  if (result.reason === "domino") return `${seatName(result.winner)} went out: ${pts} to ${winnerName(result.side)}.`;
  return `Blocked. ${seatName(result.winner)} holds the fewest pips: ${pts} to ${winnerName(result.side)}.`;
}

function scoreTable(scores, winnerSide) {
  const v = state.view;
  const rows = v.sides
    ? v.sides.map((members, side) => [members.map(seatName).join(" & "), scores[side], side])
    : v.seats.map((s) => [s.name, scores[s.seat], s.seat]);
  return h("ul", { class: "final-scores" },
    rows.map(([name, score, side]) => h("li", { class: side === winnerSide ? "won" : "" },
      h("span", {}, name), h("b", { dataset: { finalScore: String(side) } }, String(score)))));
}

/** Every hand laid open, the pips and the scores; `onContinue` runs on "Next hand". */
export function showHandResult(result, onContinue) {
  const ended = state.view.status === "ended";
  openOverlay("hand", (card) => {
    card.append(
      h("h2", { id: "overlay-title" }, `Hand ${result.hand_number}`),
      h("p", { class: "headline" }, handHeadline(result)),
      h("ul", { class: "reveal" }, state.view.seats.map((seat) => {
        const tiles = result.hands[seat.seat] || [];
        return h("li", { class: seat.seat === result.winner ? "winner" : "", dataset: { revealSeat: String(seat.seat) } },
          h("div", { class: "reveal-head" }, h("span", { class: "name" }, seat.name),
            h("span", { class: "count" }, `${tiles.length} ${tiles.length === 1 ? "tile" : "tiles"} · `,
              h("b", { dataset: { revealPips: String(seat.seat) } }, String(result.pips[seat.seat])), " pips")),
          h("div", { class: "reveal-tiles" }, tiles.length ? tiles.map((t) => tileEl(t[0], t[1], false, "small")) : h("em", {}, "out")));
      })),
      h("p", { class: "sub" }, "Scores"),
      scoreTable(result.scores, result.side),
      h("div", { class: "overlay-actions" },
        h("button", { class: "btn primary", id: "continue", "data-autofocus": true, onclick: onContinue },
          ended ? "See the result" : "Next hand")));
  });
}

/** The winner and final scores; "Look at the table" just closes, `onNewMatch` runs on "New match". */
export function showMatchEnd(onNewMatch) {
  const v = state.view;
  openOverlay("end", (card) => {
    const mine = v.winner !== null && localSeats().length === 1 && sideOf(localSeats()[0]) === v.winner;
    card.append(
      h("h2", { id: "overlay-title", class: "trophy" }, mine ? "You win the match!" : `${winnerName(v.winner)} wins the match`),
      h("p", { class: "headline" }, `First to ${v.rules.target} points.`),
      scoreTable(v.scores, v.winner),
      h("div", { class: "overlay-actions" },
        h("button", { class: "btn ghost", onclick: () => { closeOverlay(); render(); } }, "Look at the table"),
        h("button", { class: "btn primary", id: "rematch", "data-autofocus": true, onclick: onNewMatch }, "New match")));
  });
}

/** Friends on one device: hide the hand until `seat`'s person says they hold it; then `onReady(seat)`. */
export function showPass(seat, onReady) {
  openOverlay("pass", (card) => {
    card.append(
      h("div", { class: "pass-tiles", "aria-hidden": "true" }, [0, 1, 2].map(() => h("span", { class: "back" }))),
      h("h2", { id: "overlay-title" }, `Pass the device to ${seatName(seat)}`),
      h("p", { class: "headline" }, `Only ${seatName(seat)} should look at the next screen: it shows their hand.`),
      h("div", { class: "overlay-actions" },
        h("button", { class: "btn primary", id: "ready", "data-autofocus": true, onclick: () => onReady(seat) },
          `I'm ${seatName(seat)}: show my hand`)));
  });
}
