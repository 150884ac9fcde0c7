// The new-match form: how many players, who plays each seat, the rules and the target.
//
// The seats' settings live here (not in the table's state) so they survive a change of the
// player count and a return to the form for a rematch. The rule presets and computer levels
// come from the server through presets.js; the form shows only once they have arrived, and
// says so plainly (with a way to try again) when they could not be had.

import { toast } from "./dialogs.js";
import { $, $$, h } from "./dom.js";
import { resumeTable, startMatch } from "./match.js";
import { botLevels, defaultBotLevel, defaultPreset, loadPresets, presetNamed, presets } from "./presets.js";
import { rememberApiKey } from "./state.js";

// a computer seat starts at the server's default level (known once the list arrived)
const seatDefaults = (i) => (i === 0 ? { kind: "you", name: "You" } : { kind: null, name: `Computer ${i}` });
const seatConfig = [0, 1, 2, 3].map(seatDefaults);

function defaultName(kind, i) {
  if (kind === "you") return "You";
  if (kind === "friend") return `Player ${i + 1}`;
  return `Computer ${i}`;
}

const playerCount = () => Number($("input[name=players]:checked").value);

function renderPresets() {
  const select = $("#preset");
  select.replaceChildren(...presets().map((p) => h("option", { value: p.name, title: p.description }, p.title)));
  select.value = defaultPreset();
  onPresetChange();
}

/** A preset names the player counts it allows (winner-leads: two): only those can be chosen. */
function onPresetChange() {
  const preset = presetNamed($("#preset").value);
  $("#preset-about").textContent = preset?.description ?? "";
  const allowed = preset?.players ?? [2, 3, 4];
  const radios = $$("input[name=players]");
  radios.forEach((r) => { r.disabled = !allowed.includes(Number(r.value)); });
  if (!allowed.includes(playerCount())) {
    radios.find((r) => Number(r.value) === allowed[0]).checked = true;
    renderSeats();
  }
}

function renderSeats() {
  $("#seat-list").replaceChildren(...seatConfig.slice(0, playerCount()).map((seat, i) => {
    seat.kind ??= defaultBotLevel();
    const select = h("select", { "aria-label": `Seat ${i + 1} is played by`, dataset: { seatKind: String(i) } },
      h("option", { value: "you" }, "You"),
      h("option", { value: "friend" }, "A friend on this device"),
      botLevels().map((lv) => h("option", { value: lv.name, title: lv.description }, `Computer: ${lv.title}`)));
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

/** Fetch the presets and levels and fill the menus; without them, the form is replaced by the
 *  reason and a way to try again (a menu with nothing in it would only puzzle). */
async function fillMenus() {
  const retry = $("#setup-retry");
  retry.disabled = true;
  try {
    await loadPresets();
  } catch (err) {
    $("#setup-error-text").textContent =
      `The server's list of rules and computer players could not be loaded (${err.message}). ` +
      "Check the connection, then try again.";
    $("#setup-error").hidden = false;
    $("#setup-fields").hidden = true;
    $("#start").disabled = true;
    return;
  } finally {
    retry.disabled = false;
  }
  $("#setup-error").hidden = true;
  $("#setup-fields").hidden = false;
  $("#start").disabled = false;
  renderPresets();
  renderSeats();
}

/** Fill the form's menus and listen to it, once, at start-up; resolves when the menus are
 *  filled or the form says why they could not be. */
export async function bindSetup() {
  $("#setup-form").addEventListener("submit", onSetupSubmit);
  $("#preset").addEventListener("change", onPresetChange);
  $$("input[name=players]").forEach((r) => r.addEventListener("change", renderSeats));
  $("#resume").addEventListener("click", resumeTable);
  $("#setup-retry").addEventListener("click", fillMenus);
  await fillMenus();
}
