// The new-match form: how many players, who plays each seat, the rules and the target.
//
// The seats' settings live here (not in the table's state) so they survive a change of the
// player count and a return to the form for a rematch. The rule presets and computer levels
// come from the server through presets.js; the form shows only once they have arrived, and
// says so plainly (with a way to try again) when they could not be had.

import { showProgress, toast } from "./dialogs.js";
import { $, $$, h } from "./dom.js";
import { openSavedMatch, resumeTable, startMatch, whenSetupOpens } from "./match.js";
import { botLevels, defaultBotLevel, defaultPreset, loadPresets, presetNamed, presets, presetTitle } from "./presets.js";
import { rememberApiKey, runningSavedMatches, state } from "./state.js";

// Targets offered beside the rules' own; any whole number up to the API's bound would do
// (api/rules/ruleset.py MAX_TARGET), these are the usual lengths of a match.
const TARGET_CHOICES = [50, 61, 100, 150, 200, 250, 300];

// a computer seat starts at the server's default level (known once the list arrived)
const seatDefaults = (i) => (i === 0 ? { kind: "you", name: "You" } : { kind: null, name: `Computer ${i}` });
const seatConfig = [];   // seat i's settings, made the first time a player count shows seat i
const seatAt = (i) => (seatConfig[i] ??= seatDefaults(i));

function defaultName(kind, i) {
  if (kind === "you") return "You";
  if (kind === "friend") return `Player ${i + 1}`;
  return `Computer ${i}`;
}

const playerCount = () => Number($("input[name=players]:checked")?.value);
const chosenPreset = () => presetNamed($("#preset").value);
/** The preset's rules for `players` as the server resolved them (undefined: a count it does not allow). */
const presetRules = (preset, players) => preset?.rules?.find((r) => r.players === players);
/** Partners are offered for the table the server lists `partner_rules` for (four players). */
const partnersOffered = () => playerCount() === chosenPreset()?.partner_rules?.players;
const partnersOn = () => partnersOffered() && $("#partners").checked;
/** What the preset plays at this count with no option sent: partners (Fives and Threes' four) or not. */
const partnersByDefault = () => Boolean(presetRules(chosenPreset(), playerCount())?.partners);

/** The rules' own target for the preset, player count and partnerships, as the server resolved
 *  them (GET /v1/presets: `rules` per player count, `partner_rules` for four as partners; four
 *  alone, where the preset's four play as partners by default, is not listed: no number). */
function defaultTarget() {
  const preset = chosenPreset();
  if (partnersOn()) return preset?.partner_rules?.target ?? null;
  const rules = presetRules(preset, playerCount());
  return rules && !rules.partners ? rules.target : null;
}

/** The target menu: the rules' default first (not sent: the server applies it), then other
 *  lengths. A length the player picked stays picked. */
function renderTargets() {
  const select = $("#target");
  // a game played in rounds to the lowest total (the trains games) has no target to choose
  const hasTarget = Boolean(chosenPreset()?.rules?.some((r) => r.target !== undefined && r.target !== null));
  $("#target-field").hidden = !hasTarget;
  const picked = hasTarget ? select.value : "";
  const known = defaultTarget();
  const label = known === null ? "The rules' default" : `${known} (the rules' default)`;
  select.replaceChildren(h("option", { value: "" }, label),
    ...TARGET_CHOICES.filter((t) => t !== known).map((t) => h("option", { value: String(t) }, String(t))));
  select.value = [...select.options].some((o) => o.value === picked) ? picked : "";
}

/** Partners only at the partners' table; on, the seat list shows who plays with whom. */
function renderPartners() {
  // a preset without a four-player table has no partnerships (the server lists none)
  $("#partners-field").hidden = !partnersOffered();
  renderSeats();
  renderTargets();
}

function renderPresets() {
  renderPlayerCounts();
  const select = $("#preset");
  select.replaceChildren(...presets().map((p) => h("option", { value: p.name, title: p.description }, p.title)));
  select.value = defaultPreset();
  onPresetChange();
}

/** The Players row: one choice for each count some preset allows (the server's, not the page's:
 *  more seats appear here when the server offers them); the count picked stays picked. */
function renderPlayerCounts() {
  const picked = playerCount();
  const counts = [...new Set(presets().flatMap((p) => p.players))].sort((a, b) => a - b);
  $("#player-counts").replaceChildren(...counts.map((n) => h("label", {},
    h("input", { type: "radio", name: "players", value: String(n), checked: n === picked }), h("span", {}, String(n)))));
}

/** A preset names the player counts it allows (winner-leads: two; double-nine partners: four):
 *  only those can be chosen. Partners start as the preset plays them with no option sent. */
function onPresetChange() {
  const preset = chosenPreset();
  $("#preset-about").textContent = preset?.description ?? "";
  const allowed = preset?.players ?? [];
  const radios = $$("input[name=players]");
  radios.forEach((r) => { r.disabled = !allowed.includes(Number(r.value)); });
  if (!allowed.includes(playerCount())) {
    const first = radios.find((r) => Number(r.value) === allowed[0]);
    if (first) first.checked = true;
  }
  $("#partners").checked = Boolean(presetRules(preset, preset?.partner_rules?.players)?.partners);
  renderPartners();   // the seats, whether partners are offered, and the target follow the preset
}

function renderSeats() {
  const count = playerCount() || 0;
  $("#seat-list").replaceChildren(...Array.from({ length: count }, (_, i) => seatAt(i)).map((seat, i) => {
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
    // partners sit across the table: seats 1 & 3 (side A) against 2 & 4 (side B)
    const team = partnersOn() ? h("span", { class: `team team-${i % 2 ? "b" : "a"}`, dataset: { team: String(i % 2) } },
      i % 2 ? "Team B" : "Team A") : null;
    return h("li", {}, h("span", { class: "seat-no" }, String(i + 1)), input, select, team);
  }));
}

/** Matches still running that this device holds tokens for: any of them can be taken up again. */
function renderSavedMatches() {
  const current = state.match?.id;
  const running = runningSavedMatches().filter((m) => m.id !== current);
  $("#saved-matches").hidden = running.length === 0;
  $("#saved-list").replaceChildren(...running.map((m) => {
    const go = h("button", { type: "button", class: "btn small ghost", dataset: { savedMatch: m.id } }, "Go back");
    go.addEventListener("click", () => openSavedMatch(m));
    const about = [m.preset ? presetTitle(m.preset) : null, m.names?.join(" · ")].filter(Boolean).join(" — ");
    return h("li", {}, h("span", {}, about || m.id), go);
  }));
}

async function onSetupSubmit(ev) {
  ev.preventDefault();
  const seats = Array.from({ length: playerCount() }, (_, i) => seatAt(i)).map((s) => ({ ...s, name: s.name.trim() || defaultName(s.kind, 0) }));
  const keyInput = $("#api-key");
  if (!$("#api-key-field").hidden && keyInput.value) rememberApiKey(keyInput.value);
  const start = $("#start");
  start.disabled = true;
  try {
    // "" is the rules' default: sent only when changed (never for rules without a target)
    const target = $("#target-field").hidden ? "" : $("#target").value;
    // partners sent only where they differ from what the preset plays at this count by itself
    const partners = partnersOffered() && partnersOn() !== partnersByDefault() ? partnersOn() : null;
    await startMatch({ seats, preset: $("#preset").value, target: target ? Number(target) : null, partners });
  } catch (err) {
    // a server that needs a portal key to create matches says so by code: ask for the key
    if (KEY_CODES.includes(err.code)) { $("#api-key-field").hidden = false; keyInput.focus(); }
    toast(err.message);
  } finally {
    start.disabled = false;
  }
}

/** The refusals a portal key answers: a wrong one, none where the server wants one. */
const KEY_CODES = ["invalid_api_key", "portal_key_required", "player_ref_needs_portal"];

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
  renderPartners();
  renderSavedMatches();
}

/** Fill the form's menus and listen to it, once, at start-up; resolves when the menus are
 *  filled or the form says why they could not be. */
export async function bindSetup() {
  $("#setup-form").addEventListener("submit", onSetupSubmit);
  $("#preset").addEventListener("change", onPresetChange);
  $("#player-counts").addEventListener("change", renderPartners);   // its radios are made from the server's list
  $("#partners").addEventListener("change", renderPartners);
  $("#resume").addEventListener("click", resumeTable);
  $("#progress-open").addEventListener("click", () => showProgress());
  whenSetupOpens(renderSavedMatches);
  $("#setup-retry").addEventListener("click", fillMenus);
  await fillMenus();
}
