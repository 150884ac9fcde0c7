// The table's one state object, the only code that changes it, and what it implies.
//
// Other modules read `state`, a read-only view (assigning to it throws), and change it only
// through the named updates below: every way the table can move is listed in this file.
// The questions asked of the current view (what is playable, whose turn, seat names) live
// here too, so rendering and input answer them the same way. Persistence is here because a
// reload must find exactly what this state says.

import { tileKey } from "./tiles.js";

const STORE_KEY = "boneyard.table.v1";
const API_KEY_KEY = "boneyard.apiKey";

const table = {
  match: null,        // {id, local: {seat: token}, seen: last hand_number whose result was shown, humans}
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
                  humans: saved.humans ?? Object.keys(saved.local).length };
  table.viewer = saved.viewer ?? null;
}

/** The match is gone, or its tokens no longer open it. */
export function forgetMatch() {
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

// --- what the view allows -------------------------------------------------------------------
/** The view's play actions by tile key: key -> [{type: "play", tile, end, ...}]. */
export function plays() {
  const out = new Map();
  for (const action of table.view?.legal_actions || []) {
    if (action.type !== "play") continue;
    const k = tileKey(action.tile);
    if (!out.has(k)) out.set(k, []);
    out.get(k).push(action);
  }
  return out;
}

export const legal = (type) => (table.view?.legal_actions || []).filter((a) => a.type === type);
export const isLocal = (seat) => table.match && Object.prototype.hasOwnProperty.call(table.match.local, seat);
export const localSeats = () => (table.match ? Object.keys(table.match.local).map(Number) : []);
export const seatName = (seat) => table.view?.seats?.[seat]?.name ?? `Seat ${seat + 1}`;
export const sideOf = (seat) => {
  const sides = table.view?.sides;
  if (!sides) return seat;
  return sides.findIndex((members) => members.includes(seat));
};
/** The person on screen may move now (no dialog in the way). */
export const myTurn = () => table.view && table.view.status === "playing" && table.viewer !== null
  && table.view.turn === table.viewer && !table.overlay;

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
export function saveMatch() {
  if (table.match) localStorage.setItem(STORE_KEY, JSON.stringify({ ...table.match, viewer: table.viewer }));
  else localStorage.removeItem(STORE_KEY);
}

export function loadSavedMatch() {
  try { return JSON.parse(localStorage.getItem(STORE_KEY) || "null"); } catch { return null; }
}

/** The portal key this device was given for creating matches, if the server asked for one. */
export const savedApiKey = () => localStorage.getItem(API_KEY_KEY);
export const rememberApiKey = (key) => localStorage.setItem(API_KEY_KEY, key);
