// The match on this device: create it, keep the screen in step with the server, send moves,
// step through the dialogs between hands, and leave it for a new one.
//
// It never decides a rule: it shows each seat's view and sends back exactly the actions the
// view lists in `legal_actions`. Every seat is either played on this device or by the
// server's bots, so after our own move the answer is already current; it polls only while
// someone elsewhere must move.

import { buildSteps, lastPlayed, runSteps } from "./animate.js";
import { createMatch, getEvents, getHint, getView, postAction } from "./api.js";
import { render } from "./board.js";
import { backOnline, wentOffline } from "./connection.js";
import { closeOverlay, hideToast, showHandResult, showMatchEnd, showPass, toast } from "./dialogs.js";
import { $, announce, showScreen } from "./dom.js";
import { playerRef, recordProgress } from "./progress.js";
import {
  actionAccepted, appendEvents, askToPass, beginMatch, cacheView, dealNumber, distinctPlays, forgetMatch, isLocal,
  isSavedMatchesKey, lastResult, localSeats, markHandSeen, myTurn, plays, saveMatch, savedApiKey, savedMatch, selectTile,
  setPending,
  seatName, setPlayback, showView, state, takeDevice,
} from "./state.js";
import { cue } from "./sound.js";
import { sameTile } from "./tiles.js";
import { isTrains, placeKey } from "./trains.js";

const POLL_MS = 1500;
let pollTimer = null;
let refreshing = null; // the refresh under way: another asked for meanwhile runs once after it
let refreshAgain = false;

/** `body[data-settled]`: nothing under way (no refresh, no move in flight, no moves playing
 *  out), so what is on screen is the table the page means to show until someone acts. Tests
 *  wait on it instead of guessing when a burst of updates has ended. */
function settle() {
  document.body.toggleAttribute("data-settled", !refreshing && !state.pending && !animating);
}

/** Create the match the setup form describes; this device keeps the tokens of its human seats. */
export async function startMatch(config) {
  const human = (s) => s.kind === "you" || s.kind === "friend";
  // a portal player's page (?player_ref=) puts their ref on the "You" seat: the server's statistics follow it
  const ref = playerRef();
  const seats = config.seats.map((s, i) => {
    if (!human(s)) return { name: s.name, type: "bot", level: s.kind };
    const first = config.seats.findIndex((o) => o.kind === "you") === i;
    return ref && first ? { name: s.name, type: "remote", player_ref: ref } : { name: s.name, type: "remote" };
  });
  // only the options the player changed: the server's preset decides the rest (its target among them)
  const rules = {};
  if (config.target !== null && config.target !== undefined) rules.target = config.target;
  if (config.partners !== null && config.partners !== undefined) rules.partners = config.partners;
  const { data } = await createMatch({ preset: config.preset, rules, seats }, savedApiKey());
  const local = {};
  for (const seat of data.seats) if (seat.token) local[seat.seat] = seat.token;
  beginMatch({ id: data.id, local, seen: 0, humans: config.seats.filter(human).length });
  closeOverlay();
  saveMatch();
  showScreen("table");
  await refresh();
}

/** Which local seat should hold the device now: the one whose turn it is, else the last one. */
function wantedViewer(view) {
  const seats = localSeats();
  if (!seats.length) return null;
  if (view && view.status === "playing" && isLocal(view.turn)) return view.turn;
  if (state.viewer !== null && isLocal(state.viewer)) return state.viewer;
  return seats[0];
}

async function fetchView(seat) {
  const token = seat === null ? undefined : state.match.local[seat];
  const cached = state.etags[seat];
  const res = await getView(state.match.id, token, cached?.etag);
  if (res.status === 304 && cached) return cached.view;
  cacheView(seat, res.etag, res.data);
  return res.data;
}

async function fetchEvents() {
  // The log shows counts and public moves only, so any local seat's redaction will do;
  // it never prints the tiles a seat drew (friends share this screen).
  const seats = localSeats();
  const token = seats.length ? state.match.local[seats[0]] : undefined;
  for (let guard = 0; guard < 50; guard++) {
    const { data } = await getEvents(state.match.id, token, state.eventsAfter);
    appendEvents(data.events);
    if (data.next_after === null || data.next_after === undefined) break;
  }
}

/** Bring the table up to date; asked again while a refresh runs (a poll, focus, another tab's
 *  change, a retry), it runs once more after that one instead of racing it. */
export function refresh() {
  if (!state.match) return Promise.resolve();
  if (refreshing) { refreshAgain = true; return refreshing; }
  // every caller waits for the last run, so none goes on with a picture older than its ask
  refreshing = (async () => {
    try {
      do { refreshAgain = false; await refreshNow(); } while (refreshAgain && state.match);
    } finally { refreshing = null; settle(); }
  })();
  settle();
  return refreshing;
}

/** The offline banner's retry: the table's refresh, while the table is on screen (the form has
 *  its own "Try again"; a result dialog must not open over it). */
function retryTable() {
  if (state.match && !$("#table").hidden) return refresh();
  backOnline();
}

/** Fetch the view that belongs on screen (and new events), draw it, open any dialog it calls for. */
async function refreshNow() {
  if (!state.match) return;
  clearTimeout(pollTimer);
  // a move answered before this fetch: the view it brings already follows that move
  const afterMove = Boolean(state.pending?.answered);
  try {
    let view = await fetchView(state.viewer === null ? wantedViewer(null) : state.viewer);
    const wanted = wantedViewer(view);
    if (wanted !== view.seat) {
      if (state.match.humans > 1 && state.viewer !== null && !state.passTo) {
        askToPass(wanted);        // the next person takes the device behind a pass screen
      } else if (!state.passTo) {
        view = await fetchView(wanted);
      }
    }
    const before = { view: state.view, logged: state.events.length };   // the picture on screen until now
    showView(view);
    if (afterMove) endPending();
    if (state.eventsAfter < view.seq) await fetchEvents();
    backOnline();
    saveMatch();
    recordProgress();
    await playNewEvents(before);
    render();
    announceTurn();
    nextOverlay();
  } catch (err) {
    // no answer: the banner says so and tries again by itself (no poll meanwhile)
    if (err.offline) { wentOffline(retryTable); return; }
    if (err.status === 404 || err.status === 401 || err.status === 403) {
      // the match is gone (another database) or the tokens no longer open it: start over
      forgetMatch();
      showScreen("setup");
    }
    toast(err.message);
  }
  schedulePoll();
}

// --- new events, one at a time -----------------------------------------------------------------
let run = null;          // the steps being shown (animate.js runSteps), while some are
let animating = false;   // timed steps under way (not waiting on a hand's result)

// A tap or key while moves play out skips to the end. It is not also a move: the tap's click
// on the hand or the line is swallowed, and so is the key (but M, Tab and modifiers pass),
// since what the person saw was an earlier table than the one they would be moving on.
function swallowClick(ev) {
  if (!ev.target.closest?.("#me, #board")) return;
  ev.stopPropagation();
  ev.preventDefault();
}

function onSkipPointer() {
  if (!animating) return;
  run.skip();
  document.addEventListener("click", swallowClick, { capture: true, once: true });
  document.addEventListener("pointerdown", () => document.removeEventListener("click", swallowClick, true),
    { capture: true, once: true });
}

function onSkipKey(ev) {
  if (!animating || ["m", "M", "Tab", "Shift", "Control", "Alt", "Meta"].includes(ev.key)) return;
  run.skip();
  ev.preventDefault();
  ev.stopImmediatePropagation();
}

function setAnimating(on) {
  animating = on;
  settle();
  document.body.toggleAttribute("data-animating", on);
  $("#skip").hidden = !on;
}

/** Show the events that came with the view one by one: the viewer's own move, then each reply,
 *  a short pause apart (instant under prefers-reduced-motion); a hand that ended among them
 *  shows its result beside that hand's final board. Nothing is offered until they are shown. */
async function playNewEvents(before) {
  const fresh = state.events.slice(before.logged);
  const lastBefore = lastPlayed(state.events.slice(0, before.logged));
  const steps = buildSteps(before.view, fresh, state.view, { name: seatName, lastBefore });
  if (!steps?.length) return;
  const show = (step) => {
    setPlayback({ ...step, logged: before.logged + step.shown });
    render();
    step.cues.forEach(cue);
    announce(step.said);
  };
  const atHandEnd = (step) => new Promise((resolve) => {
    const known = state.view.last_hand;
    const result = known && known.hand_number === step.result.hand_number ? known : step.result;
    if (result.hand_number <= (state.match.seen || 0)) { resolve(); return; }
    showHandResult(result, () => {
      markHandSeen(result.hand_number);
      saveMatch();
      closeOverlay();
      resolve();
    });
  });
  const instant = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  run = runSteps(steps, { show, tell: (step) => announce(step.said), atHandEnd, instant, onPhase: setAnimating });
  document.addEventListener("pointerdown", onSkipPointer, true);
  document.addEventListener("keydown", onSkipKey, true);
  try {
    await run.done;
  } finally {
    document.removeEventListener("pointerdown", onSkipPointer, true);
    document.removeEventListener("keydown", onSkipKey, true);
    setAnimating(false);
    run = null;
    setPlayback(null);
  }
}

let turnTold = null;   // the seq at which the person on screen was last told it is their turn

/** "Your turn…" through the live region, once per turn (the status line itself is not live: it
 *  also narrates each move, which the steps already announce). */
function announceTurn() {
  if (!myTurn() || turnTold === state.view.seq) return;
  turnTold = state.view.seq;
  announce($("#status").textContent);
}

/** The Skip button: the rest of the moves at once. */
export function skipMoves() {
  run?.skip();
}

function schedulePoll() {
  clearTimeout(pollTimer);
  const v = state.view;
  if (!state.match || !v) return;
  const waiting = v.status === "waiting" || (v.status === "playing" && !isLocal(v.turn));
  if (waiting) pollTimer = setTimeout(refresh, POLL_MS);
}

/** Send one of the view's legal actions for the seat on screen, then show the result. While it
 *  is in flight the table shows it pending (the tile marked, no move offered) and nothing else
 *  is sent: a second tap would be a move for a table that is about to change. */
export async function act(action) {
  // one action in flight at a time (state.pending): a double tap must not send two
  if (state.pending || !state.view || state.viewer === null) return;
  setPending(action);
  settle();
  document.body.classList.add("pending");
  render();
  let offline = false;
  try {
    const body = { ...action, expected_seq: state.view.seq };
    delete body.scores;   // a hint the view carries, not part of the move
    const { data, etag } = await postAction(state.match.id, state.match.local[state.viewer], body);
    hideToast();
    actionAccepted(etag, data.view);
  } catch (err) {
    if (err.offline) offline = true;
    else toast(err.code === "stale_seq" ? "The table moved on; here is the latest." : err.message);
  }
  if (offline) {
    // unknown whether it arrived: the retry shows what the server has; until then the table is as it was
    endPending();
    render();
    wentOffline(retryTable);
    return;
  }
  // still pending until the view after the move is in: the old one must not take a second move
  setPending({ ...state.pending, answered: true });
  await refresh();
  if (state.pending) { endPending(); render(); }
}

function endPending() {
  setPending(null);
  settle();
  document.body.classList.remove("pending");
}

/** Ask the server for a hint (GET /hint: the expert's values of this seat's choices, from what it
 *  sees) and show its pick: the tile selected in the hand, and a toast naming the move. */
export async function askHint() {
  if (!myTurn() || state.pending) return;
  const asked = state.view.seq;
  let choices;
  try {
    ({ choices } = (await getHint(state.match.id, state.match.local[state.viewer])).data);
  } catch (err) {
    toast(err.message);
    return;
  }
  if (state.view.seq !== asked) return;          // the table moved on meanwhile: the hint is stale
  if (!choices.length) { toast("Only one move to make here: no hint needed."); return; }
  const best = choices[0];
  const next = choices[1];
  const margin = next ? ` (${Math.round((best.value - next.value) * 10) / 10} points better than ${next.choice})` : "";
  if (best.action.tile) {
    const at = state.view.hand.findIndex((t) => sameTile(t, best.action.tile));
    if (at >= 0) selectTile(at);
  }
  render();
  toast(`Hint: ${best.choice}${margin}.`);
}

/** Play a tile by key, on `end`, or on its only end; a tile whose ends all come to the same
 *  (same number, same score) plays on the first; one that fits different ends asks which. */
export function playTile(tileKey, end) {
  const options = distinctPlays(tileKey);
  const action = end ? plays().get(tileKey)?.find((a) => placeKey(a) === end) : options.length === 1 ? options[0] : null;
  if (action) return act(action);
  if (options.length > 1) {
    toast(isTrains(state.view) ? "This tile fits more than one train: tap a train, or press , or . then Enter."
      : "This tile fits more than one end: tap an end, or press , or . then Enter.");
  }
}

/** The dialog the view calls for, in order: an unseen hand result, the match's end, a pass screen. */
function nextOverlay() {
  if (state.overlay) return;
  const v = state.view;
  const result = lastResult(v);
  if (result && dealNumber(result) > (state.match.seen || 0)) {
    return showHandResult(result, () => {
      markHandSeen(dealNumber(result));
      saveMatch();
      closeOverlay();
      render();
      nextOverlay();
    });
  }
  if (v.status === "ended") return showMatchEnd(newMatch);
  if (state.passTo !== null) {
    return showPass(state.passTo, async (seat) => {
      takeDevice(seat);
      closeOverlay();
      await refresh();
    });
  }
}

/** Leave the table for the new-match form; "Back to the table" is offered while this match runs. */
export function newMatch() {
  closeOverlay();
  clearTimeout(pollTimer);
  $("#resume").hidden = !(state.match && state.view && state.view.status !== "ended");
  showScreen("setup");
  setupOpened?.();
}

let setupOpened = null;
/** `fn` runs each time the table is left for the form (it lists the matches saved here). */
export function whenSetupOpens(fn) {
  setupOpened = fn;
}

/** Back from the form to the match still running. */
export function resumeTable() {
  showScreen("table");
  refresh();
}

/** Go back to a match saved on this device (another of this tab's, or one another tab started). */
export function openSavedMatch(saved) {
  closeOverlay();
  beginMatch({ id: saved.id, local: saved.local, seen: saved.seen || 0,
               humans: saved.humans ?? Object.keys(saved.local).length });
  saveMatch();
  showScreen("table");
  return refresh();
}

/** Keep this tab in step: when it is looked at again, and when another tab moves its match on
 *  (that tab's save changes the stored seq, and the `storage` event tells every other tab). */
export function bindSync() {
  const onTable = () => Boolean(state.match) && !$("#table").hidden;
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && onTable()) refresh();
  });
  window.addEventListener("focus", () => { if (onTable()) refresh(); });
  window.addEventListener("storage", (ev) => {
    if (!isSavedMatchesKey(ev.key) || !onTable()) return;
    const saved = savedMatch(state.match.id);
    if (saved && saved.seq !== state.view?.seq) refresh();
  });
}
