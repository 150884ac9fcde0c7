// The log panel: the match's events as sentences.
//
// It prints counts and public moves only, never the face of a drawn tile (friends share
// this screen), and folds a run of draws by one seat into one line.

import { $, h } from "./dom.js";
import { seatName, shownEvents, state, subjectVerb, targetText, winnerName } from "./state.js";
import { isToe, placeName } from "./trains.js";

/** A train as the log names it, by its owner's name (the log is the same for everyone here). */
function trainText(train) {
  const key = String(train);
  if (key === "mexican") return "the Mexican train";
  if (isToe(key)) return state.view ? placeName(state.view, key, seatName) : key;
  return `${seatName(Number(key))}'s train`;
}

function endsText(ends) {
  const vals = Object.values(ends || {});
  return vals.length ? vals.join(" · ") : "";
}

function logLines() {
  const rules = state.view?.rules;
  // a block game never draws: the tiles not dealt are out of play, not a boneyard
  const undealt = (n) => (rules?.game === "block" ? `${n} out of play` : `${n} in the boneyard`);
  const lines = [];
  let lastDraw = null;
  // while new events play out, only those shown so far
  for (const e of shownEvents()) {
    if (e.type === "tile_drawn") {
      if (lastDraw && lastDraw.seat === e.seat) { lastDraw.n += 1; lastDraw.el.textContent = `${seatName(e.seat)} drew ${lastDraw.n} from the boneyard`; continue; }
      lastDraw = { seat: e.seat, n: 1, el: h("li", { class: "ev-draw", dataset: { event: "draw", seat: String(e.seat) } }, `${seatName(e.seat)} drew 1 from the boneyard`) };
      lines.push(lastDraw.el);
      continue;
    }
    lastDraw = null;
    const li = (cls, ...text) => lines.push(h("li", { class: `ev-${cls}`, dataset: { event: e.type, seq: String(e.seq) } }, ...text));
    switch (e.type) {
      case "match_created": li("sys", e.rules.rounds !== undefined
        ? `New match: ${e.rules.rounds} ${e.rules.rounds === 1 ? "round" : "rounds"}, the lowest total wins.`
        : `New match: first to ${targetText(e.rules)}.`); break;
      case "seat_claimed": li("sys", `${e.name} took seat ${e.seat + 1}.`); break;
      case "tiles_turned_up": li("sys", `Tiles turned up; ${subjectVerb(seatName(e.leader), "leads", "lead")}.`); break;
      case "hand_started": li("hand", `Hand ${e.hand_number}: ${e.hand_counts[0]} tiles each, ${undealt(e.boneyard)}. ${subjectVerb(seatName(e.leader), "leads", "lead")}.`); break;
      case "tile_played": li("play", `${seatName(e.seat)} ${e.auto ? "led" : "played"} `, h("b", {}, `${e.tile[0]}-${e.tile[1]}`),
        e.auto ? "" : ` on the ${e.end}${e.end === "up" || e.end === "down" ? " arm" : ""}`, `  (ends ${endsText(e.ends)})`); break;
      case "knocked": li("knock", `${seatName(e.seat)} knocked: nothing for ${endsText(e.ends)}`); break;
      case "points_scored": li("points", `${seatName(e.seat)} scored ${e.points}${e.how === "muggins" ? " calling muggins" : ` (count ${e.count})`}`); break;
      case "hand_ended": li("result", e.winner === null
        ? `Hand ${e.hand_number} blocked: ${rules?.hand_end_pips === false ? "" : "a tie, "}nobody scores.`
        : `Hand ${e.hand_number}: ${seatName(e.winner)} ${e.reason === "domino" ? "went out" : "won the blocked hand"}, ${
          e.points === 0 && rules?.exact_target ? `no points (they would pass ${rules.target})` : `+${e.points}`}.`); break;
      case "round_started": li("hand", `Round ${e.round}: engine ${e.engine}-${e.engine}, ${e.hand_counts[0]} tiles each, `
        + `${e.boneyard} in the boneyard. ${subjectVerb(seatName(e.leader), "begins", "begin")}.`); break;
      case "tile_placed": li("play", `${seatName(e.seat)} played `, h("b", {}, `${e.tile[0]}-${e.tile[1]}`),
        ` on ${trainText(e.train)}${e.auto ? " (timed out)" : ""}`); break;
      case "passed": li("knock", `${seatName(e.seat)} passed${e.marker ? ": a marker goes on their train" : ""}.`); break;
      case "round_ended": li("result", e.winner === null
        ? `Round ${e.round} blocked. Totals ${e.totals.join(" · ")}.`
        : `Round ${e.round}: ${seatName(e.winner)} went out. Totals ${e.totals.join(" · ")}.`); break;
      case "match_ended": li("result", e.winners && e.winners.length > 1
        ? `${e.winners.map(seatName).join(" and ")} share the win.` : `${winnerName(e.winner)} won the match.`); break;
      default: li("sys", e.type.replace(/_/g, " "));
    }
  }
  return lines;
}

export function renderLog() {
  const log = $("#log");
  // follow the newest line unless the reader scrolled up to read older ones
  const stick = !log.childElementCount || log.scrollTop + log.clientHeight >= log.scrollHeight - 8;
  const lines = logLines();
  log.replaceChildren(...lines);
  $("#log-last").textContent = lines.length ? lines[lines.length - 1].textContent : "";
  if (stick) log.scrollTop = log.scrollHeight;
}
