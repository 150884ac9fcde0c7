// Sound: a short cue for a play, a draw, a knock, points scored and a hand's end, made in the
// page with the Web Audio API (oscillators through a gain envelope; nothing is downloaded).
//
// Browsers let a page make sound only after a person touched it, so the audio graph is built
// on the first tap or key and not before; cues asked for earlier are silent. `M` (or the top
// bar's button) mutes and unmutes, remembered on this device.
//
// Each cue the page hands to the audio graph is counted on <body> (data-sounds-play="3", …):
// the browser tests read what was played without audio hardware. A muted cue is not counted,
// since nothing was asked of the graph.

import { $ } from "./dom.js";

const MUTE_KEY = "boneyard.muted";

// each cue: notes of [frequency Hz, start s, length s, wave, peak gain]
const CUES = {
  play: [[520, 0, 0.07, "triangle", 0.35], [260, 0.005, 0.09, "sine", 0.25]],
  draw: [[330, 0, 0.06, "sine", 0.18], [392, 0.07, 0.06, "sine", 0.18]],
  knock: [[150, 0, 0.08, "square", 0.2], [150, 0.16, 0.08, "square", 0.2]],
  score: [[660, 0, 0.1, "triangle", 0.25], [880, 0.1, 0.16, "triangle", 0.25]],
  hand: [[523, 0, 0.14, "triangle", 0.25], [659, 0.14, 0.14, "triangle", 0.25], [784, 0.28, 0.3, "triangle", 0.25]],
};

let context = null;
let muted = localStorage.getItem(MUTE_KEY) === "1";

export const isMuted = () => muted;

/** The audio graph, built in a person's gesture (the browser's autoplay policy asks for one). */
function wake() {
  if (context) { if (context.state === "suspended") context.resume(); return; }
  const Ctx = window.AudioContext || window.webkitAudioContext;
  if (!Ctx) return;
  try { context = new Ctx(); } catch { context = null; }
}

/** Play the cue `name` (play | draw | knock | score | hand), unless muted or no gesture yet. */
export function cue(name) {
  const notes = CUES[name];
  if (muted || !context || !notes) return;
  const t0 = context.currentTime + 0.01;
  for (const [freq, start, length, wave, peak] of notes) {
    const osc = context.createOscillator();
    const gain = context.createGain();
    osc.type = wave;
    osc.frequency.value = freq;
    // a quick attack and an exponential fall: a click of tile on table, not a beep
    gain.gain.setValueAtTime(0.0001, t0 + start);
    gain.gain.exponentialRampToValueAtTime(peak, t0 + start + 0.008);
    gain.gain.exponentialRampToValueAtTime(0.0001, t0 + start + length);
    osc.connect(gain).connect(context.destination);
    osc.start(t0 + start);
    osc.stop(t0 + start + length + 0.02);
  }
  const key = `sounds${name[0].toUpperCase()}${name.slice(1)}`;
  document.body.dataset[key] = String(Number(document.body.dataset[key] || 0) + 1);
}

function showMuted() {
  const btn = $("#mute");
  if (!btn) return;
  btn.setAttribute("aria-pressed", muted ? "true" : "false");
  // the name stays "Mute"; pressed means muted (the icon shows the speaker struck through)
  btn.title = muted ? "Sound is off: M turns it on" : "Sound is on: M mutes";
  document.body.classList.toggle("muted", muted);
}

/** Mute or unmute, and remember it on this device. */
export function toggleMute() {
  muted = !muted;
  localStorage.setItem(MUTE_KEY, muted ? "1" : "0");
  showMuted();
}

/** Listen for the first gesture (to build the audio graph), `M` and the mute button; once, at start-up. */
export function bindSound() {
  for (const type of ["pointerdown", "keydown"]) document.addEventListener(type, wake, { capture: true });
  $("#mute")?.addEventListener("click", toggleMute);
  document.addEventListener("keydown", (ev) => {
    if (ev.key !== "m" && ev.key !== "M") return;
    if (ev.ctrlKey || ev.metaKey || ev.altKey || ev.target.closest?.("input, select, textarea")) return;
    if ($("#table")?.hidden) return;
    ev.preventDefault();
    toggleMute();
  });
  showMuted();
}
