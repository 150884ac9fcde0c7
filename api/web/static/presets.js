// The rule presets and computer levels the page offers, as the server lists them.
//
// Their one home is the server (the presets in api/rules, the levels in api/bots), which
// serves them at GET /v1/presets with titles, descriptions and each preset's resolved rules.
// The page fetches that list once at start-up; the form, the seat menus and the table's
// heading read it from here. Until it has arrived, or when it could not be had, the lists
// are empty and a name stands for its title.

import { getPresets } from "./api.js";

let offered = null; // the server's answer, once it arrived
let loading = null; // the request under way (or done); cleared on failure so a retry asks again

/** Fetch the lists, once: resolves when they are here, rejects (ApiError or a network error) when not. */
export function loadPresets() {
  loading ??= getPresets().then(
    ({ data }) => { offered = data; },
    (err) => { loading = null; throw err; });
  return loading;
}

/** The presets in the server's order: {name, title, description, players, rules}. */
export const presets = () => offered?.presets ?? [];
/** The preset of a match created without one. */
export const defaultPreset = () => offered?.default_preset;
/** The bot levels, weakest first: {name, title, description}. */
export const botLevels = () => offered?.bot_levels ?? [];
/** The level of a computer seat nobody chose one for. */
export const defaultBotLevel = () => offered?.default_bot_level;

/** The preset named `name`, or undefined. */
export const presetNamed = (name) => presets().find((p) => p.name === name);
/** A preset's title; a preset the list does not hold shows its name. */
export const presetTitle = (name) => presetNamed(name)?.title ?? name;
/** A bot level's title; a level the list does not hold shows its name. */
export const levelTitle = (name) => botLevels().find((l) => l.name === name)?.title ?? name;
