// The connection to the server: an offline banner that retries with backoff and clears itself.
//
// A request that gets no answer (the server is down, restarting, or this device lost its
// network) does not end in a passing toast: the banner stays, says when the next try is, and
// the match flow's retry runs on its own (sooner when the browser says it is online again, or
// when the person presses "Try now"). The first answer that arrives clears it.

import { $ } from "./dom.js";

const FIRST_RETRY_MS = 1000;
const MAX_RETRY_MS = 15000;   // a server back after a restart is found within this

let retry = null;       // what to run to try again (the match flow's refresh)
let delay = 0;          // the wait before the next try; doubles with each failure
let timer = null;
let ticker = null;
let dueAt = 0;

const banner = () => $("#offline");

export const isOffline = () => document.body.classList.contains("offline");

function showBanner(text) {
  $("#offline-text").textContent = text;
  banner().hidden = false;
  document.body.classList.add("offline");
}

function tick() {
  const seconds = Math.max(0, Math.ceil((dueAt - Date.now()) / 1000));
  const why = navigator.onLine === false ? "This device is offline." : "The server is not answering.";
  showBanner(seconds ? `${why} Trying again in ${seconds} s…` : `${why} Trying again…`);
}

/** A request got no answer: show the banner and run `retryWith` after a growing wait. */
export function wentOffline(retryWith) {
  retry = retryWith;
  delay = delay ? Math.min(delay * 2, MAX_RETRY_MS) : FIRST_RETRY_MS;
  clearTimeout(timer);
  clearInterval(ticker);
  dueAt = Date.now() + delay;
  tick();
  ticker = setInterval(tick, 1000);
  timer = setTimeout(retryNow, delay);
}

/** An answer arrived: the banner goes and the next failure starts the backoff afresh. */
export function backOnline() {
  if (!isOffline() && !timer) return;
  clearTimeout(timer);
  clearInterval(ticker);
  timer = null;
  delay = 0;
  banner().hidden = true;
  document.body.classList.remove("offline");
}

/** Try again now (the browser is back online, or the person asked). */
export function retryNow() {
  clearTimeout(timer);
  timer = null;
  if (retry) retry();
  else backOnline();   // offline without a failed request: nothing to redo
}

/** Listen to the browser's own word on the network and to the banner's button, once. */
export function bindConnection() {
  $("#offline-retry").addEventListener("click", retryNow);
  window.addEventListener("online", retryNow);
  window.addEventListener("offline", () => {
    if (!isOffline()) { dueAt = 0; showBanner("This device is offline. The table resumes when it is back."); }
  });
}
