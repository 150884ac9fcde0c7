// The new-match form: how many players, who plays each seat, the rules and the target.
//
// The seats' settings live here (not in the table's state) so they survive a change of the
// player count and a return to the form for a rematch. The rule presets and computer levels
// are read from presets.js, their one home on the page.

import { toast } from "./dialogs.js";
import { $, $$, h } from "./dom.js";
import { resumeTable, startMatch } from "./match.js";
import { BOT_LEVELS, DEFAULT_PRESET, PRESETS } from "./presets.js";
import { rememberApiKey } from "./state.js";

const seatDefaults = (i) => (i === 0 ? { kind: "you", name: "You" } : { kind: "greedy", name: `Computer ${i}` });
const seatConfig = [0, 1, 2, 3].map(seatDefaults);

function defaultName(kind, i) {
  if (kind === "you") return "You";
  if (kind === "friend") return `Player ${i + 1}`;
  return `Computer ${i}`;
}

const playerCount = () => Number($("input[name=players]:checked").value);

function renderPresets() {
  const select = $("#preset");
  select.replaceChildren(...PRESETS.map((p) => h("option", { value: p.id }, p.label)));
  select.value = DEFAULT_PRESET;
}

function renderSeats() {
  $("#seat-list").replaceChildren(...seatConfig.slice(0, playerCount()).map((seat, i) => {
    const select = h("select", { "aria-label": `Seat ${i + 1} is played by`, dataset: { seatKind: String(i) } },
      h("option", { value: "you" }, "You"),
      h("option", { value: "friend" }, "A friend on this device"),
      BOT_LEVELS.map((lv) => h("option", { value: lv }, `Computer: ${lv}`)));
    select.value = seat.kind;
    select.addEventListener("change", () => {
      // a name the player never typed follows the kind; a typed one stays
      const auto = seat.name === defaultName(seat.kind, i);
      seat.kind = select.value;
      if (auto) { seat.name = defaultName(seat.kind, i); input.value = seat.name; }
    });
    const input = h("input", { type: "text", maxlength: "40", required: true, value: seat.name,
      "aria-label": `Seat ${i + 1} name`, dataset: { seatName: String(i) } });
    input.addEventListener("input", () => { seat.name = input.value; });
    return h("li", {}, h("span", { class: "seat-no" }, String(i + 1)), input, select);
  }));
}

async function onSetupSubmit(ev) {
  ev.preventDefault();
  const seats = seatConfig.slice(0, playerCount()).map((s) => ({ ...s, name: s.name.trim() || defaultName(s.kind, 0) }));
  const keyInput = $("#api-key");
  if (!$("#api-key-field").hidden && keyInput.value) rememberApiKey(keyInput.value);
  const start = $("#start");
  start.disabled = true;
  try {
    await startMatch({ seats, preset: $("#preset").value, target: Number($("input[name=target]:checked").value) });
  } catch (err) {
    // a server that needs a portal key to create matches says so by code: ask for the key
    if (err.code === "invalid_api_key") { $("#api-key-field").hidden = false; keyInput.focus(); }
    toast(err.message);
  } finally {
    start.disabled = false;
  }
}

/** Fill the form's menus and listen to it, once, at start-up. */
export function bindSetup() {
  renderPresets();
  renderSeats();
  $("#setup-form").addEventListener("submit", onSetupSubmit);
  $$("input[name=players]").forEach((r) => r.addEventListener("change", renderSeats));
  $("#resume").addEventListener("click", resumeTable);
}
