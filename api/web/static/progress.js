// Progress on this device (seed 004): matches played and won, rounds won, the best winning
// margin, the current and longest match-win streaks; and, for a portal player, the server's.
//
// What counts: matches with exactly one person on this device and computers in every other
// seat ("you" against the computer). Each match counts once, when it ends, however often it is
// shown (reloads, a second tab): the ids counted are remembered. Each hand won counts once too
// (match id and hand number are remembered while the match runs). Stored in localStorage; it
// stays until reset or until the site's data is cleared, and does not sync between devices.

import { getPlayerStats } from "./api.js";
import { $, h } from "./dom.js";
import { localSeats, savedApiKey, sideOf, state } from "./state.js";
import { isTrains, winnersOf } from "./trains.js";

const PROGRESS_KEY = "boneyard.progress.v1";
const MAX_COUNTED = 1000;   // ids of ended matches kept to refuse a second count; the oldest go first

const fresh = () => ({ played: 0, won: 0, hands: 0, best: null, streak: 0, longest: 0, counted: [], handsCounted: [] });

export function loadProgress() {
  try {
    return { ...fresh(), ...JSON.parse(localStorage.getItem(PROGRESS_KEY) || "{}") };
  } catch { return fresh(); }
}

/** Every figure back to zero. The ids already counted are kept: a match that ended before the
 *  reset, shown again (a reload, another tab), must not count as a new one. */
export function resetProgress() {
  const { counted, handsCounted } = loadProgress();
  localStorage.setItem(PROGRESS_KEY, JSON.stringify({ ...fresh(), counted, handsCounted }));
}

/** The portal's player this page runs for (`/play?player_ref=REF`), or null. Player ids are a
 *  portal's: only a page that holds the portal's key (saved from the setup form) may name one. */
export function playerRef() {
  const ref = new URLSearchParams(window.location.search).get("player_ref");
  return ref && ref.trim() && savedApiKey() ? ref.trim() : null;
}

/** The match on screen is one that counts: one person here, computers everywhere else. */
function counts() {
  const v = state.view;
  const mine = localSeats();
  return Boolean(v && mine.length === 1 && state.match.humans === 1
    && v.seats.every((s) => s.seat === mine[0] || s.type === "bot"));
}

/** Count what the match on screen adds (its hands won so far; the match once it ended). */
export function recordProgress() {
  if (!counts()) return;
  const id = state.match.id;
  const side = sideOf(localSeats()[0]);
  const p = loadProgress();
  if (p.counted.includes(id)) return;
  let changed = false;
  for (const e of state.events) {
    // a hand won in a line game; a round gone out first in a trains game
    const won = (e.type === "hand_ended" && e.side === side) || (e.type === "round_ended" && e.winner === side);
    if (!won) continue;
    const key = `${id}#${e.hand_number ?? e.round}`;
    if (p.handsCounted.includes(key)) continue;
    p.handsCounted.push(key);
    p.hands += 1;
    changed = true;
  }
  const v = state.view;
  if (v.status === "ended") {
    p.counted = [...p.counted, id].slice(-MAX_COUNTED);
    // its hands are counted: the match's id now stands for all of them
    p.handsCounted = p.handsCounted.filter((k) => !k.startsWith(`${id}#`));
    p.played += 1;
    // a trains game: the lowest total wins (shared on a tie), by the gap to the next lowest
    const trains = isTrains(v);
    if (trains ? winnersOf(v).includes(side) : v.winner === side) {
      const others = (trains ? v.totals : v.scores).filter((_, s) => s !== side);
      const margin = trains ? Math.min(...others) - v.totals[side] : v.scores[side] - Math.max(0, ...others);
      p.won += 1;
      p.best = p.best === null ? margin : Math.max(p.best, margin);
      p.streak += 1;
      p.longest = Math.max(p.longest, p.streak);
    } else {
      p.streak = 0;
    }
    changed = true;
  }
  if (changed) localStorage.setItem(PROGRESS_KEY, JSON.stringify(p));
}

// the figures, in the panel's order: this device's record and the server's have the same six
const FIGURES = [
  ["played", "Matches played"], ["won", "Matches won"], ["hands", "Rounds won"],
  ["best", "Best winning margin"], ["streak", "Current win streak"], ["longest", "Longest win streak"],
];

/** The six figures of `values` (by key; null shows as a dash), labelled; `name` tells the two lists apart. */
function figures(values, name) {
  return h("dl", { class: "progress-figures", dataset: { progress: name } },
    FIGURES.map(([key, label]) => h("div", {}, h("dt", {}, label),
      h("dd", { dataset: { stat: key } }, values[key] === null || values[key] === undefined ? "–" : String(values[key])))));
}

const localFigures = () => figures(loadProgress(), "device");

/** The server's record of the portal player, filled in when it arrives. */
function serverFigures(ref) {
  const box = h("div", { class: "progress-server", dataset: { serverStats: ref } },
    h("h3", {}, `On the server, as ${ref}`), h("p", { class: "hint" }, "Loading…"));
  getPlayerStats(ref, savedApiKey()).then(({ data }) => {
    box.replaceChildren(box.firstChild, figures({
      played: data.matches_played, won: data.matches_won, hands: data.hands_won,
      best: data.best_margin, streak: data.current_streak, longest: data.longest_streak,
    }, "server"));
  }, (err) => {
    box.replaceChildren(box.firstChild, h("p", { class: "hint" }, `The server's statistics could not be loaded (${err.message}).`));
  });
  return box;
}

/** The panel: this device's figures with a reset (asked twice), what counts, and the server's. */
export function progressPanel() {
  const panel = h("div", { class: "progress" });
  const draw = () => {
    const reset = h("button", { type: "button", class: "btn small ghost", id: "progress-reset" }, "Reset…");
    const actions = h("div", { class: "progress-actions" }, reset);
    reset.addEventListener("click", () => {
      const yes = h("button", { type: "button", class: "btn small", id: "progress-reset-confirm" }, "Yes, reset");
      const no = h("button", { type: "button", class: "btn small ghost", id: "progress-reset-cancel" }, "Keep");
      yes.addEventListener("click", () => { resetProgress(); draw(); $("#progress-reset", panel)?.focus(); });
      no.addEventListener("click", () => { draw(); $("#progress-reset", panel)?.focus(); });
      actions.replaceChildren(h("span", {}, "Reset this device's progress to zero?"), yes, no);
      no.focus();
    });
    const ref = playerRef();
    panel.replaceChildren(...[
      localFigures(),
      h("p", { class: "hint" }, "Counted on this device: matches you play alone against the computer, once each when "
        + "they end, and every round you win in them. Nothing leaves this browser."),
      actions,
      ref ? serverFigures(ref) : null,
    ].filter(Boolean));
  };
  draw();
  return panel;
}
