// Moves you can follow: the table as it stood after each new event, and the timed run through them.
//
// The server answers a move with a view in which every computer reply has already happened.
// To show them one by one the page needs the picture after each event, and it needs no new
// API for that: the events say what moved, the views before and after say where things stood.
//   * Events of the hand already on screen are applied forwards to the view shown before
//     (`prev`): a tile goes on the end its event names, oriented by the ends it left open.
//   * Events of the hand the final view shows (all of them, or those from its hand_started on)
//     are taken back from that view: a tile a later event played is lifted off the table
//     (tiles are unique, so it is found by its face wherever it lies), its count goes back to
//     its player, a later draw goes back to the boneyard.
// Either way nothing here decides a rule: the server's events and views say everything.
//
// `buildSteps` and what it calls are pure (inputs in, pictures out) so "the table at step k"
// can be reasoned about apart from time; `runSteps` owns the timers, the skip and the pauses.

import { sameTile } from "./tiles.js";
import { isTrains, placeInSentence } from "./trains.js";
import { applyTrainEvent, trainTable } from "./trains-steps.js";

/** Pause between two shown events, in ms: long enough to see where a tile went, short enough not to bore. */
export const STEP_MS = 600;

// a new step starts at each of these; any other event joins the step before it (a scoring
// play's points_scored, the match_ended after the last hand_ended) or the next one
const STEP_STARTS = new Set(["tile_played", "tile_drawn", "knocked", "hand_started", "hand_ended", "tile_placed", "passed"]);

const copy = (x) => JSON.parse(JSON.stringify(x));
const endsList = (ends) => Object.entries(ends || {}).map(([end, value]) => ({ end, value }));

/** The events grouped into steps: a run of draws by one seat is one step; points join their play. */
export function groupSteps(events) {
  const groups = [];
  let pending = [];    // events that join the next step (nothing shown for them on their own)
  for (const e of events) {
    const current = groups[groups.length - 1];
    const drawRun = e.type === "tile_drawn" && current?.main.type === "tile_drawn" && current.main.seat === e.seat
      && current.events[current.events.length - 1].type === "tile_drawn";
    if (STEP_STARTS.has(e.type) && !drawRun) {
      groups.push({ main: e, events: [...pending, e] });
      pending = [];
    } else if (current && e.type !== "turn_timed_out") {   // a timeout belongs to the moves after it
      current.events.push(e);
    } else {
      pending.push(e);
    }
  }
  if (pending.length && groups.length) groups[groups.length - 1].events.push(...pending);
  return groups;
}

// --- forwards: the hand on screen, one event after another ------------------------------------
function placeForward(snap, e) {
  const [a, b] = e.tile;
  const touching = (outer) => (a === outer ? b : a);
  if (!snap.line.length) {
    // the lead lies as its ends say: left half on the left
    snap.line.push(e.ends.left === b && a !== b ? [b, a] : [a, b]);
  } else if (e.end === "left") {
    snap.line.unshift([e.ends.left, touching(e.ends.left)]);
  } else if (e.end === "right") {
    snap.line.push([touching(e.ends.right), e.ends.right]);
  } else {
    const outer = e.ends[e.end];
    const root = touching(outer);
    if (!snap.arms) snap.arms = { up: [], down: [] };
    // the arms open on the spinner: the double in the line showing the number they start from
    if (!snap.spinner) snap.spinner = snap.line.find((t) => t[0] === t[1] && t[0] === root) || null;
    snap.arms[e.end].push([root, outer]);
  }
}

function applyForward(snap, e, viewer) {
  if (e.type === "tile_played") {
    placeForward(snap, e);
    snap.hand_counts[e.seat] -= 1;
    if (e.seat === viewer) snap.hand = snap.hand.filter((t) => !sameTile(t, e.tile));
  } else if (e.type === "tile_drawn") {
    snap.boneyard -= 1;
    snap.hand_counts[e.seat] += 1;
    if (snap.drawn) snap.drawn[e.seat] = (snap.drawn[e.seat] || 0) + 1;
    if (e.seat === viewer && e.tile) snap.hand.push(e.tile);
  }
}

// --- backwards: the hand the final view shows, taken back event by event ----------------------
function undo(snap, e, viewer) {
  if (e.type === "tile_played") {
    const off = (tiles) => tiles.filter((t) => !sameTile(t, e.tile));
    snap.line = off(snap.line);
    if (snap.arms) snap.arms = { up: off(snap.arms.up), down: off(snap.arms.down) };
    if (snap.spinner && sameTile(snap.spinner, e.tile)) snap.spinner = null;
    snap.hand_counts[e.seat] += 1;
    if (e.seat === viewer) snap.hand.push(e.tile);
  } else if (e.type === "tile_drawn") {
    snap.boneyard += 1;
    snap.hand_counts[e.seat] -= 1;
    if (snap.drawn) snap.drawn[e.seat] = Math.max(0, (snap.drawn[e.seat] || 0) - 1);
    if (e.seat === viewer && e.tile) snap.hand = snap.hand.filter((t) => !sameTile(t, e.tile));
  }
}

function tablePart(view) {
  return copy({ line: view.line || [], spinner: view.spinner ?? null, arms: view.arms ?? null,
                hand_counts: view.hand_counts, drawn: view.drawn || null, boneyard: view.boneyard,
                hand: view.hand || [], hand_number: view.hand_number });
}

/** What one step says in the status line (and to a screen reader); `view` names a trains game's trains. */
export function describe(group, name, view = null) {
  const e = group.main;
  const points = group.events.filter((x) => x.type === "points_scored").reduce((n, x) => n + x.points, 0);
  const scored = points ? `, scoring ${points}` : "";
  switch (e.type) {
    case "tile_played": {
      if (e.auto) return `${name(e.seat)} led ${e.tile[0]}-${e.tile[1]}${scored}.`;
      const where = e.end === "up" || e.end === "down" ? `the ${e.end} arm` : `the ${e.end}`;
      return `${name(e.seat)} played ${e.tile[0]}-${e.tile[1]} on ${where}${scored}.`;
    }
    case "tile_drawn": {
      const n = group.events.filter((x) => x.type === "tile_drawn").length;
      return `${name(e.seat)} drew ${n} from the boneyard.`;
    }
    case "knocked": return `${name(e.seat)} knocked: nothing fits.`;
    case "tile_placed": {
      const where = view ? placeInSentence(view, String(e.train), name) : e.train;
      return `${name(e.seat)} played ${e.tile[0]}-${e.tile[1]} on ${where}.`;
    }
    case "passed": return `${name(e.seat)} passed${e.marker ? ": a marker goes on their train" : ""}.`;
    case "hand_started": return `Hand ${e.hand_number}: ${name(e.leader)} to lead.`;
    case "hand_ended":
      if (e.winner === null || e.winner === undefined) return `Hand ${e.hand_number} blocked: nobody scores.`;
      return `Hand ${e.hand_number}: ${name(e.winner)} ${e.reason === "domino" ? "went out" : "won the blocked hand"}, +${e.points}.`;
    default: return "";
  }
}

/** The sounds a step makes, by name (sound.js plays them). */
export function cuesOf(group) {
  const kinds = new Set(group.events.map((e) => e.type));
  const cues = [];
  if (kinds.has("tile_played") || kinds.has("tile_placed")) cues.push("play");
  if (kinds.has("tile_drawn")) cues.push("draw");
  if (kinds.has("knocked") || kinds.has("passed")) cues.push("knock");
  if (kinds.has("points_scored")) cues.push("score");
  if (kinds.has("hand_ended")) cues.push("hand");
  return cues;
}

/** The tile the last tile_played among `events` placed, if it still lies on the table (no hand started since). */
export function lastPlayed(events) {
  for (let i = events.length - 1; i >= 0; i--) {
    if (events[i].type === "tile_played" || events[i].type === "tile_placed") return events[i].tile;
    if (events[i].type === "hand_started" || events[i].type === "round_started") return null;
  }
  return null;
}

/**
 * The pictures to show, one per step, for `events` (those that took the table from `prev` to
 * `final`, both views of seat `viewer`). Each step: {view, shown, last, said, cues, handEnd,
 * seq}; `view` is a view-like object the board draws (no legal actions: nothing is offered
 * while the past is on screen), `shown` how many of `events` the log prints by then. Null when
 * the pictures cannot be told from what is known: no earlier view, another seat's, a gap in
 * the events, or more than one new hand among them. `name(seat)` names a seat; `lastBefore`
 * is the tile placed last before these events.
 */
export function buildSteps(prev, events, final, { name, lastBefore = null }) {
  if (!prev || !final || prev.seat !== final.seat || !events.length) return null;
  if (events[0].seq !== prev.seq + 1 || events[events.length - 1].seq !== final.seq) return null;
  if (isTrains(final)) return trainSteps(prev, events, final, { name, lastBefore });
  const starts = events.map((e, i) => (e.type === "hand_started" ? i : -1)).filter((i) => i >= 0);
  if (starts.length > 1) return null;
  const split = starts.length ? starts[0] : 0;   // events[split:] belong to the final view's hand
  const viewer = final.seat;
  const groups = groupSteps(events);
  // index of the last event of each group, in `events`
  const lastIndex = [];
  let seen = 0;
  for (const g of groups) { seen += g.events.length; lastIndex.push(seen - 1); }

  // the table after each event: forwards before `split`, backwards from `final` from `split` on
  const tables = new Array(events.length);
  if (split > 0) {
    const snap = tablePart(prev);
    for (let i = 0; i < split; i++) { applyForward(snap, events[i], viewer); tables[i] = copy(snap); }
  }
  {
    const snap = tablePart(final);
    for (let i = events.length - 1; i >= split; i--) { tables[i] = copy(snap); undo(snap, events[i], viewer); }
  }

  // what follows from the events themselves: the ends, the scores, the last tile placed
  let ends = prev.ends || [];
  let scores = prev.scores;
  let last = lastBefore;
  const after = [];
  for (const e of events) {
    if (e.type === "hand_started") { ends = []; last = null; }
    if ((e.type === "tile_played" || e.type === "knocked") && e.ends) ends = endsList(e.ends);
    if (e.type === "tile_played") last = e.tile;
    if (e.scores) scores = e.scores;
    after.push({ ends, scores, last });
  }

  return groups.map((g, k) => {
    const i = lastIndex[k];
    const t = tables[i];
    const handEnd = g.events.some((e) => e.type === "hand_ended");
    const ended = g.events.some((e) => e.type === "match_ended");
    const view = { ...final, ...t, ends: after[i].ends, scores: after[i].scores, count: null,
                   seq: events[i].seq, legal_actions: [], pips: t.hand.reduce((n, x) => n + x[0] + x[1], 0),
                   turn: g.main.seat ?? g.main.leader ?? null, status: ended ? "ended" : "playing" };
    if (i === events.length - 1 && !handEnd) Object.assign(view, { count: final.count, pips: final.pips });
    return { view, shown: i + 1, last: after[i].last, said: describe(g, name), cues: cuesOf(g), handEnd,
             result: handEnd ? g.events.find((e) => e.type === "hand_ended") : null };
  });
}

/** buildSteps for a trains game: the table played forwards from `prev`, one step at a time
 *  (trains-steps.js), within one round (a round's end shows its result over the final board). */
function trainSteps(prev, events, final, { name, lastBefore }) {
  if (!isTrains(prev) || !prev.board || prev.round !== final.round) return null;
  if (events.some((e) => e.type === "round_started" || e.type === "round_ended" || e.type === "match_ended")) return null;
  const viewer = final.seat;
  const table = trainTable(prev);
  const options = { coverDoubles: final.rules.double_must_be_covered !== false };
  const groups = groupSteps(events);
  let last = lastBefore;
  let shown = 0;
  return groups.map((g, k) => {
    for (const e of g.events) {
      applyTrainEvent(table, e, viewer, options);
      if (e.type === "tile_placed") last = e.tile;
    }
    shown += g.events.length;
    const seq = events[shown - 1].seq;
    // the last step is the view itself (what is owed included), nothing offered until it is on screen
    const view = k === groups.length - 1 ? { ...final, legal_actions: [] }
      : { ...final, ...copy(table), drawn: null, legal_actions: [], seq, turn: g.main.seat ?? null, totals: prev.totals,
          pips: table.hand.reduce((n, t) => n + t[0] + t[1], 0) };
    return { view, shown, last, said: describe(g, name, final), cues: cuesOf(g), handEnd: false, result: null };
  });
}

// --- time -------------------------------------------------------------------------------------
/**
 * Show `steps` one after another, STEP_MS apart. `show(step)` draws one; at a step that ends a
 * hand, `atHandEnd(step)` (a promise: the hand's result, dismissed) runs before anything after
 * it. `skip()` on the returned handle jumps to the end: the steps in between are not drawn,
 * though a hand's end still stops for its result. `instant` (reduced motion) starts skipped.
 */
export function runSteps(steps, { show, tell = () => {}, atHandEnd, instant = false, onPhase = () => {} }) {
  let skipped = instant;
  let wake = null;
  const pause = () => new Promise((resolve) => {
    if (skipped) { resolve(); return; }
    const timer = setTimeout(() => { wake = null; resolve(); }, STEP_MS);
    wake = () => { clearTimeout(timer); wake = null; resolve(); };
  });
  const skip = () => { skipped = true; wake?.(); };
  const done = (async () => {
    for (let k = 0; k < steps.length; k++) {
      const step = steps[k];
      const final = k === steps.length - 1;
      // a step passed over (skipped, or reduced motion) is still told: a screen reader hears every move
      if (!skipped || step.handEnd || final) show(step);
      else tell(step);
      if (step.handEnd) {
        if (!skipped) await pause();          // the final board first, then its result
        onPhase(false);
        await atHandEnd(step);
        skipped = instant;                    // a new hand: its moves are followed again
        if (!final) onPhase(!skipped);
      } else if (!final && !skipped) {
        onPhase(true);
        await pause();
      }
    }
    onPhase(false);
  })();
  return { done, skip };
}
