// Boneyard's reference web table: the entry module. Dependency-free ES modules, no build step.
//
// It speaks only the public HTTP API (/v1): it creates a match, keeps the seat tokens of
// the seats played on this device, shows each seat's view and sends back exactly the
// actions the view lists in `legal_actions`. It never decides a rule itself: what is
// playable, where, and whether drawing or knocking is allowed all come from the server.
//
// The modules, in import order: each imports only modules above it in this list
// (tests/e2e/test_web_modules.py checks the graph has no cycle and reaches every file).
//   tiles.js    tile keys and their SVG faces
//   trains.js   a trains game's view read: its rows in the table's order, where an action goes
//   trains-steps.js  a trains game's table after each new event (pure), for animate.js
//   animate.js  the table after each new event (pure), and the timed, skippable run through them
//   dom.js      element helpers and the switch between the two screens
//   sound.js    cues made with Web Audio (play, draw, knock, score, hand end); M mutes
//   api.js      the HTTP client: the only code that knows the API's paths
//   connection.js  the offline banner: retries with backoff, clears on the first answer
//   presets.js  the rule presets and bot levels, as GET /v1/presets lists them (fetched once)
//   state.js    the one state object, its named updates, what the view allows, persistence
//   log.js      the event log
//   progress.js progress on this device (and a portal player's on the server)
//   trains-board.js  drawing a trains game's engine and its rows of tiles
//   board.js    drawing the table from the state
//   review.js   the review after a match: the table and hands at each analysed decision (pure steps, one card)
//   dialogs.js  hand result, match end and pass screen; the toast
//   match.js    create, refresh, poll, act; which dialog comes next; leave for a new match
//   input.js    taps, drags and keys
//   setup.js    the new-match form
// This module wires them together and resumes a match saved on this device.

import { renderLine } from "./board.js";
import { bindConnection } from "./connection.js";
import { $, showScreen } from "./dom.js";
import { bindInput } from "./input.js";
import { bindSync, refresh, skipMoves } from "./match.js";
import { bindSetup } from "./setup.js";
import { bindSound } from "./sound.js";
import { loadSavedMatch, resumeMatch } from "./state.js";

async function init() {
  bindInput();
  bindConnection();
  bindSync();
  bindSound();
  $("#skip").addEventListener("click", skipMoves);
  // the line's layout depends on the board's size: lay it out again when that changes
  new ResizeObserver(() => renderLine()).observe($("#board"));
  if (window.matchMedia("(max-width: 899px)").matches) $("#log-panel").open = false;

  // the presets and levels arrive first: the form's menus and the table's heading read them
  await bindSetup();
  const saved = loadSavedMatch();
  if (saved?.id && saved.local) {
    resumeMatch(saved);
    showScreen("table");
    refresh();
  } else {
    showScreen("setup");
  }
}

init();
