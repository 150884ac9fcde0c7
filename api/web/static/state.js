// The table's one state object, the only code that changes it, and what it implies.
//
// Other modules read `state`, a read-only view (assigning to it throws), and change it only
// through the named updates below: every way the table can move is listed in this file.
// The questions asked of the current view (what is playable, whose turn, seat names) live
// here too, so rendering and input answer them the same way. Persistence is here because a
// reload must find exactly what this state says.

import { tileKey } from "./tiles.js";
import { isTrains, placeKey } from "./trains.js";

// The most recently saved match, in the first format (a page of an older version, and a
// browser that has only this key, still resume it); the map holds every match saved here.
const STORE_KEY = "boneyard.table.v1";
const MATCHES_KEY = "boneyard.matches.v1";   // match id -> saved match: one per tab, none lost
const TAB_KEY = "boneyard.tab.match";        // sessionStorage: the match this tab plays
const MAX_ENDED = 12;                        // ended matches kept (to look back at), newest first
const MAX_RUNNING = 50;                      // running ones: only a pile of abandoned ones reaches this
const API_KEY_KEY = "boneyard.apiKey";

const table = {
  match: null,        // {id, local: {seat: token}, seen: last hand_number whose result was shown, humans,
                      //  tournament: the id of the tournament whose pairing it is, when opened from its page}
  viewer: null,       // the seat whose view is on screen (null: spectator)
  view: null,         // the server's last view for `viewer`
  etags: {},          // seat -> {etag, view}: conditional GETs answer 304 when nothing moved
  events: [],         // the match's events so far, for the log
  eventsAfter: 0,     // seq of the last event fetched
  selected: 0,        // index into view.hand
  chosenEnd: null,    // for a tile that fits several ends: the one `,`/`.` picked
  passTo: null,       // a local seat waiting behind the pass screen
  overlay: null,      // the open dialog: "hand" | "end" | "pass" | null
  drag: null,         // the tile being dragged (input.js owns the record; the board reads its ends)
  keyboard: false,    // the last input was a key: keep focus on the hand across re-renders
  pending: null,      // the move in flight ({type, tile?}): no other is sent until it is answered
  playback: null,     // the step on screen while new events play out: {view, logged, last, said} (animate.js)
};

export const state = new Proxy(table, {
  set(_, prop) { throw new TypeError(`state.${String(prop)} is read-only: change it through state.js`); },
  deleteProperty(_, prop) { throw new TypeError(`state.${String(prop)} is read-only: change it through state.js`); },
});

// --- updates --------------------------------------------------------------------------------
/** A match was just created on this device: a fresh table for it, nobody on screen yet. */
export function beginMatch(match) {
  Object.assign(table, { match, viewer: null, view: null, etags: {}, events: [], eventsAfter: 0,
                         selected: 0, chosenEnd: null, passTo: null });
}

/** A reload found a saved match: resume it with the seat that was on screen. */
export function resumeMatch(saved) {
  table.match = { id: saved.id, local: saved.local, seen: saved.seen || 0,
                  humans: saved.humans ?? Object.keys(saved.local).length, tournament: saved.tournament ?? null };
  table.viewer = saved.viewer ?? null;
}

/** The match is gone, or its tokens no longer open it: forget it here and in storage. */
export function forgetMatch() {
  if (table.match) dropSavedMatch(table.match.id);
  table.match = null;
}

export function cacheView(seat, etag, view) {
  table.etags[seat] = { etag, view };
}

/** Put a fetched view on screen: a new seq drops the chosen end, the selection stays in the hand. */
export function showView(view) {
  const prevSeq = table.view?.seq;
  table.view = view;
  table.viewer = view.seat;
  if (view.seq !== prevSeq) table.chosenEnd = null;
  table.selected = Math.min(table.selected, Math.max(0, (view.hand || []).length - 1));
}

/** The server took our move and answered with the actor's new view (shown by the next refresh). */
export function actionAccepted(etag, view) {
  cacheView(table.viewer, etag, view);
  table.selected = Math.min(table.selected, Math.max(0, (view.hand || []).length - 1));
  table.chosenEnd = null;
}

export function appendEvents(events) {
  table.events.push(...events);
  if (events.length) table.eventsAfter = events[events.length - 1].seq;
}

/** The next person must take the device behind a pass screen. */
export function askToPass(seat) {
  table.passTo = seat;
}

/** The person at `seat` took the device: their view, from their first tile. */
export function takeDevice(seat) {
  table.passTo = null;
  table.viewer = seat;
  table.selected = 0;
}

export function markHandSeen(handNumber) {
  table.match.seen = handNumber;
}

export function setOverlay(kind) {
  table.overlay = kind;
}

/** Select the tile at `index`, wrapping round the hand, and forget the end chosen for the last one. */
export function selectTile(index) {
  const n = table.view?.hand?.length || 0;
  if (!n) return false;
  table.selected = ((index % n) + n) % n;
  table.chosenEnd = null;
  return true;
}

/** Point the selection at a tile being tapped or dragged, keeping the chosen end. */
export function setSelected(index) {
  table.selected = index;
}

export function setChosenEnd(end) {
  table.chosenEnd = end;
}

export function setDrag(drag) {
  table.drag = drag;
}

export function setKeyboard(used) {
  table.keyboard = used;
}

/** A move was sent (`action`) or answered (null): while one is in flight the table waits. */
export function setPending(action) {
  table.pending = action;
}

/** An earlier picture goes on screen while new events play out (null: the view itself again). */
export function setPlayback(step) {
  table.playback = step;
}

// --- what the view allows -------------------------------------------------------------------
// While the new events play out, the picture on screen is an earlier one than the view:
// nothing is offered then, so no move is ever made from a picture that is already gone.
const offered = () => (table.playback ? [] : table.view?.legal_actions || []);

/** The view on screen: the step being shown while new events play out, else the view itself. */
export const shownView = () => table.playback?.view ?? table.view;

/** The events the log prints: those shown so far while new ones play out, else all. */
export const shownEvents = () => (table.playback ? table.events.slice(0, table.playback.logged) : table.events);

/** The view's play actions by tile key: key -> [{type: "play", tile, end, ...}]. */
export function plays() {
  const out = new Map();
  for (const action of offered()) {
    if (action.type !== "play") continue;
    const k = tileKey(action.tile);
    if (!out.has(k)) out.set(k, []);
    out.get(k).push(action);
  }
  return out;
}

export const legal = (type) => offered().filter((a) => a.type === type);
export const isLocal = (seat) => table.match && Object.prototype.hasOwnProperty.call(table.match.local, seat);
export const localSeats = () => (table.match ? Object.keys(table.match.local).map(Number) : []);
export const seatName = (seat) => table.view?.seats?.[seat]?.name ?? `Seat ${seat + 1}`;
export const sideOf = (seat) => {
  const sides = table.view?.sides;
  if (!sides) return seat;
  return sides.findIndex((members) => members.includes(seat));
};
/** The person on screen may move now (no dialog in the way, no move of theirs in flight). */
export const myTurn = () => table.view && table.view.status === "playing" && table.viewer !== null
  && table.view.turn === table.viewer && !table.overlay && !table.pending && !table.playback;

/** What `seat` has scored: its side's score in a line game, its total in a trains game (lower
 *  is better there). */
export const seatScore = (view, seat) => (isTrains(view) ? view.totals[seat] : view.scores[sideOf(seat)]);

/** A hand's or a round's number (a line game's view says hand_number, a trains game's round). */
export const dealNumber = (viewOrResult) => viewOrResult.round ?? viewOrResult.hand_number;

/** The last hand's or round's result in the view, if any. */
export const lastResult = (view) => view.last_round ?? view.last_hand ?? null;

/** A tile's plays a person must choose between: plays onto ends showing the same number and
 *  scoring the same leave the same ends and score, so only the first of each such group counts
 *  (the server still gets an action it listed). */
export function distinctPlays(key) {
  const values = Object.fromEntries((table.view?.ends || []).map((e) => [e.end, e.value]));
  // a train is a choice of its own whatever number it shows: whose train it is matters
  const trains = isTrains(table.view);
  const seen = new Set();
  return (plays().get(key) || []).filter((a) => {
    const outcome = trains ? placeKey(a) : `${values[a.end]}|${a.scores || 0}`;
    if (seen.has(outcome)) return false;
    seen.add(outcome);
    return true;
  });
}

// --- what the rules say, in words ----------------------------------------------------------
/** How the count of the open ends scores: "none" | "fives" (All Fives) | "fives_and_threes".
 *  A rule set names it in `end_count_scoring`; one written before that option (a v1 log, a
 *  server of an earlier version) says only `fives_scoring`, true for fives. */
export const countScoring = (rules) => rules?.end_count_scoring ?? (rules?.fives_scoring ? "fives" : "none");

/** The count pill's explanation: what a count scores under these rules. */
export const COUNT_RULES = {
  fives: "Sum of the open ends: a multiple of five scores that many points",
  fives_and_threes: "Sum of the open ends: a multiple of five scores a point per five, a multiple of three a point "
    + "per three (15 scores 5 + 3 = 8)",
};

/** The target as the table says it: "61", or "61 exactly" where points past it are not scored. */
export const targetText = (rules) => `${rules.target}${rules.exact_target ? " exactly" : ""}`;

/** Why a play or a hand scored nothing at an exact target, in one sentence. */
export const exactTargetRule = (rules) =>
  `A side must reach ${rules.target} exactly: points that would take it past ${rules.target} are not scored (the play stands).`;

/** A seat named "You" (the setup form's name for the person holding the device). */
export const isYou = (name) => String(name).trim().toLowerCase() === "you";

/** `name` and the verb that agrees with it: "You lead", "Ana leads", "Ana & Bo lead". */
export function subjectVerb(name, singular, plural) {
  const many = isYou(name) || name.includes(" & ");
  return `${name} ${many ? plural : singular}`;
}

/** Who the device goes to, as a sentence says it: "Ana", or "you" for the seat named You. */
export const passName = (seat) => (isYou(seatName(seat)) ? "you" : seatName(seat));

export function winnerName(side) {
  if (side === null || side === undefined) return "Nobody";
  const sides = table.view?.sides;
  if (sides) return sides[side].map(seatName).join(" & ");
  return seatName(side);
}

export function selectedTileKey() {
  const t = table.view?.hand?.[table.selected];
  return t ? tileKey(t) : null;
}

// --- persistence: a reload resumes the match on this device ---------------------------------
// Each tab keeps the id of its own match (sessionStorage survives a reload of that tab only);
// the tokens of every match saved here live in one map in localStorage, so a new match in one
// tab never overwrites another tab's. A fresh tab resumes the match saved most recently.
function savedMatches() {
  try {
    const map = JSON.parse(localStorage.getItem(MATCHES_KEY) || "{}");
    return map && typeof map === "object" ? map : {};
  } catch { return {}; }
}

function writeSavedMatches(map) {
  const ids = Object.keys(map).sort((a, b) => (map[b].savedAt || 0) - (map[a].savedAt || 0));
  // a running match's tokens are the only way back into it: ended matches go first, and a
  // running one only beyond a bound no one playing reaches (the one not touched longest)
  for (const id of ids.filter((i) => map[i].ended).slice(MAX_ENDED)) delete map[id];
  for (const id of ids.filter((i) => !map[i].ended).slice(MAX_RUNNING)) delete map[id];
  localStorage.setItem(MATCHES_KEY, JSON.stringify(map));
}

export function saveMatch() {
  if (!table.match) return;
  const v = table.view;
  const saved = { ...table.match, viewer: table.viewer, seq: v?.seq ?? null, savedAt: Date.now(),
                  ended: v?.status === "ended",
                  preset: v?.rules?.preset ?? null, names: v ? v.seats.map((s) => s.name) : null };
  const previous = savedMatches()[table.match.id];
  // the seq only moves on with the match: storing an unchanged one again would wake the other tabs
  // (and a match taken up again, not drawn yet, has nothing new to store)
  const same = previous && (!v || (previous.seq === saved.seq && previous.viewer === saved.viewer
                                   && previous.seen === saved.seen));
  if (same) {
    sessionStorage.setItem(TAB_KEY, table.match.id);
    return;
  }
  const map = savedMatches();
  map[table.match.id] = saved;
  writeSavedMatches(map);
  sessionStorage.setItem(TAB_KEY, table.match.id);
  localStorage.setItem(STORE_KEY, JSON.stringify({ ...table.match, viewer: table.viewer }));
}

/** This tab's match; in a fresh tab the one saved most recently; else one in the first format. */
export function loadSavedMatch() {
  const map = savedMatches();
  const mine = sessionStorage.getItem(TAB_KEY);
  if (mine && map[mine]) return map[mine];
  const latest = Object.values(map).filter((m) => !m.ended).sort((a, b) => (b.savedAt || 0) - (a.savedAt || 0))[0];
  if (latest) return latest;
  try {
    const old = JSON.parse(localStorage.getItem(STORE_KEY) || "null");
    return old && !map[old.id] ? old : null;
  } catch { return null; }
}

/** The saved matches still running, newest first (the setup screen offers to go back to them). */
export function runningSavedMatches() {
  return Object.values(savedMatches()).filter((m) => !m.ended && m.local)
    .sort((a, b) => (b.savedAt || 0) - (a.savedAt || 0));
}

/** A saved match, by id (another tab may have moved it on). */
export const savedMatch = (id) => savedMatches()[id] ?? null;

/** `key` is where saved matches live: a change to it in another tab may concern this one. */
export const isSavedMatchesKey = (key) => key === MATCHES_KEY;

/** The match is gone (or its tokens no longer open it): drop its saved copy everywhere. */
export function dropSavedMatch(id) {
  const map = savedMatches();
  delete map[id];
  writeSavedMatches(map);
  if (sessionStorage.getItem(TAB_KEY) === id) sessionStorage.removeItem(TAB_KEY);
  try {
    if (JSON.parse(localStorage.getItem(STORE_KEY) || "null")?.id === id) localStorage.removeItem(STORE_KEY);
  } catch { localStorage.removeItem(STORE_KEY); }
}

/** The portal key this device was given for creating matches, if the server asked for one. */
export const savedApiKey = () => localStorage.getItem(API_KEY_KEY);
export const rememberApiKey = (key) => localStorage.setItem(API_KEY_KEY, key);
