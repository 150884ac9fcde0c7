// Dialogs over the table (a hand's result, the match's end, the pass screen) and the toast.
//
// Each dialog only draws itself and calls back: what its main button does next (show the
// next dialog, refresh, open the new-match form) is the match flow's decision (match.js),
// passed in by the caller, so this module never reaches up into the flow.

import { ApiError, getAnalysis, getWholeAudit } from "./api.js";
import { render } from "./board.js";
import { $, $$, h } from "./dom.js";
import { progressPanel } from "./progress.js";
import { reviewCard, reviewSteps } from "./review.js";
import {
  exactTargetRule, isYou, localSeats, passName, seatName, setOverlay, sideOf, state, subjectVerb, winnerName,
} from "./state.js";
import { tileEl } from "./tiles.js";
import { isTrains, winnersOf } from "./trains.js";

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
// The overlay is a native <dialog> opened with showModal(): the page behind it is inert (no
// click, Tab or screen-reader cursor reaches it). Its `hidden` attribute follows the open
// state as well, since the page's tests and the stylesheet read that. Escape does what the
// open dialog's safe way out does (`onEscape`), or nothing where closing would be wrong: the
// pass screen hides a hand from the wrong person.
let escapeAction = null;
let returnFocus = null;
let bound = false;

const FOCUSABLE = "button:not([disabled]), [href], input:not([disabled]), select:not([disabled]), [tabindex]:not([tabindex='-1'])";

/** Tab and Shift+Tab go round the dialog's own controls (a modal dialog alone would let Tab
 * out to the browser's toolbar); Escape runs the dialog's safe way out, if it has one. */
function onDialogKey(ev) {
  if (ev.key === "Escape") {
    ev.preventDefault();            // no native close: the flow decides what closing means
    escapeAction?.();
    return;
  }
  if (ev.key !== "Tab") return;
  const items = $$(FOCUSABLE, $("#overlay-card"));
  if (!items.length) { ev.preventDefault(); return; }
  const first = items[0], last = items[items.length - 1];
  const inside = items.includes(document.activeElement);
  if (ev.shiftKey && (document.activeElement === first || !inside)) { ev.preventDefault(); last.focus(); }
  else if (!ev.shiftKey && (document.activeElement === last || !inside)) { ev.preventDefault(); first.focus(); }
}

function bindDialog(dialog) {
  if (bound) return;
  bound = true;
  dialog.addEventListener("keydown", onDialogKey);
  // other close requests (a phone's back gesture): the same rule as Escape
  dialog.addEventListener("cancel", (ev) => { ev.preventDefault(); escapeAction?.(); });
  // a browser may still force a modal dialog shut; one the flow has not closed opens again
  dialog.addEventListener("close", () => { if (state.overlay && !dialog.open) dialog.showModal(); });
}

function openOverlay(kind, build, onEscape = null) {
  const dialog = $("#overlay");
  bindDialog(dialog);
  if (!dialog.open) returnFocus = document.activeElement;
  setOverlay(kind);
  escapeAction = onEscape;
  const card = $("#overlay-card");
  card.replaceChildren();
  build(card);
  dialog.hidden = false;
  if (!dialog.open) dialog.showModal();
  document.body.classList.add("has-overlay");
  render();
  // without scrolling to it: a dialog taller than its room starts at its title (its buttons
  // stay in view on their own, see table.css)
  const focusMain = () => ($("[data-autofocus]", card) || $("button", card))?.focus({ preventScroll: true });
  focusMain();
  // drawing the table behind may have moved focus (it keeps the hand's): the dialog wins
  requestAnimationFrame(() => { if (dialog.open && !card.contains(document.activeElement)) focusMain(); });
}

export function closeOverlay() {
  const dialog = $("#overlay");
  setOverlay(null);
  escapeAction = null;
  dialog.hidden = true;
  if (dialog.open) dialog.close();
  document.body.classList.remove("has-overlay");
  // back where the person was when it opened, if that is still on the page; a hand tile
  // drawn anew is refocused by the table's own rendering
  const back = returnFocus;
  returnFocus = null;
  if (back?.isConnected && back !== document.body && !back.closest("[inert], [hidden]")) back.focus();
}

// --- the dialogs ----------------------------------------------------------------------------
function handHeadline(result) {
  const rules = state.view.rules;
  const pts = result.points === 1 ? "1 point" : `${result.points} points`;
  if (result.winner === null || result.winner === undefined) {
    // where no pips are counted (Fives and Threes) a blocked hand has no winner at all
    return rules.hand_end_pips === false ? "Blocked: no one went out, and nobody scores for the hand."
      : "Blocked, and a tie for the lowest count: nobody scores.";
  }
  // "to you" mid-sentence for the seat named You ("You went out: 6 points to you.")
  const to = isYou(winnerName(result.side)) ? "you" : winnerName(result.side);
  // a hand won with no points at an exact target: they would have passed it
  const award = result.points === 0 && rules.exact_target ? `no points to ${to}. ${exactTargetRule(rules)}` : `${pts} to ${to}.`;
  if (result.reason === "domino") return `${seatName(result.winner)} went out: ${award}`;
  return `Blocked. ${subjectVerb(seatName(result.winner), "holds", "hold")} the fewest pips: ${award}`;
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

/** Every hand laid open, the pips and the scores; `onContinue` runs on "Next hand", and on Escape. */
// It opens as a sheet beside the table (the log's column on a wide screen, the bottom on a
// narrow one, where it folds down to its headline) so the hand's final board, its last tile
// marked, stays in view with the result.
export function showHandResult(result, onContinue) {
  if (isTrains(state.view)) { showRoundResult(result, onContinue); return; }
  const ended = state.view.status === "ended";
  openOverlay("hand", (card) => {
    const sheet = h("div", { class: "hand-result" });
    const fold = h("button", { type: "button", class: "btn small ghost fold", "aria-expanded": "true",
      onclick: () => {
        const folded = sheet.classList.toggle("folded");
        fold.setAttribute("aria-expanded", folded ? "false" : "true");
        fold.textContent = folded ? "Show the result" : "Look at the board";
      } }, "Look at the board");
    card.append(sheet);
    sheet.append(
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
      h("div", { class: "overlay-actions" }, fold,
        h("button", { class: "btn primary", id: "continue", "data-autofocus": true, onclick: onContinue },
          ended ? "See the result" : "Next hand")));
  }, onContinue);
}

// --- a trains game's round and match ---------------------------------------------------------
/** The pips each seat added in each round ended (rows) and every seat's total (the foot), the
 *  lowest total marked: rounds × seats, lowest best. `rounds` ended so far, as the view lists them. */
export function totalsTable(rounds, totals) {
  const v = state.view;
  const best = Math.min(...totals);
  return h("div", { class: "totals-wrap" }, h("table", { class: "totals" },
    h("caption", { class: "visually-hidden" }, "Pips added each round and each total: the lowest total is best"),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Round"), v.seats.map((s) => h("th", { scope: "col" }, s.name)))),
    h("tbody", {}, rounds.map((pips, r) => h("tr", {}, h("th", { scope: "row" }, String(r + 1)),
      pips.map((p) => h("td", {}, String(p)))))),
    h("tfoot", {}, h("tr", {}, h("th", { scope: "row" }, "Total"), totals.map((t, seat) =>
      h("td", { class: t === best ? "best" : "", dataset: { finalScore: String(seat) } }, String(t)))))));
}

function roundHeadline(result) {
  if (result.winner === null || result.winner === undefined) {
    return "Blocked: nobody can play or draw. Each seat adds the pips left in its hand.";
  }
  return `${subjectVerb(seatName(result.winner), "goes", "go")} out: everyone else adds the pips left in their hand.`;
}

/** A trains game's round: every hand laid open with its pips, and the totals so far. */
function showRoundResult(result, onContinue) {
  const v = state.view;
  const ended = v.status === "ended";
  openOverlay("hand", (card) => {
    const sheet = h("div", { class: "hand-result" });
    const fold = h("button", { type: "button", class: "btn small ghost fold", "aria-expanded": "true",
      onclick: () => {
        const folded = sheet.classList.toggle("folded");
        fold.setAttribute("aria-expanded", folded ? "false" : "true");
        fold.textContent = folded ? "Show the result" : "Look at the board";
      } }, "Look at the board");
    card.append(sheet);
    sheet.append(
      h("h2", { id: "overlay-title" }, `Round ${result.round} of ${v.rounds}`),
      h("p", { class: "headline" }, roundHeadline(result)),
      h("ul", { class: "reveal" }, v.seats.map((seat) => {
        const tiles = result.hands[seat.seat] || [];
        return h("li", { class: seat.seat === result.winner ? "winner" : "", dataset: { revealSeat: String(seat.seat) } },
          h("div", { class: "reveal-head" }, h("span", { class: "name" }, seat.name),
            h("span", { class: "count" }, `${tiles.length} ${tiles.length === 1 ? "tile" : "tiles"} · +`,
              h("b", { dataset: { revealPips: String(seat.seat) } }, String(result.pips[seat.seat])), " pips")),
          h("div", { class: "reveal-tiles" }, tiles.length ? tiles.map((t) => tileEl(t[0], t[1], false, "small")) : h("em", {}, "out")));
      })),
      h("p", { class: "sub" }, "Totals (lowest wins)"),
      totalsTable((v.round_pips || []).slice(0, result.round), result.totals),
      h("div", { class: "overlay-actions" }, fold,
        h("button", { class: "btn primary", id: "continue", "data-autofocus": true, onclick: onContinue },
          ended ? "See the result" : "Next round")));
  }, onContinue);
}

/** The seats that share the lowest total, or the one that has it, as a title says it. */
function trainsTitle(v) {
  const winners = winnersOf(v);
  const mine = localSeats().length === 1 && winners.includes(localSeats()[0]);
  if (winners.length > 1) {
    const others = winners.filter((s) => !(mine && s === localSeats()[0])).map(seatName);
    return mine ? `You share the win with ${others.join(" and ")}!` : `${winners.map(seatName).join(" and ")} share the win`;
  }
  return mine ? "You win the match!" : `${subjectVerb(seatName(winners[0]), "wins", "win")} the match`;
}

/** A trains game's end: who has the lowest total (a tie shares the win) and the totals table. */
function showTrainsEnd(onNewMatch, lookAtTable) {
  const v = state.view;
  openOverlay("end", (card) => {
    card.append(
      h("h2", { id: "overlay-title", class: "trophy" }, trainsTitle(v)),
      h("p", { class: "headline" }, `The lowest total after ${v.rounds} ${v.rounds === 1 ? "round" : "rounds"} wins; `
        + "equal lowest totals share the win."),
      totalsTable(v.round_pips || [], v.totals),
      localSeats().length === 1 && state.match.humans === 1
        ? h("details", { class: "progress-box", id: "end-progress" }, h("summary", {}, "Your progress"), progressPanel())
        : null,
      tournamentLink(),
      h("div", { class: "overlay-actions" },
        h("button", { class: "btn ghost", onclick: lookAtTable }, "Look at the table"),
        h("button", { class: "btn ghost", id: "review-open", onclick: () => showReview(onNewMatch) }, "Review"),
        h("button", { class: "btn primary", id: "rematch", "data-autofocus": true, onclick: onNewMatch }, "New match")));
  }, lookAtTable);
}

/** The totals of every round so far, during a trains game; Close and Escape close it, then
 *  `onClose` runs (the flow shows what arrived meanwhile). */
export function showTotals(onClose) {
  const v = state.view;
  const close = () => { closeOverlay(); render(); onClose(); };
  openOverlay("totals", (card) => {
    card.append(
      h("h2", { id: "overlay-title" }, `Round ${v.round} of ${v.rounds}`),
      h("p", { class: "headline" }, "Each round adds the pips left in each hand; the lowest total after the last round wins."),
      totalsTable(v.round_pips || [], v.totals),
      h("div", { class: "overlay-actions" },
        h("button", { class: "btn primary", id: "totals-close", "data-autofocus": true, onclick: close }, "Close")));
  }, close);
}

/** A match opened from a tournament's page (its pairing): the way back to that page, else null. */
function tournamentLink() {
  const id = state.match?.tournament;
  if (!id) return null;
  return h("p", { class: "headline" },
    h("a", { id: "tournament-back", href: `tournament?id=${encodeURIComponent(id)}` }, "Back to the tournament"));
}

/** The winner and final scores; "Look at the table" (and Escape) just closes, `onNewMatch` runs on "New match". */
export function showMatchEnd(onNewMatch) {
  const v = state.view;
  const lookAtTable = () => { closeOverlay(); render(); };
  if (isTrains(v)) { showTrainsEnd(onNewMatch, lookAtTable); return; }
  openOverlay("end", (card) => {
    const mine = v.winner !== null && localSeats().length === 1 && sideOf(localSeats()[0]) === v.winner;
    card.append(
      h("h2", { id: "overlay-title", class: "trophy" },
        mine ? "You win the match!" : `${subjectVerb(winnerName(v.winner), "wins", "win")} the match`),
      h("p", { class: "headline" },
        `First to ${v.rules.target} ${v.rules.target === 1 ? "point" : "points"}${v.rules.exact_target ? " exactly" : ""}.`),
      scoreTable(v.scores, v.winner),
      // one person against the computer: the match just counted in the progress on this device
      localSeats().length === 1 && state.match.humans === 1
        ? h("details", { class: "progress-box", id: "end-progress" }, h("summary", {}, "Your progress"), progressPanel())
        : null,
      tournamentLink(),
      h("div", { class: "overlay-actions" },
        h("button", { class: "btn ghost", onclick: lookAtTable }, "Look at the table"),
        h("button", { class: "btn ghost", id: "review-open", onclick: () => showReview(onNewMatch) }, "Review"),
        h("button", { class: "btn primary", id: "rematch", "data-autofocus": true, onclick: onNewMatch }, "New match")));
  }, lookAtTable);
}

/** Friends on one device: hide the hand until `seat`'s person says they hold it; then `onReady(seat)`.
 * Escape does not close it: behind it is a hand the person holding the device must not see. */
export function showPass(seat, onReady) {
  openOverlay("pass", (card) => {
    card.append(
      h("div", { class: "pass-tiles", "aria-hidden": "true" }, [0, 1, 2].map(() => h("span", { class: "back" }))),
      h("h2", { id: "overlay-title" }, `Pass the device to ${passName(seat)}`),
      h("p", { class: "headline" }, isYou(seatName(seat))
        ? "Only you should look at the next screen: it shows your hand."
        : `Only ${seatName(seat)} should look at the next screen: it shows their hand.`),
      h("div", { class: "overlay-actions" },
        h("button", { class: "btn primary", id: "ready", "data-autofocus": true, onclick: () => onReady(seat) },
          isYou(seatName(seat)) ? "It's me: show my hand" : `I'm ${seatName(seat)}: show my hand`)));
  });
}

/** Progress on this device (and a portal player's on the server); Close and Escape close it. */
export function showProgress() {
  const close = () => closeOverlay();
  openOverlay("progress", (card) => {
    card.append(
      h("h2", { id: "overlay-title" }, "Your progress"),
      progressPanel(),
      h("div", { class: "overlay-actions" },
        h("button", { class: "btn primary", id: "progress-close", "data-autofocus": true, onclick: close }, "Close")));
  }, close);
}

// --- the review after the match (review.js) -------------------------------------------------
const REVIEW_TRIES = 60;        // the server's runner makes the analysis after the end: ask again
const REVIEW_WAIT_MS = 2000;    // every two seconds, for up to two minutes

/** The analysis after the match, decision by decision: Previous / Next (or ← →) step through
 *  it, Back returns to the match's end, `onNewMatch` as there. */
export async function showReview(onNewMatch) {
  const back = () => showMatchEnd(onNewMatch);
  const matchId = state.match.id;
  const say = (text) => openOverlay("review", (card) => card.append(
    h("h2", { id: "overlay-title" }, "Review"),
    h("p", { class: "headline", id: "review-status" }, text),
    h("div", { class: "overlay-actions" },
      h("button", { class: "btn primary", id: "review-back", "data-autofocus": true, onclick: back }, "Back"))), back);
  say("Loading the analysis…");
  let analysis = null;
  for (let i = 0; i < REVIEW_TRIES && state.overlay === "review"; i += 1) {
    try {
      analysis = (await getAnalysis(matchId)).data;
      break;
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== "analysis_not_ready") { say(`No review: ${err.message}`); return; }
      say("The server is analysing the match; the review opens when it is ready.");
      await new Promise((done) => setTimeout(done, REVIEW_WAIT_MS));
    }
  }
  if (state.overlay !== "review") return;          // closed while waiting
  if (!analysis) { say("The analysis is not ready yet: try again in a while."); return; }
  const steps = reviewSteps(await getWholeAudit(matchId), analysis);
  if (!steps.length) { say("No decision of this match had more than one choice."); return; }
  let at = 0;
  const show = () => openOverlay("review", (card) => {
    const go = (by) => { at = Math.min(steps.length - 1, Math.max(0, at + by)); show(); };
    const last = at === steps.length - 1;
    // a frame of its own for the arrow keys: the card stays, and would gather a listener a step
    const frame = h("div", { class: "review-frame" },
      h("h2", { id: "overlay-title" }, "Review"),
      reviewCard(steps[at], at, steps.length),
      h("div", { class: "overlay-actions" },
        h("button", { class: "btn ghost", id: "review-back", onclick: back }, "Back"),
        // focus stays on a button that can still be pressed: Next, or Previous at the last step
        h("button", { class: "btn", id: "review-prev", disabled: at === 0, "data-autofocus": last,
          onclick: () => go(-1) }, "Previous"),
        h("button", { class: "btn primary", id: "review-next", "data-autofocus": !last, disabled: last,
          onclick: () => go(1) }, "Next")));
    frame.addEventListener("keydown", (ev) => {
      if (ev.key === "ArrowRight" || ev.key === "ArrowLeft") { ev.preventDefault(); go(ev.key === "ArrowRight" ? 1 : -1); }
    });
    card.append(frame);
  }, back);
  show();
}
