// The match on this device: create it, keep the screen in step with the server, send moves,
// step through the dialogs between hands, and leave it for a new one.
//
// It never decides a rule: it shows each seat's view and sends back exactly the actions the
// view lists in `legal_actions`. Every seat is either played on this device or by the
// server's bots, so after our own move the answer is already current; it polls only while
// someone elsewhere must move.

import { createMatch, getEvents, getView, postAction } from "./api.js";
import { render } from "./board.js";
import { closeOverlay, hideToast, showHandResult, showMatchEnd, showPass, toast } from "./dialogs.js";
import { $, showScreen } from "./dom.js";
import {
  actionAccepted, appendEvents, askToPass, beginMatch, cacheView, forgetMatch, isLocal, localSeats,
  markHandSeen, plays, saveMatch, savedApiKey, showView, state, takeDevice,
} from "./state.js";

const POLL_MS = 1500;
let pollTimer = null;
let busy = false;     // one action in flight at a time: a double tap must not send two

/** Create the match the setup form describes; this device keeps the tokens of its human seats. */
export async function startMatch(config) {
  const human = (s) => s.kind === "you" || s.kind === "friend";
  const seats = config.seats.map((s) => human(s) ? { name: s.name, type: "remote" } : { name: s.name, type: "bot", level: s.kind });
  const { data } = await createMatch({ preset: config.preset, rules: { target: config.target }, seats }, savedApiKey());
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

/** Fetch the view that belongs on screen (and new events), draw it, open any dialog it calls for. */
export async function refresh() {
  if (!state.match) return;
  clearTimeout(pollTimer);
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
    showView(view);
    if (state.eventsAfter < view.seq) await fetchEvents();
    saveMatch();
    render();
    nextOverlay();
  } catch (err) {
    if (err.status === 404 || err.status === 401 || err.status === 403) {
      // the match is gone (another database) or the tokens no longer open it: start over
      forgetMatch();
      saveMatch();
      showScreen("setup");
    }
    toast(err.message);
  }
  schedulePoll();
}

function schedulePoll() {
  clearTimeout(pollTimer);
  const v = state.view;
  if (!state.match || !v) return;
  const waiting = v.status === "waiting" || (v.status === "playing" && !isLocal(v.turn));
  if (waiting) pollTimer = setTimeout(refresh, POLL_MS);
}

/** Send one of the view's legal actions for the seat on screen, then show the result. */
export async function act(action) {
  if (busy || !state.view || state.viewer === null) return;
  busy = true;
  document.body.classList.add("busy");
  try {
    const body = { ...action, expected_seq: state.view.seq };
    delete body.scores;   // a hint the view carries, not part of the move
    const { data, etag } = await postAction(state.match.id, state.match.local[state.viewer], body);
    hideToast();
    actionAccepted(etag, data.view);
  } catch (err) {
    toast(err.code === "stale_seq" ? "The table moved on; here is the latest." : err.message);
  } finally {
    busy = false;
    document.body.classList.remove("busy");
  }
  await refresh();
}

/** Play a tile by key, on `end`, or on its only end; a tile that fits several ends asks which. */
export function playTile(tileKey, end) {
  const options = plays().get(tileKey) || [];
  const action = end ? options.find((a) => a.end === end) : options.length === 1 ? options[0] : null;
  if (action) return act(action);
  if (options.length > 1) {
    toast("This tile fits more than one end: tap an end, or press , or . then Enter.");
  }
}

/** The dialog the view calls for, in order: an unseen hand result, the match's end, a pass screen. */
function nextOverlay() {
  if (state.overlay) return;
  const v = state.view;
  const result = v.last_hand;
  if (result && result.hand_number > (state.match.seen || 0)) {
    return showHandResult(result, () => {
      markHandSeen(result.hand_number);
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
}

/** Back from the form to the match still running. */
export function resumeTable() {
  showScreen("table");
  refresh();
}
